import Foundation

extension ReportText {
    /// A latency or duration in a table whose header says "s": one decimal below 100 s, whole seconds from 100 s, "0" for |x| < 0.05 s
    /// (a mean of latencies that cancel is 0 s, never `3.39e-21`); "–" for NaN, "∞" for +∞.
    package static func latency(_ x: Double) -> String {
        guard x.isFinite else { return x.isNaN ? "–" : (x > 0 ? "∞" : "−∞") }
        if abs(x) < 0.05 { return "0" }
        let s = abs(x) >= 100 ? CFormat.fixed(x, decimals: 0) : CFormat.fixed(x, decimals: 1)
        return s.hasSuffix(".0") ? String(s.dropLast(2)) : s
    }

    /// Counts, rates and fractions for people: three significant digits, never an exponent;
    /// magnitudes below 0.001 show as "< 0.001".
    package static func plain(_ x: Double) -> String {
        guard x.isFinite else { return short(x) }
        if x != 0, abs(x) < 1e-3 { return x > 0 ? "< 0.001" : "> −0.001" }
        if abs(x) >= 1e6 { return CFormat.fixed(x, decimals: 0) }
        return short(x)
    }
}
