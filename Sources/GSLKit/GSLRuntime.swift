import CGSL

/// Process-wide GSL setup and facts. GSL's default error handler calls `abort()`;
/// FenceLab switches it off once, before the first GSL call, and checks status codes instead.
public enum GSLRuntime {
    /// Touch this before any GSL call (every GSLKit entry point does).
    static let handlerOff: Void = {
        _ = gsl_set_error_handler_off()
    }()

    /// The GSL version linked at run time (`gsl_version`), e.g. "2.7.1".
    public static var version: String {
        _ = handlerOff
        return String(cString: fl_gsl_version())
    }

    /// Text for a GSL status code (`gsl_strerror`).
    static func reason(_ status: Int32) -> String {
        String(cString: gsl_strerror(status))
    }
}
