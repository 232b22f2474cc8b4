@preconcurrency import CGSL

/// GSL's natural cubic spline (`gsl_interp_cspline`), for use as a test and benchmark oracle.
///
/// Owns a `gsl_interp` and a `gsl_interp_accel` and frees them in `deinit`; the knots are
/// copied so no Swift buffer has to outlive a call. Not `Sendable` (GSL's accelerator mutates).
public final class GSLCubicSpline {
    private let interp: UnsafeMutablePointer<gsl_interp>
    private let accel: UnsafeMutablePointer<gsl_interp_accel>
    private let x: UnsafeMutableBufferPointer<Double>
    private let y: UnsafeMutableBufferPointer<Double>

    /// - Parameters: x: ≥ 3 strictly increasing abscissae (GSL's minimum for cspline); y: as many ordinates.
    /// - Throws: `GSLError.invalidArgument`, `.allocationFailed`, `.failed` with GSL's reason.
    public init(x xs: [Double], y ys: [Double]) throws(GSLError) {
        _ = GSLRuntime.handlerOff
        guard xs.count == ys.count else {
            throw .invalidArgument("x and y must have the same count, got \(xs.count) and \(ys.count)")
        }
        let minSize = Int(gsl_interp_type_min_size(gsl_interp_cspline))
        guard xs.count >= minSize else {
            throw .invalidArgument("gsl_interp_cspline needs at least \(minSize) points, got \(xs.count)")
        }
        guard let i = gsl_interp_alloc(gsl_interp_cspline, xs.count) else {
            throw .allocationFailed("a cspline of \(xs.count) points")
        }
        guard let a = gsl_interp_accel_alloc() else {
            gsl_interp_free(i)
            throw .allocationFailed("an interpolation accelerator")
        }
        let xb = UnsafeMutableBufferPointer<Double>.allocate(capacity: xs.count)
        let yb = UnsafeMutableBufferPointer<Double>.allocate(capacity: ys.count)
        _ = xb.initialize(from: xs)
        _ = yb.initialize(from: ys)
        let status = gsl_interp_init(i, xb.baseAddress, yb.baseAddress, xs.count)
        guard status == GSL_SUCCESS else {
            gsl_interp_free(i)
            gsl_interp_accel_free(a)
            xb.deallocate()
            yb.deallocate()
            throw .failed(routine: "gsl_interp_init", reason: GSLRuntime.reason(status))
        }
        interp = i
        accel = a
        x = xb
        y = yb
    }

    deinit {
        gsl_interp_free(interp)
        gsl_interp_accel_free(accel)
        x.deallocate()
        y.deallocate()
    }

    /// The spline's value at `t` (`gsl_interp_eval_e`); outside the knot range GSL refuses.
    /// - Throws: `GSLError.failed` with GSL's reason (e.g. "input domain error").
    public func value(at t: Double) throws(GSLError) -> Double {
        var result = 0.0
        let status = gsl_interp_eval_e(interp, x.baseAddress, y.baseAddress, t, accel, &result)
        guard status == GSL_SUCCESS else {
            throw .failed(routine: "gsl_interp_eval_e", reason: GSLRuntime.reason(status))
        }
        return result
    }

    /// Values at every `t` in `ts` (benchmark convenience: one Swift call for many GSL evaluations).
    public func values(at ts: [Double]) throws(GSLError) -> [Double] {
        var out = [Double]()
        out.reserveCapacity(ts.count)
        for t in ts { out.append(try value(at: t)) }
        return out
    }
}
