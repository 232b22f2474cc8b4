import FenceLab
import GeoPolicy
import ReportKit
import _FenceLabSupport

/// `index.html` of a sweep: first the one recommendation over the mix with its reasons and the
/// mix frontier plot (`SweepMixHTML`), then per scenario the flutter trade-off plot (spurious vs
/// median latency, missed marked, Pareto frontier highlighted, 80/120/30 and the recommendation
/// marked) and a table. Self-contained (inline CSS and SVG, the run report's style), deterministic bytes.
enum SweepHTML {
    static let frontierColour = "#0072b2", missedColour = "#c62828", pointColour = "#9a9a9a"
    static let referenceColour = "#000000", recommendedColour = "#e69f00"

    static func render(_ s: SweepSummary) -> String { HTMLPage.string { render(s, into: &$0) } }

    /// The page, streamed: each scenario's plots and full table (which grow with the grid) go
    /// straight to `out`.
    static func render(_ s: SweepSummary, into out: inout some TextSink) {
        let x = ReportText.xml
        let m = s.manifest
        let kinds = FenceInput.Kind.allCases.filter(m.points.hasInput)
        let inputs = kinds.count > 1 ? " (\(kinds.map(\.rawValue).joined(separator: ", ")) inputs)" : ""
        let banner = HTMLPage.Banner(
            cssClass: "unknownband", style: "background:#24292f",
            heading: m.hasSamplingAxis ? "Pipeline sweep" : "Threshold sweep",
            lines: [
                "\(m.points.count) \(x(m.rule.rawValue)) settings\(x(inputs))"
                    + (m.hasSamplingAxis ? " · \(SweepGrid.samplings(of: m.points).count) sampling policies" : "")
                    + " · \(m.scenarios.count) scenarios · \(m.items) work items"
            ])
        var h = HTMLPage.open(
            title: "FenceLab sweep: \(m.points.count) settings × \(m.scenarios.count) scenarios", banner: banner)
        h +=
            "<p class=\"muted\">Every setting sees the same generated drives (common random numbers). Settings are ranked against the place each scenario states (visits); the per-scenario sections below show the flutter of each setting against its own noiseless decisions, which does not rank settings.</p>\n"
        out.append(h)
        SweepMixHTML.section(s, into: &out)
        out.append(filterSection(s))
        if let d = s.digest { out.append(boundedNote(d)) }
        for (i, sc) in s.scenarios.enumerated() {
            scenario(sc, manifest: m, index: i, recommended: s.mix.recommended, digest: s.digest, into: &out)
        }
        out.append(HTMLPage.close(toolVersion: m.toolVersion, note: "No coordinates are included."))
    }

    /// The input filters' RMSE per scenario and q (sweeps with `--input kalman` or `imm`), the best q in bold.
    static func filterSection(_ s: SweepSummary) -> String {
        let x = ReportText.xml
        var rows = ""
        for sc in s.scenarios {
            for f in sc.filterErrors(points: s.manifest.points) {
                for (q, rmse) in f.byQ {
                    let qText = x(ReportText.plain(q))
                    rows +=
                        "<tr><td>\(x(sc.scenario.name))</td><td>\(f.kind.rawValue)</td><td>\(q == f.best_q_m2s3 ? "<b>\(qText)</b>" : qText)</td>"
                        + "<td>\(x(ReportText.plainEstimate(rmse)))</td></tr>"
                }
            }
        }
        guard !rows.isEmpty else { return "" }
        return
            "<h2>Filters: RMSE per process noise q</h2><p class=\"muted\">The input filter's position error against the truth "
            + "(every fix it accepts; the same for every rule setting), mean over replicates [95 % interval]; bold: the q with the "
            + "smallest RMSE.</p><div class=\"scroll\"><table><thead><tr><th>scenario</th><th>filter</th><th>q m²/s³</th>"
            + "<th>RMSE m</th></tr></thead><tbody>" + rows + "</tbody></table></div>\n"
    }

    /// Above `SweepDigest.fullFormLimit_points`: what the page lists and draws of the grid.
    static func boundedNote(_ d: SweepDigest) -> String {
        "<p class=\"muted\">This grid has \(d.points) settings: the page lists \(d.listed.count) of them (the "
            + "recommendation, the seeds' 80/120/30, the first \(SweepDigest.listedFrontier) of each frontier, the "
            + "\(SweepDigest.listedTop) best by the objective and the best at each value of each axis) and its plots draw "
            + "\(d.marks.count): those and every \(d.markStride)th setting by id. Every setting is in sweep.csv.</p>\n"
    }

    static func scenario(
        _ sc: SweepScenarioSummary, manifest m: SweepManifest, index: Int, recommended: Int?, digest d: SweepDigest?,
        into out: inout some TextSink
    ) {
        let x = ReportText.xml
        var h = "<section class=\"scenario\" id=\"s\(index)\">\n<h2>\(x(sc.scenario.name))</h2>\n"
        h +=
            "<p class=\"muted\">seed \(sc.scenario.seed) · \(sc.scenario.replicates) replicates · \(sc.frontier.count) settings on the frontier</p>\n"
        h += "<div class=\"plots\">"
        out.append(h)
        let marks = d?.marks
        let extent = marks.map { FlutterExtent($0.lazy.map { sc.cells[$0] }) } ?? FlutterExtent(sc.cells)
        let tips = SweepTipMemo()
        HTMLPage.responsiveFigure(caption: flutterCaption, wideWidth: 800, narrowWidth: 400, into: &out) { width, out in
            plot(
                sc, extent: extent, manifest: m, recommended: recommended, marks: marks,
                frontier: d?.flutterFrontier[index],
                width: width, tips: tips, into: &out)
        }
        h = "</div>\n"
        var ids: [(String, Int)] = []
        if let r = recommended { ids.append(("recommended", r)) }
        if let ref = m.referencePoint { ids.append(("80/120/30", ref)) }
        let front = SweepOutput.frontierOrder(sc)
        ids += front.prefix(SweepOutput.listedFrontier).map { ("frontier", $0) }
        h += table(ids, sc, m)
        out.append(h)
        h = ""
        if sc.frontier.count > SweepOutput.listedFrontier {
            // The bounded form's table below lists some settings only: the rest are in sweep.csv.
            let rest = d == nil ? "see the full table below or sweep.csv" : "every one is in sweep.csv"
            h +=
                "<p class=\"muted\">\(sc.frontier.count - SweepOutput.listedFrontier) more settings on the frontier (\(sc.frontier.count) in all): \(rest).</p>\n"
        }
        if let d {
            h +=
                "<details><summary>Listed settings (\(d.listed.count) of \(sc.cells.count); all in sweep.csv)</summary>"
            out.append(h)
            table(d.listed.lazy.map { ("", $0) }, sc, m, into: &out)
        } else {
            h += "<details><summary>All settings (\(sc.cells.count))</summary>"
            out.append(h)
            table(sc.cells.indices.lazy.map { ("", sc.cells[$0].point) }, sc, m, into: &out)
        }
        out.append("</details>\n</section>\n")
    }

    static let flutterCaption =
        "Flutter: spurious transitions vs median detection latency against each setting's own noiseless decisions (means over replicates)"

    static func table(_ rows: [(String, Int)], _ sc: SweepScenarioSummary, _ m: SweepManifest) -> String {
        HTMLPage.string { table(rows, sc, m, into: &$0) }
    }

    /// One row per (tag, point), appended as it is built.
    static func table(
        _ rows: some Sequence<(String, Int)>, _ sc: SweepScenarioSummary, _ m: SweepManifest,
        into out: inout some TextSink
    ) {
        let x = ReportText.xml
        out.append(
            "<div class=\"scroll\"><table><thead><tr><th>setting</th><th></th><th>spurious per drive</th><th>missed per drive</th><th>flaps per drive</th><th>median latency s</th><th>p95 latency s</th></tr></thead><tbody>"
        )
        for (tag, id) in rows {
            let c = sc.cells[id]
            let missedClass = c.missed.mean > 0 ? " class=\"bad\"" : ""
            var h =
                "<tr><td>\(x(m.points[id].label))</td><td>\(x(tag))</td><td>\(x(ReportText.estimate(c.spurious)))</td>"
            h += "<td\(missedClass)>\(x(ReportText.estimate(c.missed)))</td><td>\(x(ReportText.estimate(c.flaps)))</td>"
            h +=
                "<td>\(x(ReportText.latencyEstimate(c.latencyMedian_s)))</td><td>\(x(ReportText.latencyEstimate(c.latencyP95_s)))</td></tr>"
            out.append(h)
        }
        out.append("</tbody></table></div>\n")
    }

    /// What the flutter plot's axes need from every cell, found in one pass over the cells (each
    /// cell is computed from its replicates' records on demand) and shared by both drawings.
    struct FlutterExtent {
        /// Smallest and largest mean median latency over the settings that detected something.
        var latency: (min: Double, max: Double)?
        /// Whether some setting detected nothing (they sit in a strip on the right).
        var hasUndetected = false
        /// Largest mean spurious count; nil without cells.
        var spuriousMax: Double?

        /// Keeps the element `Sequence.min()`/`max()` would keep (the same comparisons, so the same
        /// result with NaN or ±0).
        init(_ cells: some Sequence<SweepCell>) {
            for c in cells {
                if let l = c.latencyMedian_s?.mean {
                    if let (lo, hi) = latency { latency = (l < lo ? l : lo, hi < l ? l : hi) } else { latency = (l, l) }
                } else {
                    hasUndetected = true
                }
                let s = c.spurious.mean
                if let top = spuriousMax { if top < s { spuriousMax = s } } else { spuriousMax = s }
            }
        }
    }

    /// Scatter of (median latency, spurious). Settings with nothing detected sit in a strip on the right.
    static func plot(
        _ sc: SweepScenarioSummary, extent: FlutterExtent, manifest m: SweepManifest, recommended: Int?,
        marks: [Int]? = nil, frontier listedFront: [Int]? = nil, width: Double, tips: SweepTipMemo = SweepTipMemo(),
        into out: inout some TextSink
    ) {
        let n = SVGPlots.n
        let left = 52.0
        let right = 14.0
        let top = 12.0
        let plotH = width < 600 ? 200.0 : 260.0
        let legendH = width < 600 ? 64.0 : 40.0
        let height = top + plotH + 30 + legendH
        let cells = sc.cells
        let stripW = extent.hasUndetected ? 46.0 : 0
        let lo = extent.latency?.min ?? 0
        let hi = extent.latency?.max ?? 1
        // Latency spans 0 (a setting may detect early on average); spurious counts start at 0 and reach at least 1.
        let xTicks = AxisTicks.covering(min(lo, 0), max(hi, 0), intervals: width < 600 ? 3 : 5, quarter: true)
        let yTicks = AxisTicks.covering(0, max(1, extent.spuriousMax ?? 1), intervals: 4)
        let plotW = width - left - right - stripW
        let f = PlotFrame(
            width: width, height: height, left: left, top: top, plotWidth: plotW, plotHeight: plotH,
            x: xTicks.domain, y: yTicks.domain)
        func px(_ c: SweepCell) -> Double { c.latencyMedian_s.map { f.x($0.mean) } ?? left + plotW + stripW / 2 }
        let py = f.y
        out.append(f.svgOpen(label: "Spurious transitions versus median latency, \(sc.scenario.name)"))
        out.append(f.yGrid(yTicks))
        out.append(f.xAxis(xTicks, unit: " s", anchorEnds: true, gridLines: true))
        if extent.hasUndetected {
            let cx = left + plotW + stripW / 2
            out.append(
                SweepScatter.strip(
                    x: left + plotW, width: stripW, top: top, height: plotH,
                    below: "<text x=\"\(n(cx))\" y=\"\(n(top + plotH + 16))\" text-anchor=\"middle\">none</text>",
                    lines: ["nothing", "detected"]))
        }
        out.append(
            "<text x=\"\(n(left))\" y=\"\(n(top + plotH + 30))\" class=\"muted\">x: median latency s · y: spurious per drive</text>"
        )
        // Frontier as a step line through its points sorted by latency.
        let front = (listedFront ?? SweepOutput.frontierOrder(sc)).compactMap { id -> (Double, Double)? in
            let c = cells[id]
            return c.latencyMedian_s == nil ? nil : (px(c), py(c.spurious.mean))
        }
        out.append(SweepScatter.frontierLine(front))
        func draw(_ c: SweepCell) {
            let cx = px(c)
            let cy = py(c.spurious.mean)
            let tip = tips.tip(c.point) {
                "<title>\(ReportText.xml("\(m.points[c.point].label): spurious \(ReportText.estimate(c.spurious)), missed \(ReportText.estimate(c.missed)), latency \(ReportText.latencyEstimate(c.latencyMedian_s)) s"))</title>"
            }
            if c.missed.mean > 0 {
                out.append(SweepScatter.cross(cx, cy, stroke: "stroke-width=\"1.5\"", tip: tip))
            } else {
                out.append(SweepScatter.dot(cx, cy, frontier: sc.frontier.contains(c.point), tip: tip))
            }
        }
        if let marks {
            for id in marks { draw(cells[id]) }
        } else {
            for c in cells { draw(c) }
        }
        var labels: [(text: String, x: Double, y: Double)] = []
        if let r = recommended {
            let c = cells[r]
            let cx = px(c)
            let cy = py(c.spurious.mean)
            out.append(SweepScatter.recommendedMark(cx, cy))
            labels.append(("recommended", cx, cy))
        }
        if let ref = m.referencePoint {
            let c = cells[ref]
            let cx = px(c)
            let cy = py(c.spurious.mean)
            out.append(SweepScatter.referenceMark(cx, cy))
            labels.append(("80/120/30", cx, cy))
        }
        // Labels stay inside the plot area, off the tick labels and off each other (as in the mix plot).
        out.append(
            SVGPlots.placeLabels(
                labels, bounds: LabelBox(x0: left, y0: 0, x1: left + plotW, y1: top + plotH),
                obstacles: f.yTickBoxes(yTicks)
            ).joined())
        let items: [(String, String, String)] = [
            ("dot", pointColour, "setting"), ("dot", frontierColour, "Pareto frontier"),
            ("dot", missedColour, "× missed > 0"), ("line", referenceColour, "□ 80/120/30"),
            ("line", recommendedColour, "○ recommended"),
        ]
        out.append(legend(items, width: width, left: left, y: top + plotH + 30 + 20) + "</svg>")
    }

    /// The five-item legend of the sweep plots: one row when wide, three + two when narrow.
    static func legend(_ items: [(String, String, String)], width: Double, left: Double, y: Double) -> String {
        if width < 600 {
            return "<g class=\"legend\">" + SVGPlots.legend(Array(items.prefix(3)), x: 4, y: y)
                + SVGPlots.legend(Array(items.suffix(2)), x: 4, y: y + 20) + "</g>"
        }
        return "<g class=\"legend\">" + SVGPlots.legend(items, x: left, y: y) + "</g>"
    }
}

/// The marks both sweep scatters draw (each scenario's flutter plot and the mix plot), so the two
/// plots keep one look: settings, the frontier line, the recommendation and 80/120/30, the strip.
enum SweepScatter {
    static let n = SVGPlots.n

    /// One setting of a mix plot: ▲ on the top edge when off the scale, × when it misses a
    /// constraint, else a dot (large on `frontier`).
    static func setting(
        _ cx: Double, _ cy: Double, offScale: Bool, feasible: Bool, frontier: Bool, tip: String
    ) -> String {
        if offScale {
            return
                "<path d=\"M\(n(cx - 4)) \(n(cy + 4))l4 -7l4 7z\" fill=\"\(feasible ? SweepHTML.pointColour : SweepHTML.missedColour)\" fill-opacity=\"0.6\">\(tip)</path>"
        }
        if !feasible { return cross(cx, cy, stroke: "stroke-width=\"1.3\" stroke-opacity=\"0.7\"", tip: tip) }
        return dot(cx, cy, frontier: frontier, tip: tip)
    }

    /// A setting that misses (×); `stroke` is its stroke attributes.
    static func cross(_ cx: Double, _ cy: Double, stroke: String, tip: String) -> String {
        "<path d=\"M\(n(cx - 3.5)) \(n(cy - 3.5))l7 7M\(n(cx - 3.5)) \(n(cy + 3.5))l7 -7\" stroke=\"\(SweepHTML.missedColour)\" \(stroke)>\(tip)</path>"
    }

    /// A setting: a large dot on the frontier, a small grey one elsewhere.
    static func dot(_ cx: Double, _ cy: Double, frontier: Bool, tip: String) -> String {
        frontier
            ? "<circle cx=\"\(n(cx))\" cy=\"\(n(cy))\" r=\"4.5\" fill=\"\(SweepHTML.frontierColour)\">\(tip)</circle>"
            : "<circle cx=\"\(n(cx))\" cy=\"\(n(cy))\" r=\"2.8\" fill=\"\(SweepHTML.pointColour)\" fill-opacity=\"0.8\">\(tip)</circle>"
    }

    /// The frontier as a line through `points` in order; nothing for fewer than two.
    static func frontierLine(_ points: [(x: Double, y: Double)]) -> String {
        guard points.count > 1 else { return "" }
        let pts = points.map { "\(n($0.x)),\(n($0.y))" }.joined(separator: " ")
        return
            "<polyline fill=\"none\" stroke=\"\(SweepHTML.frontierColour)\" stroke-width=\"1.5\" stroke-opacity=\"0.6\" points=\"\(pts)\"/>"
    }

    /// ○ around the recommended setting.
    static func recommendedMark(_ cx: Double, _ cy: Double) -> String {
        "<circle cx=\"\(n(cx))\" cy=\"\(n(cy))\" r=\"9\" fill=\"none\" stroke=\"\(SweepHTML.recommendedColour)\" stroke-width=\"2.5\"/>"
    }

    /// □ around 80/120/30.
    static func referenceMark(_ cx: Double, _ cy: Double) -> String {
        "<rect x=\"\(n(cx - 6))\" y=\"\(n(cy - 6))\" width=\"12\" height=\"12\" fill=\"none\" stroke=\"\(SweepHTML.referenceColour)\" stroke-width=\"1.8\"/>"
    }

    /// The grey strip right of the plot area (from `x`, `width` wide) for settings off the x axis:
    /// `below` (SVG, may be empty) and then `lines` of small text from its top.
    static func strip(x: Double, width: Double, top: Double, height: Double, below: String, lines: [String]) -> String {
        var out =
            "<rect x=\"\(n(x + 2))\" y=\"\(n(top))\" width=\"\(n(width - 2))\" height=\"\(n(height))\" fill=\"#f4f4f4\"/>"
            + below
        for (k, line) in lines.enumerated() {
            out +=
                "<text x=\"\(n(x + width / 2))\" y=\"\(n(top + 14 + 12 * Double(k)))\" text-anchor=\"middle\" font-size=\"10\">\(line)</text>"
        }
        return out
    }
}

/// The tooltips of a plot's settings by point id, made once for both widths of a responsive
/// figure (`HTMLPage.responsiveFigure` draws a plot at two widths; a tooltip does not depend on
/// the width, and making one costs a label, several numbers and an escape).
final class SweepTipMemo {
    private var tips: [Int: String] = [:]

    init() {}

    func tip(_ point: Int, _ make: () -> String) -> String {
        if let tip = tips[point] { return tip }
        let tip = make()
        tips[point] = tip
        return tip
    }
}
