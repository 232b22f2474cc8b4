import DeviceLogKit
import GSLKit
import GeoPolicy
import ReportKit

/// The normalised innovation squared (NIS, νᵀS⁻¹ν) of every fix the input filter weighed: χ²(2)
/// for a filter whose covariance and the fixes' accuracies are honest. Counts only, no values.
package struct InnovationSummary: Sendable, Hashable {
    /// Fixes with an innovation (every fix the filter weighed but its first).
    package var count = 0
    /// Of those, NIS above the 95 % quantile of χ²(2) (`InnovationSummary.upper95`).
    package var above95 = 0
    /// Sum of the NIS values (mean = sum / count; a consistent filter: ≈ 2).
    package var sum = 0.0

    package init(count: Int = 0, above95: Int = 0, sum: Double = 0) {
        self.count = count
        self.above95 = above95
        self.sum = sum
    }

    /// Degrees of freedom of the innovation (east, north).
    package static let degreesOfFreedom = 2
    /// The 95 % quantile of χ²(2), 5.991 (GSL `gsl_cdf_chisq_Pinv`; = −2 ln 0.05).
    package static let upper95: Double =
        (try? Statistics.chiSquareQuantile(probability: 0.95, degreesOfFreedom: Double(degreesOfFreedom)))
        ?? 5.991_464_547_107_979

    /// Fraction of the innovations above the 95 % quantile (a consistent filter: ≈ 0.05); NaN for none.
    package var fractionAbove95: Double { count > 0 ? Double(above95) / Double(count) : .nan }

    /// Records one innovation when S is positive definite and the value finite.
    package mutating func record(_ nu: Innovation) {
        guard nu.s00 > 0, nu.determinant > 0 else { return }
        let value = nu.normalizedSquare
        guard value.isFinite else { return }
        count += 1
        sum += value
        if value > Self.upper95 { above95 += 1 }
    }
}

/// How many fixes the engine rejected for one reason.
package struct ReasonCount: Sendable, Hashable {
    /// `RejectionReason.rawValue`.
    package var reason: String
    package var count: Int
    package init(reason: String, count: Int) {
        self.reason = reason
        self.count = count
    }
}

/// Everything one device-log replay found: engine decisions, classified divergences, verdict.
///
/// Carries indices, line numbers and times only, never coordinates.
package struct DeviceReplayResult: Sendable, Hashable {
    /// The log's path as given.
    package var file: String
    /// The rule the fixes ran through (`RuleSpec` text, e.g. `hysteresis:80:120:30`) and its rules version.
    package var rule: String
    package var rulesVersion: String
    /// Staleness limit of the monitor, seconds.
    package var maxAge_s: Double
    /// Number of fixes and system events in the log.
    package var fixCount: Int
    package var eventCount: Int
    /// Fixes the engine accepted; rejected fixes by reason (`RejectionReason.rawValue`), sorted by reason.
    package var accepted: Int
    package var rejections: [ReasonCount]
    /// The engine's decision for every fix (`decisions[i].index == i`).
    package var decisions: [EngineDecision]
    /// The classifier's result against the log's events.
    package var divergences: DivergenceReport
    /// 1-based log line of every fix and of every event (parallel to `DeviceLog.fixes` / `.events`).
    package var fixLines: [Int]
    package var eventLines: [Int]
    /// Earliest finite timestamp in the log, seconds; divergence times are reported relative to it.
    package var origin_s: Double
    /// What this log cannot tell (see `DeviceReplay.notCovered`).
    package var notCovered: [String]
    /// What the import skipped (per reason) and assumed; empty for the app's own CSV and JSON Lines.
    package var ingest = DeviceLogIngest()
    /// The per-place counts of a replay with `--places`; nil for one fence.
    package var places: PlaceReplaySummary?
    /// NIS of the input filter (`+kalman`, `+imm`); nil for raw input.
    package var innovation: InnovationSummary?
    /// Measured wall time of the replay (engine and classifier), seconds; differs between runs,
    /// only junit.xml shows it.
    package var elapsed_s: Double = 0

    /// `failed` when a divergence of a failing class was found (`DivergenceSettings.failingClasses`).
    package var status: DeviceCheckStatus { divergences.status }

    /// The stated pass criterion in words.
    package var criteria: String {
        let failing = DivergenceClass.allCases.filter { divergences.settings.failingClasses.contains($0) }.map(
            \.rawValue)
        let tolerated = DivergenceClass.allCases.filter { !divergences.settings.failingClasses.contains($0) }.map(
            \.rawValue)
        return "passes when no divergence is of class \(failing.joined(separator: ", "))"
            + (tolerated.isEmpty ? "" : "; tolerated: \(tolerated.joined(separator: ", "))")
    }

    /// The log line a divergence is about: its event's line, else its decision's fix line.
    package func line(of d: Divergence) -> Int? {
        if let e = d.eventIndex, eventLines.indices.contains(e) { return eventLines[e] }
        if let i = d.decisionIndex, fixLines.indices.contains(i) { return fixLines[i] }
        return nil
    }

    /// One line per divergence: `+OFFSET s line N class: detail` (no coordinates).
    package var divergenceLines: [String] {
        divergences.divergences.map { d in
            let offset =
                d.timestamp_s.isFinite && origin_s.isFinite
                ? "+" + DurationText.seconds(d.timestamp_s - origin_s) : "time n/a"
            return "\(offset) line \(line(of: d).map(String.init) ?? "?") \(d.kind.rawValue): \(d.detail)"
        }
    }

    /// The printed summary: counts, per-class divergences, every divergence, verdict, what was not covered.
    package var summaryLines: [String] {
        var lines: [String] = []
        let rejected = fixCount - accepted
        let reasons = rejections.map { "\($0.reason) \($0.count)" }.joined(separator: ", ")
        lines.append(
            "Replay \(file): \(fixCount) fixes (\(accepted) accepted, \(rejected) rejected\(reasons.isEmpty ? "" : ": " + reasons)), "
                + "\(eventCount) system events, \(divergences.matched.count) matched; rule \(rule) [\(rulesVersion)], max age \(DurationText.seconds(maxAge_s))"
        )
        let counts = divergences.counts
        lines.append(
            "Divergences: "
                + DivergenceClass.allCases.map { "\($0.rawValue) \(counts[$0] ?? 0)" }.joined(separator: ", "))
        if let ingestLine = ingest.summary { lines.insert("Import: " + ingestLine, at: 1) }
        if let places {
            lines.append(places.line)
            lines += places.worst.map { "  " + places.line($0) }
        }
        lines += divergenceLines.map { "  " + $0 }
        lines.append("Device log \(file): \(status.rawValue) (\(criteria))")
        lines.append("Not covered: " + notCovered.joined(separator: "; "))
        return lines
    }
}

extension RuleSpec {
    /// The band within which a reversal can be noise: hysteresis enter…exit, a single radius twice otherwise.
    var flutterBand: FlutterBand {
        switch self {
        case .hysteresis(let e, let x, _, _): return FlutterBand(inner_m: e, outer_m: x)
        case .threshold(let r, _), .conservative(let r, _): return FlutterBand(inner_m: r, outer_m: r)
        }
    }
}

/// Replays a device log through `FenceMonitor` and classifies it against the log's system events.
///
/// `now` for each fix is the newest finite timestamp logged up to and including it: the log
/// records no separate receive time, so for fixes in time order `now` equals the fix's own
/// timestamp, and a fix delivered late (older than a fix before it) is judged at the time the
/// newer fix proves the app had reached. That is the only way a log can show a stale fix; the
/// classifier estimates delivery time the same way (`DivergenceClassifier`, step 6).
package enum DeviceReplay {
    /// Default staleness limit, seconds (the default of `fencelab run --max-age`).
    package static let defaultMaxAge_s = 30.0

    /// Runs the log.
    /// - Parameters:
    ///   - log: an imported device log (`DeviceLogImporter.load`).
    ///   - center: the fence centre the app monitored.
    ///   - rule: the rule to run (default seed 000's `hysteresis:80:120:30`).
    ///   - input: what the rule decides on: the logged fixes (`.raw`, default) or a filter's estimates.
    ///   - maxAge_s: staleness limit in seconds, ≥ 0.
    ///   - settings: classifier windows and failing classes.
    /// - Throws: `FenceRuleError` when the rule or `maxAge_s` is invalid.
    package static func run(
        _ log: DeviceLog, center: Coordinate, rule: RuleSpec = .default, input: FenceInput = .raw,
        maxAge_s: Double = defaultMaxAge_s, settings: DivergenceSettings = DivergenceSettings()
    ) throws(FenceRuleError) -> DeviceReplayResult {
        let plain = try FenceMonitor(center: center, evaluator: rule.evaluator(), maxAge_s: maxAge_s, logging: .off)
        if input.kind == .raw {
            return replay(log, plain, rule: FenceSetup(rule: rule), maxAge_s: maxAge_s, settings: settings)
        }
        // `input` is validated (not raw), so the filtered monitor cannot refuse it.
        guard let filtered = try? FilteredFenceMonitor(monitor: plain, input: input) else {
            return replay(log, plain, rule: FenceSetup(rule: rule), maxAge_s: maxAge_s, settings: settings)
        }
        return replay(log, filtered, rule: FenceSetup(rule: rule, input: input), maxAge_s: maxAge_s, settings: settings)
    }

    static func replay<Decider: FenceDeciding>(
        _ log: DeviceLog, _ monitor: Decider, rule: FenceSetup, maxAge_s: Double,
        settings: DivergenceSettings
    ) -> DeviceReplayResult {
        let clock = ContinuousClock()
        let start = clock.now
        var monitor = monitor
        var decisions: [EngineDecision] = []
        decisions.reserveCapacity(log.fixes.count)
        var rejected: [String: Int] = [:]
        var frontier_s = -Double.infinity
        var innovations = InnovationSummary()
        for (i, logged) in log.fixes.enumerated() {
            let t = logged.fix.timestamp_s
            if t.isFinite { frontier_s = Swift.max(frontier_s, t) }
            let now = frontier_s.isFinite ? frontier_s : t
            var nu: Innovation?
            let d = monitor.process(logged.fix, now_s: now, innovation: &nu)
            if let nu { innovations.record(nu) }
            if let reason = d.rejection?.rawValue { rejected[reason, default: 0] += 1 }
            decisions.append(
                EngineDecision(
                    index: i, timestamp_s: t, oldState: d.oldState, newState: d.newState,
                    rejection: d.rejection, distance_m: d.distance_m, accuracy_m: d.accuracy_m))
        }
        var settings = settings
        if settings.band_m == nil { settings.band_m = rule.rule.flutterBand }
        let report = DivergenceClassifier.classify(decisions: decisions, events: log.events, settings: settings)
        // Without copying the times: a long log keeps only the fixes and one decision per fix.
        var origin = Double.nan
        func include(_ t: Double) { if t.isFinite { origin = origin.isNaN ? t : Swift.min(origin, t) } }
        for logged in log.fixes { include(logged.fix.timestamp_s) }
        for event in log.events { include(event.timestamp_s) }
        var result = DeviceReplayResult(
            file: log.file, rule: rule.description, rulesVersion: monitor.rulesVersion, maxAge_s: maxAge_s,
            fixCount: log.fixes.count, eventCount: log.events.count,
            accepted: decisions.reduce(0) { $0 + ($1.isAccepted ? 1 : 0) },
            rejections: rejected.sorted { $0.key < $1.key }.map { ReasonCount(reason: $0.key, count: $0.value) },
            decisions: decisions, divergences: report,
            fixLines: log.fixes.map(\.line), eventLines: log.events.map(\.line),
            origin_s: origin, notCovered: notCovered(log))
        result.ingest = log.ingest
        if rule.input.kind != .raw { result.innovation = innovations }
        let elapsed = (clock.now - start).components
        result.elapsed_s = Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
        return result
    }

    /// What a replay of this log does not verify. The device-log formats record fixes and
    /// enter/exit callbacks only, so app-lifecycle and permission behaviour is never shown.
    package static func notCovered(_ log: DeviceLog) -> [String] {
        var items = [
            "background wake-ups and app relaunch by region monitoring (the log records no app-lifecycle events)",
            "location-permission changes (Always/When-in-use/revoked; the log records none)",
            "real location error against the true position (a device log has no ground truth)",
        ]
        if !log.events.contains(where: { $0.kind == .enter }) {
            items.append("system enter callbacks (none in the log)")
        }
        if !log.events.contains(where: { $0.kind == .exit }) { items.append("system exit callbacks (none in the log)") }
        return items
    }
}
