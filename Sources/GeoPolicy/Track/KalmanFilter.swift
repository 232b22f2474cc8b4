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

extension KalmanEstimate {
    /// The estimate of a plane state x = (east_m, north_m, vEast_mps, vNorth_mps) with covariance
    /// `p` in `frame`: the position through the frame, the velocity turned into the east/north
    /// axes at that position, the accuracy from the mean per-axis position variance.
    init(
        frame: LocalFrame, state x: SIMD4<Double>, covariance p: Covariance4, timestamp_s: Double,
        convention: AccuracyConvention
    ) {
        let offset = SIMD2(x[0], x[1])
        let position = frame.coordinate(offset)
        let v = frame.jacobian(at: offset, into: LocalFrame(anchor: position)).apply(SIMD2(x[2], x[3]))
        self.init(
            timestamp_s: timestamp_s, position: position, velocityEast_mps: v.x, velocityNorth_mps: v.y,
            horizontalAccuracy_m: convention.accuracy_m(perAxisVariance_m2: 0.5 * (p.p00 + p.p11)))
    }
}

/// The innovation of a position measurement: ν = z − Hx⁻ and S = HP⁻Hᵀ + R (2×2, symmetric).
public struct Innovation: Sendable, Hashable {
    /// ν in metres (east, north) in the filter's frame.
    public var residual_m: SIMD2<Double>
    /// S (m²): s00, s01 = s10, s11.
    public var s00: Double, s01: Double, s11: Double

    @inlinable
    public init(residual_m: SIMD2<Double>, s00: Double, s01: Double, s11: Double) {
        self.residual_m = residual_m
        self.s00 = s00
        self.s01 = s01
        self.s11 = s11
    }

    /// det S in m⁴.
    @inlinable public var determinant: Double { s00 * s11 - s01 * s01 }
    /// νᵀ S⁻¹ ν (dimensionless): the normalised innovation squared, χ²(2) for a consistent filter.
    @inlinable public var normalizedSquare: Double {
        let e = residual_m.x
        let n = residual_m.y
        return (s11 * e * e - 2 * s01 * e * n + s00 * n * n) / determinant
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
/// reported accuracy under an `AccuracyConvention`. The covariance is stored as its upper
/// triangle (exactly symmetric by construction) and corrected in the symmetric form
/// P − K S Kᵀ; the tests check positive definiteness over 10⁶ updates with accuracies of
/// 0.5…200 m and time steps of 1 ms…10 min. Storage is fixed size: no heap allocation per update.
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
    @inlinable public var frame: LocalFrame { projection.frame }
    /// State (east_m, north_m, vEast_mps, vNorth_mps) in `frame`.
    @inlinable public var state: SIMD4<Double> { storedState }
    /// Covariance of `state` (m², m²/s, m²/s²).
    @inlinable public var covariance: Covariance4 { storedCovariance }
    /// Time of the last accepted fix in seconds, or nil before the first.
    @inlinable public var timestamp_s: Double? { storedTimestamp_s }
    /// How many times the frame was re-anchored.
    @inlinable public var reanchorCount: Int { storedReanchorCount }

    // Storage, read-only outside the module through the properties above. `update` is
    // @inlinable (as `FenceMonitor.process`): inlined into the caller's loop, the state stays
    // in registers between updates instead of going through a call and memory per fix.
    @usableFromInline var projection: AnchorProjection
    @usableFromInline var storedState: SIMD4<Double>
    @usableFromInline var storedCovariance: Covariance4
    @usableFromInline var storedTimestamp_s: Double?
    @usableFromInline var storedReanchorCount: Int = 0

    /// Creates an empty filter.
    /// - Parameters:
    ///   - accelerationDensity_m2ps3: q in m²/s³ per axis, finite and > 0. About 1 for a car on a
    ///     highway (accelerations of ~1 m/s² over a second), 0.1 for walking.
    ///   - convention: accuracy → σ convention (default iOS DRMS, σ = hAcc/√2).
    ///   - reanchorDistance_m: finite and > 0; default 2 000 m (frame distortion < 1 mm there).
    ///   - initialSpeedSigma_mps: σ of the unknown initial velocity, finite and > 0; default 30 m/s.
    /// - Throws: `TrackError.invalidParameter` naming the parameter.
    public init(
        accelerationDensity_m2ps3: Double = 1,
        convention: AccuracyConvention = .iOSDRMS,
        reanchorDistance_m: Double = 2_000,
        initialSpeedSigma_mps: Double = 30
    ) throws(TrackError) {
        for (name, v) in [
            ("accelerationDensity_m2ps3", accelerationDensity_m2ps3),
            ("reanchorDistance_m", reanchorDistance_m),
            ("initialSpeedSigma_mps", initialSpeedSigma_mps),
        ] {
            guard v.isFinite, v > 0 else { throw .invalidParameter(name: name, value: v, expected: "finite and > 0") }
        }
        self.accelerationDensity_m2ps3 = accelerationDensity_m2ps3
        self.convention = convention
        self.reanchorDistance_m = reanchorDistance_m
        self.initialSpeedSigma_mps = initialSpeedSigma_mps
        self.projection = AnchorProjection(frame: LocalFrame(anchor: Coordinate(computedLatitude: 0, longitude: 0)))
        self.storedState = .zero
        self.storedCovariance = Covariance4(diagonal: .zero)
    }

    /// True once a fix has been accepted.
    public var isInitialized: Bool { timestamp_s != nil }

    /// Feeds one fix: predicts to its time and corrects with its position.
    /// - Throws: `TrackRejection`; the filter is then unchanged.
    @inlinable @inline(__always)
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
        var x = state
        var p = covariance
        KalmanFilter.predict(&x, &p, dt: timestamp_s - last, q: accelerationDensity_m2ps3)
        return makeEstimate(state: x, covariance: p, timestamp_s: timestamp_s)
    }

    func makeEstimate(state x: SIMD4<Double>, covariance p: Covariance4, timestamp_s: Double) -> KalmanEstimate {
        KalmanEstimate(frame: frame, state: x, covariance: p, timestamp_s: timestamp_s, convention: convention)
    }

    /// The measurement variance per axis (m²) of a fix the track engine accepts, or the reason it
    /// refuses it: timestamp not finite, invalid coordinate, accuracy not finite and > 0.
    /// The order check against the last accepted time is the caller's (`KalmanFilter`, `IMMFilter`).
    @inlinable @inline(__always)
    static func measurementVariance(of fix: Fix, convention: AccuracyConvention) throws(TrackRejection) -> Double {
        let t = fix.timestamp_s
        guard t.isFinite else { throw .invalidTimestamp(t) }
        guard Coordinate.isValid(latitude: fix.latitude, longitude: fix.longitude) else {
            do { _ = try fix.coordinate() } catch { throw .invalidCoordinate(error) }
            throw .invalidTimestamp(t)  // unreachable: isValid and the initializer agree
        }
        let acc = fix.horizontalAccuracy_m
        guard acc.isFinite, acc > 0 else { throw .invalidAccuracy(acc) }
        let sigma = convention.sigmaPerAxis_m(accuracy_m: acc)
        return sigma * sigma
    }

    // MARK: - Core

    @inlinable @inline(__always)
    mutating func process<R: KalmanStepRecording>(_ fix: Fix, _ recorder: inout R) throws(TrackRejection) {
        let t = fix.timestamp_s
        let r = try KalmanFilter.measurementVariance(of: fix, convention: convention)
        guard let last = timestamp_s else {
            projection = AnchorProjection(
                frame: LocalFrame(anchor: Coordinate(computedLatitude: fix.latitude, longitude: fix.longitude)))
            storedState = .zero
            let v2 = initialSpeedSigma_mps * initialSpeedSigma_mps
            storedCovariance = Covariance4(diagonal: SIMD4(r, r, v2, v2))
            storedTimestamp_s = t
            recorder.first(frame: frame, state: state, covariance: covariance, timestamp_s: t)
            return
        }
        guard t > last else { throw .nonIncreasingTimestamp(previous_s: last, timestamp_s: t) }
        var jacobian = Matrix2.identity
        let e = state[0]
        let n = state[1]
        if e * e + n * n > reanchorDistance_m * reanchorDistance_m {
            jacobian = reanchor(at: SIMD2(e, n))
        }
        recorder.prior(frame: frame, state: state, covariance: covariance, jacobian: jacobian)
        // The measurement in this (possibly new) frame first: the projection's dependency chain
        // (1/z, r², the atan(r)/r series) then overlaps the prediction's arithmetic, and nothing
        // of the state is live across the rare out-of-line exact projection (a call that
        // clobbers every vector register). Independent of the prediction, so the same values.
        let z = projection.offset_m(latitude: fix.latitude, longitude: fix.longitude)
        let dt = t - last
        // Predict and correct in locals, stored once: through `self` the predicted state and
        // covariance went to memory and back between the two steps.
        var x = state
        var cov = covariance
        KalmanFilter.predict(&x, &cov, dt: dt, q: accelerationDensity_m2ps3)
        recorder.predicted(state: x, covariance: cov, dt: dt, timestamp_s: t)
        KalmanFilter.correct(&x, &cov, z: z, r: r)
        storedState = x
        storedCovariance = cov
        storedTimestamp_s = t
        recorder.filtered(state: x, covariance: cov)
    }

    /// Moves the anchor to the point at `p` (plane offset) and carries state and covariance over.
    @usableFromInline
    mutating func reanchor(at p: SIMD2<Double>) -> Matrix2 {
        let (moved, j) = projection.reanchored(at: p)
        let v = j.apply(SIMD2(state[2], state[3]))
        storedState = SIMD4(0, 0, v.x, v.y)
        storedCovariance = covariance.transformed(by: j)
        projection = moved
        storedReanchorCount += 1
        return j
    }

    /// x ← F x, P ← F P Fᵀ + Q for the constant-velocity model over `dt` seconds (upper triangle).
    @inlinable @inline(__always)
    static func predict(_ x: inout SIMD4<Double>, _ p: inout Covariance4, dt: Double, q: Double) {
        let dt2 = dt * dt
        let qpp = q * dt2 * dt / 3
        let qpv = q * dt2 / 2
        let qvv = q * dt
        let o = p
        p.p00 = o.p00 + 2 * dt * o.p02 + dt2 * o.p22 + qpp
        p.p01 = o.p01 + dt * (o.p03 + o.p12) + dt2 * o.p23
        p.p02 = o.p02 + dt * o.p22 + qpv
        p.p03 = o.p03 + dt * o.p23
        p.p11 = o.p11 + 2 * dt * o.p13 + dt2 * o.p33 + qpp
        p.p12 = o.p12 + dt * o.p23
        p.p13 = o.p13 + dt * o.p33 + qpv
        p.p22 = o.p22 + qvv
        p.p33 = o.p33 + qvv
        // The state last: the correction needs it only at the end, after the measurement.
        x = SIMD4(x[0] + dt * x[2], x[1] + dt * x[3], x[2], x[3])
    }

    /// Correction with a position measurement `z` (m) of variance `r` (m²) per axis, in the
    /// symmetric form P ← P − (P Hᵀ) S⁻¹ (P Hᵀ)ᵀ evaluated on the upper triangle only, so P
    /// stays exactly symmetric (positive definiteness is checked over 10⁶ updates in the tests).
    /// Returns the innovation (ν, S) of the measurement against the prior.
    @inlinable @inline(__always) @discardableResult
    static func correct(_ x: inout SIMD4<Double>, _ p: inout Covariance4, z: SIMD2<Double>, r: Double) -> Innovation {
        let s00 = p.p00 + r
        let s01 = p.p01
        let s11 = p.p11 + r
        let invDet = 1 / (s00 * s11 - s01 * s01)
        let i00 = s11 * invDet
        let i01 = -s01 * invDet
        let i11 = s00 * invDet
        // C = P Hᵀ: columns c = (p00, p01, p02, p03), d = (p01, p11, p12, p13); K = C S⁻¹.
        // In scalars: as SIMD4 lanes the same products cost shuffles on the critical path.
        let c0 = p.p00
        let c1 = p.p01
        let c2 = p.p02
        let c3 = p.p03
        let d0 = p.p01
        let d1 = p.p11
        let d2 = p.p12
        let d3 = p.p13
        let k00 = c0 * i00 + d0 * i01
        let k01 = c1 * i00 + d1 * i01
        let k02 = c2 * i00 + d2 * i01
        let k03 = c3 * i00 + d3 * i01
        let k10 = c0 * i01 + d0 * i11
        let k11 = c1 * i01 + d1 * i11
        let k12 = c2 * i01 + d2 * i11
        let k13 = c3 * i01 + d3 * i11
        // P_ij −= k0_i c_j + k1_i d_j  (i ≤ j); before the state, which waits for the measurement.
        p.p00 -= k00 * c0 + k10 * d0
        p.p01 -= k00 * c1 + k10 * d1
        p.p02 -= k00 * c2 + k10 * d2
        p.p03 -= k00 * c3 + k10 * d3
        p.p11 -= k01 * c1 + k11 * d1
        p.p12 -= k01 * c2 + k11 * d2
        p.p13 -= k01 * c3 + k11 * d3
        p.p22 -= k02 * c2 + k12 * d2
        p.p23 -= k02 * c3 + k12 * d3
        p.p33 -= k03 * c3 + k13 * d3
        let nu0 = z.x - x[0]
        let nu1 = z.y - x[1]
        x = SIMD4(
            x[0] + k00 * nu0 + k10 * nu1, x[1] + k01 * nu0 + k11 * nu1,
            x[2] + k02 * nu0 + k12 * nu1, x[3] + k03 * nu0 + k13 * nu1)
        return Innovation(residual_m: SIMD2(nu0, nu1), s00: s00, s01: s01, s11: s11)
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

    /// The filtered position: exactly the `position` of the filter's estimate after this step.
    public var filteredPosition: Coordinate { frame.coordinate(SIMD2(filteredState[0], filteredState[1])) }
}

@usableFromInline protocol KalmanStepRecording {
    mutating func first(frame: LocalFrame, state: SIMD4<Double>, covariance: Covariance4, timestamp_s: Double)
    mutating func prior(frame: LocalFrame, state: SIMD4<Double>, covariance: Covariance4, jacobian: Matrix2)
    mutating func predicted(state: SIMD4<Double>, covariance: Covariance4, dt: Double, timestamp_s: Double)
    mutating func filtered(state: SIMD4<Double>, covariance: Covariance4)
}

@usableFromInline struct NoStepRecorder: KalmanStepRecording {
    @inlinable init() {}
    @inlinable @inline(__always) func first(
        frame: LocalFrame, state: SIMD4<Double>, covariance: Covariance4, timestamp_s: Double
    ) {}
    @inlinable @inline(__always) func prior(
        frame: LocalFrame, state: SIMD4<Double>, covariance: Covariance4, jacobian: Matrix2
    ) {}
    @inlinable @inline(__always) func predicted(
        state: SIMD4<Double>, covariance: Covariance4, dt: Double, timestamp_s: Double
    ) {}
    @inlinable @inline(__always) func filtered(state: SIMD4<Double>, covariance: Covariance4) {}
}

struct StepRecorder: KalmanStepRecording {
    var step: KalmanStep
    mutating func first(frame: LocalFrame, state: SIMD4<Double>, covariance: Covariance4, timestamp_s: Double) {
        step = KalmanStep()
        step.frame = frame
        step.timestamp_s = timestamp_s
        step.isFirst = true
        step.predictedState = state
        step.predictedCovariance = covariance
        step.filteredState = state
        step.filteredCovariance = covariance
    }
    mutating func prior(frame: LocalFrame, state: SIMD4<Double>, covariance: Covariance4, jacobian: Matrix2) {
        step.isFirst = false
        step.frame = frame
        step.priorState = state
        step.priorCovariance = covariance
        step.reanchorJacobian = jacobian
    }
    mutating func predicted(state: SIMD4<Double>, covariance: Covariance4, dt: Double, timestamp_s: Double) {
        step.predictedState = state
        step.predictedCovariance = covariance
        step.dt_s = dt
        step.timestamp_s = timestamp_s
    }
    mutating func filtered(state: SIMD4<Double>, covariance: Covariance4) {
        step.filteredState = state
        step.filteredCovariance = covariance
    }
}

/// Counts the accepted fixes and keeps the last filtered state and covariance (the forward pass
/// of `RTSSmoother.smoothedPositions(count:…)`, which records nothing per fix).
struct LastStepRecorder: KalmanStepRecording {
    var steps = 0
    var lastState = SIMD4<Double>.zero
    var lastCovariance = Covariance4(diagonal: .zero)

    mutating func first(frame: LocalFrame, state: SIMD4<Double>, covariance: Covariance4, timestamp_s: Double) {
        lastState = state
        lastCovariance = covariance
        steps += 1
    }
    func prior(frame: LocalFrame, state: SIMD4<Double>, covariance: Covariance4, jacobian: Matrix2) {}
    func predicted(state: SIMD4<Double>, covariance: Covariance4, dt: Double, timestamp_s: Double) {}
    mutating func filtered(state: SIMD4<Double>, covariance: Covariance4) {
        lastState = state
        lastCovariance = covariance
        steps += 1
    }
}

/// Records per accepted fix only what `RTSSmoother.smoothedPositions` cannot recompute: the prior
/// state and covariance, the time step, the frame (an index: frames change only where the filter
/// re-anchors) and the re-anchoring Jacobian (an index, −1 for the identity); plus the last
/// filtered state and covariance. 128 bytes per fix instead of a 528-byte `KalmanStep`.
struct CompactStepRecorder: KalmanStepRecording {
    struct Step {
        var priorState = SIMD4<Double>.zero
        var priorCovariance = Covariance4(diagonal: .zero)
        var dt_s = 0.0
        var frame: Int32 = 0
        var reanchor: Int32 = -1
    }
    var steps: [Step] = []
    var frames: [LocalFrame] = []
    var jacobians: [Matrix2] = []
    var lastState = SIMD4<Double>.zero
    var lastCovariance = Covariance4(diagonal: .zero)
    private var pending = Step()

    mutating func first(frame: LocalFrame, state: SIMD4<Double>, covariance: Covariance4, timestamp_s: Double) {
        frames.append(frame)
        pending = Step(frame: Int32(frames.count - 1))
        lastState = state
        lastCovariance = covariance
        steps.append(pending)
    }
    mutating func prior(frame: LocalFrame, state: SIMD4<Double>, covariance: Covariance4, jacobian: Matrix2) {
        if frames.last != frame { frames.append(frame) }
        var reanchor: Int32 = -1
        if jacobian != .identity {
            jacobians.append(jacobian)
            reanchor = Int32(jacobians.count - 1)
        }
        pending = Step(
            priorState: state, priorCovariance: covariance, frame: Int32(frames.count - 1), reanchor: reanchor)
    }
    mutating func predicted(state: SIMD4<Double>, covariance: Covariance4, dt: Double, timestamp_s: Double) {
        pending.dt_s = dt
    }
    mutating func filtered(state: SIMD4<Double>, covariance: Covariance4) {
        lastState = state
        lastCovariance = covariance
        steps.append(pending)
    }
}
