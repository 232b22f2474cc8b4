/// A track sample for gap filling: a (possibly smoothed) position and optional velocity.
public struct TrackSample: Sendable, Hashable {
    /// Time in seconds.
    public var timestamp_s: Double
    public var position: Coordinate
    /// Velocity (east, north) in m/s in the local frame at `position`; needed by `.hermite`.
    public var velocity_mps: SIMD2<Double>?

    public init(timestamp_s: Double, position: Coordinate, velocity_mps: SIMD2<Double>? = nil) {
        self.timestamp_s = timestamp_s
        self.position = position
        self.velocity_mps = velocity_mps
    }

    /// From a filter or smoother estimate (position and velocity).
    public init(_ e: KalmanEstimate) {
        self.init(
            timestamp_s: e.timestamp_s, position: e.position,
            velocity_mps: SIMD2(e.velocityEast_mps, e.velocityNorth_mps))
    }
}

/// A point of a gap-filled track.
public struct FilledPoint: Sendable, Hashable {
    public var timestamp_s: Double
    public var position: Coordinate
    /// True for a point created by the gap fill, false for an input sample.
    public var isFilled: Bool
}

/// A gap between two consecutive samples longer than the threshold.
public struct TrackGap: Sendable, Hashable {
    /// Index of the sample before the gap; the sample after is `beforeIndex + 1`.
    public var beforeIndex: Int
    public var start_s: Double
    public var end_s: Double
    public var duration_s: Double { end_s - start_s }
}

/// How a gap is bridged.
public enum GapFillMethod: String, Sendable, Hashable, CaseIterable, Codable {
    /// Along the great circle between the gap ends (spherical linear interpolation), at constant speed.
    case linear
    /// Natural cubic spline through `knotsPerSide` samples on each side of the gap (gap ends
    /// included), per axis (east, north) against time in a local plane anchored at the gap start —
    /// seed 004's post-processing. Interpolating noisy fixes can overshoot on straight roads.
    case cubicSpline
    /// Cubic Hermite through the positions and velocities at both gap ends (best fed with
    /// RTS-smoothed samples), in a local plane anchored at the gap start.
    case hermite
}

/// Detects gaps in a track and fills them at the track's sampling rate (seed 004: gaps > 10 s).
///
/// Every method works on the sphere or in a `LocalFrame` (3-D unit vectors), never in raw
/// degrees, so gaps across ±180° longitude or next to a pole are filled like any other.
public struct GapFill: Sendable, Hashable {
    /// A gap is a time step strictly longer than this, in seconds (> 0).
    public let threshold_s: Double
    /// Spline knots on each side of a gap, gap ends included (≥ 1; 4 by default → up to 8 knots).
    public let knotsPerSide: Int
    /// Fill interval in seconds; nil = the track's median time step.
    public let interval_s: Double?

    /// - Throws: `TrackError.invalidParameter` for a non-positive or non-finite value.
    public init(threshold_s: Double = 10, knotsPerSide: Int = 4, interval_s: Double? = nil) throws(TrackError) {
        guard threshold_s.isFinite, threshold_s > 0 else {
            throw .invalidParameter(name: "threshold_s", value: threshold_s, expected: "finite and > 0")
        }
        guard knotsPerSide >= 1 else {
            throw .invalidParameter(name: "knotsPerSide", value: Double(knotsPerSide), expected: ">= 1")
        }
        if let i = interval_s, !(i.isFinite && i > 0) {
            throw .invalidParameter(name: "interval_s", value: i, expected: "finite and > 0")
        }
        self.threshold_s = threshold_s
        self.knotsPerSide = knotsPerSide
        self.interval_s = interval_s
    }

    /// The gaps of `samples` (strictly increasing times).
    public func gaps(in samples: [TrackSample]) throws(TrackError) -> [TrackGap] {
        try GapFill.checkTimes(samples)
        var out: [TrackGap] = []
        for i in samples.indices.dropLast() where samples[i + 1].timestamp_s - samples[i].timestamp_s > threshold_s {
            out.append(TrackGap(beforeIndex: i, start_s: samples[i].timestamp_s, end_s: samples[i + 1].timestamp_s))
        }
        return out
    }

    /// The median time step of `samples` in seconds (needs ≥ 2 samples).
    public static func medianInterval_s(_ samples: [TrackSample]) throws(TrackError) -> Double {
        guard samples.count >= 2 else { throw .tooFewPoints(needed: 2, got: samples.count) }
        let steps = zip(samples.dropFirst(), samples).map { $0.timestamp_s - $1.timestamp_s }.sorted()
        let n = steps.count
        return n % 2 == 1 ? steps[n / 2] : 0.5 * (steps[n / 2 - 1] + steps[n / 2])
    }

    /// The track with every gap filled at the sampling interval; filled points are marked.
    public func fill(_ samples: [TrackSample], method: GapFillMethod) throws(TrackError) -> [FilledPoint] {
        let gaps = try gaps(in: samples)
        let step: Double
        if let fixed = interval_s { step = fixed } else { step = try GapFill.medianInterval_s(samples) }
        var out: [FilledPoint] = []
        out.reserveCapacity(samples.count)
        var g = 0
        for (i, s) in samples.enumerated() {
            out.append(FilledPoint(timestamp_s: s.timestamp_s, position: s.position, isFilled: false))
            guard g < gaps.count, gaps[g].beforeIndex == i else { continue }
            let gap = gaps[g]
            g += 1
            var times: [Double] = []
            var k = 1.0
            while gap.start_s + k * step < gap.end_s - 0.5 * step {
                times.append(gap.start_s + k * step)
                k += 1
            }
            let positions = try interpolate(gap, in: samples, method: method, at: times)
            for (t, p) in zip(times, positions) {
                out.append(FilledPoint(timestamp_s: t, position: p, isFilled: true))
            }
        }
        return out
    }

    /// Positions inside `gap` at `times` (seconds) by `method`.
    public func interpolate(
        _ gap: TrackGap, in samples: [TrackSample], method: GapFillMethod,
        at times: [Double]
    ) throws(TrackError) -> [Coordinate] {
        let a = samples[gap.beforeIndex]
        let b = samples[gap.beforeIndex + 1]
        let span = b.timestamp_s - a.timestamp_s
        switch method {
        case .linear:
            let ua = a.position.unitVector
            let ub = b.position.unitVector
            let cross = SIMD3(ua.y * ub.z - ua.z * ub.y, ua.z * ub.x - ua.x * ub.z, ua.x * ub.y - ua.y * ub.x)
            let omega = _atan2((cross * cross).sum().squareRoot(), (ua * ub).sum())
            let s = _sin(omega)
            return times.map { t in
                let f = (t - a.timestamp_s) / span
                if s < 1e-15 { return Coordinate(unitVector: ua * (1 - f) + ub * f) }
                return Coordinate(unitVector: ua * (_sin((1 - f) * omega) / s) + ub * (_sin(f * omega) / s))
            }
        case .cubicSpline:
            let frame = LocalFrame(anchor: a.position)
            let lo = max(0, gap.beforeIndex - knotsPerSide + 1)
            let hi = min(samples.count - 1, gap.beforeIndex + knotsPerSide)
            var tk: [Double] = []
            var ek: [Double] = []
            var nk: [Double] = []
            for s in samples[lo...hi] {
                let o = frame.offset_m(s.position)
                tk.append(s.timestamp_s - a.timestamp_s)
                ek.append(o.x)
                nk.append(o.y)
            }
            let se = try NaturalCubicSpline(x: tk, y: ek)
            let sn = try NaturalCubicSpline(x: tk, y: nk)
            let rel = times.map { $0 - a.timestamp_s }
            return zip(se.values(at: rel), sn.values(at: rel)).map { frame.coordinate(east_m: $0, north_m: $1) }
        case .hermite:
            guard let va = a.velocity_mps else { throw .missingVelocity(index: gap.beforeIndex) }
            guard let vbLocal = b.velocity_mps else { throw .missingVelocity(index: gap.beforeIndex + 1) }
            let frame = LocalFrame(anchor: a.position)
            let pb = frame.offset_m(b.position)
            // b's velocity is in b's own east/north: carry it into the plane of `frame`.
            let vb = frame.jacobian(at: pb, into: LocalFrame(anchor: b.position)).inverse.apply(vbLocal)
            return times.map { t in
                let s = (t - a.timestamp_s) / span
                let s2 = s * s
                let s3 = s2 * s
                let h10 = s3 - 2 * s2 + s
                let h01 = -2 * s3 + 3 * s2
                let h11 = s3 - s2
                let p = va * (h10 * span) + pb * h01 + vb * (h11 * span)  // h00·p_a = 0 (anchor)
                return frame.coordinate(p)
            }
        }
    }

    static func checkTimes(_ samples: [TrackSample]) throws(TrackError) {
        for i in samples.indices {
            let t = samples[i].timestamp_s
            guard t.isFinite, i == 0 || t > samples[i - 1].timestamp_s else {
                throw .knotsNotIncreasing(index: i, value: t)
            }
        }
    }
}
