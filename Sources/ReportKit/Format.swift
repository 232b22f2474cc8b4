/// Number formatting shared by the CLI and the reports.
package enum Format {
    /// A value in metres with full precision (shortest round-trip representation).
    package static func metres(_ value: Double) -> String { "\(value)" }
}
