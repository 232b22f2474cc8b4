import CGSL

/// Result of a numerical integration: the estimate and GSL's bound on its absolute error.
public struct IntegrationResult: Sendable, Hashable {
    /// The integral estimate.
    public var value: Double
    /// GSL's estimate of the absolute error.
    public var absoluteError: Double
}

/// Adaptive numerical integration of Swift closures with GSL's QUADPACK routines.
///
/// The closure reaches the C callback through the `params` context pointer of a
/// `gsl_function`; the pointer never leaves this file. The closure must not throw
/// and must return finite values; a non-finite value makes GSL fail, which is reported.
public enum Integration {
    /// Default size of the GSL workspace (maximum number of subintervals).
    public static let defaultLimit = 1000

    /// ∫ₐᵇ f(x) dx by QAGS (adaptive Gauss–Kronrod 21 with Wynn ε-extrapolation,
    /// `gsl_integration_qags`), for finite a < b (a == b gives 0).
    /// - Parameters:
    ///   - absoluteTolerance, relativeTolerance: ≥ 0, not both 0 (GSL's epsabs, epsrel).
    ///   - limit: ≥ 1, subintervals the workspace holds.
    public static func integrate(
        from a: Double, to b: Double,
        absoluteTolerance: Double = 0, relativeTolerance: Double = 1e-10,
        limit: Int = defaultLimit,
        _ f: (Double) -> Double
    ) throws(GSLError) -> IntegrationResult {
        guard a.isFinite, b.isFinite else {
            throw .invalidArgument("integration bounds must be finite, got [\(a), \(b)]")
        }
        if a == b { return IntegrationResult(value: 0, absoluteError: 0) }
        return try run(routine: "gsl_integration_qags on [\(a), \(b)]", absoluteTolerance, relativeTolerance, limit, f)
        {
            fn, epsabs, epsrel, lim, ws, result, abserr in
            gsl_integration_qags(fn, a, b, epsabs, epsrel, lim, ws, result, abserr)
        }
    }

    /// ∫ₐ^∞ f(x) dx by QAGIU (`gsl_integration_qagiu`: x = a + (1 − t)/t mapped to (0, 1], then QAGS).
    /// Same tolerance rules as `integrate(from:to:_:)`.
    public static func integrateToInfinity(
        from a: Double,
        absoluteTolerance: Double = 0, relativeTolerance: Double = 1e-10,
        limit: Int = defaultLimit,
        _ f: (Double) -> Double
    ) throws(GSLError) -> IntegrationResult {
        guard a.isFinite else { throw .invalidArgument("integration lower bound must be finite, got \(a)") }
        return try run(routine: "gsl_integration_qagiu from \(a)", absoluteTolerance, relativeTolerance, limit, f) {
            fn, epsabs, epsrel, lim, ws, result, abserr in
            gsl_integration_qagiu(fn, a, epsabs, epsrel, lim, ws, result, abserr)
        }
    }

    /// Holds the closure for the duration of one GSL call.
    private final class Context {
        let f: (Double) -> Double
        init(_ f: @escaping (Double) -> Double) { self.f = f }
    }

    private typealias Routine = (
        UnsafeMutablePointer<gsl_function>, Double, Double, Int,
        UnsafeMutablePointer<gsl_integration_workspace>,
        UnsafeMutablePointer<Double>, UnsafeMutablePointer<Double>
    ) -> Int32

    private static func run(
        routine: String, _ epsabs: Double, _ epsrel: Double, _ limit: Int,
        _ f: (Double) -> Double, _ call: Routine
    ) throws(GSLError) -> IntegrationResult {
        guard epsabs >= 0, epsrel >= 0, epsabs.isFinite, epsrel.isFinite, epsabs > 0 || epsrel > 0 else {
            throw .invalidArgument(
                "integration tolerances must be finite, ≥ 0 and not both 0, got abs \(epsabs), rel \(epsrel)")
        }
        guard limit >= 1 else { throw .invalidArgument("integration limit must be ≥ 1, got \(limit)") }
        _ = GSLRuntime.handlerOff
        guard let workspace = gsl_integration_workspace_alloc(limit) else {
            throw .allocationFailed("an integration workspace of \(limit) intervals")
        }
        defer { gsl_integration_workspace_free(workspace) }
        var value = 0.0
        var abserr = 0.0
        let status: Int32 = withoutActuallyEscaping(f) { escapable in
            let context = Context(escapable)
            return withExtendedLifetime(context) {
                var function = gsl_function(
                    function: { x, params in
                        Unmanaged<Context>.fromOpaque(params!).takeUnretainedValue().f(x)
                    },
                    params: Unmanaged.passUnretained(context).toOpaque())
                return call(&function, epsabs, epsrel, limit, workspace, &value, &abserr)
            }
        }
        guard status == GSL_SUCCESS else {
            throw .failed(routine: routine, reason: GSLRuntime.reason(status))
        }
        return IntegrationResult(value: value, absoluteError: abserr)
    }
}
