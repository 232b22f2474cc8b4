/// The tool's version, reported by `fencelab --version` and in every report.
package enum ToolVersion {
    package static let string = "0.1.0"
}
