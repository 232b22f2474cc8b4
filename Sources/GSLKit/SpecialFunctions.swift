import CGSL

/// Special functions from GSL (`gsl_sf_*`), with GSL's error reported as `GSLError`.
public enum SpecialFunctions {
    /// Exponentially scaled modified Bessel function of the first kind, order 0:
    /// e^{−|x|}·I₀(x) (`gsl_sf_bessel_I0_scaled_e`). Finite for every finite `x`,
    /// which keeps the Rice density stable when ν·r/σ² is large.
    /// - Parameter x: any finite real.
    public static func besselI0Scaled(_ x: Double) throws(GSLError) -> Double {
        guard x.isFinite else { throw .invalidArgument("besselI0Scaled argument must be finite, got \(x)") }
        _ = GSLRuntime.handlerOff
        var result = gsl_sf_result()
        let status = gsl_sf_bessel_I0_scaled_e(x, &result)
        guard status == GSL_SUCCESS else {
            throw .failed(routine: "gsl_sf_bessel_I0_scaled_e(\(x))", reason: GSLRuntime.reason(status))
        }
        return result.val
    }
}
