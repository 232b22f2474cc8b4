import DriveSim
import Foundation
import GeoPolicy
import _FenceLabSupport

/// What `fencelab run` is asked to do.
package struct RunRequest: Sendable {
    /// Scenario files or folders (default `scenarios/`).
    package var paths: [String] = ["scenarios"]
    /// Override every scenario's replicate count (≥ 1).
    package var replicates: Int?
    /// Override every scenario's seed (≥ 1).
    package var seed: UInt64?
    /// Worker threads; results are identical for any value.
    package var jobs: Int = WorkPool.availableCores
    package var settings = EvaluationSettings()
    /// Print progress on stderr even when it is not a terminal.
    package var forceProgress = false
    /// Replaces every scenario's notification policy (`--notify`); the report records the
    /// rules version with this policy's suffix.
    package var notification: NotificationPolicy?

    package init() {}
}

/// A scenario ready to run: its spec (overrides applied), rule, bounds and file hash.
package struct PreparedScenario: Sendable {
    package var spec: ScenarioSpec
    package var path: String
    package var sha256: String
    package var rule: RuleSpec
    /// What the rule decides on (`fence.rule.input`, `q_m2s3`).
    package var input: FenceInput = .raw
    package var rulesVersion: String
    package var bounds: [ExpectationBound]
}

/// Runs scenarios through the engine and aggregates the metrics into a `RunReport`.
package enum ScenarioRunner {
    /// What `fencelab run` does: preflights `out`, prepares every scenario (bad input fails before
    /// any work), runs them and writes the report folder atomically.
    package static func runAndWrite(_ request: RunRequest, out: String) throws -> RunReport {
        try ReportWriter.preflight(destination: out)
        let scenarios = try prepare(request)
        guard !scenarios.isEmpty else { throw RunError.noScenarios(paths: request.paths) }
        let report = try run(scenarios, request: request)
        try ReportWriter.write(report, to: out)
        return report
    }

    /// Loads and checks every scenario before any work: strict files, rules version, bounds.
    package static func prepare(_ request: RunRequest) throws -> [PreparedScenario] {
        let loaded = try ScenarioSpec.loadAll(paths: request.paths)
        let catalog = MetricCatalog.standard
        return try loaded.map { item in
            var spec = item.spec
            if let r = request.replicates { spec.replicates = r }
            if let s = request.seed { spec.seed = s }
            let rule = spec.fence.rule.ruleSpec
            let input = spec.fence.rule.fenceInput
            let base: String
            do {
                base = try FenceSetup(rule: rule, input: input).rulesVersion() + spec.sampling.policy.versionSuffix
            } catch {
                throw RunError.invalidRule(file: item.path, reason: "\(error)")
            }
            // The monitoring strategy of a place set closes the pipeline's suffixes (`+nearest20-refresh500`).
            let monitoring = spec.places?.monitoring.versionSuffix ?? ""
            var version = base + spec.notification.versionSuffix + monitoring
            guard version == spec.rulesVersion else {
                throw RunError.rulesVersionMismatch(file: item.path, scenario: spec.rulesVersion, rule: version)
            }
            if let policy = request.notification {
                spec.notification = policy
                version = base + policy.versionSuffix + monitoring
            }
            let bounds = try expectationBounds(of: spec, file: item.path, catalog: catalog)
            return PreparedScenario(
                spec: spec, path: item.path, sha256: item.sha256, rule: rule, input: input,
                rulesVersion: version, bounds: bounds)
        }
    }

    /// Runs every scenario × replicate on `request.jobs` threads; the report is identical for any
    /// job count (work items are independent, seeded per replicate, and collected in order).
    package static func run(_ scenarios: [PreparedScenario], request: RunRequest) throws -> RunReport {
        let rules = try scenarios.map { p in
            do { return try RuleUnderTest(spec: p.rule, input: p.input) } catch {
                throw RunError.invalidRule(file: p.path, reason: "\(error)")
            }
        }
        return try run(scenarios, rules: rules, request: request).report
    }

    /// The run with any rule type: scenario `i` is decided by `rules[i]` (which supersedes
    /// `scenarios[i].rule`; `scenarios[i].rulesVersion` is what the report records).
    /// Replicates are aggregated as they finish, in replicate order (`MetricAccumulator`), so
    /// memory does not grow with the replicate count; with `keepReplicates` the metrics of each
    /// replicate are also returned per scenario in replicate order (else the arrays are empty).
    static func run<Rule: FenceRule>(
        _ scenarios: [PreparedScenario], rules: [RuleUnderTest<Rule>],
        request: RunRequest, keepReplicates: Bool = false
    )
        throws -> (report: RunReport, replicates: [[ReplicateMetrics]])
    {
        precondition(rules.count == scenarios.count, "one rule per scenario")
        // Work item i is replicate i - firstItem[s] of the scenario s whose items contain it.
        let firstItem = scenarios.reduce(into: [0]) { $0.append($0.last! + $1.spec.replicates) }
        let itemCount = firstItem.last!
        let item: @Sendable (Int) -> (scenario: Int, replicate: Int) = { i in
            var s = 0
            while firstItem[s + 1] <= i { s += 1 }
            return (s, i - firstItem[s])
        }
        let progress = ProgressReporter(
            scenarios: scenarios.count, totalWorkItems: itemCount, force: request.forceProgress)
        let settings = request.settings
        // Plots (~200 kB a replicate) are kept only for each scenario's current worst replicate
        // as results finish; the rest of a replicate is folded into its scenario's accumulator.
        let plotKeeper = WorstReplicatePlots(scenarios: scenarios.count, by: "flutter.spurious")
        var accumulators = scenarios.map { _ in MetricAccumulator(worstBy: "flutter.spurious") }
        var compute_s = [Double](repeating: 0, count: scenarios.count)
        var kept = [[ReplicateMetrics]](repeating: [], count: scenarios.count)
        try WorkPool.forEachInOrder(
            count: itemCount, jobs: request.jobs,
            onDone: { i in
                let (s, r) = item(i)
                progress.completed(scenario: s + 1, replicate: r + 1, of: scenarios[s].spec.replicates)
            },
            { i in
                let (s, r) = item(i)
                let clock = ContinuousClock()
                let start = clock.now
                let result = try ReplicateEvaluation.run(
                    spec: scenarios[s].spec, replicate: r, rule: rules[s], settings: settings)
                plotKeeper.offer(scenario: s, replicate: r, metrics: result.metrics, plots: result.plots)
                return (metrics: result.metrics, seconds: ReplicateEvaluation.seconds(clock.now - start))
            },
            consume: { (i: Int, finished: (metrics: ReplicateMetrics, seconds: Double)) in
                let s = item(i).scenario
                do { try accumulators[s].add(finished.metrics) } catch let error as MetricsError {
                    throw RunError.metrics(scenario: scenarios[s].spec.name, error)
                }
                compute_s[s] += finished.seconds
                if keepReplicates { kept[s].append(finished.metrics) }
            })
        progress.finish()
        var reports: [ScenarioReport] = []
        for (s, p) in scenarios.enumerated() {
            let worst = accumulators[s].worst?.replicate ?? 0
            guard var plots = plotKeeper.plots(scenario: s, replicate: worst) else {
                preconditionFailure("the keeper holds the plots of the worst replicate \(worst)")
            }
            plots.caption += ", replicate \(worst) of \(p.spec.replicates) (most spurious transitions)"
            var report = try scenarioReport(p, aggregate: accumulators[s], plots: plots)
            report.compute_s = compute_s[s]
            report.placeNames = p.spec.places?.places.map(\.name) ?? []
            if let w = ScenarioReport.farRouteWarning(
                closestApproach_m: plots.closestApproach_m,
                largestRadius_m: max(plots.fence.enter_m, plots.fence.exit_m))
            {
                report.warnings.append(w)
            }
            reports.append(report)
        }
        var info = RunEnvironment.collect(
            generator: scenarios.first?.spec.generator.rawValue ?? "mt19937",
            seeds: scenarios.map(\.spec.seed), rulesVersions: scenarios.map(\.rulesVersion))
        info.inputFiles = scenarios.flatMap(InputFile.files(of:))
        return (RunReport(run: info, scenarios: reports, includeCoordinates: request.settings.includeCoordinates), kept)
    }

    /// The scenario's `expect` block as checked bounds; an unknown metric path or a malformed
    /// bound is an error naming the file.
    static func expectationBounds(
        of spec: ScenarioSpec, file: String,
        catalog: MetricCatalog = .standard
    ) throws(MetricsErrorInFile) -> [ExpectationBound] {
        var bounds: [ExpectationBound] = []
        for e in spec.expect {
            guard catalog.contains(e.metric) else {
                throw MetricsErrorInFile(file: file, error: .unknownMetricPath(e.metric))
            }
            do { bounds.append(try ExpectationBound(path: e.metric, min: e.min, max: e.max)) } catch {
                throw MetricsErrorInFile(file: file, error: error)
            }
        }
        return bounds
    }
}

extension ScenarioRunner {
    static func scenarioReport(
        _ p: PreparedScenario, aggregate: MetricAccumulator,
        plots: ScenarioPlots
    ) throws(RunError) -> ScenarioReport {
        do {
            return try ScenarioReport.make(
                name: p.spec.name, rulesVersion: p.rulesVersion, seed: p.spec.seed,
                aggregate: try aggregate.aggregate(), bounds: p.bounds, plots: plots)
        } catch { throw .metrics(scenario: p.spec.name, error) }
    }
}

/// A metrics error found while reading a scenario file, with the file's name.
package struct MetricsErrorInFile: Error, Sendable, CustomStringConvertible {
    package var file: String
    package var error: MetricsError
    package var description: String { "\(file): expect: \(error)" }
}

/// The plots of each scenario's worst replicate by one metric, chosen as replicates finish in
/// any order, with `ScenarioReport.worstReplicate`'s rule (largest value, lowest index on ties;
/// replicate 0 when no replicate has the figure). Thread-safe.
final class WorstReplicatePlots: @unchecked Sendable {
    private let lock = NSLock()
    private let path: String
    /// Per scenario: the candidate (replicate, value, plots) and replicate 0's plots as fallback.
    private var best: [(replicate: Int, value: Double, plots: ScenarioPlots)?]
    private var first: [ScenarioPlots?]

    init(scenarios: Int, by path: String) {
        self.path = path
        best = Array(repeating: nil, count: scenarios)
        first = Array(repeating: nil, count: scenarios)
    }

    func offer(scenario s: Int, replicate r: Int, metrics: ReplicateMetrics, plots: ScenarioPlots) {
        let value = metrics.flattened()[path]
        lock.lock()
        defer { lock.unlock() }
        if r == 0 { first[s] = plots }
        guard let value else { return }
        if let b = best[s], b.value > value || (b.value == value && b.replicate < r) { return }
        best[s] = (r, value, plots)
    }

    /// The plots kept for `replicate` (the worst one, or 0 when none had the figure).
    func plots(scenario s: Int, replicate r: Int) -> ScenarioPlots? {
        lock.lock()
        defer { lock.unlock() }
        if let b = best[s], b.replicate == r { return b.plots }
        return r == 0 ? first[s] : nil
    }
}
