import CGSL

// The GSL random variates DriveSim draws, as methods on the generator that owns the
// `gsl_rng`. Each method names the GSL routine it calls (GSL manual, ch. "Random Number
// Distributions"); parameters are checked by the caller (DriveSim validates scenario files),
// so these stay branch-free on the hot path.
extension RandomSource {
    /// Bivariate Gaussian with zero mean (`gsl_ran_bivariate_gaussian`).
    /// - Parameters:
    ///   - sigmaX: standard deviation of x, ≥ 0.
    ///   - sigmaY: standard deviation of y, ≥ 0.
    ///   - rho: correlation coefficient, −1 < ρ < 1.
    @inlinable public func bivariateGaussian(sigmaX: Double, sigmaY: Double, rho: Double) -> SIMD2<Double> {
        var x = 0.0
        var y = 0.0
        gsl_ran_bivariate_gaussian(rng, sigmaX, sigmaY, rho, &x, &y)
        return SIMD2(x, y)
    }

    /// Student-t variate with `nu` degrees of freedom (`gsl_ran_tdist`), ν > 0.
    @inlinable public func studentT(nu: Double) -> Double { gsl_ran_tdist(rng, nu) }

    /// Chi-squared variate with `nu` degrees of freedom (`gsl_ran_chisq`), ν > 0.
    @inlinable public func chiSquared(nu: Double) -> Double { gsl_ran_chisq(rng, nu) }

    /// Log-normal variate exp(ζ + σ·N(0,1)) (`gsl_ran_lognormal`); median e^ζ, σ ≥ 0.
    @inlinable public func logNormal(zeta: Double, sigma: Double) -> Double { gsl_ran_lognormal(rng, zeta, sigma) }

    /// Exponential variate with the given mean (`gsl_ran_exponential`), mean > 0.
    @inlinable public func exponential(mean: Double) -> Double { gsl_ran_exponential(rng, mean) }

    /// Poisson count with the given mean (`gsl_ran_poisson`), mean ≥ 0.
    @inlinable public func poisson(mean: Double) -> Int { Int(gsl_ran_poisson(rng, mean)) }

    /// Uniform integer in 0..<n (`gsl_rng_uniform_int`), 1 ≤ n ≤ 2³² for mt19937/taus2.
    @inlinable public func uniformInt(below n: Int) -> Int {
        precondition(n >= 1 && UInt64(n) <= UInt64(UInt32.max) + 1, "uniformInt(below:) needs 1...2^32, got \(n)")
        return Int(gsl_rng_uniform_int(rng, UInt(n)))
    }
}

/// Cumulative distribution functions (`gsl_cdf_*`), for confidence intervals of statistical
/// tests. All inputs must lie in the stated ranges. Quantiles live in `Statistics`
/// (`normalQuantile`, `chiSquareQuantile`, `studentTQuantile`), which validate their input.
public enum DistributionCDF {
    /// P(X ≤ x) for X ~ N(0, σ²) (`gsl_cdf_gaussian_P`), σ > 0.
    public static func gaussianP(_ x: Double, sigma: Double) -> Double {
        _ = GSLRuntime.handlerOff
        return gsl_cdf_gaussian_P(x, sigma)
    }

    /// P(X ≤ x) for X ~ χ²(ν) (`gsl_cdf_chisq_P`).
    public static func chiSquaredP(_ x: Double, nu: Double) -> Double {
        _ = GSLRuntime.handlerOff
        return gsl_cdf_chisq_P(x, nu)
    }

    /// P(T ≤ t) for Student's t with ν degrees of freedom (`gsl_cdf_tdist_P`).
    public static func studentTP(_ t: Double, nu: Double) -> Double {
        _ = GSLRuntime.handlerOff
        return gsl_cdf_tdist_P(t, nu)
    }

    /// P(X ≤ x) for X ~ Exp(mean) (`gsl_cdf_exponential_P`).
    public static func exponentialP(_ x: Double, mean: Double) -> Double {
        _ = GSLRuntime.handlerOff
        return gsl_cdf_exponential_P(x, mean)
    }

    /// P(K ≤ k) for K ~ Poisson(mean) (`gsl_cdf_poisson_P`).
    public static func poissonP(_ k: Int, mean: Double) -> Double {
        _ = GSLRuntime.handlerOff
        // P(K ≤ k) is 0 below 0 and 1 to double precision past UInt32 (no trapping conversion).
        guard k >= 0 else { return 0 }
        guard let k32 = UInt32(exactly: k) else { return 1 }
        return gsl_cdf_poisson_P(k32, mean)
    }
}
