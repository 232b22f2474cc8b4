/// The tool's version, reported by `fencelab --version` and in every report.
package enum ToolVersion {
    package static let string = "0.1.0"

    /// The Swift compiler that built this binary, from `#if compiler(...)` (compile time;
    /// no process is spawned, so the value is deterministic for a given build).
    package static var swiftToolchain: String {
        #if compiler(>=7.0)
            return "Swift >= 7.0"
        #elseif compiler(>=6.4)
            return "Swift 6.4"
        #elseif compiler(>=6.3)
            return "Swift 6.3"
        #elseif compiler(>=6.2)
            return "Swift 6.2"
        #elseif compiler(>=6.1)
            return "Swift 6.1"
        #else
            return "Swift 6.0"
        #endif
    }
}
