import Foundation

/// The files of a finished sweep: `sweep.json`, `sweep.csv`, `sweep.md`, `index.html`.
/// Pure functions of a `SweepSummary`: no time stamps, no paths, no host data, so the bytes
/// depend only on the sweep's definition and results (an unsharded run and a merge agree).
public enum SweepOutput {
    public static let fileNames = ["sweep.json", "sweep.csv", "sweep.md", "index.html"]
    public static let schema = "fencelab-sweep/1"

    /// Names an existing sweep or shard folder may hold and still be replaced.
    public static var replaceableNames: Set<String> { Set(fileNames + SweepMerge.shardFileNames) }

    public static func render(_ s: SweepSummary) -> [(name: String, bytes: [UInt8])] {
        [("sweep.json", Array(json(s).utf8)), ("sweep.csv", Array(csv(s).utf8)),
         ("sweep.md", Array(markdown(s).utf8)), ("index.html", Array(SweepHTML.render(s).utf8))]
    }

    // MARK: JSON

    public static func json(_ s: SweepSummary) -> String {
        let m = s.manifest
        func opt(_ e: Estimate?) -> JSONValue { e.map(JSONReport.estimate) ?? .null }
        let points: [JSONValue] = m.points.enumerated().map { i, p in
            .object([("id", .integer(i)), ("label", .string(p.label)), ("rule", .string(p.rule.description)),
                     ("kind", .string(p.kind.rawValue)), ("enter_m", .number(p.enter_m)), ("exit_m", .number(p.exit_m)),
                     ("band_m", .number(p.band_m)), ("maxAccuracy_m", p.maxAccuracy_m.isFinite ? .number(p.maxAccuracy_m) : .null),
                     ("confirm_n", .integer(p.confirm_n)), ("reference", .bool(p == .seedReference))])
        }
        let scenarios: [JSONValue] = s.scenarios.map { sc in
            let results: [JSONValue] = sc.cells.map { c in
                .object([("point", .integer(c.point)), ("spurious", JSONReport.estimate(c.spurious)),
                         ("missed", JSONReport.estimate(c.missed)), ("flaps", JSONReport.estimate(c.flaps)),
                         ("transitions", JSONReport.estimate(c.transitions)),
                         ("truthTransitions", JSONReport.estimate(c.truthTransitions)),
                         ("latency_s", .object([("median", opt(c.latencyMedian_s)), ("p95", opt(c.latencyP95_s))])),
                         ("frontier", .bool(sc.frontier.contains(c.point)))])
            }
            return .object([
                ("name", .string(sc.scenario.name)), ("sha256", .string(sc.scenario.sha256)),
                ("seed", .integer(Int(sc.scenario.seed))), ("replicates", .integer(sc.scenario.replicates)),
                ("generator", .string(sc.scenario.generator)),
                ("recommended", sc.recommended.map { .integer($0) } ?? .null),
                ("frontier", .array(sc.frontier.sorted().map { .integer($0) })),
                ("results", .array(results)),
            ])
        }
        let doc = JSONValue.object([
            ("schema", .string(schema)),
            ("sweep", .object([
                ("toolVersion", .string(m.toolVersion)), ("rule", .string(m.rule.rawValue)),
                ("points", .integer(m.points.count)), ("items", .integer(m.items)),
                ("referencePoint", m.points.firstIndex(of: .seedReference).map { .integer($0) } ?? .null),
                ("window_s", .number(m.window_s)), ("maxFixAge_s", .number(m.maxFixAge_s)),
                ("objective", .object([("text", .string(s.objective)), ("maxMissed", .number(0)),
                                       ("maxLatency_s", .number(m.maxLatency_s))])),
            ])),
            ("points", .array(points)),
            ("scenarios", .array(scenarios)),
        ])
        return doc.serialized() + "\n"
    }

    // MARK: CSV

    /// Column names of `sweep.csv` (contract: docs/report-format.md).
    public static let csvColumns = [
        "scenario", "point", "rule", "kind", "enter_m", "exit_m", "band_m", "maxAccuracy_m", "confirm_n", "reference",
        "replicates", "spurious_mean", "spurious_lo", "spurious_hi", "missed_mean", "missed_lo", "missed_hi",
        "flaps_mean", "flaps_lo", "flaps_hi", "transitions_mean", "truthTransitions_mean",
        "latency_median_s_mean", "latency_median_s_lo", "latency_median_s_hi", "latency_n",
        "latency_p95_s_mean", "frontier", "recommended",
    ]

    public static func csv(_ s: SweepSummary) -> String {
        func d(_ v: Double) -> String { v.isFinite ? v.description : "" }
        func e(_ x: Estimate?) -> [String] { x.map { [d($0.mean), d($0.lower), d($0.upper)] } ?? ["", "", ""] }
        func q(_ t: String) -> String { t.contains(",") || t.contains("\"") ? "\"" + t.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : t }
        var out = csvColumns.joined(separator: ",") + "\n"
        for sc in s.scenarios {
            for c in sc.cells {
                let p = s.manifest.points[c.point]
                var row = [q(sc.scenario.name), "\(c.point)", q(p.rule.description), p.kind.rawValue, d(p.enter_m), d(p.exit_m),
                           d(p.band_m), d(p.maxAccuracy_m), "\(p.confirm_n)", p == .seedReference ? "1" : "0",
                           "\(sc.scenario.replicates)"]
                row += e(c.spurious) + e(c.missed) + e(c.flaps) + [d(c.transitions.mean), d(c.truthTransitions.mean)]
                row += e(c.latencyMedian_s) + ["\(c.latencyMedian_s?.n ?? 0)", c.latencyP95_s.map { d($0.mean) } ?? ""]
                row += [sc.frontier.contains(c.point) ? "1" : "0", sc.recommended == c.point ? "1" : "0"]
                out += row.joined(separator: ",") + "\n"
            }
        }
        return out
    }

    // MARK: Markdown

    public static func markdown(_ s: SweepSummary) -> String {
        let m = s.manifest
        var lines = ["# FenceLab sweep", "",
                     "\(m.points.count) \(m.rule.rawValue) settings (plus the seeds' 80/120/30) × \(m.scenarios.count) scenario(s); "
                        + "\(m.items) work items; common random numbers (every setting sees the same drives).", "",
                     "Objective: \(s.objective).", "",
                     "Figures: mean over replicates [95 % Student-t interval]; latency = per-replicate median latency of matched transitions.", ""]
        for sc in s.scenarios {
            lines += ["## \(sc.scenario.name)", "", "seed \(sc.scenario.seed) · \(sc.scenario.replicates) replicates", ""]
            lines += ["| | setting | spurious | missed | flaps | median latency s | p95 latency s |", "|---|---|---:|---:|---:|---:|---:|"]
            func row(_ tag: String, _ id: Int) -> String {
                let c = sc.cells[id], p = m.points[id]
                return "| \(tag) | \(ReportText.cell(p.label)) | \(ReportText.estimate(c.spurious)) | \(ReportText.estimate(c.missed)) | "
                    + "\(ReportText.estimate(c.flaps)) | \(ReportText.estimate(c.latencyMedian_s)) | \(ReportText.estimate(c.latencyP95_s)) |"
            }
            if let r = sc.recommended { lines.append(row("**recommended**", r)) } else { lines.append("| **recommended** | none meets the objective | | | | | |") }
            if let ref = m.points.firstIndex(of: .seedReference) { lines.append(row("seeds' 80/120/30", ref)) }
            let front = frontierOrder(sc)
            for id in front.prefix(listedFrontier) { lines.append(row("frontier", id)) }
            lines.append("")
            if front.count > listedFrontier {
                lines += ["\(front.count - listedFrontier) more frontier settings (\(front.count) in all) are marked in sweep.csv (`frontier` = 1).", ""]
            }
        }
        lines += ["Every setting is in sweep.csv and sweep.json; the trade-off plots are in index.html.", ""]
        return lines.joined(separator: "\n")
    }

    /// Frontier rows listed in sweep.md and index.html (the rest: sweep.csv, sweep.json, the full table).
    static let listedFrontier = 12

    /// Frontier points by median latency (nothing detected last), then spurious.
    static func frontierOrder(_ sc: SweepScenarioSummary) -> [Int] {
        sc.frontier.sorted { a, b in
            let la = sc.cells[a].latencyMedian_s?.mean ?? .infinity, lb = sc.cells[b].latencyMedian_s?.mean ?? .infinity
            if la != lb { return la < lb }
            if sc.cells[a].spurious.mean != sc.cells[b].spurious.mean { return sc.cells[a].spurious.mean < sc.cells[b].spurious.mean }
            return a < b
        }
    }
}
