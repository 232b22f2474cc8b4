import ReportKit

/// The `visits.*` block of the run reports, next to flutter (definitions: docs/metrics.md).
enum VisitsReport {
    /// (label with unit, metric path, is a latency in seconds).
    static let rows: [(String, String, Bool)] = [
        ("true visits per drive", "visits.trueVisits", false),
        ("matched visits per drive", "visits.matchedVisits", false),
        ("recall", "visits.recall", false),
        ("false visits per drive", "visits.falseVisits", false),
        ("false visits per hour", "visits.falsePerHour", false),
        ("fragments per drive", "visits.fragments", false),
        ("fragments per hour", "visits.fragmentsPerHour", false),
        ("entry latency median s", "visits.entryLatency_s.median", true),
        ("entry latency p95 s", "visits.entryLatency_s.p95", true),
        ("exit latency median s", "visits.exitLatency_s.median", true),
        ("exit latency p95 s", "visits.exitLatency_s.p95", true),
        ("early entries per drive", "visits.earlyEntries", false),
    ]

    /// The `notify.*` rows (a notification policy and a place only).
    static let notifyRows: [(String, String, Bool)] = [
        ("entry notifications per true visit", "notify.entriesPerTrueVisit", false),
        ("unwanted notifications per hour", "notify.unwantedPerHour", false),
        ("unwanted notifications per drive", "notify.unwanted", false),
        ("entry notifications per drive", "notify.entries", false),
        ("exit notifications per drive", "notify.exits", false),
        ("dwell notifications per drive", "notify.dwells", false),
        ("dwell recall", "notify.dwellRecall", false),
        ("false dwells per hour", "notify.falseDwellsPerHour", false),
        ("dwell latency median s", "notify.dwellLatency_s.median", true),
        ("dwell latency p95 s", "notify.dwellLatency_s.p95", true),
    ]

    static func text(_ e: Estimate?, seconds: Bool) -> String {
        seconds ? ReportText.latencyEstimate(e) : ReportText.plainEstimate(e)
    }

    /// report.md: one row per scenario with a place, most false + fragment visits per hour first.
    static func markdown(_ report: RunReport) -> [String] {
        let withPlace = report.scenarios.filter { $0.metrics.estimate("visits.trueVisits") != nil }
        let sorted = MarkdownReport.worstFirst(withPlace, name: \.name) {
            ($0.metrics.estimate("visits.falsePerHour")?.mean ?? 0)
                + ($0.metrics.estimate("visits.fragmentsPerHour")?.mean ?? 0)
        }
        let shown = [
            "visits.trueVisits", "visits.recall", "visits.falsePerHour", "visits.fragmentsPerHour",
            "visits.entryLatency_s.p95", "visits.exitLatency_s.p95", "visits.earlyEntries",
        ]
        let rowsByPath = Dictionary(uniqueKeysWithValues: rows.map { ($0.1, $0) })
        let table = sorted.map { s in
            [s.name] + shown.map { p in text(s.metrics.estimate(p), seconds: rowsByPath[p]!.2) }
        }
        return MarkdownReport.table(
            "Visits",
            "Against each scenario's place (docs/metrics.md): observed visits matched to true visits. Most false + fragment visits per hour first; recall – = no true visit.",
            [
                "scenario", "true visits per drive", "recall", "false visits per hour", "fragments per hour",
                "entry latency p95 s", "exit latency p95 s", "early entries per drive",
            ], table)
    }

    /// report.md: one row per scenario with notification figures, most unwanted per hour first;
    /// nothing when no scenario has a notification policy.
    static func notificationsMarkdown(_ report: RunReport) -> [String] {
        let measured = report.scenarios.filter { $0.metrics.estimate("notify.entries") != nil }
        guard !measured.isEmpty else { return [] }
        let sorted = MarkdownReport.worstFirst(measured, name: \.name) {
            $0.metrics.estimate("notify.unwantedPerHour")?.mean ?? 0
        }
        let shown = [
            "notify.entriesPerTrueVisit", "notify.unwantedPerHour", "notify.dwellRecall", "notify.falseDwellsPerHour",
            "notify.dwellLatency_s.p95",
        ]
        let rowsByPath = Dictionary(uniqueKeysWithValues: notifyRows.map { ($0.1, $0) })
        let table = sorted.map { s in
            [s.name, s.rulesVersion] + shown.map { p in text(s.metrics.estimate(p), seconds: rowsByPath[p]!.2) }
        }
        return MarkdownReport.table(
            "Notifications",
            "What the notification policy tells the user, against each scenario's place (docs/metrics.md). Most unwanted notifications per hour first; – = not defined (no true visit, no dwell policy, or no visit as long as the dwell).",
            [
                "scenario", "rules version", "entry notifications per true visit", "unwanted notifications per hour",
                "dwell recall", "false dwells per hour", "dwell latency p95 s",
            ], table)
    }

    /// index.html: flutter and visits side by side for one scenario, with units.
    static func html(_ s: ScenarioReport) -> String {
        let x = ReportText.xml
        let m = s.metrics
        let flutter: [(String, String, Bool)] = [
            ("spurious transitions per drive", "flutter.spurious", false),
            ("missed transitions per drive", "flutter.missed", false),
            ("flaps per drive", "flutter.flaps", false), ("latency median s", "flutter.latency_s.median", true),
            ("latency p95 s", "flutter.latency_s.p95", true),
        ]
        func cells(_ list: [(String, String, Bool)]) -> String {
            list.map { "<tr><td>\(x($0.0))</td><td>\(x(text(m.estimate($0.1), seconds: $0.2)))</td></tr>" }.joined()
        }
        var h =
            "<div class=\"plots\"><div><h3>Flutter (against the rule on the noiseless track)</h3><table><tbody>"
            + cells(flutter) + "</tbody></table></div>"
        if m.estimate("visits.trueVisits") != nil {
            h += "<div><h3>Visits (against the place)</h3><table><tbody>" + cells(rows) + "</tbody></table></div>"
        } else {
            h +=
                "<div><h3>Visits</h3><p class=\"muted\">No <code>place</code> in this scenario: no visit figures.</p></div>"
        }
        if m.estimate("notify.entries") != nil {
            h +=
                "<div><h3>Notifications (against the place)</h3><table><tbody>" + cells(notifyRows)
                + "</tbody></table></div>"
        }
        return h + "</div>\n"
    }
}
