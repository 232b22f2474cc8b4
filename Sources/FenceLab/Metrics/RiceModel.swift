import Foundation
import GSLKit

/// The Rice distribution of a measured distance: |truth + noise| for isotropic Gaussian noise.
///
/// A user at true distance ν from the fence centre, measured with independent
/// Gaussian errors of standard deviation σ per axis (east, north), sees a distance
/// D ~ Rice(ν, σ) with density
///   f(r) = r/σ² · exp(−(r² + ν²)/(2σ²)) · I₀(rν/σ²)
///        = r/σ² · exp(−(r − ν)²/(2σ²)) · [e^{−rν/σ²} I₀(rν/σ²)],
/// the second form using GSL's scaled Bessel function so nothing overflows when
/// ν/σ is large (Rice 1945; Abramowitz & Stegun 9.6). Probabilities come from
/// adaptive integration of f (GSL QAGS/QAGIU), always of the smaller tail.
package struct RiceModel: Sendable, Hashable {
    /// True distance ν from the centre in metres, finite, ≥ 0.
    package let nu_m: Double
    /// Noise standard deviation per axis in metres, finite, > 0.
    package let sigma_m: Double

    package init(nu_m: Double, sigma_m: Double) throws(MetricsError) {
        guard nu_m.isFinite, nu_m >= 0 else {
            throw .invalidValue(key: "nu_m", value: "\(nu_m)", reason: "must be finite and ≥ 0")
        }
        guard sigma_m.isFinite, sigma_m > 0 else {
            throw .invalidValue(key: "sigma_m", value: "\(sigma_m)", reason: "must be finite and > 0")
        }
        self.nu_m = nu_m
        self.sigma_m = sigma_m
    }

    /// Probability density at `r_m` (per metre); 0 for r < 0.
    package func density(_ r_m: Double) throws(MetricsError) -> Double {
        guard r_m > 0 else { return 0 }
        let s2 = sigma_m * sigma_m
        let scaled = try gsl { () throws(GSLError) in try SpecialFunctions.besselI0Scaled(r_m * nu_m / s2) }
        let z = (r_m - nu_m) / sigma_m
        return r_m / s2 * exp(-0.5 * z * z) * scaled
    }

    /// P(D ≤ r_m). `r_m` finite.
    package func cdf(_ r_m: Double) throws(MetricsError) -> Double {
        try checkFinite(r_m)
        if r_m <= 0 { return 0 }
        return r_m <= nu_m ? try lowerTail(r_m) : 1 - (try upperTail(r_m))
    }

    /// P(D ≥ r_m). `r_m` finite.
    package func survival(_ r_m: Double) throws(MetricsError) -> Double {
        try checkFinite(r_m)
        if r_m <= 0 { return 1 }
        return r_m >= nu_m ? try upperTail(r_m) : 1 - (try lowerTail(r_m))
    }

    /// Half-width of the region around the peak that is integrated piecewise, in σ.
    private static let peakSpan_sigma = 40.0
    private static let absoluteTolerance = 1e-15
    private static let relativeTolerance = 1e-11

    /// ∫₀ˣ f, split near x so the adaptive rule sees the peak region separately.
    private func lowerTail(_ x: Double) throws(MetricsError) -> Double {
        let split = max(0, x - Self.peakSpan_sigma * sigma_m)
        return try integrate(0, split) + integrate(split, x)
    }

    /// ∫ₓ^∞ f: a finite piece over the peak region, then QAGIU for the far tail.
    private func upperTail(_ x: Double) throws(MetricsError) -> Double {
        let split = max(x, nu_m) + Self.peakSpan_sigma * sigma_m
        let near = try integrate(x, split)
        let far = try gsl { () throws(GSLError) in
            try Integration.integrateToInfinity(
                from: split, absoluteTolerance: Self.absoluteTolerance,
                relativeTolerance: Self.relativeTolerance
            ) { r in
                (try? density(r)) ?? .nan
            }
        }
        return near + far.value
    }

    private func integrate(_ a: Double, _ b: Double) throws(MetricsError) -> Double {
        if a >= b { return 0 }
        return try gsl { () throws(GSLError) in
            try Integration.integrate(
                from: a, to: b, absoluteTolerance: Self.absoluteTolerance,
                relativeTolerance: Self.relativeTolerance
            ) { r in
                (try? density(r)) ?? .nan
            }
        }.value
    }

    private func checkFinite(_ r_m: Double) throws(MetricsError) {
        guard r_m.isFinite else { throw .invalidValue(key: "r_m", value: "\(r_m)", reason: "must be finite") }
    }
}

/// Predicted inside/outside flip rate of a hysteresis rule for a stationary user.
///
/// Each fix draws an independent D. From outside the state becomes inside with
/// p_in = P(D ≤ enter); from inside it becomes outside with p_out = P(D ≥ exit):
/// a two-state Markov chain with stationary π_in = p_in/(p_in + p_out), so the
/// expected flips per fix are r = π_in·p_out + π_out·p_in = 2·p_in·p_out/(p_in + p_out).
///
/// Variance (renewal argument): sojourns are geometric, inside with mean 1/p_out and
/// variance (1 − p_out)/p_out², outside likewise with p_in. A cycle of two sojourns has
/// mean μ and variance s²; by the renewal CLT the cycle count over n fixes has variance
/// ≈ n·s²/μ³ (Cox 1962, *Renewal Theory* §3.3), and each cycle holds two flips, so
/// Var(flips) ≈ 4·n·s²/μ³. This accounts for the autocorrelation of the flips.
package struct FlipRatePrediction: Sendable, Hashable {
    /// P(D ≤ enter).
    package var pInside: Double
    /// P(D ≥ exit).
    package var pOutside: Double
    /// Expected flips per fix, 2·p_in·p_out/(p_in + p_out); 0 when either is 0.
    package var flipsPerFix: Double
    /// Asymptotic variance of the flip count per fix, 4·s²/μ³ (0 when no flips are possible).
    package var countVariancePerFix: Double

    /// Computes the prediction for a Rice model and hysteresis radii (0 < enter_m ≤ exit_m, finite).
    package init(model: RiceModel, enter_m: Double, exit_m: Double) throws(MetricsError) {
        guard enter_m.isFinite, enter_m > 0 else {
            throw .invalidValue(key: "enter_m", value: "\(enter_m)", reason: "must be finite and > 0")
        }
        guard exit_m.isFinite, exit_m >= enter_m else {
            throw .invalidValue(key: "exit_m", value: "\(exit_m)", reason: "must be finite and ≥ enter_m \(enter_m)")
        }
        try self.init(pInside: model.cdf(enter_m), pOutside: model.survival(exit_m))
    }

    /// From the two per-fix switching probabilities, each in [0, 1].
    package init(pInside: Double, pOutside: Double) throws(MetricsError) {
        for (key, p) in [("pInside", pInside), ("pOutside", pOutside)] where !(p >= 0 && p <= 1) {
            throw .invalidValue(key: key, value: "\(p)", reason: "must be a probability in [0, 1]")
        }
        self.pInside = pInside
        self.pOutside = pOutside
        guard pInside > 0, pOutside > 0 else {
            flipsPerFix = 0
            countVariancePerFix = 0
            return
        }
        flipsPerFix = 2 * pInside * pOutside / (pInside + pOutside)
        let mu = 1 / pInside + 1 / pOutside
        let s2 = (1 - pInside) / (pInside * pInside) + (1 - pOutside) / (pOutside * pOutside)
        countVariancePerFix = 4 * s2 / (mu * mu * mu)
    }

    /// Two-sided interval for the flip count over `steps` consecutive fix pairs at `level`
    /// (normal approximation), widened by `slack` flips for the O(1) boundary effect of
    /// a finite run (a partial first and last sojourn). `steps` ≥ 0, level in (0, 1).
    package func countInterval(
        steps: Int, level: Double, slack: Double = 1
    ) throws(MetricsError) -> (lower: Double, upper: Double) {
        guard steps >= 0 else { throw .invalidValue(key: "steps", value: "\(steps)", reason: "must be ≥ 0") }
        let z = try gsl { () throws(GSLError) in try Statistics.normalQuantile(probability: (1 + level) / 2) }
        let n = Double(steps)
        let centre = n * flipsPerFix
        let half = z * (n * countVariancePerFix).squareRoot() + slack
        return (max(0, centre - half), centre + half)
    }
}
