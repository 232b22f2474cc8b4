import GSLKit

/// Errors of the metrics layer: each names the input (key or metric path) and the offending value.
package enum MetricsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An input value is outside its domain; `key` names the input, e.g. `observed[3].time_s`.
    case invalidValue(key: String, value: String, reason: String)
    /// An expectation names a metric path that does not exist.
    case unknownMetricPath(String)
    /// An expectation bound is malformed (no min/max, non-finite, min > max).
    case invalidBound(path: String, reason: String)
    /// A GSL computation failed (integration, quantile).
    case gsl(GSLError)

    package var description: String {
        switch self {
        case .invalidValue(let key, let value, let reason): return "\(key): \(reason) (got \(value))"
        case .unknownMetricPath(let path): return "unknown metric path '\(path)'"
        case .invalidBound(let path, let reason): return "expectation '\(path)': \(reason)"
        case .gsl(let error): return error.description
        }
    }
}

/// Runs a GSLKit call and wraps its error.
@inline(__always)
func gsl<T>(_ body: () throws(GSLError) -> T) throws(MetricsError) -> T {
    do { return try body() } catch { throw .gsl(error) }
}
