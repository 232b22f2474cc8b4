import ReportKit

/// `index.html` of a run, acceptance or replay (an `HTMLPage`). Shows the rules-level result in a header, the
/// rules-level and device-level boxes separately, a scenario table and per-scenario plots.
package enum HTMLReport {
    package static func render(_ report: RunReport) -> String {
        let x = ReportText.xml
        let overall = report.overallStatus.rawValue.uppercased()
        var h = HTMLPage.open(
            title: "FenceLab report: \(overall) — \(report.levelsLine)",
            banner: .init(cssClass: statusClass(report.overallStatus), heading: overall, lines: [x(report.levelsLine)]))
        let warned = report.scenarios.filter { !$0.warnings.isEmpty }
        if !warned.isEmpty {
            let names = warned.map(\.name).joined(separator: ", ")
            h += "<p class=\"warning\">Warning: check the input of \(x(names))"
            h += " (" + warned.flatMap(\.warnings).map(x).joined(separator: "; ") + ")</p>\n"
        }
        h += levels(report) + meta(report)
        if !report.scenarios.isEmpty { h += summary(report) }
        for (i, s) in report.scenarios.enumerated() {
            h += scenario(s, index: i, includeCoordinates: report.includeCoordinates)
        }
        let positions =
            "Positions are metres east/north of the fence centre"
            + (report.includeCoordinates ? "." : "; no raw coordinates are included.")
        return h
            + HTMLPage.close(
                toolVersion: report.run.toolVersion,
                note: "Figures: mean over replicates, brackets: 95 % Student-t interval. " + positions)
    }

    static func statusClass(_ status: AcceptanceStatus) -> String {
        switch status {
        case .passed: return "pass"
        case .failed: return "fail"
        case .notVerified: return "unknown"
        }
    }

    static func levels(_ report: RunReport) -> String {
        let x = ReportText.xml
        let rules = report.acceptance.rules
        let device = report.acceptance.device
        var h = "<div class=\"levels\">\n"
        h += "<section class=\"level \(statusClass(rules.status))\"><h2>Rules level</h2>"
        h += "<p class=\"status\">\(x(rules.status.rawValue))</p>"
        if let note = rules.note {
            h += "<p>\(x(note))</p>"
        } else {
            h += "<p>Offline and deterministic: \(rules.checks - rules.fixtureChecks) scenario expectation checks"
            h +=
                rules.fixtureChecks > 0
                ? " and \(rules.fixtureChecks) fixture assertions (\(rules.fixtureFiles.count) files).</p>" : ".</p>"
            h += "<p>Rules versions: \(x(report.run.rulesVersions.joined(separator: ", ")))</p>"
        }
        if rules.failureCount > 0 {
            h += "<ul class=\"failures\">"
            for f in rules.failures { h += "<li><b>\(x(f.scenario))</b>: \(x(ReportText.outcome(f.result)))</li>" }
            for f in rules.fixtureFailures { h += "<li>\(x(f.description))</li>" }
            h += "</ul>"
        }
        h += "</section>\n"
        h +=
            "<section class=\"level \(statusClass(device.status))\"><h2>Device level</h2><p class=\"status\">\(x(device.status.rawValue))</p><p>\(x(device.note))</p>"
        for r in device.replays { h += replay(r) }
        h += "</section>\n</div>\n"
        return h
    }

    /// One replayed log inside the device box: verdict, criteria, counts, divergences, what was not covered.
    static func replay(_ r: DeviceReplayResult) -> String {
        let x = ReportText.xml
        let counts = r.divergences.counts
        var h =
            "<div class=\"replay\"><h3>\(x(r.file)) <span class=\"badge \(r.status == .passed ? "ok" : "bad")\">\(r.status.rawValue)</span></h3>"
        h +=
            "<p class=\"muted\">\(r.fixCount) fixes (\(r.accepted) accepted), \(r.eventCount) system events, \(r.divergences.matched.count) matched · rule \(x(r.rule)) [\(x(r.rulesVersion))] · \(x(r.criteria))</p>"
        h +=
            "<div class=\"scroll\"><table><thead><tr><th>class</th><th>count</th><th>fails the log</th></tr></thead><tbody>"
        for c in DivergenceClass.allCases {
            let failing = r.divergences.settings.failingClasses.contains(c)
            h +=
                "<tr><td>\(c.rawValue)</td><td class=\"\((counts[c] ?? 0) > 0 && failing ? "bad" : "")\">\(counts[c] ?? 0)</td><td>\(failing ? "yes" : "no")</td></tr>"
        }
        h += "</tbody></table></div>"
        if let places = r.places { h += placesTable(places) }
        if !r.divergenceLines.isEmpty {
            h += "<details><summary>Divergences (\(r.divergenceLines.count))</summary><ul class=\"expect\">"
            for line in r.divergenceLines { h += "<li>\(x(line))</li>" }
            h += "</ul></details>"
        }
        if let ingest = r.ingest.summary { h += "<p>Import: \(x(ingest))</p>" }
        h += "<p class=\"muted\">Not covered: \(x(r.notCovered.joined(separator: "; ")))</p></div>"
        return h
    }

    /// A replay's places (`--places`): the summary line and the worst places (at most
    /// `PlaceReplaySummary.worstShown`, so the page stays small for 10⁵ places).
    static func placesTable(_ p: PlaceReplaySummary) -> String {
        let x = ReportText.xml
        var h = "<p>\(x(p.line))</p>"
        guard !p.worst.isEmpty else { return h }
        h += "<div class=\"scroll\"><table><thead><tr><th>place</th><th>events</th><th>matched</th><th>failing</th>"
        for c in DivergenceClass.allCases { h += "<th>\(c.rawValue)</th>" }
        h += "</tr></thead><tbody>"
        for place in p.worst {
            h += "<tr><td>\(x(place.name))</td><td>\(place.events)</td><td>\(place.matched)</td>"
            h += "<td class=\"\(place.failing > 0 ? "bad" : "")\">\(place.failing)</td>"
            for n in place.counts { h += "<td>\(n)</td>" }
            h += "</tr>"
        }
        return h + "</tbody></table></div>"
    }

    static func meta(_ report: RunReport) -> String {
        let r = report.run
        let x = ReportText.xml
        let items = [
            ("tool", r.toolVersion), ("commit", r.gitCommit ?? "unknown"), ("toolchain", r.swiftToolchain),
            ("GSL", r.gslVersion), ("generator", r.generator),
            ("seeds", r.seeds.map(String.init).joined(separator: ", ")),
            ("rules", r.rulesVersions.joined(separator: ", ")), ("time", r.time_utc),
        ]
        return "<dl class=\"meta\">" + items.map { "<div><dt>\(x($0.0))</dt><dd>\(x($0.1))</dd></div>" }.joined()
            + "</dl>\n"
    }

    static func anchor(_ index: Int) -> String { "s\(index)" }

    /// The figures of the scenario table: metric path and column heading (with unit).
    static let summaryColumns: [(path: String, heading: String)] = [
        ("flutter.spurious", "spurious per drive"), ("flutter.missed", "missed per drive"),
        ("kalman.raw.rmse_m", "raw RMSE m"), ("kalman.filtered.rmse_m", "filtered RMSE m"),
        ("kalman.seedBaseline.rmse_m", "seed baseline RMSE m"), ("throughput.engineFixes_per_s", "engine fixes/s"),
    ]

    /// "pass · 2 bounds" / "FAIL · 1 of 3 bounds" / "no bounds" and its CSS class.
    static func verdict(_ s: ScenarioReport) -> (text: String, cls: String) {
        let n = s.expectations.count
        guard n > 0 else { return ("no bounds", "nobound") }
        let failed = s.expectations.filter { !$0.passed }.count
        let bounds = "\(n) bound\(n == 1 ? "" : "s")"
        return failed == 0 ? ("pass · \(bounds)", "ok") : ("FAIL · \(failed) of \(bounds)", "bad")
    }

    /// A figure cell: coloured by its bound when the scenario bounds it, neutral ("measured, no bound") otherwise.
    static func figureCell(_ s: ScenarioReport, path: String) -> String {
        if path.hasPrefix("throughput.") {
            return "<td>\(s.metrics.estimate(path).map { ReportText.short($0.mean) } ?? "–")</td>"
        }
        // Mean, then the interval on its own line in small type: the table fits a page without scrolling.
        let e = s.metrics.estimate(path)
        var text = ReportText.xml(e.map { ReportText.short($0.mean) } ?? "–")
        if let e, e.n > 1, e.lower != e.upper {
            text +=
                "<br><small>[\(ReportText.xml(ReportText.short(e.lower))), \(ReportText.xml(ReportText.short(e.upper)))]</small>"
        }
        guard let e = s.expectations.first(where: { $0.bound.path == path }) else {
            return "<td class=\"nobound\" title=\"measured, no bound\">\(text)</td>"
        }
        return
            "<td class=\"\(e.passed ? "ok" : "bad")\" title=\"bound \(ReportText.xml(ReportText.bound(e.bound)))\">\(text)</td>"
    }

    static func summary(_ report: RunReport) -> String {
        var h =
            "<h2>Scenarios</h2>\n<p class=\"muted\">Per drive = per simulated replicate. Green or red: checked against the "
        h += "scenario's bound. <span class=\"nobound\">Grey italics: measured, no bound</span> (nothing was checked). "
        h += "Throughput differs between runs.</p>\n"
        h += "<div class=\"scroll\"><table class=\"summary\"><thead><tr><th>scenario</th><th>result</th>"
        h += summaryColumns.map { "<th>\($0.heading)</th>" }.joined() + "</tr></thead><tbody>\n"
        let order = report.scenarios.indices.sorted { a, b in
            let sa = report.scenarios[a]
            let sb = report.scenarios[b]
            return sa.passed != sb.passed ? !sa.passed : a < b
        }
        for i in order {
            let s = report.scenarios[i]
            let v = verdict(s)
            h +=
                "<tr><td><a href=\"#\(anchor(i))\">\(ReportText.xml(s.name))</a></td><td class=\"\(v.cls)\">\(v.text)</td>"
            h += summaryColumns.map { figureCell(s, path: $0.path) }.joined() + "</tr>\n"
        }
        return h + "</tbody></table></div>\n"
    }

    /// Headline figures the scenario does not bound, and its throughput: shown outside the collapsed table.
    static func unboundedFigures(_ s: ScenarioReport) -> String {
        let x = ReportText.xml
        let bounded = Set(s.expectations.map(\.bound.path))
        let free = summaryColumns.map(\.path).filter { !$0.hasPrefix("throughput.") && !bounded.contains($0) }
            .compactMap { p in s.metrics.estimate(p).map { "\(p) = \(ReportText.withUnit($0, path: p))" } }
        var h = ""
        if !free.isEmpty {
            h += "<p class=\"nobound\">Measured, no bound: \(x(free.joined(separator: "; ")))</p>\n"
        }
        let rates = ["throughput.engineFixes_per_s", "throughput.generatorFixes_per_s"].compactMap { p in
            s.metrics.estimate(p).map { "\(p.dropFirst("throughput.".count)) \(ReportText.withUnit($0, path: p))" }
        }
        if !rates.isEmpty {
            h += "<p class=\"muted\">Throughput (differs between runs): \(x(rates.joined(separator: ", ")))</p>\n"
        }
        return h
    }

    static func scenario(_ s: ScenarioReport, index: Int, includeCoordinates: Bool) -> String {
        let x = ReportText.xml
        var h =
            "<section class=\"scenario\" id=\"\(anchor(index))\">\n<h2>\(x(s.name)) <span class=\"badge \(verdict(s).cls)\">\(verdict(s).text)</span></h2>\n"
        h += "<p class=\"muted\">rules \(x(s.rulesVersion)) · seed \(s.seed) · \(s.replicates) replicates"
        if includeCoordinates, let lat = s.plots?.fence.centerLatitude, let lon = s.plots?.fence.centerLongitude {
            h += " · fence centre \(lat), \(lon)"
        }
        h += "</p>\n"
        for w in s.warnings { h += "<p class=\"warning\">Warning: \(x(w))</p>\n" }
        if !s.expectations.isEmpty {
            h += "<ul class=\"expect\">"
            for e in s.expectations {
                h += "<li class=\"\(e.passed ? "ok" : "bad")\">\(e.passed ? "✓" : "✗") \(x(ReportText.outcome(e)))</li>"
            }
            h += "</ul>\n"
        }
        h += unboundedFigures(s)
        h += VisitsReport.html(s)
        h += PlacesReport.html(s)
        h += "<div class=\"plots\">\n"
        if let p = s.plots {
            h += HTMLPage.figure(
                "Track (metres from the fence centre) — \(p.caption)", SVGPlots.track(p, id: anchor(index)), wide: false
            )
        }
        let methods = MarkdownReport.methods(in: s)
        if !methods.isEmpty {
            h += HTMLPage.figure(
                "Gap-fill RMSE per gap length (mean over replicates, 95 % CI)",
                SVGPlots.gapFill(s.metrics, methods: methods), wide: false)
        }
        if let p = s.plots {
            h += HTMLPage.figure(
                "State timeline: truth vs observed — \(p.caption)",
                HTMLPage.responsive(SVGPlots.timeline(p, width: 800), SVGPlots.timeline(p, width: 400)), wide: true)
            if let e = p.errors {
                h += HTMLPage.figure(
                    "Horizontal error over time — \(p.caption)",
                    HTMLPage.responsive(SVGPlots.errors(e, width: 800), SVGPlots.errors(e, width: 400)), wide: true)
            }
        }
        h += "</div>\n" + kalmanTable(s) + metricTable(s) + "</section>\n"
        return h
    }

    /// The Kalman block: error and covariance consistency of every track the scenario measured.
    static func kalmanTable(_ s: ScenarioReport) -> String {
        let tracks = KalmanTrack.allCases.filter { s.metrics.estimate("kalman.\($0.rawValue).rmse_m") != nil }
        guard !tracks.isEmpty else { return "" }
        var h =
            "<h3>Kalman filters</h3><div class=\"scroll\"><table><thead><tr><th>track</th><th>RMSE m</th><th>p95 m</th>"
        h +=
            "<th>NEES mean (χ²(4): 4)</th><th>NEES outside 95 %</th><th>NIS mean (χ²(2): 2)</th><th>NIS outside 95 %</th></tr></thead><tbody>"
        for t in tracks {
            let p = "kalman.\(t.rawValue)."
            h += "<tr><td>\(t.rawValue)</td>"
            for f in ["rmse_m", "p95_m", "nees.mean", "nees.outside95", "nis.mean", "nis.outside95"] {
                h += "<td>\(HTMLPage.stacked(ReportText.estimate(s.metrics.estimate(p + f))))</td>"
            }
            h += "</tr>"
        }
        h +=
            "</tbody></table></div><p class=\"muted\">Mean over replicates [95 % interval]. NEES: position and velocity error against the truth "
        h +=
            "normalised by the filter's own covariance; NIS: innovations (smoother: smoothing residuals). An honest covariance gives the "
        h +=
            "χ² mean and about 5 % outside the 95 % bounds; a larger mean means the filter claims more certainty than it has.</p>\n"
        return h
    }

    /// Every aggregated figure of the scenario, collapsed by default.
    static func metricTable(_ s: ScenarioReport) -> String {
        let x = ReportText.xml
        let tree = JSONReport.metricTree(s.metrics.estimates)
        var rows: [(String, Estimate)] = []
        func walk(_ nodes: [(String, JSONValue)], prefix: String) {
            for (name, value) in nodes {
                let path = prefix.isEmpty ? name : prefix + "." + name
                if let e = s.metrics.estimates[path] {
                    rows.append((path, e))
                } else if case .object(let children) = value {
                    walk(children, prefix: path)
                }
            }
        }
        walk(tree, prefix: "")
        var h =
            "<details><summary>All figures (\(rows.count))</summary><div class=\"scroll\"><table><thead><tr><th>metric</th><th>mean</th><th>95 % CI</th><th>unit</th><th>n</th></tr></thead><tbody>"
        for (path, e) in rows {
            h +=
                "<tr><td>\(x(path))</td><td>\(x(ReportText.short(e.mean)))</td><td>\(x(ReportText.short(e.lower)))…\(x(ReportText.short(e.upper)))</td>"
            h += "<td>\(x(MetricCatalog.unit(of: path)))</td><td>\(e.n)</td></tr>"
        }
        h += "</tbody></table></div>"
        if rows.contains(where: { $0.0.hasPrefix("flutter.latency_s.") && $0.1.lower < 0 }) {
            h += "<p class=\"muted\">\(x(ReportText.negativeLatencyNote))</p>"
        }
        return h + "</details>\n"
    }
}
