/// What the filter knows after an accepted fix (or predicts for a later time).
public struct KalmanEstimate: Sendable, Hashable {
    /// Time of the estimate in seconds (same clock as the fixes).
    public var timestamp_s: Double
    /// Estimated position.
    public var position: Coordinate
    /// Velocity towards local east at `position`, in m/s.
    public var velocityEast_mps: Double
    /// Velocity towards local north at `position`, in m/s (at a pole: along the frame's axes).
    public var velocityNorth_mps: Double
    /// Horizontal accuracy in metres from the position covariance, under the filter's
    /// `AccuracyConvention` (iOS: DRMS = √(σe² + σn²); Android: 1.51·√((σe² + σn²)/2)).
    public var horizontalAccuracy_m: Double

    /// Ground speed in m/s.
    public var speed_mps: Double {
        (velocityEast_mps * velocityEast_mps + velocityNorth_mps * velocityNorth_mps).squareRoot()
    }
}

/// Constant-velocity Kalman filter for GPS fixes in a local east/north plane.
///
/// State x = (east_m, north_m, vEast_mps, vNorth_mps) in a `LocalFrame` (spherical azimuthal
/// equidistant) anchored at the first fix and re-anchored at the current estimate when it
/// is farther than `reanchorDistance_m` from the anchor; the state is carried over exactly
/// (position through the frames, velocity and covariance through the exact Jacobian of the
/// frame change). Because the frames are built from 3-D unit vectors, the filter behaves
/// the same across ±180° longitude and next to a pole as anywhere else.
///
/// Process model: continuous white-noise acceleration (Bar-Shalom, Li & Kirubarajan 2001,
/// "Estimation with Applications to Tracking and Navigation", §6.2.2) with spectral density
/// q in m²/s³ per axis; for a step dt the per-axis noise is
/// Q = q·[[dt³/3, dt²/2], [dt²/2, dt]]. Measurement: position with σ per axis from the fix's
/// reported accuracy under an `AccuracyConvention`. The update uses the Joseph form
/// P = (I−KH)P(I−KH)ᵀ + KRKᵀ (Bucy & Joseph 1968) followed by exact symmetrisation, so P
/// stays symmetric positive definite. Storage is fixed size: no heap allocation per update.
///
/// A fix is rejected with a `TrackRejection` (not absorbed) when its timestamp is not finite
/// or not later than the last accepted one, its coordinate is invalid, or its accuracy is not
/// finite and > 0. Gaps are handled by prediction over the whole interval.
public struct KalmanFilter: Sendable {
    /// Acceleration spectral density q in m²/s³ per axis (> 0, finite).
    public let accelerationDensity_m2ps3: Double
    /// How reported accuracy maps to σ per axis.
    public let convention: AccuracyConvention
    /// Re-anchor when the estimate is farther than this from the anchor, in metres (> 0).
    public let reanchorDistance_m: Double
    /// Initial velocity σ per axis in m/s for the first fix (> 0).
    public let initialSpeedSigma_mps: Double

    /// The current local plane.
    public private(set) var frame: LocalFrame
    /// State (east_m, north_m, vEast_mps, vNorth_mps) in `frame`.
    public private(set) var state: SIMD4<Double>
    /// Covariance of `state` (m², m²/s, m²/s²).
    public private(set) var covariance: Covariance4
    /// Time of the last accepted fix in seconds, or nil before the first.
    public private(set) var timestamp_s: Double?
    /// How many times the frame was re-anchored.
    public private(set) var reanchorCount: Int = 0

    /// Creates an empty filter.
    /// - Parameters:
    ///   - accelerationDensity_m2ps3: q in m²/s³ per axis, finite and > 0. About 1 for a car on a
    ///     highway (accelerations of ~1 m/s² over a second), 0.1 for walking.
    ///   - convention: accuracy → σ convention (default iOS DRMS, σ = hAcc/√2).
    ///   - reanchorDistance_m: finite and > 0; default 2 000 m (frame distortion < 1 mm there).
    ///   - initialSpeedSigma_mps: σ of the unknown initial velocity, finite and > 0; default 30 m/s.
    /// - Throws: `TrackError.invalidParameter` naming the parameter.
    public init(accelerationDensity_m2ps3: Double = 1,
                convention: AccuracyConvention = .iOSDRMS,
                reanchorDistance_m: Double = 2_000,
                initialSpeedSigma_mps: Double = 30) throws(TrackError) {
        for (name, v) in [("accelerationDensity_m2ps3", accelerationDensity_m2ps3),
                          ("reanchorDistance_m", reanchorDistance_m),
                          ("initialSpeedSigma_mps", initialSpeedSigma_mps)] {
            guard v.isFinite, v > 0 else { throw .invalidParameter(name: name, value: v, expected: "finite and > 0") }
        }
        self.accelerationDensity_m2ps3 = accelerationDensity_m2ps3
        self.convention = convention
        self.reanchorDistance_m = reanchorDistance_m
        self.initialSpeedSigma_mps = initialSpeedSigma_mps
        self.frame = LocalFrame(anchor: Coordinate(computedLatitude: 0, longitude: 0))
        self.state = .zero
        self.covariance = Covariance4(diagonal: .zero)
    }

    /// True once a fix has been accepted.
    public var isInitialized: Bool { timestamp_s != nil }

    /// Feeds one fix: predicts to its time and corrects with its position.
    /// - Throws: `TrackRejection`; the filter is then unchanged.
    public mutating func update(_ fix: Fix) throws(TrackRejection) {
        var none = NoStepRecorder()
        try process(fix, &none)
    }

    /// Feeds one fix and records the step for the RTS smoother.
    public mutating func update(_ fix: Fix, recording step: inout KalmanStep) throws(TrackRejection) {
        var recorder = StepRecorder(step: step)
        try process(fix, &recorder)
        step = recorder.step
    }

    /// The current estimate, or nil before the first fix.
    public var estimate: KalmanEstimate? {
        guard let t = timestamp_s else { return nil }
        return makeEstimate(state: state, covariance: covariance, timestamp_s: t)
    }

    /// The estimate predicted forward to `timestamp_s` (≥ the last fix time) without changing the filter.
    /// - Throws: `TrackRejection.invalidTimestamp` / `.nonIncreasingTimestamp` (equal time is allowed).
    public func predict(to timestamp_s: Double) throws(TrackRejection) -> KalmanEstimate? {
        guard timestamp_s.isFinite else { throw .invalidTimestamp(timestamp_s) }
        guard let last = self.timestamp_s else { return nil }
        guard timestamp_s >= last else {
            throw .nonIncreasingTimestamp(previous_s: last, timestamp_s: timestamp_s)
        }
        var x = state, p = covariance
        KalmanFilter.predict(&x, &p, dt: timestamp_s - last, q: accelerationDensity_m2ps3)
        return makeEstimate(state: x, covariance: p, timestamp_s: timestamp_s)
    }

    func makeEstimate(state x: SIMD4<Double>, covariance p: Covariance4, timestamp_s: Double) -> KalmanEstimate {
        let offset = SIMD2(x[0], x[1])
        let position = frame.coordinate(offset)
        let j = frame.jacobian(at: offset, into: LocalFrame(anchor: position))
        let v = j.apply(SIMD2(x[2], x[3]))
        let acc = convention.accuracy_m(perAxisVariance_m2: 0.5 * (p.c0[0] + p.c1[1]))
        return KalmanEstimate(timestamp_s: timestamp_s, position: position,
                              velocityEast_mps: v.x, velocityNorth_mps: v.y, horizontalAccuracy_m: acc)
    }

    // MARK: - Core

    @inline(__always)
    mutating func process<R: KalmanStepRecording>(_ fix: Fix, _ recorder: inout R) throws(TrackRejection) {
        let t = fix.timestamp_s
        guard t.isFinite else { throw .invalidTimestamp(t) }
        guard Coordinate.isValid(latitude: fix.latitude, longitude: fix.longitude) else {
            do { _ = try fix.coordinate() } catch { throw .invalidCoordinate(error) }
            throw .invalidTimestamp(t)  // unreachable: isValid and the initializer agree
        }
        let acc = fix.horizontalAccuracy_m
        guard acc.isFinite, acc > 0 else { throw .invalidAccuracy(acc) }
        let sigma = convention.sigmaPerAxis_m(accuracy_m: acc)
        let r = sigma * sigma
        let coordinate = Coordinate(computedLatitude: fix.latitude, longitude: fix.longitude)
        guard let last = timestamp_s else {
            frame = LocalFrame(anchor: coordinate)
            state = .zero
            let v2 = initialSpeedSigma_mps * initialSpeedSigma_mps
            covariance = Covariance4(diagonal: SIMD4(r, r, v2, v2))
            timestamp_s = t
            recorder.first(frame: frame, state: state, covariance: covariance, timestamp_s: t)
            return
        }
        guard t > last else { throw .nonIncreasingTimestamp(previous_s: last, timestamp_s: t) }
        var jacobian = Matrix2.identity
        let p = SIMD2(state[0], state[1])
        if (p * p).sum() > reanchorDistance_m * reanchorDistance_m {
            jacobian = reanchor(at: p)
        }
        recorder.prior(frame: frame, state: state, covariance: covariance, jacobian: jacobian)
        let dt = t - last
        KalmanFilter.predict(&state, &covariance, dt: dt, q: accelerationDensity_m2ps3)
        recorder.predicted(state: state, covariance: covariance, dt: dt, timestamp_s: t)
        let z = frame.offset_m(coordinate)
        KalmanFilter.correct(&state, &covariance, z: z, r: r)
        timestamp_s = t
        recorder.filtered(state: state, covariance: covariance)
    }

    /// Moves the anchor to the point at `p` (plane offset) and carries state and covariance over.
    mutating func reanchor(at p: SIMD2<Double>) -> Matrix2 {
        let newFrame = LocalFrame(anchor: frame.coordinate(p))
        let j = frame.jacobian(at: p, into: newFrame)
        let v = j.apply(SIMD2(state[2], state[3]))
        state = SIMD4(0, 0, v.x, v.y)
        covariance = covariance.transformed(by: j)
        frame = newFrame
        reanchorCount += 1
        return j
    }

    /// x ← F x, P ← F P Fᵀ + Q for the constant-velocity model over `dt` seconds.
    @inlinable @inline(__always)
    static func predict(_ x: inout SIMD4<Double>, _ p: inout Covariance4, dt: Double, q: Double) {
        x = x + SIMD4(x[2], x[3], 0, 0) * dt
        // F P: row0 += dt·row2, row1 += dt·row3 (per column).
        @inline(__always) func fp(_ c: SIMD4<Double>) -> SIMD4<Double> { c + SIMD4(c[2], c[3], 0, 0) * dt }
        var c0 = fp(p.c0), c1 = fp(p.c1)
        let c2 = fp(p.c2), c3 = fp(p.c3)
        // (F P) Fᵀ: col0 += dt·col2, col1 += dt·col3.
        c0 += c2 * dt
        c1 += c3 * dt
        let dt2 = dt * dt
        let qpp = q * dt2 * dt / 3, qpv = q * dt2 / 2, qvv = q * dt
        p.c0 = c0 + SIMD4(qpp, 0, qpv, 0)
        p.c1 = c1 + SIMD4(0, qpp, 0, qpv)
        p.c2 = c2 + SIMD4(qpv, 0, qvv, 0)
        p.c3 = c3 + SIMD4(0, qpv, 0, qvv)
        p.symmetrize()
    }

    /// Joseph-form correction with a position measurement `z` (m) of variance `r` (m²) per axis.
    @inlinable @inline(__always)
    static func correct(_ x: inout SIMD4<Double>, _ p: inout Covariance4, z: SIMD2<Double>, r: Double) {
        let s00 = p.c0[0] + r, s01 = p.c1[0], s11 = p.c1[1] + r
        let invDet = 1 / (s00 * s11 - s01 * s01)
        let i00 = s11 * invDet, i01 = -s01 * invDet, i11 = s00 * invDet
        // K = P Hᵀ S⁻¹; P Hᵀ = [column 0, column 1] of P.
        let k0 = p.c0 * i00 + p.c1 * i01
        let k1 = p.c0 * i01 + p.c1 * i11
        let innovation = z - SIMD2(x[0], x[1])
        x = x + k0 * innovation.x + k1 * innovation.y
        // M = (I − K H) P: column j = p_j − k0·p_j[0] − k1·p_j[1].
        @inline(__always) func ap(_ c: SIMD4<Double>) -> SIMD4<Double> { c - k0 * c[0] - k1 * c[1] }
        let m0 = ap(p.c0), m1 = ap(p.c1), m2 = ap(p.c2), m3 = ap(p.c3)
        // M (I − K H)ᵀ + r K Kᵀ: column j = m_j − m0·k0[j] − m1·k1[j] + r(k0·k0[j] + k1·k1[j]).
        let rk0 = k0 * r, rk1 = k1 * r
        @inline(__always) func col(_ mj: SIMD4<Double>, _ j: Int) -> SIMD4<Double> {
            mj + (rk0 - m0) * k0[j] + (rk1 - m1) * k1[j]
        }
        p.c0 = col(m0, 0)
        p.c1 = col(m1, 1)
        p.c2 = col(m2, 2)
        p.c3 = col(m3, 3)
        p.symmetrize()
    }
}

// MARK: - Step recording for the smoother

/// One filter step as the RTS smoother needs it, all in the step's `frame`.
public struct KalmanStep: Sendable, Hashable {
    /// Time of the fix in seconds.
    public var timestamp_s: Double = 0
    /// The frame in which `predicted*` and `filtered*` (and `prior*`) are expressed.
    public var frame: LocalFrame = LocalFrame(anchor: Coordinate(computedLatitude: 0, longitude: 0))
    /// True for the first fix (no prior, no prediction: predicted = filtered).
    public var isFirst: Bool = true
    /// Previous step's filtered state and covariance, carried into this step's frame.
    public var priorState = SIMD4<Double>.zero
    public var priorCovariance = Covariance4(diagonal: .zero)
    /// Jacobian of the frame change from the previous step's frame into this one (identity if none).
    public var reanchorJacobian = Matrix2.identity
    /// Time step dt in seconds of the transition F = [[I, dt·I], [0, I]] from the previous fix.
    public var dt_s: Double = 0
    /// Predicted (a priori) state and covariance.
    public var predictedState = SIMD4<Double>.zero
    public var predictedCovariance = Covariance4(diagonal: .zero)
    /// Filtered (a posteriori) state and covariance.
    public var filteredState = SIMD4<Double>.zero
    public var filteredCovariance = Covariance4(diagonal: .zero)

    public init() {}
}

@usableFromInline protocol KalmanStepRecording {
    mutating func first(frame: LocalFrame, state: SIMD4<Double>, covariance: Covariance4, timestamp_s: Double)
    mutating func prior(frame: LocalFrame, state: SIMD4<Double>, covariance: Covariance4, jacobian: Matrix2)
    mutating func predicted(state: SIMD4<Double>, covariance: Covariance4, dt: Double, timestamp_s: Double)
    mutating func filtered(state: SIMD4<Double>, covariance: Covariance4)
}

@usableFromInline struct NoStepRecorder: KalmanStepRecording {
    @inlinable init() {}
    @inlinable @inline(__always) func first(frame: LocalFrame, state: SIMD4<Double>, covariance: Covariance4, timestamp_s: Double) {}
    @inlinable @inline(__always) func prior(frame: LocalFrame, state: SIMD4<Double>, covariance: Covariance4, jacobian: Matrix2) {}
    @inlinable @inline(__always) func predicted(state: SIMD4<Double>, covariance: Covariance4, dt: Double, timestamp_s: Double) {}
    @inlinable @inline(__always) func filtered(state: SIMD4<Double>, covariance: Covariance4) {}
}

struct StepRecorder: KalmanStepRecording {
    var step: KalmanStep
    mutating func first(frame: LocalFrame, state: SIMD4<Double>, covariance: Covariance4, timestamp_s: Double) {
        step = KalmanStep()
        step.frame = frame
        step.timestamp_s = timestamp_s
        step.isFirst = true
        step.predictedState = state; step.predictedCovariance = covariance
        step.filteredState = state; step.filteredCovariance = covariance
    }
    mutating func prior(frame: LocalFrame, state: SIMD4<Double>, covariance: Covariance4, jacobian: Matrix2) {
        step.isFirst = false
        step.frame = frame
        step.priorState = state
        step.priorCovariance = covariance
        step.reanchorJacobian = jacobian
    }
    mutating func predicted(state: SIMD4<Double>, covariance: Covariance4, dt: Double, timestamp_s: Double) {
        step.predictedState = state; step.predictedCovariance = covariance
        step.dt_s = dt; step.timestamp_s = timestamp_s
    }
    mutating func filtered(state: SIMD4<Double>, covariance: Covariance4) {
        step.filteredState = state; step.filteredCovariance = covariance
    }
}
