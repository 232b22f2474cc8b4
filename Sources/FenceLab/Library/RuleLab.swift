import DriveSim
import Foundation
import GeoPolicy
import _FenceLabSupport

/// How `RuleLab.run` treats a scenario recorded for another rules version.
///
/// A scenario file carries the `rulesVersion` its expected results were recorded for;
/// `fencelab run` refuses a mismatch so that nobody silently reuses expectations recorded
/// for other rules. The library keeps that check and offers one explicit way around it.
public enum RulesVersionPolicy: Sendable, Hashable {
    /// The scenario's `rulesVersion` must equal the rule's (rule + confirmation, e.g.
    /// `team-dwell-70-130-acc25+confirm20s`); the scenario's `expect` bounds are checked.
    /// Use this with a scenario file the team owns and records for its rule.
    case mustMatch
    /// Run a scenario recorded for another rule (e.g. FenceLab's catalogue) with the rule
    /// under test. The caller names the version the scenario is recorded for, so a change of
    /// the scenario file still stops the test for review. The scenario's `expect` bounds
    /// (recorded for that other rule) are not checked; the caller asserts on the result.
    case override(scenarioRecordedFor: String)
}

/// Runs a team's own fence rule through FenceLab's scenarios and measures it: the library
/// face of `fencelab run`.
///
/// The same pipeline as the command line (`ScenarioRunner` → `ReplicateEvaluation`):
/// per replicate, the scenario's noisy drive is generated from a seeded GSL generator,
/// the delivered fixes go through `FenceMonitor` with the rule under test (the noiseless
/// truth through the same rule gives the true transitions), the Kalman filter, smoother
/// and gap fills run, and everything is scored; figures are aggregated over replicates
/// (mean and 95 % Student-t interval). Same scenario, seed and rule give the same figures
/// for any `jobs` (only throughput differs).
///
/// ```swift
/// let lab = RuleLab()
/// let scenario = try RuleLab.loadScenario(path: "scenarios/edge-loiter-100m.json")
/// let result = try lab.run(scenario: scenario, rule: Hysteresis.seedDefault, replicates: 20, seed: 7)
/// print(try result.mean("flutter.spurious"), result.spuriousPerHour.mean)
/// ```
public struct RuleLab: Sendable {
    /// The flutter matching window `fencelab run` uses, seconds (docs/metrics.md).
    public static let defaultWindow_s: Double = Flutter.defaultWindow_s

    /// Flutter matching window in seconds (finite, > 0; default 60, docs/metrics.md).
    public var window_s: Double
    /// Fixes older than this many seconds relative to the injected `now` are `stale` (≥ 0).
    public var maxFixAge_s: Double
    /// Keep raw coordinates in the plot data of written reports (default off: privacy).
    public var includeCoordinates: Bool

    /// - Parameters:
    ///   - window_s: flutter matching window in seconds, finite and > 0 (default 60).
    ///   - maxFixAge_s: staleness limit in seconds, ≥ 0 (default 30, as `fencelab run`).
    ///   - includeCoordinates: raw coordinates in written reports (default false).
    public init(window_s: Double = RuleLab.defaultWindow_s, maxFixAge_s: Double = 30, includeCoordinates: Bool = false)
    {
        self.window_s = window_s
        self.maxFixAge_s = maxFixAge_s
        self.includeCoordinates = includeCoordinates
    }

    /// Loads and strictly decodes one scenario file (unknown keys, missing keys, wrong types
    /// and out-of-range values are refused with the key path).
    /// - Parameter path: a scenario JSON file (not a folder).
    /// - Throws: `LabError.scenario` naming the file and key.
    public static func loadScenario(path: String) throws(LabError) -> LabScenario {
        do {
            let loaded = try ScenarioSpec.loadFile(path: path)
            return LabScenario(spec: loaded.spec, path: loaded.path, sha256: loaded.sha256)
        } catch {
            throw .scenario(file: path, reason: error.description)
        }
    }

    /// Decodes a scenario from JSON text, for scenarios built in code (same strict rules as a file).
    /// - Parameters:
    ///   - json: one scenario object (docs/scenario-format.md).
    ///   - name: what error messages and reports call the text, e.g. `"inline:dwell-test"`.
    /// - Throws: `LabError.scenario` naming `name` and the key.
    public static func scenario(json: String, name: String = "inline") throws(LabError) -> LabScenario {
        let bytes = Array(json.utf8)
        do {
            let spec = try ScenarioSpec.decode(bytes, file: name)
            return LabScenario(spec: spec, path: name, sha256: SHA256.hex(bytes))
        } catch {
            throw .scenario(file: name, reason: error.description)
        }
    }

    /// Runs `scenario` with `rule` (plus an optional confirmation, e.g. a minimum dwell time)
    /// and returns the aggregated metrics.
    ///
    /// The rule decides both the noisy fixes and the noiseless truth; the scenario's own
    /// `fence.rule` only supplies the plot circles when `rule` is not a `PlottableFenceRule`.
    /// - Parameters:
    ///   - scenario: from `loadScenario(path:)` or `scenario(json:name:)`.
    ///   - rule: any `FenceRule` (a team's type, a built-in rule or a `ClosureRule`).
    ///   - confirmation: optional `.fixes(N)` (N ≥ 1) or `.seconds(T)` (T ≥ 0) a new state must
    ///     persist before it is taken (`FenceEvaluator`); part of the rules version.
    ///   - replicates: overrides the scenario's count, 1…100 000.
    ///   - seed: overrides the scenario's seed, 0…2⁵³ (replicate i derives its own seed).
    ///   - jobs: worker threads, ≥ 1 (default: all cores); results do not depend on it.
    ///   - input: what the rule decides on: `.raw` fixes (default) or a filter's causal estimate,
    ///     e.g. `try FenceInput(.kalman)`; part of the rules version (`+kalman-q1`).
    ///   - sampling: which of the measured fixes the app is given (`SamplingPolicy`), instead of
    ///     the scenario's `sampling.policy`; part of the rules version (`+interval60`). The truth
    ///     stays the noiseless track at the scenario's rate; `rampup`'s fence edge comes from the
    ///     scenario (its place radius, else its own enter radius), never from `rule`.
    ///   - notification: what the app tells the user (`NotificationPolicy`: dwell, cooldown),
    ///     instead of the scenario's `notification.policy`; part of the rules version
    ///     (`+dwell300`); scored as `notify.*` when the scenario has a place.
    ///   - rulesVersion: `.mustMatch` (default) or `.override(scenarioRecordedFor:)`.
    /// - Throws: `LabError` for a bad argument, an invalid rule, a rules-version mismatch or a
    ///   failed run (naming scenario and replicate).
    public func run<Rule: FenceRule>(
        scenario: LabScenario, rule: Rule, confirmation: Confirmation? = nil,
        input: FenceInput = .raw, sampling: SamplingPolicy? = nil, notification: NotificationPolicy? = nil,
        replicates: Int? = nil, seed: UInt64? = nil, jobs: Int? = nil,
        rulesVersion policy: RulesVersionPolicy = .mustMatch
    ) throws(LabError) -> LabResult {
        let request = try makeRequest(replicates: replicates, seed: seed, jobs: jobs)
        let evaluator: FenceEvaluator<Rule>
        do { evaluator = try FenceEvaluator(rule: rule, confirmation: confirmation) } catch {
            throw .invalidRule(rulesVersion: rule.rulesVersion, reason: error.description)
        }
        guard !evaluator.rulesVersion.isEmpty else {
            throw .invalidRule(rulesVersion: "\"\"", reason: "rulesVersion must not be empty")
        }
        var spec = scenario.spec
        if let r = request.replicates { spec.replicates = r }
        if let s = request.seed { spec.seed = s }
        if let sampling {
            if let period = sampling.shortestPeriod_s, period * spec.sampling.rate_hz < 1 - 1e-9 {
                throw .invalidArgument(
                    name: "sampling", value: sampling.description,
                    reason: "a period below the scenario's base sampling interval (\(spec.sampling.interval_s) s)")
            }
            spec.sampling.policy = sampling
        }
        if let notification { spec.notification = notification }
        let version =
            evaluator.rulesVersion + input.versionSuffix + spec.sampling.policy.versionSuffix
            + spec.notification.versionSuffix

        let bounds: [ExpectationBound]
        switch policy {
        case .mustMatch:
            guard version == spec.rulesVersion else {
                throw .rulesVersionMismatch(file: scenario.path, scenario: spec.rulesVersion, rule: version)
            }
            do { bounds = try ScenarioRunner.expectationBounds(of: spec, file: scenario.path) } catch {
                throw .scenario(file: scenario.path, reason: error.description)
            }
        case .override(let named):
            guard named == spec.rulesVersion else {
                throw .overrideMismatch(file: scenario.path, scenario: spec.rulesVersion, named: named)
            }
            bounds = []
        }
        let prepared = PreparedScenario(
            spec: spec, path: scenario.path, sha256: scenario.sha256,
            rule: spec.fence.rule.ruleSpec, input: input, rulesVersion: version, bounds: bounds)
        let underTest = RuleUnderTest(evaluator: evaluator, label: version, engineSpec: nil, input: input)
        do {
            let (report, replicates) = try ScenarioRunner.run(
                [prepared], rules: [underTest], request: request, keepReplicates: true)
            return try LabResult(report: report, replicates: replicates[0], duration_s: spec.sampling.duration_s)
        } catch let error as LabError {
            throw error
        } catch {
            throw .run(reason: "\(error)")
        }
    }

    /// Validates the overrides and builds the request `ScenarioRunner` takes.
    func makeRequest(replicates: Int?, seed: UInt64?, jobs: Int?) throws(LabError) -> RunRequest {
        var request = RunRequest()
        if let r = replicates {
            guard (1...100_000).contains(r) else {
                throw .invalidArgument(name: "replicates", value: "\(r)", reason: "must be within 1...100000")
            }
            request.replicates = r
        }
        if let s = seed {
            guard s <= 9_007_199_254_740_992 else {
                throw .invalidArgument(name: "seed", value: "\(s)", reason: "must be within 0...2^53")
            }
            request.seed = s
        }
        if let j = jobs {
            guard j >= 1 else { throw .invalidArgument(name: "jobs", value: "\(j)", reason: "must be >= 1") }
            request.jobs = j
        }
        guard window_s.isFinite, window_s > 0 else {
            throw .invalidArgument(name: "window_s", value: "\(window_s)", reason: "must be finite and > 0")
        }
        guard !maxFixAge_s.isNaN, maxFixAge_s >= 0 else {
            throw .invalidArgument(name: "maxFixAge_s", value: "\(maxFixAge_s)", reason: "must be >= 0")
        }
        request.settings.window_s = window_s
        request.settings.maxFixAge_s = maxFixAge_s
        request.settings.includeCoordinates = includeCoordinates
        return request
    }
}
