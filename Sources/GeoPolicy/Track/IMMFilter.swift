/// A motion model of `IMMFilter`, over the constant-velocity state (east_m, north_m, vEast_mps, vNorth_mps).
public enum MotionModel: Sendable, Hashable {
    /// Constant velocity with white-acceleration spectral density q in m²/s³ per axis (finite, > 0),
    /// exactly `KalmanFilter`'s model.
    case constantVelocity(accelerationDensity_m2ps3: Double)
    /// Near-constant position: the position is a random walk with spectral density q in m²/s per
    /// axis (finite, > 0) and the velocity is zero, in state and covariance:
    /// x⁻ = (e, n, 0, 0), P⁻ = [[P_pp + q·dt·I, 0], [0, 0]] (Bar-Shalom, Li & Kirubarajan 2001, §6.2.1
    /// with the velocity block of the common state held at zero).
    case nearConstantPosition(positionDensity_m2ps: Double)

    /// The model's density, for validation and messages.
    var density: Double {
        switch self {
        case .constantVelocity(let q), .nearConstantPosition(let q): return q
        }
    }

    /// x ← F x, P ← F P Fᵀ + Q over `dt` seconds.
    @inline(__always)
    func predict(_ x: inout SIMD4<Double>, _ p: inout Covariance4, dt: Double) {
        switch self {
        case .constantVelocity(let q):
            KalmanFilter.predict(&x, &p, dt: dt, q: q)
        case .nearConstantPosition(let q):
            x = SIMD4(x[0], x[1], 0, 0)
            let o = p
            p = Covariance4(diagonal: .zero)
            p.p00 = o.p00 + q * dt
            p.p01 = o.p01
            p.p11 = o.p11 + q * dt
        }
    }
}

/// Interacting-multiple-model filter (Blom & Bar-Shalom 1988, IEEE Trans. Autom. Control 33(8))
/// for GPS fixes: a stop-and-go track as a near-constant-position model and a constant-velocity
/// model, with a two-state continuous-time Markov chain between them, mixed at every fix.
///
/// One cycle over a step dt: (1) mixing — with the chain's exact transition probabilities
/// π_ij(dt) for mean sojourn times τ₀, τ₁, the predicted model probabilities are c̄_j = Σ_i π_ij μ_i
/// and each model starts from the mixture of both estimates with weights μ_{i|j} = π_ij μ_i / c̄_j
/// (mean and covariance including the spread of the means); (2) each model predicts and corrects
/// with the fix as `KalmanFilter` does (the same predict and correct code); (3) the model
/// probabilities become μ_j ∝ c̄_j·N(ν_j; 0, S_j) of the innovations; (4) the output is the
/// moment-matched combination x = Σ μ_j x_j, P = Σ μ_j (P_j + (x_j − x)(x_j − x)ᵀ).
///
/// Everything else is `KalmanFilter`'s: the local east/north plane re-anchored at the combined
/// estimate every `reanchorDistance_m` (both models' states and covariances carried into the new
/// frame), the accuracy convention, prediction over gaps, and the same `TrackRejection` reasons
/// for a refused fix (which changes nothing). Storage is fixed size: no heap allocation per update.
/// With both models equal the filter equals `KalmanFilter` (tested to 1e-9).
public struct IMMFilter: Sendable {
    /// The first model (by default the near-constant-position "stopped" model).
    public let model0: MotionModel
    /// The second model (by default the constant-velocity "moving" model).
    public let model1: MotionModel
    /// Mean time in seconds the track stays in model 0 and in model 1 before switching (finite, > 0).
    public let meanSojourn_s: SIMD2<Double>
    /// How reported accuracy maps to σ per axis.
    public let convention: AccuracyConvention
    /// Re-anchor when the combined estimate is farther than this from the anchor, metres (> 0).
    public let reanchorDistance_m: Double
    /// Initial velocity σ per axis in m/s for the first fix (> 0; the constant-velocity model's).
    public let initialSpeedSigma_mps: Double

    /// Default density of the near-constant-position model: 0.05 m²/s lets a parked device's
    /// estimate drift by σ ≈ 2.2 m over 100 s (GNSS multipath wanders on that scale), so the
    /// model averages a stopped device over about a minute of 1 Hz fixes.
    public static let defaultPositionDensity_m2ps = 0.05
    /// Default mean sojourn times (stopped, moving) in seconds: stops and legs of about a minute,
    /// the scale of traffic lights, parking and walking between them.
    public static let defaultMeanSojourn_s = SIMD2<Double>(60, 60)

    /// The current local plane.
    public var frame: LocalFrame { projection.frame }
    var projection: AnchorProjection
    /// Model-conditioned states and covariances in `frame`.
    public private(set) var state0 = SIMD4<Double>.zero, state1 = SIMD4<Double>.zero
    public private(set) var covariance0 = Covariance4(diagonal: .zero), covariance1 = Covariance4(diagonal: .zero)
    /// Model probabilities (μ₀, μ₁), summing to 1.
    public private(set) var probabilities: SIMD2<Double>
    /// Time of the last accepted fix in seconds, or nil before the first.
    public private(set) var timestamp_s: Double?
    /// How many times the frame was re-anchored.
    public private(set) var reanchorCount: Int = 0

    /// The stop-and-go filter: near-constant position (`positionDensity_m2ps`) and constant velocity
    /// (`accelerationDensity_m2ps3`, as `KalmanFilter`).
    /// - Throws: `TrackError.invalidParameter` naming the parameter.
    public init(
        accelerationDensity_m2ps3: Double = 1,
        positionDensity_m2ps: Double = IMMFilter.defaultPositionDensity_m2ps,
        meanSojourn_s: SIMD2<Double> = IMMFilter.defaultMeanSojourn_s,
        convention: AccuracyConvention = .iOSDRMS,
        reanchorDistance_m: Double = 2_000,
        initialSpeedSigma_mps: Double = 30
    ) throws(TrackError) {
        try self.init(
            models: .nearConstantPosition(positionDensity_m2ps: positionDensity_m2ps),
            .constantVelocity(accelerationDensity_m2ps3: accelerationDensity_m2ps3),
            meanSojourn_s: meanSojourn_s, convention: convention,
            reanchorDistance_m: reanchorDistance_m, initialSpeedSigma_mps: initialSpeedSigma_mps)
    }

    /// An IMM over any two motion models.
    /// - Parameters:
    ///   - model0, model1: the models; densities finite and > 0.
    ///   - meanSojourn_s: mean time in each model, seconds, finite and > 0.
    ///   - convention, reanchorDistance_m, initialSpeedSigma_mps: as `KalmanFilter`.
    /// - Throws: `TrackError.invalidParameter` naming the parameter.
    public init(
        models model0: MotionModel, _ model1: MotionModel,
        meanSojourn_s: SIMD2<Double> = IMMFilter.defaultMeanSojourn_s,
        convention: AccuracyConvention = .iOSDRMS,
        reanchorDistance_m: Double = 2_000,
        initialSpeedSigma_mps: Double = 30
    ) throws(TrackError) {
        for (name, v) in [
            ("model0 density", model0.density), ("model1 density", model1.density),
            ("meanSojourn_s[0]", meanSojourn_s[0]), ("meanSojourn_s[1]", meanSojourn_s[1]),
            ("reanchorDistance_m", reanchorDistance_m), ("initialSpeedSigma_mps", initialSpeedSigma_mps),
        ] {
            guard v.isFinite, v > 0 else { throw .invalidParameter(name: name, value: v, expected: "finite and > 0") }
        }
        self.model0 = model0
        self.model1 = model1
        self.meanSojourn_s = meanSojourn_s
        self.convention = convention
        self.reanchorDistance_m = reanchorDistance_m
        self.initialSpeedSigma_mps = initialSpeedSigma_mps
        self.projection = AnchorProjection(frame: LocalFrame(anchor: Coordinate(computedLatitude: 0, longitude: 0)))
        // The chain's stationary distribution: time shares τ_j / (τ₀ + τ₁).
        self.probabilities = meanSojourn_s / meanSojourn_s.sum()
    }

    /// True once a fix has been accepted.
    public var isInitialized: Bool { timestamp_s != nil }

    /// The combined (moment-matched) state in `frame`.
    public var state: SIMD4<Double> {
        IMMFilter.combine(probabilities, state0, covariance0, state1, covariance1).state
    }

    /// The combined covariance of `state`, including the spread of the model means.
    public var covariance: Covariance4 {
        IMMFilter.combine(probabilities, state0, covariance0, state1, covariance1).covariance
    }

    /// `state` and `covariance` from one moment matching (the same values).
    public var combined: (state: SIMD4<Double>, covariance: Covariance4) {
        IMMFilter.combine(probabilities, state0, covariance0, state1, covariance1)
    }

    /// The position of the current combined estimate (exactly `estimate?.position`, without its
    /// velocity and accuracy), or nil before the first fix.
    public var position: Coordinate? {
        guard timestamp_s != nil else { return nil }
        let x = IMMFilter.combine(probabilities, state0, covariance0, state1, covariance1).state
        return frame.coordinate(SIMD2(x[0], x[1]))
    }

    /// The current combined estimate, or nil before the first fix.
    public var estimate: KalmanEstimate? {
        guard let t = timestamp_s else { return nil }
        let c = IMMFilter.combine(probabilities, state0, covariance0, state1, covariance1)
        return KalmanEstimate(
            frame: frame, state: c.state, covariance: c.covariance, timestamp_s: t, convention: convention)
    }

    /// The combined estimate predicted to `timestamp_s` (≥ the last fix time) through the chain and
    /// both models, without changing the filter.
    /// - Throws: `TrackRejection.invalidTimestamp` / `.nonIncreasingTimestamp` (equal time is allowed).
    public func predict(to timestamp_s: Double) throws(TrackRejection) -> KalmanEstimate? {
        guard timestamp_s.isFinite else { throw .invalidTimestamp(timestamp_s) }
        guard let last = self.timestamp_s else { return nil }
        guard timestamp_s >= last else { throw .nonIncreasingTimestamp(previous_s: last, timestamp_s: timestamp_s) }
        var m = mixed(dt: timestamp_s - last)
        model0.predict(&m.x0, &m.p0, dt: timestamp_s - last)
        model1.predict(&m.x1, &m.p1, dt: timestamp_s - last)
        let c = IMMFilter.combine(m.predicted, m.x0, m.p0, m.x1, m.p1)
        return KalmanEstimate(
            frame: frame, state: c.state, covariance: c.covariance, timestamp_s: timestamp_s,
            convention: convention)
    }

    /// Feeds one fix: mixes, predicts and corrects both models, updates the model probabilities.
    /// - Throws: `TrackRejection` (the reasons of `KalmanFilter.update`); the filter is then unchanged.
    public mutating func update(_ fix: Fix) throws(TrackRejection) {
        _ = try process(fix, innovation: false)
    }

    /// Feeds one fix and returns the innovation of the fix against the combined (moment-matched)
    /// prediction, for consistency checks (NIS); nil for the first fix.
    /// - Throws: `TrackRejection`; the filter is then unchanged.
    public mutating func updateReturningInnovation(_ fix: Fix) throws(TrackRejection) -> Innovation? {
        try process(fix, innovation: true)
    }

    // MARK: - Core

    @inline(__always)
    mutating func process(_ fix: Fix, innovation wanted: Bool) throws(TrackRejection) -> Innovation? {
        let t = fix.timestamp_s
        let r = try KalmanFilter.measurementVariance(of: fix, convention: convention)
        guard let last = timestamp_s else {
            projection = AnchorProjection(
                frame: LocalFrame(anchor: Coordinate(computedLatitude: fix.latitude, longitude: fix.longitude)))
            state0 = .zero
            state1 = .zero
            covariance0 = initialCovariance(model0, r: r)
            covariance1 = initialCovariance(model1, r: r)
            probabilities = meanSojourn_s / meanSojourn_s.sum()
            timestamp_s = t
            return nil
        }
        guard t > last else { throw .nonIncreasingTimestamp(previous_s: last, timestamp_s: t) }
        let combined = probabilities[0] * SIMD2(state0[0], state0[1]) + probabilities[1] * SIMD2(state1[0], state1[1])
        if (combined * combined).sum() > reanchorDistance_m * reanchorDistance_m {
            reanchor(at: combined)
        }
        // The measurement first, as in `KalmanFilter`: its projection chain overlaps the mixing and
        // the predictions (independent of them, so the same values).
        let z = projection.offset_m(latitude: fix.latitude, longitude: fix.longitude)
        let dt = t - last
        var m = mixed(dt: dt)
        model0.predict(&m.x0, &m.p0, dt: dt)
        model1.predict(&m.x1, &m.p1, dt: dt)
        var out: Innovation?
        if wanted {
            let prior = IMMFilter.combine(m.predicted, m.x0, m.p0, m.x1, m.p1)
            out = Innovation(
                residual_m: z - SIMD2(prior.state[0], prior.state[1]),
                s00: prior.covariance.p00 + r, s01: prior.covariance.p01, s11: prior.covariance.p11 + r)
        }
        let nu0 = KalmanFilter.correct(&m.x0, &m.p0, z: z, r: r)
        let nu1 = KalmanFilter.correct(&m.x1, &m.p1, z: z, r: r)
        probabilities = IMMFilter.posterior(m.predicted, nu0, nu1)
        state0 = m.x0
        covariance0 = m.p0
        state1 = m.x1
        covariance1 = m.p1
        timestamp_s = t
        return out
    }

    func initialCovariance(_ model: MotionModel, r: Double) -> Covariance4 {
        switch model {
        case .constantVelocity:
            let v2 = initialSpeedSigma_mps * initialSpeedSigma_mps
            return Covariance4(diagonal: SIMD4(r, r, v2, v2))
        case .nearConstantPosition:
            return Covariance4(diagonal: SIMD4(r, r, 0, 0))
        }
    }

    /// Moves the anchor to the plane point `p` (the combined position) and carries both models over:
    /// positions as J (pᵢ − p) (their offsets from `p` are metres, where the frame change is linear
    /// to far below a millimetre), velocities as J vᵢ, covariances as diag(J, J) Pᵢ diag(J, J)ᵀ.
    mutating func reanchor(at p: SIMD2<Double>) {
        let (moved, j) = projection.reanchored(at: p)
        func carry(_ x: SIMD4<Double>) -> SIMD4<Double> {
            let e = j.apply(SIMD2(x[0], x[1]) - p)
            let v = j.apply(SIMD2(x[2], x[3]))
            return SIMD4(e.x, e.y, v.x, v.y)
        }
        state0 = carry(state0)
        state1 = carry(state1)
        covariance0 = covariance0.transformed(by: j)
        covariance1 = covariance1.transformed(by: j)
        projection = moved
        reanchorCount += 1
    }

    /// The mixed starting points of both models for a step of `dt` seconds, and the predicted
    /// model probabilities c̄.
    struct Mixed {
        var x0: SIMD4<Double>, p0: Covariance4
        var x1: SIMD4<Double>, p1: Covariance4
        var predicted: SIMD2<Double>
    }

    @inline(__always)
    func mixed(dt: Double) -> Mixed {
        let pi = IMMFilter.transition(meanSojourn_s: meanSojourn_s, dt: dt)
        let mu = probabilities
        // c̄_j = Σ_i π_ij μ_i; μ_{i|j} = π_ij μ_i / c̄_j.
        let c0 = pi.p00 * mu[0] + pi.p10 * mu[1]
        let c1 = pi.p01 * mu[0] + pi.p11 * mu[1]
        let into0 = IMMFilter.combine(
            SIMD2(pi.p00 * mu[0] / c0, pi.p10 * mu[1] / c0), state0, covariance0, state1, covariance1)
        let into1 = IMMFilter.combine(
            SIMD2(pi.p01 * mu[0] / c1, pi.p11 * mu[1] / c1), state0, covariance0, state1, covariance1)
        return Mixed(
            x0: into0.state, p0: into0.covariance, x1: into1.state, p1: into1.covariance,
            predicted: SIMD2(c0, c1))
    }

    /// Transition probabilities π_ij over `dt` of the two-state continuous-time chain with leaving
    /// rates a = 1/τ₀, b = 1/τ₁: π₀₁ = a(1 − e^{−(a+b)dt})/(a+b), π₁₀ = b(1 − e^{−(a+b)dt})/(a+b).
    @inline(__always)
    static func transition(
        meanSojourn_s tau: SIMD2<Double>, dt: Double
    ) -> (p00: Double, p01: Double, p10: Double, p11: Double) {
        let a = 1 / tau[0]
        let b = 1 / tau[1]
        let s = a + b
        let leave = (1 - _exp(-s * dt)) / s
        let p01 = a * leave
        let p10 = b * leave
        return (1 - p01, p01, p10, 1 - p10)
    }

    /// μ_j ∝ c̄_j N(ν_j; 0, S_j), computed as a ratio so that no likelihood under- or overflows.
    @inline(__always)
    static func posterior(_ predicted: SIMD2<Double>, _ nu0: Innovation, _ nu1: Innovation) -> SIMD2<Double> {
        // ρ = (c̄₁ Λ₁)/(c̄₀ Λ₀) = (c̄₁/c̄₀) √(det S₀ / det S₁) exp(−(d₁ − d₀)/2), exponent clamped to ±600.
        let exponent = min(600, max(-600, -0.5 * (nu1.normalizedSquare - nu0.normalizedSquare)))
        let rho = predicted[1] / predicted[0] * (nu0.determinant / nu1.determinant).squareRoot() * _exp(exponent)
        let mu0 = 1 / (1 + rho)
        return SIMD2(mu0, 1 - mu0)
    }

    /// Moment matching of two Gaussians with weights w (w₀ + w₁ = 1):
    /// x = w₀x₀ + w₁x₁, P = w₀P₀ + w₁P₁ + w₀w₁ δδᵀ with δ = x₀ − x₁ (upper triangle).
    @inline(__always)
    static func combine(
        _ w: SIMD2<Double>, _ x0: SIMD4<Double>, _ p0: Covariance4,
        _ x1: SIMD4<Double>, _ p1: Covariance4
    ) -> (state: SIMD4<Double>, covariance: Covariance4) {
        let a = w[0]
        let b = w[1]
        let ab = a * b
        let d = x0 - x1
        var p = p0
        p.p00 = a * p0.p00 + b * p1.p00 + ab * d[0] * d[0]
        p.p01 = a * p0.p01 + b * p1.p01 + ab * d[0] * d[1]
        p.p02 = a * p0.p02 + b * p1.p02 + ab * d[0] * d[2]
        p.p03 = a * p0.p03 + b * p1.p03 + ab * d[0] * d[3]
        p.p11 = a * p0.p11 + b * p1.p11 + ab * d[1] * d[1]
        p.p12 = a * p0.p12 + b * p1.p12 + ab * d[1] * d[2]
        p.p13 = a * p0.p13 + b * p1.p13 + ab * d[1] * d[3]
        p.p22 = a * p0.p22 + b * p1.p22 + ab * d[2] * d[2]
        p.p23 = a * p0.p23 + b * p1.p23 + ab * d[2] * d[3]
        p.p33 = a * p0.p33 + b * p1.p33 + ab * d[3] * d[3]
        return (a * x0 + b * x1, p)
    }
}
