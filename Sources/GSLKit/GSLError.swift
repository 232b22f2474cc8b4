/// Errors from the GSL layer, with GSL's own reason text. No GSL status code leaves GSLKit.
public enum GSLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `gsl_rng_alloc` returned NULL (out of memory).
    case allocationFailed(String)
    /// A parameter outside the domain of a GSL routine.
    case invalidArgument(String)
    /// A GSL routine reported failure; `reason` is `gsl_strerror` of its status.
    case failed(routine: String, reason: String)

    public var description: String {
        switch self {
        case .allocationFailed(let what): return "GSL could not allocate \(what)"
        case .invalidArgument(let why): return "invalid argument: \(why)"
        case .failed(let routine, let reason): return "\(routine) failed: \(reason)"
        }
    }
}
