import FenceLab
import Foundation
import ReportKit
import _FenceLabSupport

/// The files of a finished sweep: `sweep.json`, `sweep.csv`, `sweep.md`, `index.html`.
/// Pure functions of a `SweepSummary`: no time stamps, no paths, no host data, so the bytes
/// depend only on the sweep's definition and results (an unsharded run and a merge agree).
package enum SweepOutput {
    package static let fileNames = ["sweep.json", "sweep.csv", "sweep.md", "index.html"]
    package static let schema = "fencelab-sweep/2"

    /// The table's name with `--csv-gzip`: the bytes of `sweep.csv`, gzip-compressed (`GzipStream`).
    package static let gzipTableName = "sweep.csv.gz"

    /// Names an existing sweep or shard folder may hold and still be replaced.
    package static var replaceableNames: Set<String> {
        Set(fileNames + [gzipTableName] + SweepMerge.shardFileNames)
    }

    /// The four files as renderers that stream into their file (`ReportFolder.write(streams:)`):
    /// sweep.csv grows with the grid and is never held whole in memory; sweep.json and index.html
    /// do up to `SweepDigest.fullFormLimit_points` and are bounded above it. `csvGzip`: the table
    /// is written as `sweep.csv.gz` instead.
    /// `jobs`: threads that format sweep.csv's rows (the bytes do not depend on it).
    ///
    /// They are listed in the order they start on `jobs` threads, the longest first: sweep.csv
    /// (on the 97 600-point sweep 60–80 ms, its rows formatted on `jobs` threads of their own),
    /// then index.html, sweep.json and sweep.md, each rendered by one thread, so the page starts
    /// at once beside the table and never runs alone at the end (with index.html last, on the
    /// 14 200-point × 20-replicate sweep it ran 80 ms alone).
    ///
    /// `digest`: `s` has no digest yet (`SweepSummary.makePendingDigest`). sweep.csv, which shows
    /// none, is written from `s` while the ranking runs; the other three files wait for the
    /// finished summary (`PendingDigest.summary`).
    package static func streams(
        _ s: SweepSummary, digest: PendingDigest? = nil, csvGzip: Bool = false, jobs: Int = 1
    ) -> [(name: String, render: @Sendable (inout FileSink) -> Void)] {
        let full: @Sendable () -> SweepSummary = { digest?.summary(s) ?? s }
        return [
            csvGzip
                ? (
                    gzipTableName,
                    {
                        $0.startGzip()
                        csv(s, into: &$0, jobs: jobs)
                    }
                ) : ("sweep.csv", { csv(s, into: &$0, jobs: jobs) }),
            ("index.html", { SweepHTML.render(full(), into: &$0) }), ("sweep.json", { json(full(), into: &$0) }),
            ("sweep.md", { $0.append(markdown(full())) }),
        ]
    }

    // MARK: JSON

    package static func json(_ s: SweepSummary) -> String {
        var out = ""
        json(s, into: &out)
        return out
    }

    /// sweep.json written piece by piece: the same bytes as serializing the whole `JSONValue`
    /// document, but only one point's or one cell's subtree exists at a time.
    package static func json(_ s: SweepSummary, into out: inout some TextSink) {
        let m = s.manifest
        let d = s.digest
        func point(_ i: Int) -> JSONValue {
            let p = m.points[i]
            return .object([
                ("id", .integer(i)), ("label", .string(p.label)), ("rule", .string(p.setupDescription)),
                ("kind", .string(p.kind.rawValue)), ("enter_m", .number(p.enter_m)), ("exit_m", .number(p.exit_m)),
                ("band_m", .number(p.band_m)),
                ("maxAccuracy_m", p.maxAccuracy_m.isFinite ? .number(p.maxAccuracy_m) : .null),
                ("confirm_n", .integer(p.confirm_n)), ("reference", .bool(p.isSeedReference)),
                ("input", .string(p.input.rawValue)), ("q_m2s3", p.input == .raw ? .null : .number(p.q_m2s3)),
                ("sampling", p.sampling.map(JSONValue.string) ?? .null),
                ("confirm_s", p.confirm_s.map(JSONValue.number) ?? .null),
                ("notify", p.notify.map(JSONValue.string) ?? .null),
            ])
        }
        var head: [(String, JSONValue)] = [
            ("schema", .string(schema)),
            (
                "sweep",
                .object([
                    ("toolVersion", .string(m.toolVersion)), ("rule", .string(m.rule.rawValue)),
                    ("points", .integer(m.points.count)), ("items", .integer(m.items)),
                    ("referencePoint", m.referencePoint.map { .integer($0) } ?? .null),
                    ("sampling", .array(SweepGrid.samplings(of: m.points).map { $0.map(JSONValue.string) ?? .null })),
                    ("window_s", .number(m.window_s)), ("maxFixAge_s", .number(m.maxFixAge_s)),
                    ("matchSlack_s", .number(m.matchSlack_s)),
                    (
                        "objective",
                        .object([
                            ("text", .string(s.objective)), ("minRecall", .number(m.minRecall)),
                            ("maxLatency_s", .number(m.maxLatency_s)),
                            ("maxExitLatency_s", m.maxExitLatency_s.map(JSONValue.number) ?? .null),
                            ("maxUnwantedPerHour", m.maxUnwanted.map(JSONValue.number) ?? .null),
                            (
                                "cost",
                                .object([("perFix", .number(m.cost.perFix)), ("perWakeup", .number(m.cost.perWakeup))])
                            ),
                        ])
                    ),
                ])
            ),
            ("recommendation", recommendationJSON(s)),
            ("frontier", .array((d?.mixFrontier ?? mixFrontierOrder(s.mix)).map { mixPointJSON(s.mix.points[$0], s) })),
            (
                "costFrontier",
                .array((d?.costFrontier ?? costFrontierOrder(s.mix)).map { mixPointJSON(s.mix.points[$0], s) })
            ),
        ]
        if let d {
            head.insert(("form", formJSON(d, s)), at: 1)
            head.append(("top", .array(d.top.map { mixPointJSON(s.mix.points[$0], s) })))
            head.append(("byAxis", .array(d.axes.map { axisJSON($0, s) })))
        }
        let listed = d?.listed
        var cellWriter = SweepCellJSON()
        // The document and each scenario have more than four members, so `JSONValue` writes them
        // one member per line; the streamed arrays below follow the same layout.
        out.append("{\n")
        for (key, value) in head {
            member(key, indent: 1, into: &out)
            value.write(into: &out, indent: 1)
            out.append(",\n")
        }
        member("points", indent: 1, into: &out)
        array(count: listed?.count ?? m.points.count, indent: 1, into: &out) { point(listed?[$0] ?? $0) }
        out.append(",\n")
        member("scenarios", indent: 1, into: &out)
        if s.scenarios.isEmpty {
            out.append("[]")
        } else {
            out.append("[\n")
            for (k, sc) in s.scenarios.enumerated() {
                JSONValue.pad(&out, 2)
                out.append("{\n")
                var fields: [(String, JSONValue)] = [
                    ("name", .string(sc.scenario.name)), ("sha256", .string(sc.scenario.sha256)),
                    ("seed", .integer(Int(sc.scenario.seed))), ("replicates", .integer(sc.scenario.replicates)),
                    ("generator", .string(sc.scenario.generator)), ("duration_s", .number(sc.scenario.duration_s)),
                    ("weight", .number(sc.scenario.weight)),
                    (
                        "frontier",
                        .array((d.map { $0.flutterFrontier[k].sorted() } ?? sc.frontier.sorted()).map { .integer($0) })
                    ),
                    (
                        "filterErrors",
                        .array(
                            sc.filterErrors(points: m.points).map { f in
                                .object([
                                    ("input", .string(f.kind.rawValue)),
                                    (
                                        "byQ",
                                        .array(
                                            f.byQ.map {
                                                .object([
                                                    ("q_m2s3", .number($0.q_m2s3)),
                                                    ("rmse_m", JSONReport.estimate($0.rmse)),
                                                ])
                                            })
                                    ),
                                    ("best_q_m2s3", .number(f.best_q_m2s3)),
                                ])
                            })
                    ),
                ]
                if d != nil { fields.insert(("frontierSize", .integer(sc.frontier.count)), at: 8) }
                for (key, value) in fields {
                    member(key, indent: 3, into: &out)
                    value.write(into: &out, indent: 3)
                    out.append(",\n")
                }
                member("results", indent: 3, into: &out)
                // Each cell written as bytes (`SweepCellJSON`), in the layout of `resultJSON`'s tree.
                let count = listed?.count ?? sc.cells.count
                arrayLines(count: count, indent: 3, into: &out) { i, out in
                    let c = sc.cells[listed?[i] ?? i]
                    cellWriter.write(
                        c, frontier: sc.frontier.contains(c.point), indent: 4, padded: true, last: i + 1 == count)
                    cellWriter.bytes.withUnsafeBufferPointer { out.append(utf8: $0) }
                }
                out.append("\n")
                JSONValue.pad(&out, 2)
                out.append(k + 1 < s.scenarios.count ? "},\n" : "}\n")
            }
            JSONValue.pad(&out, 1)
            out.append("]")
        }
        out.append("\n}\n")
    }

    /// `form` of a bounded sweep.json: what it lists of the grid and where the rest is.
    static func formJSON(_ d: SweepDigest, _ s: SweepSummary) -> JSONValue {
        .object([
            ("kind", .string("bounded")), ("fullFormLimit_points", .integer(d.limit_points)),
            ("points", .integer(d.points)), ("pointsListed", .integer(d.listed.count)),
            ("pointsLeftOut", .integer(d.pointsLeftOut)), ("mixFrontierSize", .integer(s.mix.frontier.count)),
            ("costFrontierSize", .integer(s.mix.costFrontier.count)),
            ("listedFrontier", .integer(SweepDigest.listedFrontier)), ("listedTop", .integer(SweepDigest.listedTop)),
            ("listedAxisValues", .integer(SweepDigest.listedAxisValues)), ("everyPoint", .string("sweep.csv")),
        ])
    }

    /// One axis of `byAxis`: per value the best setting by the ranking of `top`.
    static func axisJSON(_ a: SweepDigest.Axis, _ s: SweepSummary) -> JSONValue {
        .object([
            ("axis", .string(a.name)),
            (
                "values",
                .array(
                    a.values.map { v in
                        let p = s.mix.points[v.point]
                        return .object([
                            ("value", v.value.json), ("point", .integer(v.point)),
                            ("label", .string(s.manifest.points[v.point].label)),
                            ("unwantedPerHour", .number(p.unwantedPerHour)),
                            ("worstEntryP95_s", finite(p.worstEntryP95_s)), ("worstRecall", finite(p.worstRecall)),
                            ("cost", .number(p.cost)), ("feasible", .bool(p.feasible)),
                        ])
                    })
            ),
            ("valuesLeftOut", .integer(a.valuesLeftOut)),
        ])
    }

    /// `"key": ` at `indent` levels.
    private static func member<S: TextSink>(_ key: String, indent: Int, into out: inout S) {
        JSONValue.pad(&out, indent)
        JSONValue.appendQuoted(key, to: &out)
        out.append(": ")
    }

    /// An array of objects, one per line, as `JSONValue` lays it out, built one element at a time.
    private static func array<S: TextSink>(count: Int, indent: Int, into out: inout S, element: (Int) -> JSONValue) {
        arrayLines(count: count, indent: indent, into: &out) { i, out in
            JSONValue.pad(&out, indent + 1)
            element(i).write(into: &out, indent: indent + 1)
            out.append(i + 1 < count ? ",\n" : "\n")
        }
    }

    /// A JSON array of `count` elements, one per line at `indent + 1`: `line(i, &out)` writes
    /// element i with its padding and its line end (`,\n`, or `\n` for the last).
    private static func arrayLines<S: TextSink>(
        count: Int, indent: Int, into out: inout S, line: (Int, inout S) -> Void
    ) {
        if count == 0 {
            out.append("[]")
            return
        }
        out.append("[\n")
        for i in 0..<count { line(i, &out) }
        JSONValue.pad(&out, indent)
        out.append("]")
    }

    /// A scenario's result for one cell as a value: what `SweepCellJSON` writes as bytes.
    static func resultJSON(_ c: SweepCell, frontier: Bool) -> JSONValue {
        func opt(_ e: Estimate?) -> JSONValue { e.map(JSONReport.estimate) ?? .null }
        return .object([
            ("point", .integer(c.point)), ("spurious", JSONReport.estimate(c.spurious)),
            ("missed", JSONReport.estimate(c.missed)), ("flaps", JSONReport.estimate(c.flaps)),
            ("transitions", JSONReport.estimate(c.transitions)),
            ("truthTransitions", JSONReport.estimate(c.truthTransitions)),
            ("latency_s", .object([("median", opt(c.latencyMedian_s)), ("p95", opt(c.latencyP95_s))])),
            ("frontier", .bool(frontier)), ("visits", visitsJSON(c.visits)),
            ("filterRMSE_m", opt(c.filterRMSE_m)), ("cost", costJSON(c.cost)),
            ("notifications", c.notifications.map(notifyJSON) ?? .null),
        ])
    }

    static func visitsJSON(_ v: SweepVisitCell) -> JSONValue {
        func opt(_ e: Estimate?) -> JSONValue { e.map(JSONReport.estimate) ?? .null }
        return .object([
            ("trueVisits", JSONReport.estimate(v.trueVisits)), ("matchedVisits", JSONReport.estimate(v.matchedVisits)),
            ("recall", opt(v.recall)), ("falseVisits", JSONReport.estimate(v.falseVisits)),
            ("fragments", JSONReport.estimate(v.fragments)), ("falsePerHour", JSONReport.estimate(v.falsePerHour)),
            ("fragmentsPerHour", JSONReport.estimate(v.fragmentsPerHour)),
            ("earlyEntries", JSONReport.estimate(v.earlyEntries)),
            (
                "entryLatency_s",
                .object([("p95", opt(v.entryLatencyP95_s)), ("p95EarlyAsZero", opt(v.lateEntryP95_s))])
            ),
            ("exitLatency_s", .object([("p95", opt(v.exitLatencyP95_s))])),
            ("trueExits", JSONReport.estimate(v.trueExits)),
        ])
    }

    static func notifyJSON(_ n: SweepNotifyCell) -> JSONValue {
        func opt(_ e: Estimate?) -> JSONValue { e.map(JSONReport.estimate) ?? .null }
        return .object([
            ("entriesPerTrueVisit", opt(n.entriesPerTrueVisit)),
            ("unwantedPerHour", JSONReport.estimate(n.unwantedPerHour)),
            ("falseDwellsPerHour", JSONReport.estimate(n.falseDwellsPerHour)), ("dwellRecall", opt(n.dwellRecall)),
            ("dwellLatency_s", .object([("p95", opt(n.dwellLatencyP95_s))])),
        ])
    }

    static func costJSON(_ c: SweepCostCell) -> JSONValue {
        .object([
            ("fixesPerHour", JSONReport.estimate(c.fixesPerHour)),
            ("wakeupsPerHour", JSONReport.estimate(c.wakeupsPerHour)),
        ])
    }

    static func finite(_ v: Double?) -> JSONValue { v.map { $0.isFinite ? .number($0) : .null } ?? .null }

    /// A point's mix figures (`frontier[]`, `recommendation.reference`, `recommendation.closest[]`).
    static func mixPointJSON(_ p: MixPoint, _ s: SweepSummary) -> JSONValue {
        .object([
            ("point", .integer(p.point)), ("label", .string(s.manifest.points[p.point].label)),
            ("unwantedPerHour", .number(p.unwantedPerHour)), ("worstEntryP95_s", finite(p.worstEntryP95_s)),
            ("worstRecall", finite(p.worstRecall)), ("worstExitP95_s", finite(p.worstExitP95_s)),
            ("fixesPerHour", .number(p.fixesPerHour)), ("wakeupsPerHour", .number(p.wakeupsPerHour)),
            ("cost", .number(p.cost)), ("feasible", .bool(p.feasible)),
            (
                "violations",
                .array(
                    p.violations.map { v in
                        .object([
                            ("constraint", .string(v.constraint.rawValue)),
                            ("scenario", v.scenario.map { .string(s.manifest.scenarios[$0].name) } ?? .null),
                            ("value", finite(v.value)),
                        ])
                    })
            ),
        ])
    }

    /// The per-scenario figures of one point, for the recommendation.
    static func perScenarioJSON(_ point: Int, _ s: SweepSummary) -> JSONValue {
        .array(
            s.scenarios.map { sc in
                .object([
                    ("name", .string(sc.scenario.name)), ("weight", .number(sc.scenario.weight)),
                    ("visits", visitsJSON(sc.cells[point].visits)), ("cost", costJSON(sc.cells[point].cost)),
                ])
            })
    }

    static func recommendationJSON(_ s: SweepSummary) -> JSONValue {
        let m = s.manifest
        let mix = s.mix
        var pairs: [(String, JSONValue)] = [("point", mix.recommended.map { .integer($0) } ?? .null)]
        if let r = mix.recommended {
            pairs += [("label", .string(m.points[r].label)), ("rule", .string(m.points[r].rule.description))]
            pairs.append(("sampling", m.points[r].sampling.map(JSONValue.string) ?? .null))
        }
        pairs += [
            ("reason", .array(mix.reasons.map(JSONValue.string))),
            (
                "objective",
                .object([
                    ("minimise", .string("weighted mean of falsePerHour + fragmentsPerHour")),
                    ("value", mix.recommended.map { .number(mix.points[$0].unwantedPerHour) } ?? .null),
                    ("then", .string("weighted mean of the cost, perFix × fixesPerHour + perWakeup × wakeupsPerHour")),
                    ("cost", mix.recommended.map { .number(mix.points[$0].cost) } ?? .null),
                ])
            ),
            (
                "constraints",
                .object([
                    ("minRecall", .number(m.minRecall)), ("maxEntryLatencyP95_s", .number(m.maxLatency_s)),
                    ("earlyEntriesCountAs_s", .number(0)), ("matchSlack_s", .number(m.matchSlack_s)),
                    ("maxExitLatencyP95_s", m.maxExitLatency_s.map(JSONValue.number) ?? .null),
                    ("maxUnwantedPerHour", m.maxUnwanted.map(JSONValue.number) ?? .null),
                    ("unwantedBound", mix.unwantedBound.map(JSONValue.number) ?? .null),
                ])
            ),
            ("weights", .object(m.scenarios.map { ($0.name, .number($0.weight)) })),
        ]
        if let r = mix.recommended {
            pairs += [("mix", mixPointJSON(mix.points[r], s)), ("scenarios", perScenarioJSON(r, s))]
        }
        if let ref = m.referencePoint {
            pairs.append(
                (
                    "reference",
                    .object([("mix", mixPointJSON(mix.points[ref], s)), ("scenarios", perScenarioJSON(ref, s))])
                ))
        }
        pairs.append(("closest", .array(mix.closest.map { mixPointJSON(mix.points[$0], s) })))
        pairs.append(
            (
                "bySampling",
                .array(
                    mix.bestPerSampling.map { b in
                        .object([
                            ("sampling", b.sampling.map(JSONValue.string) ?? .null),
                            ("best", b.point.map { mixPointJSON(mix.points[$0], s) } ?? .null),
                            (
                                "reference",
                                m.points.indices.first {
                                    m.points[$0].isSeedReference && m.points[$0].sampling == b.sampling
                                }
                                .map { mixPointJSON(mix.points[$0], s) } ?? .null
                            ),
                        ])
                    })
            ))
        return .object(pairs)
    }

    /// Mix frontier points by worst p95 entry latency, then unwanted visits per hour, then id.
    static func mixFrontierOrder(_ mix: SweepMix) -> [Int] {
        // From the columns: `mix.points[a]` makes a `MixPoint` and its violations list per comparison.
        let latency = mix.points.worstEntryP95_s
        let unwanted = mix.points.unwantedPerHour
        return mix.frontier.sorted { a, b in
            if latency[a] != latency[b] { return latency[a] < latency[b] }
            if unwanted[a] != unwanted[b] { return unwanted[a] < unwanted[b] }
            return a < b
        }
    }

    /// Three-way frontier points by cost, then unwanted visits per hour, then worst p95 entry latency, then id.
    static func costFrontierOrder(_ mix: SweepMix) -> [Int] {
        let cost = mix.points.cost
        let latency = mix.points.worstEntryP95_s
        let unwanted = mix.points.unwantedPerHour
        return mix.costFrontier.sorted { a, b in
            if cost[a] != cost[b] { return cost[a] < cost[b] }
            if unwanted[a] != unwanted[b] { return unwanted[a] < unwanted[b] }
            if latency[a] != latency[b] { return latency[a] < latency[b] }
            return a < b
        }
    }

    // MARK: CSV

    /// Column names of `sweep.csv` (contract: docs/report-format.md).
    package static let csvColumns = [
        "scenario", "point", "rule", "kind", "enter_m", "exit_m", "band_m", "maxAccuracy_m", "confirm_n", "reference",
        "replicates", "spurious_mean", "spurious_lo", "spurious_hi", "missed_mean", "missed_lo", "missed_hi",
        "flaps_mean", "flaps_lo", "flaps_hi", "transitions_mean", "truthTransitions_mean",
        "latency_median_s_mean", "latency_median_s_lo", "latency_median_s_hi", "latency_n",
        "latency_p95_s_mean", "trueVisits_mean", "matchedVisits_mean", "recall_mean", "falseVisits_mean",
        "fragments_mean",
        "falsePerHour_mean", "fragmentsPerHour_mean", "entryLatency_p95_s_mean", "exitLatency_p95_s_mean",
        "input", "q_m2s3", "filterRMSE_m_mean", "frontier", "mixFrontier", "recommended",
        "sampling", "fixesPerHour_mean", "fixesPerHour_lo", "fixesPerHour_hi", "wakeupsPerHour_mean",
        "trueExits_mean", "costFrontier", "confirm_s", "notify", "entriesPerTrueVisit_mean",
        "unwantedNotificationsPerHour_mean", "dwellRecall_mean", "falseDwellsPerHour_mean", "dwellLatency_p95_s_mean",
    ]

    package static func csv(_ s: SweepSummary) -> String {
        var out = ""
        csv(s, into: &out)
        return out
    }

    /// sweep.csv, one row at a time: each row is built in one reused string, field by field
    /// (the table is most of a large sweep's output; no per-field arrays). The rows are formatted
    /// a run of points at a time (`SweepCells.chunks`), on `jobs` threads, and appended in order,
    /// so the bytes do not depend on `jobs`.
    package static func csv(_ s: SweepSummary, into out: inout some TextSink, jobs: Int = 1) {
        out.append(csvColumns.joined(separator: ",") + "\n")
        let runs = SweepCells.chunks(count: s.manifest.points.count, jobs: jobs)
        let work = s.scenarios.indices.flatMap { sc in runs.map { (scenario: sc, points: $0) } }
        // A run's buffer goes back to `spare` once its bytes are in the sink, and the next run
        // formats into it; the arrays a run's cells are computed in (≈ 1.9 MB for 2 048 cells not
        // kept) go back to `spareCells` as soon as its rows are formatted, one set per thread.
        // Their pages are faulted in once per sweep: made afresh for each run, a worker thread's
        // allocator arena hands them back to the system when they are freed and faults them in
        // again for the next (on the 97 600-point sweep at `--jobs 2`: 980 page faults in the
        // table's rows, 3 000–7 400 with fresh buffers). A `RowBuffer` is a class so that the
        // pool's copy of a finished run does not share its array (formatted into while shared, it
        // would be copied).
        let spare = Locked<[RowBuffer]>([])
        let spareCells = Locked<[CellBuffer]>([])
        // Formatting cannot fail (cells were computed without error by `SweepSummary.make`).
        // Up to `csvRunsAhead` runs per thread are formatted ahead of the one written next, so
        // that a worker seldom waits for the writer, whose thread also writes the file and which the
        // system sometimes sets aside for the report's other files.
        try? WorkPool.forEachInOrder(
            count: work.count, jobs: jobs, window: csvRunsAhead * max(1, jobs),
            { k in
                let buffer = spare.takeSpare(or: RowBuffer.init)
                var cells = spareCells.takeSpare(or: CellBuffer.init)
                csvRows(s, scenario: work[k].scenario, points: work[k].points, into: &buffer.bytes, cells: &cells)
                spareCells.putBack(cells)
                return buffer
            },
            consume: { _, buffer in
                buffer.bytes.withUnsafeBufferPointer { out.append(utf8: $0) }
                spare.putBack(buffer)
            })
    }

    /// Runs of sweep.csv's rows formatted or waiting to be written per thread (≈ 480 KB each at
    /// 2 048 points): with 2, the table of the 97 600-point sweep at `--jobs 2`, written alone
    /// after the report's other files, kept 1.82 of the two cores busy, and its last row came
    /// 5 ms later than with 8 (medians of 7 runs, release build).
    static let csvRunsAhead = 8

    /// A run of sweep.csv's rows being formatted or written: one thread at a time holds it (the
    /// pool's lock hands it from the worker that formats it to the writer, and back through
    /// `spare`).
    final class RowBuffer: @unchecked Sendable {
        var bytes: [UInt8] = []
    }

    /// The rows of sweep.csv for the points `range` of scenario `scenario`, as UTF-8 bytes in
    /// `out` (emptied first, its capacity kept). Built field by field in one buffer (no `String`
    /// per row or field but the digits of a non-integral number) and handed to the sink as bytes:
    /// made into a `String` first, each run's ≈ 480 KB were validated and copied once more.
    static func csvRows(
        _ s: SweepSummary, scenario: Int, points range: Range<Int>, into out: inout [UInt8],
        cells buffer: inout CellBuffer
    ) {
        /// Quoted when it holds `,` or `"` (a byte search: both are ASCII, never inside a UTF-8 sequence).
        func q(_ t: String) -> String {
            t.utf8.contains(UInt8(ascii: ",")) || t.utf8.contains(UInt8(ascii: "\""))
                ? "\"" + t.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : t
        }
        out.removeAll(keepingCapacity: true)
        out.reserveCapacity(range.count * 320)
        func put(_ t: String) {
            out.append(contentsOf: t.utf8)
            out.append(UInt8(ascii: ","))
        }
        func put(_ i: Int) {
            DecimalDigits.append(i, to: &out)
            out.append(UInt8(ascii: ","))
        }
        func d(_ v: Double) {
            if v.isFinite { DecimalDigits.append(v, to: &out) }
            out.append(UInt8(ascii: ","))
        }
        func d(_ v: Double?) {
            if let v, v.isFinite { DecimalDigits.append(v, to: &out) }
            out.append(UInt8(ascii: ","))
        }
        func e(_ x: Estimate?) {
            d(x?.mean)
            d(x?.lower)
            d(x?.upper)
        }
        func flag(_ b: Bool) { put(b ? "1" : "0") }
        let sc = s.scenarios[scenario]
        // The name's bytes in an array of this thread's own: appending the scenario's `String`
        // retained and released its storage once per row, a count the threads of `--jobs 2` share.
        let name = Array(q(sc.scenario.name).utf8) + [UInt8(ascii: ",")]
        let replicates = sc.scenario.replicates
        for c in sc.cells.cells(range, reusing: &buffer) {
            let p = s.manifest.points[c.point]
            out.append(contentsOf: name)
            put(c.point)
            if p.appendSetupDescription(to: &out) {
                out.append(UInt8(ascii: ","))
            } else {
                put(q(p.setupDescription))
            }
            put(p.kind.rawValue)
            d(p.enter_m)
            d(p.exit_m)
            d(p.band_m)
            d(p.maxAccuracy_m)
            put(p.confirm_n)
            flag(p.isSeedReference)
            put(replicates)
            e(c.spurious)
            e(c.missed)
            e(c.flaps)
            d(c.transitions.mean)
            d(c.truthTransitions.mean)
            e(c.latencyMedian_s)
            put(c.latencyMedian_s?.n ?? 0)
            d(c.latencyP95_s?.mean)
            let v = c.visits
            d(v.trueVisits.mean)
            d(v.matchedVisits.mean)
            d(v.recall?.mean)
            d(v.falseVisits.mean)
            d(v.fragments.mean)
            d(v.falsePerHour.mean)
            d(v.fragmentsPerHour.mean)
            d(v.entryLatencyP95_s?.mean)
            d(v.exitLatencyP95_s?.mean)
            put(p.input.rawValue)
            d(p.input == .raw ? nil : p.q_m2s3)
            d(c.filterRMSE_m?.mean)
            flag(sc.frontier.contains(c.point))
            flag(s.mix.frontier.contains(c.point))
            flag(s.mix.recommended == c.point)
            put(q(p.sampling ?? ""))
            e(c.cost.fixesPerHour)
            d(c.cost.wakeupsPerHour.mean)
            d(v.trueExits.mean)
            flag(s.mix.costFrontier.contains(c.point))
            d(p.confirm_s)
            put(q(p.notify ?? ""))
            let n = c.notifications
            d(n?.entriesPerTrueVisit?.mean)
            d(n?.unwantedPerHour.mean)
            d(n?.dwellRecall?.mean)
            d(n?.falseDwellsPerHour.mean)
            d(n?.dwellLatencyP95_s?.mean)
            out[out.count - 1] = UInt8(ascii: "\n")
        }
    }

    // MARK: Markdown

    package static func markdown(_ s: SweepSummary) -> String {
        let m = s.manifest
        let mix = s.mix
        let ref = m.referencePoint
        let leaves = s.leavesPlace
        var lines = ["# FenceLab sweep", ""]
        lines += recommendationLines(s).flatMap { [$0, ""] }
        lines += [
            "## Mix: recommended setting beside the seeds' 80/120/30", "",
            "| | setting | \(m.unwantedNoun) per hour | worst p95 entry latency s | "
                + (leaves ? "worst p95 exit latency s | " : "") + "worst recall | fixes per hour | constraints |",
            "|---|---|---:|---:|" + (leaves ? "---:|" : "") + "---:|---:|---|",
        ]
        func mixRow(_ tag: String, _ id: Int) -> String {
            let p = mix.points[id]
            return "| \(tag) | \(ReportText.cell(m.points[id].label)) | \(ReportText.plain(p.unwantedPerHour)) | "
                + "\(ReportText.latency(p.worstEntryP95_s)) | "
                + (leaves ? "\(p.worstExitP95_s.map(ReportText.latency) ?? "–") | " : "")
                + "\(p.worstRecall.map(ReportText.plain) ?? "–") | \(ReportText.plain(p.fixesPerHour)) | "
                + "\(ReportText.cell(violationText(p, m))) |"
        }
        for (tag, id) in headlineRows(s) { lines.append(mixRow(tag == "recommended" ? "**recommended**" : tag, id)) }
        lines += samplingLines(s)
        lines += [
            "",
            "Per scenario (means over replicates [95 % interval]; rates per hour of drive; latency p95 with early entries counted as 0):",
            "",
            "| scenario | weight | setting | true visits per drive | recall | false visits per hour | fragments per hour | p95 entry latency s | p95 exit latency s | fixes per hour |",
            "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for sc in s.scenarios {
            for (tag, id) in [("recommended", mix.recommended), ("80/120/30", ref)] {
                guard let id else { continue }
                let v = sc.cells[id].visits
                lines.append(
                    "| \(ReportText.cell(sc.scenario.name)) | \(ReportText.plain(sc.scenario.weight)) | \(tag) | "
                        + "\(ReportText.plainEstimate(v.trueVisits)) | \(ReportText.plainEstimate(v.recall)) | "
                        + "\(ReportText.plainEstimate(v.falsePerHour)) | \(ReportText.plainEstimate(v.fragmentsPerHour)) | "
                        + "\(ReportText.latencyEstimate(v.lateEntryP95_s)) | \(ReportText.latencyEstimate(v.exitLatencyP95_s)) | "
                        + "\(ReportText.plainEstimate(sc.cells[id].cost.fixesPerHour)) |"
                )
            }
        }
        let front = mixFrontierOrder(mix)
        lines += [
            "", "## Mix frontier", "",
            "Settings no other setting beats in all of unwanted visits per hour, worst p95 entry latency and worst recall (\(front.count) in all).",
            "",
            "| setting | \(m.unwantedNoun) per hour | worst p95 entry latency s | worst recall | meets the constraints |",
            "|---|---:|---:|---:|---|",
        ]
        for id in front.prefix(listedFrontier) {
            let p = mix.points[id]
            lines.append(
                "| \(ReportText.cell(m.points[id].label)) | \(ReportText.plain(p.unwantedPerHour)) | \(ReportText.latency(p.worstEntryP95_s)) | "
                    + "\(p.worstRecall.map(ReportText.plain) ?? "–") | \(p.feasible ? "yes" : "no") |")
        }
        if front.count > listedFrontier {
            lines.append("\n\(front.count - listedFrontier) more in sweep.csv (`mixFrontier` = 1).")
        }
        let costFront = costFrontierOrder(mix)
        lines += [
            "", "## Three-way frontier: unwanted visits, latency and cost", "",
            "Settings meeting every constraint that no other such setting beats in all of unwanted visits per hour, "
                + "worst p95 entry latency and cost (\(costFront.count) in all), cheapest first.",
            "",
            "| setting | \(m.unwantedNoun) per hour | worst p95 entry latency s | fixes per hour | wake-ups per hour | cost |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for id in costFront.prefix(listedFrontier) {
            let p = mix.points[id]
            lines.append(
                "| \(ReportText.cell(m.points[id].label))\(id == mix.recommended ? " **(recommended)**" : "") | "
                    + "\(ReportText.plain(p.unwantedPerHour)) | \(ReportText.latency(p.worstEntryP95_s)) | "
                    + "\(ReportText.plain(p.fixesPerHour)) | \(ReportText.plain(p.wakeupsPerHour)) | \(ReportText.plain(p.cost)) |"
            )
        }
        if costFront.count > listedFrontier {
            lines.append("\n\(costFront.count - listedFrontier) more in sweep.csv (`costFrontier` = 1).")
        }
        lines += [
            "", "## Per scenario: flutter of each setting against its own noiseless decisions", "",
            "\(m.points.count) \(m.rule.rawValue) settings (plus the seeds' 80/120/30) × \(m.scenarios.count) scenario(s); "
                + "\(m.items) work items; common random numbers (every setting sees the same drives). These figures measure "
                + "noise-induced flutter of each setting; they do not rank settings (the truth moves with the setting).",
            "",
        ]
        for sc in s.scenarios {
            lines += [
                "### \(sc.scenario.name)", "", "seed \(sc.scenario.seed) · \(sc.scenario.replicates) replicates", "",
            ]
            lines += [
                "| | setting | spurious per drive | missed per drive | flaps per drive | median latency s | p95 latency s |",
                "|---|---|---:|---:|---:|---:|---:|",
            ]
            func row(_ tag: String, _ id: Int) -> String {
                let c = sc.cells[id]
                let p = m.points[id]
                return
                    "| \(tag) | \(ReportText.cell(p.label)) | \(ReportText.plainEstimate(c.spurious)) | \(ReportText.plainEstimate(c.missed)) | "
                    + "\(ReportText.plainEstimate(c.flaps)) | \(ReportText.latencyEstimate(c.latencyMedian_s)) | \(ReportText.latencyEstimate(c.latencyP95_s)) |"
            }
            if let r = mix.recommended { lines.append(row("**recommended**", r)) }
            if let ref { lines.append(row("seeds' 80/120/30", ref)) }
            let front = frontierOrder(sc)
            for id in front.prefix(listedFrontier) { lines.append(row("frontier", id)) }
            lines.append("")
            if sc.frontier.count > listedFrontier {
                lines += [
                    "\(sc.frontier.count - listedFrontier) more frontier settings (\(sc.frontier.count) in all) are marked in sweep.csv (`frontier` = 1).",
                    "",
                ]
            }
        }
        lines += filterLines(s)
        if let d = s.digest {
            lines += [
                "Every setting is in sweep.csv; sweep.json and index.html list \(d.listed.count) of the "
                    + "\(d.points) (the bounded form); the plots are in index.html.", "",
            ]
        } else {
            lines += ["Every setting is in sweep.csv and sweep.json; the plots are in index.html.", ""]
        }
        return lines.joined(separator: "\n")
    }

    /// With a sampling axis: the best setting at each policy alone and the seeds' 80/120/30 at it.
    static func samplingLines(_ s: SweepSummary) -> [String] {
        let m = s.manifest
        let mix = s.mix
        guard m.hasSamplingAxis else { return [] }
        var lines = [
            "", "## Sampling policies: the best setting at each", "",
            "What a sweep at each policy alone would recommend, and the seeds' 80/120/30 at it; fixes and wake-ups "
                + "per hour are what the policy delivers to the app, weighted over the mix.",
            "",
            "| sampling | best setting | \(m.unwantedNoun) per hour | worst p95 entry latency s | fixes per hour | wake-ups per hour | 80/120/30: unwanted per hour | 80/120/30: worst p95 entry s |",
            "|---|---|---:|---:|---:|---:|---:|---:|",
        ]
        for b in mix.bestPerSampling {
            let ref = m.points.indices.first { m.points[$0].isSeedReference && m.points[$0].sampling == b.sampling }
            let best = b.point.map { mix.points[$0] }
            let cost = (best ?? ref.map { mix.points[$0] })
            lines.append(
                "| \(ReportText.cell(b.sampling ?? "scenario's own"))\(b.point != nil && b.point == mix.recommended ? " **(recommended)**" : "") | "
                    + "\(b.point.map { ReportText.cell(m.points[$0].label) } ?? "none meets the constraints") | "
                    + "\(best.map { ReportText.plain($0.unwantedPerHour) } ?? "–") | "
                    + "\(best.map { ReportText.latency($0.worstEntryP95_s) } ?? "–") | "
                    + "\(cost.map { ReportText.plain($0.fixesPerHour) } ?? "–") | \(cost.map { ReportText.plain($0.wakeupsPerHour) } ?? "–") | "
                    + "\(ref.map { ReportText.plain(mix.points[$0].unwantedPerHour) } ?? "–") | "
                    + "\(ref.map { ReportText.latency(mix.points[$0].worstEntryP95_s) } ?? "–") |")
        }
        return lines
    }

    /// The filters' RMSE per scenario and q, with the q that minimises it (sweeps with a filtered input).
    static func filterLines(_ s: SweepSummary) -> [String] {
        let perScenario = s.scenarios.map { ($0.scenario.name, $0.filterErrors(points: s.manifest.points)) }
        guard perScenario.contains(where: { !$0.1.isEmpty }) else { return [] }
        var lines = [
            "## Filters: RMSE per process noise q", "",
            "The input filter's position error against the truth (every fix it accepts; the same for every rule "
                + "setting), mean over replicates [95 % interval]; **bold**: the q with the smallest RMSE.", "",
            "| scenario | filter | q m²/s³ | RMSE m |", "|---|---|---:|---:|",
        ]
        for (name, filters) in perScenario {
            for f in filters {
                for (q, rmse) in f.byQ {
                    let text = "\(ReportText.plain(q))"
                    lines.append(
                        "| \(ReportText.cell(name)) | \(f.kind.rawValue) | \(q == f.best_q_m2s3 ? "**\(text)**" : text) | "
                            + "\(ReportText.plainEstimate(rmse)) |")
                }
            }
        }
        return lines + [""]
    }

    /// The headline and the reasons, for sweep.md, index.html and the terminal.
    package static func recommendationLines(_ s: SweepSummary) -> [String] {
        let m = s.manifest
        let mix = s.mix
        var lines: [String] = []
        if let r = mix.recommended {
            lines.append(
                "Recommended setting for the mix: \(m.points[r].label) (rule \(m.points[r].setupDescription)).")
        } else {
            lines.append("No recommended setting.")
        }
        lines += mix.reasons
        lines.append(
            "Objective: \(s.objective). Weights: "
                + m.scenarios.map { "\($0.name) \(ReportText.plain($0.weight))" }.joined(separator: ", ") + ".")
        return lines
    }

    /// The rows shown beside the recommendation: it, the seeds' 80/120/30, then the closest
    /// settings (when nothing is recommended) not already listed.
    static func headlineRows(_ s: SweepSummary) -> [(tag: String, point: Int)] {
        var rows: [(tag: String, point: Int)] = []
        if let r = s.mix.recommended { rows.append(("recommended", r)) }
        let references =
            s.manifest.hasSamplingAxis ? s.manifest.referencePoints : (s.manifest.referencePoint.map { [$0] } ?? [])
        for ref in references { rows.append(("seeds' 80/120/30", ref)) }
        for id in s.mix.closest where !rows.contains(where: { $0.point == id }) { rows.append(("closest", id)) }
        return rows
    }

    /// "recall 0.8 in pass-by; p95 entry latency 75 s in drive-in" or "meets all".
    static func violationText(_ p: MixPoint, _ m: SweepManifest) -> String {
        if p.matchedVisits == 0 { return "misses every visit" }
        if p.violations.isEmpty { return "meets all" }
        return p.violations.map { v in
            let in_ = v.scenario.map { " in \(m.scenarios[$0].name)" } ?? ""
            switch v.constraint {
            case .recall: return "recall \(ReportText.plain(v.value))\(in_)"
            case .latency: return "p95 entry latency \(ReportText.latency(v.value)) s\(in_)"
            case .exitLatency: return "p95 exit latency \(ReportText.latency(v.value)) s\(in_)"
            case .unwanted: return "\(ReportText.plain(v.value)) \(m.unwantedNoun) per hour"
            }
        }.joined(separator: "; ")
    }

    /// The terminal summary of a sweep or merge: the recommendation, its reasons and the mix beside 80/120/30.
    package static func terminal(_ s: SweepSummary) -> String {
        let m = s.manifest
        let mix = s.mix
        var lines = recommendationLines(s)
        lines.append(
            "setting | \(m.unwantedNoun) per hour | worst p95 entry latency s | worst recall | fixes per hour | constraints"
        )
        for (tag, id) in headlineRows(s) {
            let p = mix.points[id]
            lines.append(
                "\(tag): \(m.points[id].label) | \(ReportText.plain(p.unwantedPerHour)) | \(ReportText.latency(p.worstEntryP95_s)) | "
                    + "\(p.worstRecall.map(ReportText.plain) ?? "–") | \(ReportText.plain(p.fixesPerHour)) | \(violationText(p, m))"
            )
        }
        if m.hasSamplingAxis {
            lines.append("best at each sampling policy: sampling | setting | unwanted/h | worst p95 entry s | fixes/h")
            for b in mix.bestPerSampling {
                guard let id = b.point else {
                    lines.append("  \(b.sampling ?? "scenario's own") | none meets the constraints")
                    continue
                }
                let p = mix.points[id]
                lines.append(
                    "  \(b.sampling ?? "scenario's own") | \(m.points[id].label) | \(ReportText.plain(p.unwantedPerHour)) | "
                        + "\(ReportText.latency(p.worstEntryP95_s)) | \(ReportText.plain(p.fixesPerHour))")
            }
        }
        if let r = mix.recommended, m.scoresNotifications {
            lines.append(
                "notifications (recommended): scenario | entries per true visit | unwanted/h | dwell recall | false dwells/h"
            )
            for sc in s.scenarios {
                guard let n = sc.cells[r].notifications else { continue }
                lines.append(
                    "  \(sc.scenario.name) | \(n.entriesPerTrueVisit.map { ReportText.plain($0.mean) } ?? "–") | "
                        + "\(ReportText.plain(n.unwantedPerHour.mean)) | \(n.dwellRecall.map { ReportText.plain($0.mean) } ?? "–") | "
                        + "\(ReportText.plain(n.falseDwellsPerHour.mean))")
            }
        }
        if let r = mix.recommended {
            lines.append(
                "per scenario (recommended): scenario | true visits | recall | false/h | fragments/h | p95 entry s")
            for sc in s.scenarios {
                let v = sc.cells[r].visits
                lines.append(
                    "  \(sc.scenario.name) | \(ReportText.plain(v.trueVisits.mean)) | \(v.recall.map { ReportText.plain($0.mean) } ?? "–") | "
                        + "\(ReportText.plain(v.falsePerHour.mean)) | \(ReportText.plain(v.fragmentsPerHour.mean)) | "
                        + "\(v.lateEntryP95_s.map { ReportText.latency($0.mean) } ?? "–")")
            }
        }
        for sc in s.scenarios {
            let best = sc.filterErrors(points: m.points)
            guard !best.isEmpty else { continue }
            lines.append(
                "  \(sc.scenario.name): q with the smallest filter RMSE: "
                    + best.map { f in
                        "\(f.kind.rawValue) q \(ReportText.plain(f.best_q_m2s3)) (\(ReportText.plain(f.byQ.first { $0.q_m2s3 == f.best_q_m2s3 }?.rmse.mean ?? .nan)) m)"
                    }.joined(separator: ", "))
        }
        return lines.joined(separator: "\n")
    }

    /// Frontier rows listed in sweep.md and index.html (the rest: sweep.csv, sweep.json, the full table).
    static let listedFrontier = 12

    /// Frontier points by median latency (nothing detected last), then spurious, then id
    /// (found with the frontier: `SweepScenarioSummary.frontierByLatency`).
    static func frontierOrder(_ sc: SweepScenarioSummary) -> [Int] { sc.frontierByLatency }
}
