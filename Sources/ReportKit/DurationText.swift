import _FenceLabSupport

/// Seconds in messages: "23.135 s", "60 s" (rounded to milliseconds, trailing zeros dropped).
/// Never used for report.json, which keeps unrounded values.
package enum DurationText {
    /// `%.3f` of `x` (C printf rounding, "." decimals), trailing zeros and point dropped, `-0`
    /// as `0`, then " s". Formatted in a stack buffer (`Syscalls.format`): a replay writes one per
    /// divergence, and Foundation's `String(format:)` cost ≈ 18 000 instructions each.
    package static func seconds(_ x: Double) -> String {
        guard x.isFinite else { return x.isNaN ? "NaN s" : (x > 0 ? "∞ s" : "−∞ s") }
        let text = Syscalls.format("%.3f", x)
        let utf8 = text.utf8
        var end = utf8.endIndex
        while end > utf8.startIndex, utf8[utf8.index(before: end)] == UInt8(ascii: "0") {
            end = utf8.index(before: end)
        }
        if end > utf8.startIndex, utf8[utf8.index(before: end)] == UInt8(ascii: ".") { end = utf8.index(before: end) }
        let kept = Substring(utf8[..<end])
        return kept == "-0" ? "0 s" : kept + " s"
    }
}
