import ReportKit

/// `report.md`: a table per metric, worst cases first.
package enum MarkdownReport {
    package static func render(_ report: RunReport) -> String {
        var md: [String] = []
        let rules = report.acceptance.rules
        let device = report.acceptance.device
        md.append("# FenceLab report: \(report.overallStatus.rawValue.uppercased()) — \(report.levelsLine)")
        md.append("")
        md.append(
            "- **Rules-level** (offline, deterministic): \(rules.status.rawValue), \(rules.checks) checks, \(rules.failureCount) failures"
                + (rules.fixtureChecks > 0 ? " (\(rules.fixtureChecks) of the checks are fixture assertions)" : "")
                + (rules.note.map { ". " + $0 } ?? ""))
        md.append("- **Device-level**: \(device.status.rawValue). \(device.note)")
        let r = report.run
        md.append(
            "- fencelab \(r.toolVersion), commit \(r.gitCommit ?? "unknown"), \(r.swiftToolchain), GSL \(r.gslVersion), generator \(r.generator), seeds \(r.seeds.map(String.init).joined(separator: ", ")), rules \(r.rulesVersions.joined(separator: ", ")), \(r.time_utc)"
        )
        md.append("")
        md.append("Figures are means over replicates with the 95 % Student-t interval in brackets.")
        if !r.inputFiles.isEmpty {
            md.append("")
            md.append("Input files (SHA-256):")
            md.append("")
            md += r.inputFiles.map { "- \($0.kind) `\(ReportText.cell($0.path))` \($0.sha256)" }
        }
        for s in report.scenarios {
            for w in s.warnings { md += ["", "**Warning** (\(ReportText.cell(s.name))): \(ReportText.cell(w))"] }
        }
        md += fixtureFailures(report)
        md += deviceLevel(report)
        md += expectations(report)
        md += flutter(report)
        md += VisitsReport.markdown(report)
        md += VisitsReport.notificationsMarkdown(report)
        md += PlacesReport.markdown(report)
        md += kalman(report)
        md += gapFill(report)
        md += rejections(report)
        md += throughput(report)
        return ReportText.markdownSafe(md.joined(separator: "\n")) + "\n"
    }

    static func fixtureFailures(_ report: RunReport) -> [String] {
        let rules = report.acceptance.rules
        guard rules.fixtureChecks > 0 else { return [] }
        let rows = rules.fixtureFailures.map { f in
            [
                f.file, f.keyPath, f.rulesVersion, f.assertion, f.actual,
                f.values.map(\.description).joined(separator: ", "),
            ]
        }
        return table(
            "Rules fixtures",
            "\(rules.fixtureChecks) assertions in \(rules.fixtureFiles.count) files; failures with unrounded values.",
            ["file", "key path", "rules version", "assertion", "got", "values"], rows)
    }

    /// A replay's places (`--places`): the summary line and the worst places, one row each.
    static func placeLines(_ p: PlaceReplaySummary) -> [String] {
        var out = [
            "", ReportText.cell(p.line) + ".", "",
            "| place | events | matched | failing | "
                + DivergenceClass.allCases.map(\.rawValue).joined(separator: " | ") + " |",
            "| --- | --- | --- | --- | " + DivergenceClass.allCases.map { _ in "---" }.joined(separator: " | ") + " |",
        ]
        for place in p.worst {
            out.append(
                "| \(ReportText.cell(place.name)) | \(place.events) | \(place.matched) | \(place.failing) | "
                    + place.counts.map(String.init).joined(separator: " | ") + " |")
        }
        if p.worst.isEmpty {
            out.append(
                "| (no place diverged) | | | | " + DivergenceClass.allCases.map { _ in "" }.joined(separator: " | ")
                    + " |")
        }
        return out
    }

    static func deviceLevel(_ report: RunReport) -> [String] {
        var out: [String] = []
        for r in report.acceptance.device.replays {
            let counts = r.divergences.counts
            out += [
                "", "## Device log \(ReportText.cell(r.file)): \(r.status.rawValue)", "",
                "\(r.fixCount) fixes (\(r.accepted) accepted), \(r.eventCount) system events, \(r.divergences.matched.count) matched; rule \(r.rule) [\(r.rulesVersion)]; \(r.criteria).",
                "",
                "| class | count | fails the log |", "| --- | --- | --- |",
            ]
            for c in DivergenceClass.allCases {
                out.append(
                    "| \(c.rawValue) | \(counts[c] ?? 0) | \(r.divergences.settings.failingClasses.contains(c) ? "yes" : "no") |"
                )
            }
            if let places = r.places { out += placeLines(places) }
            if !r.divergenceLines.isEmpty { out += [""] + r.divergenceLines.map { "- " + ReportText.cell($0) } }
            if let ingest = r.ingest.summary { out += ["", "Import: " + ReportText.cell(ingest)] }
            out += ["", "Not covered: " + r.notCovered.joined(separator: "; ")]
        }
        return out
    }

    static func table(_ title: String, _ note: String, _ header: [String], _ rows: [[String]]) -> [String] {
        var out = ["", "## \(title)", ""]
        if !note.isEmpty { out += [note, ""] }
        if rows.isEmpty { return out + ["(none)"] }
        out.append("| " + header.joined(separator: " | ") + " |")
        out.append("|" + header.map { _ in " --- |" }.joined())
        for row in rows { out.append("| " + row.map(ReportText.cell).joined(separator: " | ") + " |") }
        return out
    }

    /// Sort key: descending by a mean, missing values last, then by name for stability.
    static func worstFirst<T>(_ items: [T], name: (T) -> String, key: (T) -> Double?) -> [T] {
        items.sorted { a, b in
            let ka = key(a) ?? -.infinity
            let kb = key(b) ?? -.infinity
            return ka != kb ? ka > kb : name(a).utf8.lexicographicallyPrecedes(name(b).utf8)
        }
    }

    static func expectations(_ report: RunReport) -> [String] {
        var rows: [(Bool, [String])] = []
        for s in report.scenarios {
            for e in s.expectations {
                rows.append(
                    (
                        e.passed,
                        [
                            s.name, e.bound.path,
                            ReportText.bound(e.bound) + " " + MetricCatalog.unit(of: e.bound.path),
                            ReportText.withUnit(e.measured, path: e.bound.path),
                            e.measured.map { String($0.mean) } ?? "no data", e.passed ? "pass" : "**FAIL**",
                        ]
                    ))
            }
        }
        let ordered = rows.enumerated().sorted { a, b in
            a.element.0 != b.element.0 ? !a.element.0 : a.offset < b.offset
        }.map(\.element.1)
        return table(
            "Expectations", "Failures first. The bound is checked against the mean (unrounded value shown).",
            ["scenario", "metric", "bound", "measured", "unrounded mean", "result"], ordered)
    }

    static func flutter(_ report: RunReport) -> [String] {
        let sorted = worstFirst(report.scenarios, name: \.name) { $0.metrics.estimate("flutter.spurious")?.mean }
        let rows = sorted.filter { $0.metrics.estimate("flutter.transitions") != nil }.map { s in
            [s.name]
                + [
                    "transitions", "truthTransitions", "spurious", "missed", "flaps", "latency_s.median",
                    "latency_s.p95",
                ]
                .map { ReportText.estimate(s.metrics.estimate("flutter." + $0)) }
        }
        let negative = sorted.contains { s in
            ["median", "p95"].contains { (s.metrics.estimate("flutter.latency_s." + $0)?.lower ?? 0) < 0 }
        }
        let note =
            "Against the rule on the noiseless track. Most spurious transitions first. Counts per drive (one simulated replicate); measured, no bound "
            + "unless the Expectations table lists one." + (negative ? " " + ReportText.negativeLatencyNote : "")
        return table(
            "Flutter", note,
            [
                "scenario", "transitions per drive", "truth per drive", "spurious per drive", "missed per drive",
                "flaps per drive",
                "latency median s", "latency p95 s",
            ], rows)
    }

    static func kalman(_ report: RunReport) -> [String] {
        let sorted = worstFirst(report.scenarios, name: \.name) {
            $0.metrics.estimate("kalman.filtered.rmse_m")?.mean ?? $0.metrics.estimate("kalman.raw.rmse_m")?.mean
        }
        var rows: [[String]] = []
        for s in sorted {
            for track in KalmanTrack.allCases {
                let p = "kalman.\(track.rawValue)."
                guard s.metrics.estimate(p + "rmse_m") != nil else { continue }
                rows.append(
                    [s.name, track.rawValue]
                        + [
                            "rmse_m", "p50_m", "p95_m", "max_m", "nees.mean", "nees.outside95", "nis.mean",
                            "nis.outside95",
                        ]
                        .map { ReportText.estimate(s.metrics.estimate(p + $0)) })
            }
        }
        return table(
            "Kalman error (m) and covariance consistency",
            "Largest filtered RMSE first. NEES: position and velocity error against the truth normalised by the filter's covariance, "
                + "χ²(4) for an honest covariance (mean 4, 5 % outside the 95 % bounds); NIS: innovations, χ²(2) (mean 2); "
                + "for the smoother the normalised smoothing residual.",
            [
                "scenario", "track", "rmse m", "p50 m", "p95 m", "max m", "NEES mean", "NEES outside 95 %", "NIS mean",
                "NIS outside 95 %",
            ], rows)
    }

    static func gapFill(_ report: RunReport) -> [String] {
        var entries: [(String, [String], Double?)] = []
        for s in report.scenarios {
            for method in methods(in: s) {
                for bucket in GapBucket.allCases {
                    let p = "gapFill.\(method).\(bucket.rawValue)."
                    guard let gaps = s.metrics.estimate(p + "gaps"), gaps.mean > 0 else { continue }
                    let rmse = s.metrics.estimate(p + "rmse_m")
                    entries.append(
                        (
                            s.name,
                            [
                                s.name, method, bucket.rawValue, ReportText.estimate(gaps), ReportText.estimate(rmse),
                                ReportText.estimate(s.metrics.estimate(p + "max_m")),
                            ], rmse?.mean
                        ))
                }
            }
        }
        let rows = worstFirst(entries, name: { $0.0 }, key: { $0.2 }).map(\.1)
        return table(
            "Gap fill (m)", "Largest RMSE first; buckets without gaps are left out.",
            ["scenario", "method", "gap", "gaps", "rmse m", "max m"], rows)
    }

    static func methods(in s: ScenarioReport) -> [String] {
        var found = Set<String>()
        for path in s.metrics.estimates.keys where path.hasPrefix("gapFill.") {
            found.insert(String(path.split(separator: ".")[1]))
        }
        return MetricCatalog.ordered(Array(found), depth: 1, parent: ["gapFill"])
    }

    static func rejections(_ report: RunReport) -> [String] {
        var entries: [(String, [String], Double)] = []
        for s in report.scenarios {
            for (path, e) in s.metrics.estimates where path.hasPrefix("rejections.") || path.hasPrefix("faults.") {
                entries.append((s.name + path, [s.name, path, ReportText.estimate(e)], e.mean))
            }
        }
        return table(
            "Rejections and faults", "Most frequent first; `faults.caught.X` of `faults.labelled.X` were rejected.",
            ["scenario", "metric", "count per replicate"], worstFirst(entries, name: { $0.0 }, key: { $0.2 }).map(\.1))
    }

    static func throughput(_ report: RunReport) -> [String] {
        let sorted = worstFirst(report.scenarios, name: \.name) { s in
            s.metrics.estimate("throughput.engineFixes_per_s").map { -$0.mean }
        }
        let rows = sorted.filter { $0.metrics.estimate("throughput.engineFixes_per_s") != nil }.map { s in
            [
                s.name, ReportText.estimate(s.metrics.estimate("throughput.engineFixes_per_s")),
                ReportText.estimate(s.metrics.estimate("throughput.generatorFixes_per_s")),
            ]
        }
        return table(
            "Throughput (fixes/s)", "Slowest engine first. Timing figures differ between runs.",
            ["scenario", "engine", "generator"], rows)
    }
}
