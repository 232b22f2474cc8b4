import Foundation
import ReportKit
import _FenceLabSupport

/// The head of a sweep's `index.html`: the one recommended setting, why, the seeds' 80/120/30
/// beside it, per-scenario visit figures and the mix frontier plot.
enum SweepMixHTML {
    /// The section, streamed: the plots draw every setting, so they go straight to `out`.
    static func section(_ s: SweepSummary, into out: inout some TextSink) {
        let x = ReportText.xml
        let mix = s.mix
        let lines = SweepOutput.recommendationLines(s)
        var h = "<section class=\"scenario\" id=\"recommendation\">\n<h2>\(x(lines[0]))</h2>\n<ul>"
        for l in lines.dropFirst() { h += "<li>\(x(l))</li>" }
        h += "</ul>\n"
        h += mixTable(s)
        h += "<div class=\"plots\">"
        out.append(h)
        let tips = SweepTipMemo()
        HTMLPage.responsiveFigure(caption: mixCaption, wideWidth: 800, narrowWidth: 420, into: &out) { width, out in
            plot(s, width: width, tips: tips, into: &out)
        }
        // The cost plot when the settings differ in cost (a sampling axis); at one cost it is one column.
        let costs = mix.points.fixesPerHour
        if costs.contains(where: { $0 != costs.first }) {
            let costTips = SweepTipMemo()
            HTMLPage.responsiveFigure(caption: costCaption, wideWidth: 800, narrowWidth: 420, into: &out) {
                width, out in costPlot(s, width: width, tips: costTips, into: &out)
            }
        }
        h = "</div>\n"
        h += samplingTable(s)
        h += scenarioTable(s)
        let front = s.digest?.mixFrontier ?? SweepOutput.mixFrontierOrder(mix)
        let listed = s.digest.map { _ in " (\(front.count) of \(mix.frontier.count) settings; all in sweep.csv)" }
        h += "<details><summary>Mix frontier\(listed ?? " (\(front.count) settings)")</summary>" + tableHead(s)
        out.append(h)
        for id in front { out.append(mixRow("", id, s)) }
        out.append("</tbody></table></div></details>\n")
        let costFront = s.digest?.costFrontier ?? SweepOutput.costFrontierOrder(mix)
        let costCount = s.digest.map { _ in "\(costFront.count) of \(mix.costFrontier.count)" } ?? "\(costFront.count)"
        out.append(
            "<details><summary>Three-way frontier: unwanted visits, latency and cost (\(costCount) settings meeting "
                + "every constraint, cheapest first)</summary>" + tableHead(s))
        for id in costFront { out.append(mixRow(id == mix.recommended ? "recommended" : "", id, s)) }
        out.append("</tbody></table></div></details>\n</section>\n")
    }

    static let costCaption =
        "Cost: worst-scenario p95 entry latency vs fixes per hour delivered to the app (log scale), every setting"

    /// With a sampling axis: the best setting at each policy alone and the seeds' 80/120/30 at it.
    static func samplingTable(_ s: SweepSummary) -> String {
        let x = ReportText.xml
        let m = s.manifest
        let mix = s.mix
        guard m.hasSamplingAxis else { return "" }
        var h =
            "<h3>Sampling policies: the best setting at each</h3><p class=\"muted\">What a sweep at each policy alone "
            + "would recommend, and the seeds' 80/120/30 at it. Fixes and wake-ups per hour: what the policy delivers to "
            + "the app, weighted over the mix.</p><div class=\"scroll\"><table><thead><tr><th>sampling</th><th>best setting</th>"
            + "<th>\(m.unwantedNoun) per hour</th><th>worst p95 entry latency s</th><th>fixes per hour</th>"
            + "<th>wake-ups per hour</th><th>80/120/30: unwanted per hour</th><th>80/120/30: worst p95 entry s</th></tr></thead><tbody>"
        for b in mix.bestPerSampling {
            let ref = m.points.indices.first { m.points[$0].isSeedReference && m.points[$0].sampling == b.sampling }
            let best = b.point.map { mix.points[$0] }
            let cost = best ?? ref.map { mix.points[$0] }
            let tag = b.point != nil && b.point == mix.recommended ? " <b>(recommended)</b>" : ""
            let cells = [
                b.point.map { m.points[$0].label } ?? "none meets the constraints",
                best.map { ReportText.plain($0.unwantedPerHour) } ?? "–",
                best.map { ReportText.latency($0.worstEntryP95_s) } ?? "–",
                cost.map { ReportText.plain($0.fixesPerHour) } ?? "–",
                cost.map { ReportText.plain($0.wakeupsPerHour) } ?? "–",
                ref.map { ReportText.plain(mix.points[$0].unwantedPerHour) } ?? "–",
                ref.map { ReportText.latency(mix.points[$0].worstEntryP95_s) } ?? "–",
            ]
            h +=
                "<tr><td class=\"wrap\">\(x(b.sampling ?? "scenario's own"))\(tag)</td>"
                + cells.enumerated().map {
                    $0.offset == 0 ? "<td class=\"wrap\">\(x($0.element))</td>" : "<td>\(x($0.element))</td>"
                }
                .joined() + "</tr>"
        }
        return h + "</tbody></table></div>\n"
    }

    /// Scatter of every setting: x fixes per hour delivered to the app (log scale), y worst-scenario
    /// p95 entry latency (early as 0; settings matching no visit on the top edge as ▲). The settings
    /// of one sampling policy share a column; the three-way frontier, the recommendation and the
    /// seeds' 80/120/30 (at each policy) are marked.
    static func costPlot(
        _ s: SweepSummary, width: Double, tips: SweepTipMemo = SweepTipMemo(), into out: inout some TextSink
    ) {
        let n = SVGPlots.n
        let mix = s.mix
        let m = s.manifest
        let left = 52.0
        let right = 14.0
        let top = 12.0
        let plotH = width < 600 ? 200.0 : 280.0
        let legendH = width < 600 ? 64.0 : 40.0
        let height = top + plotH + 34 + legendH
        let plotW = width - left - right
        let rates = mix.points.fixesPerHour.filter { $0 > 0 && $0.isFinite }
        let lo = rates.min() ?? 1
        let hi = rates.max() ?? 1
        // Decades around the data, at least one wide.
        var e0 = (log10(lo)).rounded(.down)
        var e1 = (log10(hi)).rounded(.up)
        if e1 <= e0 {
            e0 -= 0.5
            e1 += 0.5
        }
        // The latency axis covers the three-way frontier, the recommendation and twice the bound;
        // settings beyond it (most sparse policies at the seeds' radii) sit on the top edge as ▲.
        var focus = Array(mix.costFrontier)
        if let r = mix.recommended { focus.append(r) }
        let yData = max(
            m.maxLatency_s * 2, focus.map { mix.points[$0].worstEntryP95_s }.filter(\.isFinite).max() ?? 0)
        let yTicks = AxisTicks.covering(0, yData > 0 ? yData : 1, intervals: 4)
        let yMax = yTicks.upper
        let f = PlotFrame(
            width: width, height: height, left: left, top: top, plotWidth: plotW, plotHeight: plotH, x: (e0, e1),
            y: yTicks.domain)
        func px(_ v: Double) -> Double { f.x(log10(max(v, pow(10, e0)))) }
        let py = f.y.capped
        out.append(f.svgOpen(label: "Worst p95 entry latency versus fixes per hour"))
        out.append(f.yGrid(yTicks, unit: " s"))
        var ticks: [(x: Double, label: String)] = []
        for e in Int(e0.rounded(.up))...Int(e1.rounded(.down)) {
            for k in [1.0, 2, 5] where Double(e) + log10(k) <= e1 + 1e-9 && Double(e) + log10(k) >= e0 - 1e-9 {
                let v = k * pow(10, Double(e))
                if width < 600 && k != 1 { continue }
                ticks.append((f.x(log10(v)), ReportText.plain(v)))
            }
        }
        out.append(f.xLabels(ticks, anchorEnds: true, gridLines: true, cssClass: "tick-l"))
        if m.maxLatency_s <= yMax {
            let yy = f.y(m.maxLatency_s)
            out.append(
                "<line x1=\"\(n(left))\" x2=\"\(n(left + plotW))\" y1=\"\(n(yy))\" y2=\"\(n(yy))\" stroke=\"\(SweepHTML.missedColour)\" stroke-dasharray=\"4 3\"/>"
            )
        }
        out.append(
            "<text x=\"\(n(left))\" y=\"\(n(top + plotH + 32))\" class=\"muted\">x: fixes per hour delivered to the app (log) · y: worst p95 entry latency s (dashed: bound; ▲ off scale or none matched)</text>"
        )
        for p in s.digest.map({ $0.marks.lazy.map { mix.points[$0] } }).map(AnySequence.init) ?? AnySequence(mix.points)
        {
            let cx = px(p.fixesPerHour)
            let tip = tips.tip(p.point) {
                "<title>\(ReportText.xml("\(m.points[p.point].label): \(ReportText.plain(p.fixesPerHour)) fixes per hour, p95 entry \(ReportText.latency(p.worstEntryP95_s)) s, \(ReportText.plain(p.unwantedPerHour)) unwanted per hour"))</title>"
            }
            let off = !(p.worstEntryP95_s <= yMax)
            out.append(
                SweepScatter.setting(
                    cx, off ? f.y(yMax) : py(p.worstEntryP95_s), offScale: off, feasible: p.feasible,
                    frontier: mix.costFrontier.contains(p.point), tip: tip))
        }
        var labels: [(text: String, x: Double, y: Double)] = []
        for ref in m.referencePoints {
            let p = mix.points[ref]
            let cx = px(p.fixesPerHour)
            let cy = py(p.worstEntryP95_s <= yMax ? p.worstEntryP95_s : yMax)
            out.append(SweepScatter.referenceMark(cx, cy))
            if ref == m.referencePoint { labels.append(("80/120/30", cx, cy)) }
        }
        if let r = mix.recommended {
            let p = mix.points[r]
            let cx = px(p.fixesPerHour)
            let cy = py(p.worstEntryP95_s)
            out.append(SweepScatter.recommendedMark(cx, cy))
            labels.append(("recommended " + m.points[r].label, cx, cy))
        }
        out.append(
            SVGPlots.placeLabels(
                labels, bounds: LabelBox(x0: left, y0: 0, x1: left + plotW, y1: top + plotH),
                obstacles: f.yTickBoxes(yTicks, unit: " s")
            ).joined())
        let items: [(String, String, String)] = [
            ("dot", SweepHTML.pointColour, "meets constraints"),
            ("dot", SweepHTML.frontierColour, "three-way frontier"),
            ("dot", SweepHTML.missedColour, "× misses a constraint"),
            ("line", SweepHTML.referenceColour, "□ 80/120/30"),
            ("line", SweepHTML.recommendedColour, "○ recommended"),
        ]
        out.append(SweepHTML.legend(items, width: width, left: left, y: top + plotH + 34 + 20) + "</svg>")
    }

    static let mixCaption =
        "Mix frontier: unwanted (false + fragment) visits per hour vs worst-scenario p95 entry latency"

    static func mixRow(_ tag: String, _ id: Int, _ s: SweepSummary) -> String {
        let x = ReportText.xml
        let p = s.mix.points[id]
        // The setting and the constraints wrap: the reason a setting misses is always in view.
        let bad = p.feasible ? " class=\"wrap\"" : " class=\"wrap bad\""
        return
            "<tr><td class=\"wrap\">\(x(s.manifest.points[id].label))\(tag.isEmpty ? "" : " <b>(\(x(tag)))</b>")</td>"
            + "<td>\(x(ReportText.plain(p.unwantedPerHour)))</td><td>\(x(ReportText.latency(p.worstEntryP95_s)))</td>"
            + "<td>\(x(p.worstRecall.map(ReportText.plain) ?? "–"))</td><td>\(x(ReportText.plain(p.fixesPerHour)))</td>"
            + "<td\(bad)>\(x(SweepOutput.violationText(p, s.manifest)))</td></tr>"
    }

    /// The head of every table of settings on the mix (`mixRow`).
    static func tableHead(_ s: SweepSummary) -> String {
        "<div class=\"scroll\"><table><thead><tr><th>setting</th><th>\(s.manifest.unwantedNoun) per hour</th><th>worst p95 entry latency s</th>"
            + "<th>worst recall</th><th>fixes per hour</th><th>constraints</th></tr></thead><tbody>"
    }

    static func mixTable(_ s: SweepSummary) -> String {
        var h = tableHead(s)
        for (tag, id) in SweepOutput.headlineRows(s) { h += mixRow(tag, id, s) }
        return h + "</tbody></table></div>\n"
    }

    static func scenarioTable(_ s: SweepSummary) -> String {
        let x = ReportText.xml
        var h =
            "<div class=\"scroll\"><table><thead><tr><th>scenario</th><th>weight</th><th>setting</th><th>true visits per drive</th>"
            + "<th>recall</th><th>false visits per hour</th><th>fragments per hour</th><th>p95 entry latency s (early as 0)</th>"
            + "<th>p95 exit latency s</th><th>fixes per hour</th></tr></thead><tbody>"
        let ref = s.manifest.referencePoint
        for sc in s.scenarios {
            for (tag, id) in [("recommended", s.mix.recommended), ("80/120/30", ref)] {
                guard let id else { continue }
                let v = sc.cells[id].visits
                h +=
                    "<tr><td class=\"wrap\">\(x(sc.scenario.name))</td><td>\(x(ReportText.plain(sc.scenario.weight)))</td><td>\(x(tag))</td>"
                    + [
                        ReportText.plainEstimate(v.trueVisits), ReportText.plainEstimate(v.recall),
                        ReportText.plainEstimate(v.falsePerHour), ReportText.plainEstimate(v.fragmentsPerHour),
                        ReportText.latencyEstimate(v.lateEntryP95_s), ReportText.latencyEstimate(v.exitLatencyP95_s),
                        ReportText.plainEstimate(sc.cells[id].cost.fixesPerHour),
                    ].map { "<td>\(HTMLPage.stacked($0))</td>" }.joined() + "</tr>"
            }
        }
        return h
            + "</tbody></table></div>\n<p class=\"muted\">Means over replicates, brackets: 95 % Student-t interval. "
            + "Rates are per hour of drive; a visit is matched when its span overlaps the true visit widened by "
            + "\(x(ReportText.latency(s.manifest.matchSlack_s))) s (docs/metrics.md).</p>\n"
    }

    /// Scatter of every setting: x worst-scenario p95 entry latency (early as 0), y unwanted visits
    /// per hour; settings that match no visit in some scenario sit in a strip on the right.
    static func plot(
        _ s: SweepSummary, width: Double, tips: SweepTipMemo = SweepTipMemo(), into out: inout some TextSink
    ) {
        let n = SVGPlots.n
        let mix = s.mix
        let left = 52.0
        let right = 14.0
        let top = 12.0
        let plotH = width < 600 ? 200.0 : 280.0
        let legendH = width < 600 ? 64.0 : 40.0
        let height = top + plotH + 34 + legendH
        // The axes cover the frontier, the recommendation, 80/120/30 and the latency bound; settings
        // beyond them sit in the strip on the right (latency) or on the top edge as ▲ (unwanted visits).
        var focus = Array(mix.frontier)
        if let r = mix.recommended { focus.append(r) }
        if let ref = s.manifest.referencePoint { focus.append(ref) }
        let focusPoints = focus.map { mix.points[$0] }
        let xData = max(s.manifest.maxLatency_s * 1.5, focusPoints.map(\.worstEntryP95_s).filter(\.isFinite).max() ?? 0)
        let xTicks = AxisTicks.covering(0, xData, intervals: width < 600 ? 3 : 6)
        let xMax = xTicks.upper
        let hasStrip = mix.points.worstEntryP95_s.contains { !($0 <= xMax) }
        let stripW = hasStrip ? 56.0 : 0
        let plotW = width - left - right - stripW
        let yTop = focusPoints.map(\.unwantedPerHour).filter(\.isFinite).max() ?? 1
        let yTicks = AxisTicks.covering(0, yTop > 0 ? yTop : 1, intervals: 4)
        let yMax = yTicks.upper
        let f = PlotFrame(
            width: width, height: height, left: left, top: top, plotWidth: plotW, plotHeight: plotH,
            x: xTicks.domain, y: yTicks.domain)
        func px(_ p: MixPoint) -> Double {
            p.worstEntryP95_s <= xMax ? f.x(p.worstEntryP95_s) : left + plotW + stripW / 2
        }
        let py = f.y.capped
        out.append(f.svgOpen(label: "Mix frontier: unwanted visits per hour versus worst p95 entry latency"))
        out.append(f.yGrid(yTicks))
        out.append(f.xAxis(xTicks, unit: " s", anchorEnds: true, gridLines: true))
        if s.manifest.maxLatency_s <= xMax {
            let xx = f.x(s.manifest.maxLatency_s)
            out.append(
                "<line x1=\"\(n(xx))\" x2=\"\(n(xx))\" y1=\"\(n(top))\" y2=\"\(n(top + plotH))\" stroke=\"\(SweepHTML.missedColour)\" stroke-dasharray=\"4 3\"/>"
            )
        }
        if hasStrip {
            out.append(
                SweepScatter.strip(
                    x: left + plotW, width: stripW, top: top, height: plotH, below: "",
                    lines: ["&gt; \(ReportText.latency(xMax)) s", "or none", "matched"]))
        }
        out.append(
            "<text x=\"\(n(left))\" y=\"\(n(top + plotH + 32))\" class=\"muted\">x: worst p95 entry latency s (dashed: bound) · y: unwanted visits per hour (▲ off scale)</text>"
        )
        let front = (s.digest?.mixFrontier ?? SweepOutput.mixFrontierOrder(mix)).filter {
            mix.points[$0].worstEntryP95_s.isFinite
        }
        out.append(SweepScatter.frontierLine(front.map { (px(mix.points[$0]), py(mix.points[$0].unwantedPerHour)) }))
        for p in s.digest.map({ $0.marks.lazy.map { mix.points[$0] } }).map(AnySequence.init) ?? AnySequence(mix.points)
        {
            let cx = px(p)
            let cy = py(p.unwantedPerHour)
            let tip = tips.tip(p.point) {
                "<title>\(ReportText.xml("\(s.manifest.points[p.point].label): \(ReportText.plain(p.unwantedPerHour)) per hour, p95 entry \(ReportText.latency(p.worstEntryP95_s)) s, worst recall \(p.worstRecall.map(ReportText.plain) ?? "–")"))</title>"
            }
            out.append(
                SweepScatter.setting(
                    cx, cy, offScale: p.unwantedPerHour > yMax, feasible: p.feasible,
                    frontier: mix.frontier.contains(p.point), tip: tip))
        }
        var labels: [(text: String, x: Double, y: Double)] = []
        if let r = mix.recommended {
            let p = mix.points[r]
            let cx = px(p)
            let cy = py(p.unwantedPerHour)
            out.append(SweepScatter.recommendedMark(cx, cy))
            labels.append(("recommended " + s.manifest.points[r].label, cx, cy))
        }
        if let ref = s.manifest.referencePoint {
            let p = mix.points[ref]
            let cx = px(p)
            let cy = py(p.unwantedPerHour)
            out.append(SweepScatter.referenceMark(cx, cy))
            labels.append(("80/120/30", cx, cy))
        }
        out.append(
            SVGPlots.placeLabels(
                labels, bounds: LabelBox(x0: left, y0: 0, x1: left + plotW, y1: top + plotH),
                obstacles: f.yTickBoxes(yTicks)
            ).joined())
        let items: [(String, String, String)] = [
            ("dot", SweepHTML.pointColour, "meets constraints"), ("dot", SweepHTML.frontierColour, "mix frontier"),
            ("dot", SweepHTML.missedColour, "× misses a constraint"),
            ("line", SweepHTML.referenceColour, "□ 80/120/30"),
            ("line", SweepHTML.recommendedColour, "○ recommended"),
        ]
        out.append(SweepHTML.legend(items, width: width, left: left, y: top + plotH + 34 + 20) + "</svg>")
    }
}
