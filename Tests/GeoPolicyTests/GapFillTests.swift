import GeoPolicy
import Testing
import _TestSupport

@Suite struct GapFillTests {
    static let position_m = 1e-3

    /// A constant-velocity great-circle track sampled each second, with samples [from, to) removed.
    static func track(
        start: Coordinate, bearing: Double, speed: Double, count: Int, gap: Range<Int>,
        withVelocity: Bool = true
    ) -> (samples: [TrackSample], truth: [Coordinate]) {
        let truth = (0..<count).map { start.destination(bearing_deg: bearing, distance_m: speed * Double($0)) }
        var samples: [TrackSample] = []
        for i in 0..<count where !gap.contains(i) {
            var v: SIMD2<Double>?
            if withVelocity {
                // Velocity in the local east/north at the point: bearing of the great circle there.
                let ahead = LocalFrame(anchor: truth[i]).offset_m(
                    start.destination(bearing_deg: bearing, distance_m: speed * (Double(i) + 1e-3)))
                v = ahead / 1e-3
            }
            samples.append(TrackSample(timestamp_s: Double(i), position: truth[i], velocity_mps: v))
        }
        return (samples, truth)
    }

    @Test func detectsGapsStrictlyLongerThanTheThreshold() throws {
        let c = try Coordinate(latitude: 1, longitude: 2)
        let times: [Double] = [0, 1, 11, 12, 22.5, 23]
        let samples = times.map { TrackSample(timestamp_s: $0, position: c) }
        let gaps = try GapFill().gaps(in: samples)
        #expect(gaps.map(\.beforeIndex) == [3])
        #expect(gaps.first?.duration_s == 10.5)
        #expect(throws: TrackError.knotsNotIncreasing(index: 2, value: 1)) {
            try GapFill().gaps(in: [0.0, 1, 1].map { TrackSample(timestamp_s: $0, position: c) })
        }
        #expect(throws: TrackError.self) { try GapFill(threshold_s: 0) }
    }

    /// On an exact constant-speed great-circle track every method recovers the truth:
    /// linear (it is a great circle), spline (reproduces linear data), Hermite (exact velocities).
    @Test(arguments: [
        (GapFillMethod.linear, 45.0, 7.0), (.cubicSpline, 45.0, 7.0), (.hermite, 45.0, 7.0),
        (.linear, -0.3, 179.8), (.cubicSpline, -0.3, 179.8), (.hermite, -0.3, 179.8),
        (.hermite, 89.9, 30.0), (.cubicSpline, 89.9, 30.0),
    ])
    func exactOnAStraightTrack(method: GapFillMethod, lat: Double, lon: Double) throws {
        let (samples, truth) = Self.track(
            start: try Coordinate(latitude: lat, longitude: lon), bearing: 95,
            speed: 30, count: 60, gap: 21..<51)
        let filled = try GapFill().fill(samples, method: method)
        #expect(filled.count == 60)
        #expect(filled.filter(\.isFilled).map(\.timestamp_s) == (21..<51).map(Double.init))
        // Linear and Hermite are exact to rounding; the spline's planar fit carries the
        // frame distortion of an up-to-1.5 km chord, well below a millimetre.
        for p in filled {
            let i = Int(p.timestamp_s)
            #expect(Haversine().distance_m(p.position, truth[i]) < Self.position_m, "t = \(p.timestamp_s)")
        }
    }

    @Test func hermiteNeedsVelocities() throws {
        let (samples, _) = Self.track(
            start: try Coordinate(latitude: 1, longitude: 1), bearing: 0, speed: 10,
            count: 30, gap: 5..<20, withVelocity: false)
        #expect(throws: TrackError.missingVelocity(index: 4)) { try GapFill().fill(samples, method: .hermite) }
    }

    @Test func gapAcrossTheDateLineStaysThere() throws {
        let (samples, _) = Self.track(
            start: try Coordinate(latitude: 10, longitude: 179.9), bearing: 90,
            speed: 30, count: 100, gap: 30..<70)
        for method in GapFillMethod.allCases {
            for p in try GapFill().fill(samples, method: method) {
                #expect(abs(p.position.longitude) > 179.5, "\(method) t = \(p.timestamp_s)")
            }
        }
    }

    @Test func naturalSplineClosedForms() throws {
        let x: [Double] = [0, 1, 2.5, 4, 7]
        // Linear data is reproduced exactly; knots are interpolated.
        let line = try NaturalCubicSpline(x: x, y: x.map { 3 - 2 * $0 })
        for t in stride(from: -1.0, through: 8, by: 0.37) {
            #expect(isClose(line.value(at: t), 3 - 2 * t, absoluteTolerance: 1e-12))
        }
        let y: [Double] = [1, -2, 0.5, 4, 3]
        let s = try NaturalCubicSpline(x: x, y: y)
        for (a, b) in zip(x, y) { #expect(isClose(s.value(at: a), b, absoluteTolerance: 1e-12)) }
        // Natural end conditions: zero second derivative (finite difference, h = 1e-4).
        let h = 1e-4
        for e in [0.0, 7.0] {
            let second = (s.value(at: e + h) - 2 * s.value(at: e) + s.value(at: e - h)) / (h * h)
            #expect(abs(second) < 1e-3)
        }
        // Sorted batch evaluation equals pointwise evaluation.
        let ts = Array(stride(from: -0.5, through: 7.5, by: 0.01))
        #expect(s.values(at: ts) == ts.map { s.value(at: $0) })
        #expect(s.values(at: ts.reversed()) == ts.reversed().map { s.value(at: $0) })
        #expect(throws: TrackError.knotsNotIncreasing(index: 2, value: 1)) {
            try NaturalCubicSpline(x: [0, 1, 1], y: [0, 0, 0])
        }
        #expect(throws: TrackError.tooFewPoints(needed: 2, got: 1)) { try NaturalCubicSpline(x: [0], y: [0]) }
    }
}
