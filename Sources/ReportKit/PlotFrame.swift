/// Data to pixels along one axis: `start + (v − lower) / (upper − lower) × length`.
///
/// `length` is signed: an upward y axis starts at the bottom of the plot with a negative length,
/// and a domain may run high to low (`lower` > `upper`). Every SVG plot maps through this one
/// formula, so the same data land on the same pixel in every page (coordinates are printed to
/// 0.1 px by `SVGPlots.n`). Non-finite inputs give non-finite pixels, which `SVGPlots.n` prints as 0.
package struct LinearScale {
    /// The data value drawn at `start`, and the one drawn at `start + length`; they differ.
    package let lower: Double, upper: Double
    /// Pixels: where `lower` is drawn, and the signed distance to where `upper` is drawn.
    package let start: Double, length: Double

    package init(domain: (Double, Double), start: Double, length: Double) {
        (lower, upper) = domain
        self.start = start
        self.length = length
    }

    /// The pixel of `v`; values outside the domain fall outside the range.
    package func callAsFunction(_ v: Double) -> Double { start + (v - lower) / (upper - lower) * length }

    /// The pixel of `v` held to the domain: nothing is drawn beyond the plot.
    package func clamped(_ v: Double) -> Double { self(max(min(lower, upper), min(max(lower, upper), v))) }

    /// The pixel of `v` held at `upper` only (a bar or whisker may still run below the axis).
    package func capped(_ v: Double) -> Double { self(min(v, upper)) }

    /// The pixel a fraction `f` of the way along the range (0: `start`, 1: its end).
    package func atFraction(_ f: Double) -> Double { start + f * length }
}

/// A plot in an SVG: the picture's size, the data rectangle inside it with its x scale (left to
/// right) and y scale (bottom to top), and the grid and tick labels the plots share.
package struct PlotFrame {
    /// The whole SVG, pixels.
    package let width: Double, height: Double
    /// The data rectangle, pixels from the SVG's top-left corner.
    package let left: Double, top: Double, plotWidth: Double, plotHeight: Double
    package let x: LinearScale, y: LinearScale

    /// `x` maps `xDomain` onto [left, left + plotWidth]; `y` maps `yDomain` onto the rectangle bottom-up.
    package init(
        width: Double, height: Double, left: Double, top: Double, plotWidth: Double, plotHeight: Double,
        x xDomain: (Double, Double), y yDomain: (Double, Double)
    ) {
        self.init(
            width: width, height: height, left: left, top: top, plotWidth: plotWidth, plotHeight: plotHeight,
            x: LinearScale(domain: xDomain, start: left, length: plotWidth),
            y: LinearScale(domain: yDomain, start: top + plotHeight, length: -plotHeight))
    }

    /// A frame with scales of its own (e.g. the track plot's equal metres per pixel on both axes).
    package init(
        width: Double, height: Double, left: Double, top: Double, plotWidth: Double, plotHeight: Double,
        x: LinearScale, y: LinearScale
    ) {
        self.width = width
        self.height = height
        self.left = left
        self.top = top
        self.plotWidth = plotWidth
        self.plotHeight = plotHeight
        self.x = x
        self.y = y
    }

    package var right: Double { left + plotWidth }
    package var bottom: Double { top + plotHeight }

    /// The opening `<svg>` of the whole picture.
    package func svgOpen(label: String) -> String { SVGPlots.svgOpen(width: width, height: height, label: label) }

    /// A light horizontal line across the plot at each of `ticks` and its label right-aligned left
    /// of the axis (class `tick-y`, the tick's exact value); `unit` follows the last label only.
    package func yGrid(_ ticks: AxisTicks, unit: String = "") -> String {
        let n = SVGPlots.n
        var out = ""
        for v in ticks.values {
            out += "<line x1=\"\(n(left))\" x2=\"\(n(right))\" y1=\"\(n(y(v)))\" y2=\"\(n(y(v)))\" stroke=\"#e3e3e3\"/>"
            out +=
                "<text class=\"tick-y\" x=\"\(n(left - 4))\" y=\"\(n(y(v) + 4))\" text-anchor=\"end\">\(ticks.label(v))\(v == ticks.values.last ? unit : "")</text>"
        }
        return out
    }

    /// The x tick labels of `ticks` under the plot (class `tick-x`), `unit` after the last one (see `xLabels`).
    package func xAxis(_ ticks: AxisTicks, unit: String = "", anchorEnds: Bool, gridLines: Bool) -> String {
        xLabels(
            ticks.values.map { v in (x(v), ticks.label(v) + (v == ticks.values.last ? unit : "")) },
            anchorEnds: anchorEnds, gridLines: gridLines)
    }

    /// The pixel boxes of the tick labels `yGrid(ticks, unit:)` draws (a 7 px character width, a
    /// 12 px line height), for label placement that must not cover them.
    package func yTickBoxes(_ ticks: AxisTicks, unit: String = "") -> [LabelBox] {
        ticks.values.map { v in
            let text = ticks.label(v) + (v == ticks.values.last ? unit : "")
            let w = LabelBox.width(of: text)
            return LabelBox(x0: left - 4 - w, y0: y(v) - 8, x1: left - 4, y1: y(v) + 4)
        }
    }

    /// Labels 16 px under the plot at pixel positions; `anchorEnds` aligns the first to its start and the
    /// last to its end (so they stay inside the picture), else all are centred; `gridLines` draws a
    /// faint vertical line through the plot at each. `cssClass`: `tick-x`, or `tick-l` for a
    /// logarithmic axis (labels 1, 2, 5 × 10ᵏ).
    package func xLabels(
        _ ticks: [(x: Double, label: String)], anchorEnds: Bool, gridLines: Bool, cssClass: String = "tick-x"
    ) -> String {
        let n = SVGPlots.n
        var out = ""
        for (k, t) in ticks.enumerated() {
            if gridLines {
                out +=
                    "<line x1=\"\(n(t.x))\" x2=\"\(n(t.x))\" y1=\"\(n(top))\" y2=\"\(n(top + plotHeight))\" stroke=\"#f0f0f0\"/>"
            }
            let anchor = !anchorEnds ? "middle" : k == 0 ? "start" : k == ticks.count - 1 ? "end" : "middle"
            out +=
                "<text class=\"\(cssClass)\" x=\"\(n(t.x))\" y=\"\(n(top + plotHeight + 16))\" text-anchor=\"\(anchor)\">\(t.label)</text>"
        }
        return out
    }
}

/// A label's box in pixels (left, top, right, bottom), estimated from a 7 px character width and
/// a 12 px line height (the plots' 12 px sans-serif text).
package struct LabelBox: Equatable, Sendable {
    package var x0: Double, y0: Double, x1: Double, y1: Double

    package init(x0: Double, y0: Double, x1: Double, y1: Double) {
        self.x0 = x0
        self.y0 = y0
        self.x1 = x1
        self.y1 = y1
    }

    /// Pixels of one character and of one line of plot text.
    package static let characterWidth = 7.0, lineHeight = 12.0

    /// The estimated width of `text`, with 4 px to spare.
    package static func width(of text: String) -> Double { Double(text.count) * characterWidth + 4 }

    /// True when the two boxes share some area (touching edges do not count).
    package func overlaps(_ o: LabelBox) -> Bool { x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1 }

    /// True when the box lies inside `bounds`.
    package func isInside(_ bounds: LabelBox) -> Bool {
        x0 >= bounds.x0 && x1 <= bounds.x1 && y0 >= bounds.y0 && y1 <= bounds.y1
    }
}
