import Foundation
import GeoPolicy

/// Inline SVG plots for index.html. Inputs are plain metres/seconds/states; every plot
/// decimates to a bounded number of elements so the page stays small for long runs.
package enum SVGPlots {
    package static let insideColour = "#1b9e77", outsideColour = "#d95f02", unknownColour = "#9a9a9a",
        mixedColour = "#7570b3"
    package static let seriesColours = [
        "raw": "#8c8c8c", "filtered": "#0072b2", "smoothed": "#009e73", "seedBaseline": "#e69f00", "imm": "#d55e00",
    ]
    package static let methodColours = ["linear": "#0072b2", "cubicSpline": "#cc79a7", "hermite": "#009e73"]

    /// Fixed-point coordinate text, one decimal, locale-free.
    package static func n(_ x: Double) -> String { x.isFinite ? CFormat.fixed(x, decimals: 1) : "0" }

    package static func colour(_ s: FenceState) -> String {
        switch s {
        case .inside: return insideColour
        case .outside: return outsideColour
        case .unknown: return unknownColour
        }
    }

    /// Every k-th element so that at most `limit` remain (first and last kept).
    package static func stride<T>(_ items: [T], limit: Int) -> [T] {
        guard items.count > limit, limit >= 2 else { return items }
        let step = Double(items.count - 1) / Double(limit - 1)
        return (0..<limit).map { items[Int((Double($0) * step).rounded())] }
    }

    /// A round length near `target` (1, 2, 5 × 10ᵏ).
    package static func niceLength(_ target: Double) -> Double {
        guard target > 0, target.isFinite else { return 1 }
        let p = pow(10, floor(log10(target)))
        for m in [5.0, 2, 1] where m * p <= target { return m * p }
        return p
    }

    package static func legend(_ items: [(String, String, String)], x: Double, y: Double) -> String {
        // (kind "dot"/"line"/"dash", colour, label)
        var out = ""
        var cx = x
        for (kind, colour, label) in items {
            switch kind {
            case "dot": out += "<circle cx=\"\(n(cx + 5))\" cy=\"\(n(y - 4))\" r=\"4\" fill=\"\(colour)\"/>"
            case "dash":
                out +=
                    "<line x1=\"\(n(cx))\" y1=\"\(n(y - 4))\" x2=\"\(n(cx + 12))\" y2=\"\(n(y - 4))\" stroke=\"\(colour)\" stroke-width=\"2\" stroke-dasharray=\"3 2\"/>"
            default:
                out +=
                    "<line x1=\"\(n(cx))\" y1=\"\(n(y - 4))\" x2=\"\(n(cx + 12))\" y2=\"\(n(y - 4))\" stroke=\"\(colour)\" stroke-width=\"2.5\"/>"
            }
            out += "<text x=\"\(n(cx + 16))\" y=\"\(n(y))\">\(ReportText.xml(label))</text>"
            cx += 24 + Double(label.count) * 7.4
        }
        return out
    }

    package static func svgOpen(width: Double, height: Double, label: String) -> String {
        "<svg viewBox=\"0 0 \(n(width)) \(n(height))\" role=\"img\" aria-label=\"\(ReportText.xml(label))\" xmlns=\"http://www.w3.org/2000/svg\">"
    }

    /// Time labels on round values: multiples of `niceTimeStep` inside the domain of `x` (seconds,
    /// earliest first), about `ticks` intervals, at pixel height `y`.
    package static func timeAxis(_ x: LinearScale, ticks: Int, y: Double) -> String {
        let t0 = x.lower
        let t1 = x.upper
        var out = ""
        for t in niceTimes(t0: t0, t1: t1, intervals: ticks) {
            let px = x(t)
            let span = x(t1) - x(t0)
            // Labels near an end are anchored inward so they stay inside the plot.
            let anchor = px - x(t0) < 0.04 * span ? "start" : x(t1) - px < 0.04 * span ? "end" : "middle"
            out += "<line x1=\"\(n(px))\" x2=\"\(n(px))\" y1=\"\(n(y - 14))\" y2=\"\(n(y - 10))\" stroke=\"#666\"/>"
            out += "<text x=\"\(n(px))\" y=\"\(n(y))\" text-anchor=\"\(anchor)\">\(ReportText.short(t)) s</text>"
        }
        return out
    }

    /// Multiples of a round step (1, 2, 5 × 10ᵏ s below a minute; 1, 2, 5, 10, 15, 20, 30 min; 1, 2, 3, 6, 12 h)
    /// that lie in [t0, t1], with at most about `intervals` + 1 of them.
    package static func niceTimes(t0: Double, t1: Double, intervals: Int) -> [Double] {
        guard t1 > t0, t0.isFinite, t1.isFinite, intervals > 0 else { return [] }
        let step = niceTimeStep((t1 - t0) / Double(intervals))
        var out: [Double] = []
        var k = (t0 / step).rounded(.up)
        while k * step <= t1 + 1e-9 * step, out.count < 50 {
            out.append(k * step)
            k += 1
        }
        return out
    }

    /// The smallest round step, seconds, at or above `minimum_s`.
    package static func niceTimeStep(_ minimum_s: Double) -> Double {
        guard minimum_s > 0, minimum_s.isFinite else { return 1 }
        if minimum_s > 60 {
            for m in [60.0, 120, 300, 600, 900, 1200, 1800, 3600, 7200, 10800, 21600, 43200] where m >= minimum_s {
                return m
            }
            return 86400 * niceCeiling(minimum_s / 86400)
        }
        let p = pow(10, floor(log10(minimum_s)))
        for m in [1.0, 2, 5, 10] where m * p >= minimum_s { return m * p }
        return 10 * p
    }

    /// 1, 2, 2.5, 5 × 10ᵏ at or above x.
    package static func niceCeiling(_ x: Double) -> Double {
        let p = pow(10, floor(log10(x)))
        for m in [1.0, 2, 2.5, 5, 10] where m * p >= x { return m * p }
        return 10 * p
    }

}
