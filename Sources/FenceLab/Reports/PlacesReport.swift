import ReportKit

/// The `places.*` block of the run reports (definitions: docs/metrics.md "Places"): the weighted
/// aggregates with their 95 % intervals, and the `worstCount` worst places of the set.
enum PlacesReport {
    /// Most places listed one by one; a larger set shows its aggregates and these worst places.
    static let worstCount = 10

    /// (label with unit, metric path) of the aggregates.
    static let rows: [(String, String)] = [
        ("true visits per drive", "places.trueVisits"),
        ("recall", "places.recall"),
        ("false visits per hour", "places.falsePerHour"),
        ("fragments per hour", "places.fragmentsPerHour"),
        ("attribution errors per hour", "places.attributionErrorsPerHour"),
        ("ordering errors per drive", "places.orderingErrors"),
        ("oscillations per hour", "places.oscillationsPerHour"),
        ("true oscillations per drive", "places.trueOscillations"),
        ("missed visits per drive", "places.missedVisits"),
        ("not monitored per drive", "places.notMonitored"),
        ("rule missed per drive", "places.ruleMissed"),
        ("not-monitored share of misses", "places.notMonitoredShare"),
        ("swaps per hour", "places.swapsPerHour"),
    ]

    /// Per-place columns: (header, key under `places.byPlace.I.`).
    static let placeColumns: [(String, String)] = [
        ("true visits", "trueVisits"), ("recall", "recall"), ("false visits", "falseVisits"),
        ("fragments", "fragments"), ("attribution errors", "attributionErrors"), ("ordering errors", "orderingErrors"),
    ]

    static func has(_ s: ScenarioReport) -> Bool { s.metrics.estimate("places.trueVisits") != nil }

    /// The worst places, at most `worstCount`: most (missed + false + fragments + attribution +
    /// ordering) per drive first, then the lower recall, then set order.
    static func worst(_ s: ScenarioReport) -> [Int] {
        let m = s.metrics
        func mean(_ i: Int, _ k: String) -> Double? { m.estimate("places.byPlace.\(i).\(k)")?.mean }
        let scored = s.placeNames.indices.map { i -> (Int, Double, Double) in
            let missed = (mean(i, "trueVisits") ?? 0) * (1 - (mean(i, "recall") ?? 1))
            let errors = ["falseVisits", "fragments", "attributionErrors", "orderingErrors"].reduce(missed) {
                $0 + (mean(i, $1) ?? 0)
            }
            return (i, errors, mean(i, "recall") ?? 1)
        }
        let sorted = scored.sorted { a, b in a.1 != b.1 ? a.1 > b.1 : (a.2 != b.2 ? a.2 < b.2 : a.0 < b.0) }
        return sorted.prefix(worstCount).map(\.0)
    }

    static func placeCells(_ s: ScenarioReport, _ i: Int) -> [String] {
        [s.placeNames[i]]
            + placeColumns.map { ReportText.plainEstimate(s.metrics.estimate("places.byPlace.\(i).\($0.1)")) }
    }

    static func worstNote(_ s: ScenarioReport) -> String {
        let n = s.placeNames.count
        return n <= worstCount
            ? "All \(n) places, worst first"
            : "The \(worstCount) worst of \(n) places (most missed + false + fragment + attribution + ordering per drive first)"
    }

    /// report.md: per scenario with a place set, the aggregates and the worst places.
    static func markdown(_ report: RunReport) -> [String] {
        let measured = report.scenarios.filter(has)
        guard !measured.isEmpty else { return [] }
        var out = MarkdownReport.table(
            "Places",
            "Against every place of each scenario's place set (docs/metrics.md \"Places\"): weighted totals over places, mean [95 % interval] over replicates; – = not defined.",
            ["scenario", "places"] + rows.map(\.0),
            measured.map { s in
                [s.name, "\(s.placeNames.count)"] + rows.map { ReportText.plainEstimate(s.metrics.estimate($0.1)) }
            })
        for s in measured {
            out += MarkdownReport.table(
                "Places of \(s.name)", worstNote(s) + "; figures per drive, mean [95 % interval].",
                ["place"] + placeColumns.map(\.0), worst(s).map { placeCells(s, $0) })
        }
        return out
    }

    /// index.html: the aggregates and the worst places of one scenario; empty without a place set.
    static func html(_ s: ScenarioReport) -> String {
        guard has(s) else { return "" }
        let x = ReportText.xml
        var h =
            "<div class=\"plots\"><div><h3>Places (\(s.placeNames.count), weighted over places)</h3><table><tbody>"
        for (label, path) in rows {
            h += "<tr><td>\(x(label))</td><td>\(x(ReportText.plainEstimate(s.metrics.estimate(path))))</td></tr>"
        }
        h += "</tbody></table></div><div><h3>\(x(worstNote(s)))</h3><table><thead><tr><th>place</th>"
        h += placeColumns.map { "<th>\(x($0.0))</th>" }.joined() + "</tr></thead><tbody>"
        for i in worst(s) {
            h += "<tr>" + placeCells(s, i).map { "<td>\(x($0))</td>" }.joined() + "</tr>"
        }
        return h + "</tbody></table></div></div>\n"
    }

    /// The console summary's lines for the scenarios with a place set (none without).
    static func summaryLines(_ report: RunReport) -> [String] {
        let measured = report.scenarios.filter(has)
        guard !measured.isEmpty else { return [] }
        var lines = [""]
        for s in measured {
            func e(_ p: String) -> String { ReportText.plainEstimate(s.metrics.estimate(p)) }
            lines.append(
                "places \(s.name) (\(s.placeNames.count)): recall \(e("places.recall")), false/h \(e("places.falsePerHour")), fragments/h \(e("places.fragmentsPerHour")), attribution/h \(e("places.attributionErrorsPerHour")), ordering \(e("places.orderingErrors")), oscillations/h \(e("places.oscillationsPerHour")), notMonitored share \(e("places.notMonitoredShare")), swaps/h \(e("places.swapsPerHour"))"
            )
            let worst = worst(s).prefix(3).map { i in
                "\(s.placeNames[i]) recall \(ReportText.plainEstimate(s.metrics.estimate("places.byPlace.\(i).recall"))), false \(ReportText.plainEstimate(s.metrics.estimate("places.byPlace.\(i).falseVisits")))/drive"
            }
            if !worst.isEmpty { lines.append("  worst places: " + worst.joined(separator: "; ")) }
        }
        return lines
    }
}
