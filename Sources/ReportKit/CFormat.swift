import _FenceLabSupport

/// printf-style number text through the C library (`vsnprintf` into a stack buffer), for the
/// report writers' hot paths: the same text as `String(format:)` with the "C" locale (FenceLab
/// never calls `setlocale`, so "." decimals), without Foundation's format-string machinery.
package enum CFormat {
    /// `String(format: "%.<decimals>f", x)` (decimals 0…9).
    package static func fixed(_ x: Double, decimals: Int) -> String {
        let formats: [StaticString] = ["%.0f", "%.1f", "%.2f", "%.3f", "%.4f", "%.5f", "%.6f", "%.7f", "%.8f", "%.9f"]
        return format(formats[min(max(decimals, 0), 9)], x)
    }

    /// `String(format: "%.2e", x)`.
    package static func scientific2(_ x: Double) -> String { format("%.2e", x) }

    private static func format(_ pattern: StaticString, _ x: Double) -> String { Syscalls.format(pattern, x) }
}
