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

    /// Time tick marks and labels (class `tick-t`) at pixel height `y`: `AxisTicks.time` inside the
    /// domain of `x` (seconds, earliest first), about `ticks` intervals.
    package static func timeAxis(_ x: LinearScale, ticks: Int, y: Double) -> String {
        let t0 = x.lower
        let t1 = x.upper
        let axis = AxisTicks.time(inside: t0, t1, intervals: ticks)
        var out = ""
        for t in axis.values {
            let px = x(t)
            let span = x(t1) - x(t0)
            // Labels near an end are anchored inward so they stay inside the plot.
            let anchor = px - x(t0) < 0.04 * span ? "start" : x(t1) - px < 0.04 * span ? "end" : "middle"
            out += "<line x1=\"\(n(px))\" x2=\"\(n(px))\" y1=\"\(n(y - 14))\" y2=\"\(n(y - 10))\" stroke=\"#666\"/>"
            out +=
                "<text class=\"tick-t\" x=\"\(n(px))\" y=\"\(n(y))\" text-anchor=\"\(anchor)\">\(axis.label(t))</text>"
        }
        return out
    }

    /// Places text labels next to their points so that no label box overlaps another, one of
    /// `obstacles` (tick labels, strip text) or leaves `bounds` (greedy: the first free one of eight
    /// positions around the point, then further out). A label with no free position is dropped (its
    /// mark stays, and the legend names it); the result holds the `<text>` of the placed ones.
    package static func placeLabels(
        _ items: [(text: String, x: Double, y: Double)], bounds: LabelBox, obstacles: [LabelBox] = []
    ) -> [String] {
        var taken = obstacles
        var out: [String] = []
        for item in items {
            let w = LabelBox.width(of: item.text)
            let h = LabelBox.lineHeight
            search: for ring in 1...6 {
                let r = Double(ring) * 10
                for (dx, dy) in [(1.0, -1.0), (1, 1), (-1, -1), (-1, 1), (1, 0), (-1, 0), (0, -1.5), (0, 1.5)] {
                    let x0 = dx > 0 ? item.x + r * dx : dx < 0 ? item.x + r * dx - w : item.x - w / 2
                    let y0 = item.y + r * dy - h / 2
                    let box = LabelBox(x0: x0, y0: y0, x1: x0 + w, y1: y0 + h)
                    guard box.isInside(bounds), !taken.contains(where: { $0.overlaps(box) }) else { continue }
                    taken.append(box)
                    out.append(
                        "<text class=\"mark-label\" x=\"\(n(x0 + 2))\" y=\"\(n(y0 + h - 2))\">\(ReportText.xml(item.text))</text>"
                    )
                    break search
                }
            }
        }
        return out
    }
}
