import Foundation

/// Seconds in messages: "23.135 s", "60 s" (rounded to milliseconds, trailing zeros dropped).
/// Never used for report.json, which keeps unrounded values.
package enum DurationText {
    package static func seconds(_ x: Double) -> String {
        guard x.isFinite else { return x.isNaN ? "NaN s" : (x > 0 ? "∞ s" : "−∞ s") }
        var t = String(format: "%.3f", x)
        while t.hasSuffix("0") { t.removeLast() }
        if t.hasSuffix(".") { t.removeLast() }
        return (t == "-0" ? "0" : t) + " s"
    }
}
