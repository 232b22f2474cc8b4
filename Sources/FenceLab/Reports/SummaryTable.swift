import ReportKit

/// The one-screen plain-text summary `fencelab run` prints on stdout at the end.
package enum SummaryTable {
    /// Columns: scenario, result, spurious, missed, raw/filtered/seed-baseline RMSE (means),
    /// then the two acceptance levels. Fixed-width, ASCII except the scenario names.
    package static func render(_ report: RunReport) -> String {
        let header = ["scenario", "result", "spurious", "missed", "raw RMSE m", "filtered m", "seed m"]
        var rows = [header]
        for s in report.scenarios {
            let m = s.metrics
            let failed = s.expectations.filter { !$0.passed }.count
            let result =
                s.expectations.isEmpty
                ? "no bounds"
                : "\(failed == 0 ? "pass" : "FAIL") \(s.expectations.count - failed)/\(s.expectations.count)"
            rows.append(
                [s.name, result]
                    + [
                        "flutter.spurious", "flutter.missed", "kalman.raw.rmse_m", "kalman.filtered.rmse_m",
                        "kalman.seedBaseline.rmse_m",
                    ]
                    .map { m.estimate($0).map { ReportText.short($0.mean) } ?? "-" })
        }
        var widths = header.map { _ in 0 }
        for row in rows { for (i, c) in row.enumerated() { widths[i] = max(widths[i], c.count) } }
        var lines = rows.map { row in
            row.enumerated().map { i, c in
                let pad = String(repeating: " ", count: widths[i] - c.count)
                return i < 2 ? c + pad : pad + c
            }.joined(separator: "  ")
        }
        lines += PlacesReport.summaryLines(report)
        let rules = report.acceptance.rules
        lines.append(
            "result: bounds held / bounds; figures are means per drive (m for RMSE); a figure no bound checks is measured only."
        )
        lines.append("")
        lines.append(
            "rules-level: \(rules.status.rawValue) (\(rules.checks) checks, \(rules.failures.count) failed); device-level: \(report.acceptance.device.status.rawValue)"
        )
        for f in rules.failures { lines.append("  FAIL \(f.scenario): \(f.result.message)") }
        return lines.joined(separator: "\n") + "\n"
    }
}
