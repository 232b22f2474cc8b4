/// Number formatting shared by the CLI and the reports.
public enum Format {
    /// A value in metres with full precision (shortest round-trip representation).
    public static func metres(_ value: Double) -> String { "\(value)" }
}
