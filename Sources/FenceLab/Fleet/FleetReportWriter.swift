import ReportKit
import _FenceLabSupport

/// Writes the fleet report of `fencelab accept --device-logs` to `--fleet-out DIR`: report.json,
/// junit.xml, the Markdown summary, index.html and the worst logs' replay pages (docs/fleet.md).
/// No coordinates: logs are named by their manifest path only.
package enum FleetReportWriter {
    static func number(_ x: Double) -> JSONValue { x.isFinite ? .number(x) : .null }
    static func interval(_ i: FleetInterval) -> JSONValue {
        .object([("estimate", number(i.estimate)), ("lower", number(i.lower)), ("upper", number(i.upper))])
    }
    static func text(_ x: Double, _ decimals: Int = 3) -> String {
        x.isFinite ? CFormat.fixed(x, decimals: decimals) : "n/a"
    }
    static func text(_ i: FleetInterval) -> String {
        "\(text(i.estimate)) [\(text(i.lower)), \(text(i.upper))]"
    }

    /// The report as JSON (every figure overall, per cohort, and every comparison row).
    package static func json(_ a: FleetAnalysis) -> JSONValue {
        let figures = FleetFigure.all
        func figureObject(_ values: [FleetInterval]) -> JSONValue {
            .object(zip(figures, values).map { ($0.name, interval($1)) })
        }
        var pairs: [(String, JSONValue)] = [
            ("logs", .integer(a.logs)),
            ("keys", .array(a.keys.map { .string($0) })),
            ("level", .number(FleetStatistics.level)),
            (
                "figures",
                .array(
                    figures.map {
                        .object([
                            ("name", .string($0.name)), ("kind", .string($0.kind.rawValue)), ("unit", .string($0.unit)),
                            ("meaning", .string($0.meaning)),
                        ])
                    })
            ),
            ("overall", figureObject(a.overall)),
            (
                "cohorts",
                .array(
                    a.cohorts.map { c in
                        .object([
                            ("cohort", .object(zip(a.keys, c.values).map { ($0, .string($1)) })),
                            ("logs", .integer(c.logs)), ("figures", figureObject(c.figures)),
                        ])
                    })
            ),
        ]
        if let c = a.comparison {
            pairs.append(
                (
                    "comparison",
                    .object([
                        ("key", .string(c.key)), ("baseline", .string(c.baseline)), ("candidate", .string(c.candidate)),
                        ("test", .string("one-sided; medians Mann-Whitney, rates and fractions normal approximation")),
                        (
                            "multiple_testing",
                            .string("Holm over the gated rows; separately Holm over the ungated rows")
                        ),
                        (
                            "rows",
                            .array(
                                a.rows.map { r in
                                    .object([
                                        ("figure", .string(r.figure)), ("stratum", .string(r.stratum)),
                                        ("baseline_logs", .integer(r.baselineLogs)),
                                        ("candidate_logs", .integer(r.candidateLogs)),
                                        ("baseline", interval(r.baseline)), ("candidate", interval(r.candidate)),
                                        ("difference", interval(r.difference)), ("p", number(r.p)),
                                        ("p_holm", number(r.pHolm)), ("limit", r.limit.map(number) ?? .null),
                                        ("failed", .bool(r.failed)),
                                    ])
                                })
                        ),
                    ])
                ))
        }
        pairs.append(
            ("gates", .array(a.gates.map { .object([("figure", .string($0.figure)), ("limit", number($0.limit))]) })))
        pairs.append(("gate_passed", .bool(a.gatePassed)))
        pairs.append(("failing_cohorts", .array(failingCohorts(a).map { .string($0) })))
        pairs.append(("worst_logs", .array(a.worst.map { worstObject($0, keys: a.keys) })))
        return .object(pairs)
    }

    static func worstObject(_ s: FleetLogSummary, keys: [String]) -> JSONValue {
        .object([
            ("file", .string(s.name)), ("cohort", .object(zip(keys, s.values).map { ($0, .string($1)) })),
            ("status", .string(s.status.rawValue)), ("missing", .integer(s.missing)),
            ("unsupported", .integer(s.unsupported)), ("late", .integer(s.late)), ("flutter", .integer(s.flutter)),
            ("duplicate", .integer(s.duplicate)), ("delay_median_s", number(s.delayMedian_s)),
        ])
    }

    /// `FIGURE in STRATUM` of every failed gated row, in report order.
    package static func failingCohorts(_ a: FleetAnalysis) -> [String] {
        a.rows.filter(\.failed).map { "\($0.figure) in \($0.stratum)" }
    }

    /// One testcase per gated figure and stratum.
    package static func junit(_ a: FleetAnalysis) -> String {
        let x = ReportText.xml
        let gated = a.rows.filter { $0.limit != nil }
        var s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        s +=
            "<testsuites name=\"fencelab fleet\" tests=\"\(gated.count)\" failures=\"\(gated.filter(\.failed).count)\">\n"
        s += "<testsuite name=\"fleet gate\" tests=\"\(gated.count)\" failures=\"\(gated.filter(\.failed).count)\">\n"
        for r in gated {
            s += "<testcase classname=\"fleet.\(x(r.figure))\" name=\"\(x(r.stratum))\">"
            let detail =
                "difference \(text(r.difference)) (limit \(text(r.limit ?? .nan))), p \(text(r.p, 4)), Holm p \(text(r.pHolm, 4))"
            if r.failed {
                s += "<failure message=\"\(x(detail))\">\(x(detail))</failure>"
            } else {
                s += "<system-out>\(x(detail))</system-out>"
            }
            s += "</testcase>\n"
        }
        s += "</testsuite>\n</testsuites>\n"
        return s
    }

    /// Printed lines and the Markdown summary.
    package static func lines(_ a: FleetAnalysis) -> [String] {
        var out = ["Fleet: \(a.logs) device logs, \(a.cohorts.count) cohorts (\(a.keys.joined(separator: " × ")))"]
        if let c = a.comparison {
            out.append("Compare \(c.description): \(a.rows.count) rows (Holm over the gated rows)")
        }
        for r in a.rows where r.failed {
            out.append(
                "GATE FAIL \(r.figure) in \(r.stratum): candidate − baseline \(text(r.difference)) > \(text(r.limit ?? .nan)), Holm p \(text(r.pHolm, 4))"
            )
        }
        if !a.gates.isEmpty {
            out.append(
                "Fleet gate: \(a.gatePassed ? "passed" : "failed") (\(a.gates.map(\.description).joined(separator: ", ")))"
            )
        }
        return out
    }

    static func markdown(_ a: FleetAnalysis) -> String {
        var s = "# Fleet device level\n\n" + lines(a).map { "- \($0)\n" }.joined() + "\n## Overall\n\n"
        s += "| figure | estimate [95 % interval] | unit |\n|---|---|---|\n"
        for (f, v) in zip(FleetFigure.all, a.overall) { s += "| \(f.name) | \(text(v)) | \(f.unit) |\n" }
        if a.comparison != nil {
            s +=
                "\n## Comparison (candidate − baseline)\n\n| figure | stratum | difference [95 %] | p | Holm p | gate |\n"
            s += "|---|---|---|---|---|---|\n"
            for r in a.rows {
                let gate = r.limit.map { "\(r.failed ? "FAIL" : "pass") (limit \(text($0)))" } ?? ""
                s +=
                    "| \(r.figure) | \(r.stratum) | \(text(r.difference)) | \(text(r.p, 4)) | \(text(r.pHolm, 4)) | \(gate) |\n"
            }
        }
        return s
    }

    /// A forest plot of one figure: each stratum's difference and interval, the zero line and the limit.
    static func forest(_ rows: [FleetComparisonRow], unit: String) -> String {
        let x = ReportText.xml
        let width = 640.0
        let left = 260.0
        let rowHeight = 22.0
        let height = Double(rows.count) * rowHeight + 40
        var values = [0.0]
        for r in rows {
            for v in [r.difference.lower, r.difference.upper, r.difference.estimate, r.limit ?? 0] where v.isFinite {
                values.append(v)
            }
        }
        var lo = values.min()!
        var hi = values.max()!
        if hi - lo < 1e-9 {
            lo -= 1
            hi += 1
        }
        let pad = (hi - lo) * 0.05
        lo -= pad
        hi += pad
        func px(_ v: Double) -> Double { left + (v - lo) / (hi - lo) * (width - left - 20) }
        var s =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" width=\"\(Int(width))\" height=\"\(Int(height))\" role=\"img\">"
        s +=
            "<line x1=\"\(text(px(0), 1))\" y1=\"5\" x2=\"\(text(px(0), 1))\" y2=\"\(text(height - 25, 1))\" stroke=\"#888\"/>"
        if let limit = rows.first?.limit, limit.isFinite {
            s +=
                "<line x1=\"\(text(px(limit), 1))\" y1=\"5\" x2=\"\(text(px(limit), 1))\" y2=\"\(text(height - 25, 1))\" stroke=\"#c00\" stroke-dasharray=\"4 3\"/>"
        }
        for (i, r) in rows.enumerated() {
            let y = 18 + Double(i) * rowHeight
            let colour = r.failed ? "#c00" : "#246"
            s += "<text x=\"4\" y=\"\(text(y + 4, 1))\" font-size=\"12\">\(x(r.stratum))</text>"
            if r.difference.lower.isFinite, r.difference.upper.isFinite {
                s +=
                    "<line x1=\"\(text(px(r.difference.lower), 1))\" y1=\"\(text(y, 1))\" x2=\"\(text(px(r.difference.upper), 1))\" y2=\"\(text(y, 1))\" stroke=\"\(colour)\" stroke-width=\"2\"/>"
            }
            if r.difference.estimate.isFinite {
                s +=
                    "<rect x=\"\(text(px(r.difference.estimate) - 4, 1))\" y=\"\(text(y - 4, 1))\" width=\"8\" height=\"8\" fill=\"\(colour)\"/>"
            }
        }
        s += "<text x=\"\(text(px(lo), 1))\" y=\"\(text(height - 8, 1))\" font-size=\"11\">\(x(text(lo)))</text>"
        s +=
            "<text x=\"\(text(px(hi), 1))\" y=\"\(text(height - 8, 1))\" font-size=\"11\" text-anchor=\"end\">\(x(text(hi))) \(x(unit))</text>"
        return s + "</svg>"
    }

    static var nisIndex: Int { FleetFigure.all.firstIndex { $0.name == FleetFigure.nisFigureName } ?? -1 }

    /// A column header of the cohort table: the figure's name, breakable after each `_`, and its unit.
    static func header(_ f: FleetFigure) -> String {
        let name = f.name.split(separator: "_", omittingEmptySubsequences: false).map { ReportText.xml(String($0)) }
            .joined(separator: "_<wbr>")
        return "<th title=\"\(ReportText.xml(f.meaning))\">\(name)<br><small>\(ReportText.xml(f.unit))</small></th>"
    }

    /// "estimate [lower, upper]" with three significant digits at most (the table; the JSON has them all).
    static func compact(_ i: FleetInterval) -> String {
        func c(_ v: Double) -> String {
            guard v.isFinite else { return "n/a" }
            let m = abs(v)
            return CFormat.fixed(v, decimals: m >= 100 ? 0 : m >= 10 ? 1 : m >= 1 || m == 0 ? 2 : 3)
        }
        return "\(c(i.estimate)) [\(c(i.lower)), \(c(i.upper))]"
    }

    static func html(_ a: FleetAnalysis) -> String {
        let x = ReportText.xml
        let banner = HTMLPage.Banner(
            cssClass: a.gates.isEmpty ? "unknown" : (a.gatePassed ? "pass" : "fail"),
            heading: "Fleet device level: \(a.logs) logs"
                + (a.gates.isEmpty ? "" : a.gatePassed ? ", gate passed" : ", gate failed"),
            lines: lines(a).dropFirst().map(x))
        var h = HTMLPage.open(title: "FenceLab fleet", banner: banner)
        h += "<h2>Cohorts</h2>\n"
        h +=
            "<p>Each figure with its 95 % interval below it (docs/fleet.md); every figure is higher-is-worse. report.json and report.md have all of them.</p>\n"
        var shown = [
            "delay_median_s", "exit_past_radius_median_m", "duplicate_per_h", "late_per_h", "missing_per_h",
            "rejected_fixes_per_h", "failed_log_fraction",
        ]
        if a.overall.indices.contains(nisIndex), a.overall[nisIndex].estimate.isFinite {
            shown.append(FleetFigure.nisFigureName)
        }
        let indices = shown.compactMap { n in FleetFigure.all.firstIndex { $0.name == n } }
        let left = " style=\"text-align:left\""
        h +=
            "<div class=\"scroll\"><table><thead><tr>" + a.keys.map { "<th\(left)>\(x($0))</th>" }.joined()
            + "<th>logs</th>"
        h += indices.map { header(FleetFigure.all[$0]) }.joined() + "</tr></thead><tbody>\n"
        for c in a.cohorts {
            h += "<tr>" + c.values.map { "<td\(left)>\(x($0))</td>" }.joined() + "<td>\(c.logs)</td>"
            h += indices.map { "<td>\(HTMLPage.stacked(compact(c.figures[$0])))</td>" }.joined() + "</tr>\n"
        }
        h += "</tbody></table></div>\n"
        if let c = a.comparison {
            h += "<h2>Comparison \(x(c.description)) (candidate − baseline, 95 % intervals)</h2>\n"
            h +=
                "<p>One-sided tests of “candidate worse by more than the limit” (limit 0 when not gated); Holm over the gated rows, separately over the ungated rows. Red: a gated row that fails.</p>\n"
            h += "<div class=\"plots\">\n"
            for f in FleetFigure.all {
                let rows = a.rows.filter { $0.figure == f.name }
                guard !rows.isEmpty else { continue }
                h += HTMLPage.figure("\(f.name) (\(f.unit)): \(f.meaning)", forest(rows, unit: f.unit), wide: false)
            }
            h += "</div>\n"
        }
        h += "<h2>Worst logs</h2>\n<table><thead><tr><th>log</th>" + a.keys.map { "<th>\(x($0))</th>" }.joined()
        h +=
            "<th>status</th><th>missing</th><th>unsupported</th><th>late</th><th>flutter</th><th>duplicate</th><th>delay median (s)</th></tr></thead><tbody>\n"
        for (rank, s) in a.worst.enumerated() {
            h +=
                "<tr><td><a href=\"\(x(replayPage(rank: rank + 1)))\">\(x(s.name))</a></td>"
                + s.values.map { "<td>\(x($0))</td>" }.joined()
            h +=
                "<td>\(s.status.rawValue)</td><td>\(s.missing)</td><td>\(s.unsupported)</td><td>\(s.late)</td><td>\(s.flutter)</td><td>\(s.duplicate)</td><td>\(x(text(s.delayMedian_s)))</td></tr>\n"
        }
        h += "</tbody></table>\n"
        return h
            + HTMLPage.close(
                toolVersion: ToolVersion.string, note: "Device-level figures need no truth; no coordinates are shown.")
    }

    /// The replay page of the worst log of rank `rank` (1-based), beside `index.html`.
    package static func replayPage(rank: Int) -> String { "replay-\(rank).html" }

    /// The files this report writes (its marker lists them): the four report files and a replay page
    /// per worst log.
    package static var replaceableNames: Set<String> {
        Set(ReportWriter.fileNames + (1...FleetAnalysis.worstCount).map { replayPage(rank: $0) })
    }

    /// Checks before any work that `folder` can be written (empty, new or a fleet report folder).
    package static func preflight(_ folder: String) throws(OutputError) {
        try ReportFolder.preflight(destination: folder, replaceable: replaceableNames)
    }

    /// Writes the report files and `replayPages` (the HTML page of each worst log's replay, in rank
    /// order) to `folder` at once (`ReportFolder.write`).
    package static func write(_ a: FleetAnalysis, replayPages: [[UInt8]], to folder: String) throws(OutputError) {
        var body = ""
        json(a).write(into: &body, indent: 0)
        body += "\n"
        var files: [(name: String, bytes: [UInt8])] = [
            ("report.json", Array(body.utf8)), ("report.md", Array(markdown(a).utf8)),
            ("junit.xml", Array(junit(a).utf8)), ("index.html", Array(html(a).utf8)),
        ]
        for (i, page) in replayPages.enumerated() { files.append((replayPage(rank: i + 1), page)) }
        try ReportFolder.write(files: files, to: folder, replaceable: replaceableNames)
    }
}
