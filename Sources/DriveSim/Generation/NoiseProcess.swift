import GSLKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Draws the position error of successive fixes, in metres east and north (see `NoiseSpec`).
///
/// White part: isotropic `gsl_ran_gaussian_ziggurat` per axis, or `gsl_ran_bivariate_gaussian`
/// along/across track rotated by the heading. Tails: the white vector times √(ν/χ²_ν)
/// (multivariate Student-t, `gsl_ran_chisq`) or times `scale` with probability p (mixture).
/// Bias: first-order Gauss–Markov per axis (Gelb 1974, "Applied Optimal Estimation", §3.8),
/// started from its stationary distribution. Fixed-size state, no allocation.

struct NoiseProcess {
    enum WhiteKind: Sendable { case gaussian, anisotropic }
    enum TailKind: Sendable { case none, studentT, mixture }
    let white: WhiteKind
    let sigma_m: Double
    let alongSigma_m: Double
    let acrossSigma_m: Double
    let rho: Double
    let tails: TailKind
    let nu: Double
    let outlierProbability: Double
    let outlierScale: Double
    let hasBias: Bool
    let biasPhi: Double
    let biasInnovation_m: Double
    var bias_m: SIMD2<Double> = .zero

    init(spec: NoiseSpec, dt_s: Double, rng: RandomSource) {
        switch spec.white {
        case .gaussian(let s):
            white = .gaussian
            sigma_m = s
            alongSigma_m = s
            acrossSigma_m = s
            rho = 0
        case .anisotropic(let a, let c, let r):
            white = .anisotropic
            sigma_m = 0
            alongSigma_m = a
            acrossSigma_m = c
            rho = r
        }
        switch spec.tails {
        case nil:
            tails = .none
            nu = 0
            outlierProbability = 0
            outlierScale = 1
        case .studentT(let n)?:
            tails = .studentT
            nu = n
            outlierProbability = 0
            outlierScale = 1
        case .mixture(let p, let k)?:
            tails = .mixture
            nu = 0
            outlierProbability = p
            outlierScale = k
        }
        if let b = spec.bias {
            hasBias = true
            biasPhi = exp(-dt_s / b.tau_s)
            biasInnovation_m = b.sigma_m * (1 - biasPhi * biasPhi).squareRoot()
            bias_m = SIMD2(rng.gaussianZiggurat(sigma: b.sigma_m), rng.gaussianZiggurat(sigma: b.sigma_m))
        } else {
            hasBias = false
            biasPhi = 0
            biasInnovation_m = 0
        }
    }

    /// The error of the next fix; `alongTrack` is the unit east-north direction of travel.

    @inline(__always)
    mutating func draw(rng: RandomSource, alongTrack: SIMD2<Double>) -> SIMD2<Double> {
        var e: SIMD2<Double>
        switch white {
        case .gaussian:
            e = SIMD2(rng.gaussianZiggurat(sigma: sigma_m), rng.gaussianZiggurat(sigma: sigma_m))
        case .anisotropic:
            let ac = rng.bivariateGaussian(sigmaX: alongSigma_m, sigmaY: acrossSigma_m, rho: rho)
            // along · heading + across · (heading rotated 90° clockwise = to the right).
            e = alongTrack * ac.x + SIMD2(alongTrack.y, -alongTrack.x) * ac.y
        }
        switch tails {
        case .none: break
        case .studentT: e *= (nu / rng.chiSquared(nu: nu)).squareRoot()
        case .mixture: if rng.uniform() < outlierProbability { e *= outlierScale }
        }
        if hasBias {
            bias_m =
                bias_m * biasPhi
                + SIMD2(
                    rng.gaussianZiggurat(sigma: biasInnovation_m),
                    rng.gaussianZiggurat(sigma: biasInnovation_m))
            e += bias_m
        }
        return e
    }
}

/// Draws the reported horizontal accuracy (see `AccuracySpec`).

struct AccuracyProcess {
    let base_m: Double
    let misreportSigma: Double
    let invalidProbability: Double

    init(spec: AccuracySpec, noise: NoiseSpec) {
        switch spec.model {
        case .drms: base_m = noise.drms_m
        case .fixed(let v): base_m = v
        }
        misreportSigma = spec.misreportSigma
        invalidProbability = spec.invalidProbability
    }

    /// The next reported accuracy in metres; `invalid` when it is −1 or NaN on purpose.

    @inline(__always)
    func draw(rng: RandomSource) -> (value_m: Double, invalid: Bool) {
        var a = base_m
        if misreportSigma > 0 { a *= rng.logNormal(zeta: 0, sigma: misreportSigma) }
        if invalidProbability > 0, rng.uniform() < invalidProbability {
            return (rng.uniformInt(below: 2) == 0 ? -1 : .nan, true)
        }
        return (a, false)
    }
}
