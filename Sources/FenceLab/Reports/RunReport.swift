import GeoPolicy
import ReportKit
import _FenceLabSupport

/// Metadata of one run (`report.json` → `run`, contract).
package struct RunInfo: Sendable, Hashable {
    /// `ToolVersion.string`.
    package var toolVersion: String
    /// Commit hash of the working tree, nil when not in a git checkout.
    package var gitCommit: String?
    /// Swift language/compiler version that built the tool (compile-time `#if compiler`).
    package var swiftToolchain: String
    /// GSL version linked at run time (`GSLRuntime.version`).
    package var gslVersion: String
    /// Random generator algorithm, e.g. `mt19937`.
    package var generator: String
    /// Scenario seeds of the run, in scenario order.
    package var seeds: [UInt64]
    /// Distinct rules versions of the run, in first-seen order.
    package var rulesVersions: [String]
    /// UTC start time, ISO-8601 with seconds (`2026-11-29T17:00:00Z`). Differs between runs.
    package var time_utc: String
    /// Input files of the run with their SHA-256 (scenarios; fixtures and device logs for `accept`).
    package var inputFiles: [InputFile] = []

    package init(
        toolVersion: String, gitCommit: String?, swiftToolchain: String, gslVersion: String,
        generator: String, seeds: [UInt64], rulesVersions: [String], time_utc: String
    ) {
        self.toolVersion = toolVersion
        self.gitCommit = gitCommit
        self.swiftToolchain = swiftToolchain
        self.gslVersion = gslVersion
        self.generator = generator
        self.seeds = seeds
        self.rulesVersions = rulesVersions
        self.time_utc = time_utc
    }
}

/// One input file of a run and the SHA-256 of its bytes (hex).
package struct InputFile: Sendable, Hashable {
    /// `scenario`, `places` (a scenario's place file), `fixture` or `device-log`.
    package var kind: String
    package var path: String
    package var sha256: String
    package init(kind: String, path: String, sha256: String) {
        self.kind = kind
        self.path = path
        self.sha256 = sha256
    }
}

extension InputFile {
    /// A scenario file, followed by its place file when its place set was read from one (kind `places`).
    static func files(of scenario: PreparedScenario) -> [InputFile] {
        var out = [InputFile(kind: "scenario", path: scenario.path, sha256: scenario.sha256)]
        if let f = scenario.spec.places?.file { out.append(InputFile(kind: "places", path: f.path, sha256: f.sha256)) }
        return out
    }
}

/// Fence geometry and, only when asked, its centre (for the track plot).
package struct FencePlotGeometry: Sendable, Hashable {
    /// Enter radius, metres (> 0).
    package var enter_m: Double
    /// Exit radius, metres (≥ enter_m).
    package var exit_m: Double
    /// Centre latitude/longitude in degrees; shown only with `includeCoordinates`.
    package var centerLatitude: Double?
    package var centerLongitude: Double?

    package init(enter_m: Double, exit_m: Double, centerLatitude: Double? = nil, centerLongitude: Double? = nil) {
        self.enter_m = enter_m
        self.exit_m = exit_m
        self.centerLatitude = centerLatitude
        self.centerLongitude = centerLongitude
    }
}

/// A point in the fence's local east-north frame, metres from the centre.
package struct PlanePoint: Sendable, Hashable {
    package var east_m: Double
    package var north_m: Double
    package init(east_m: Double, north_m: Double) {
        self.east_m = east_m
        self.north_m = north_m
    }
}

/// An observed fix in the fence frame with the state the monitor held after it.
package struct TrackPoint: Sendable, Hashable {
    package var east_m: Double
    package var north_m: Double
    package var state: FenceState
    package init(east_m: Double, north_m: Double, state: FenceState) {
        self.east_m = east_m
        self.north_m = north_m
        self.state = state
    }
}

/// Horizontal error against truth over time for the compared tracks (equal lengths).
package struct ErrorSeries: Sendable, Hashable {
    package var time_s: [Double]
    package var raw_m: [Double]
    package var filtered_m: [Double]?
    package var smoothed_m: [Double]?
    package var seedBaseline_m: [Double]?
    package var imm_m: [Double]?

    package init(
        time_s: [Double], raw_m: [Double], filtered_m: [Double]? = nil,
        smoothed_m: [Double]? = nil, seedBaseline_m: [Double]? = nil, imm_m: [Double]? = nil
    ) {
        self.time_s = time_s
        self.raw_m = raw_m
        self.filtered_m = filtered_m
        self.smoothed_m = smoothed_m
        self.seedBaseline_m = seedBaseline_m
        self.imm_m = imm_m
    }
}

/// Plain arrays for the HTML plots of one replicate (not serialized into report.json).
package struct ScenarioPlots: Sendable, Hashable {
    package var fence: FencePlotGeometry
    /// Which replicate is drawn and why, e.g. "replicate 7 (most spurious transitions)".
    package var caption: String
    /// Observed fixes with the monitor's state (fence frame, metres).
    package var observedTrack: [TrackPoint]
    /// Noiseless truth (fence frame, metres).
    package var truthTrack: [PlanePoint]
    /// State after each truth sample (rule on the noiseless truth).
    package var truthStates: [StateSample]
    /// State after each observed fix.
    package var observedStates: [StateSample]
    /// Error over time; nil when no filter ran.
    package var errors: ErrorSeries?
    /// Smallest sphere distance of the noiseless route to the fence centre, metres (nil: no samples).
    package var closestApproach_m: Double?

    package init(
        fence: FencePlotGeometry, caption: String, observedTrack: [TrackPoint], truthTrack: [PlanePoint],
        truthStates: [StateSample], observedStates: [StateSample], errors: ErrorSeries?
    ) {
        self.fence = fence
        self.caption = caption
        self.observedTrack = observedTrack
        self.truthTrack = truthTrack
        self.truthStates = truthStates
        self.observedStates = observedStates
        self.errors = errors
    }
}

/// One scenario's aggregated results (`report.json` → `scenarios[]`).
package struct ScenarioReport: Sendable, Hashable {
    package var name: String
    package var rulesVersion: String
    package var seed: UInt64
    package var replicates: Int
    /// Every figure, mean + 95 % CI over replicates, by metric path.
    package var metrics: MetricAggregate
    package var expectations: [ExpectationResult]
    /// Plot inputs for index.html; nil draws no plots.
    package var plots: ScenarioPlots?
    /// Problems with the scenario itself that do not stop the run (e.g. a route that never
    /// comes near its fence), shown in every report and printed on stderr.
    package var warnings: [String] = []
    /// Measured wall time of the scenario's work items (all replicates, summed over threads), seconds.
    /// Differs between runs: only junit.xml shows it.
    package var compute_s: Double = 0
    /// The names of the scenario's places in set order (empty without a place set), for the
    /// `places.byPlace` entries.
    package var placeNames: [String] = []

    package init(
        name: String, rulesVersion: String, seed: UInt64, replicates: Int, metrics: MetricAggregate,
        expectations: [ExpectationResult], plots: ScenarioPlots? = nil
    ) {
        self.name = name
        self.rulesVersion = rulesVersion
        self.seed = seed
        self.replicates = replicates
        self.metrics = metrics
        self.expectations = expectations
        self.plots = plots
    }

    /// True when every expectation holds (vacuously true without expectations).
    package var passed: Bool { expectations.allSatisfy(\.passed) }

    /// A route that never comes within this many times the largest fence radius is reported as a
    /// likely input mistake (latitude and longitude swapped put a route thousands of km away).
    package static let farRouteFactor = 10.0

    /// The warning for a route whose closest approach exceeds `farRouteFactor` × `largestRadius_m`, or nil.
    package static func farRouteWarning(closestApproach_m: Double?, largestRadius_m: Double) -> String? {
        guard let d = closestApproach_m, d.isFinite, largestRadius_m > 0, d > farRouteFactor * largestRadius_m else {
            return nil
        }
        return "the route never comes within \(Int(farRouteFactor)) × the largest fence radius "
            + "(closest \(ReportText.distance(d)), radius \(ReportText.distance(largestRadius_m))): "
            + "are latitude and longitude swapped in fence.center or the route?"
    }
}

/// Pass/fail of a level.
package enum AcceptanceStatus: String, Sendable, Hashable {
    case passed, failed
    /// Device level only: no device log was replayed, so nothing is claimed.
    case notVerified = "not-verified"
}

/// One failed rules-level check, with the unrounded measured value.
package struct AcceptanceFailure: Sendable, Hashable {
    package var scenario: String
    package var result: ExpectationResult
    package init(scenario: String, result: ExpectationResult) {
        self.scenario = scenario
        self.result = result
    }
}

/// Rules level: offline, deterministic checks of scenario expectations and rules fixtures.
package struct RulesAcceptance: Sendable, Hashable {
    /// `passed`/`failed`; `notVerified` only in a report that ran no rules check (`fencelab replay`).
    package var status: AcceptanceStatus
    /// Number of checks evaluated: scenario expectations plus fixture assertions.
    package var checks: Int
    /// Failed scenario expectations, with the unrounded measured mean.
    package var failures: [AcceptanceFailure]
    /// Fixture assertions evaluated (part of `checks`) and the failed ones, unrounded.
    package var fixtureChecks: Int = 0
    package var fixtureFailures: [FixtureCheckResult] = []
    /// Every fixture assertion evaluated, passed or not, in run order, and its measured time in
    /// seconds (parallel; for junit.xml: one test case each).
    package var fixtureResults: [FixtureCheckResult] = []
    package var fixtureSeconds: [Double] = []
    /// The fixture files that ran, with their rules versions.
    package var fixtureFiles: [FixtureFileSummary] = []
    /// Shown instead of results when nothing ran at this level.
    package var note: String?

    /// Number of failed checks of both kinds.
    package var failureCount: Int { failures.count + fixtureFailures.count }
}

/// Device level: only set from replayed device logs; never inferred from the rules level.
package struct DeviceAcceptance: Sendable, Hashable {
    package var status: AcceptanceStatus
    /// Replayed device logs (file names only).
    package var logs: [String]
    /// Human explanation shown in the reports.
    package var note: String
    /// The replay of every log, in the order given.
    package var replays: [DeviceReplayResult]
    /// Logs of `accept --device-logs` reported as a fleet beside this report (0: none); they are
    /// not judged at this level, so a `notVerified` level names them instead of "no device log".
    package var fleetLogs = 0

    package init(status: AcceptanceStatus, logs: [String], note: String, replays: [DeviceReplayResult] = []) {
        self.status = status
        self.logs = logs
        self.note = note
        self.replays = replays
    }

    /// Nothing judged at this level while `fleetLogs` logs were reported as a fleet in `fleetReport`.
    package static func notVerified(fleetLogs: Int, fleetReport: String) -> DeviceAcceptance {
        var level = DeviceAcceptance(
            status: .notVerified, logs: [],
            note: "No log was given with --device-log, so this level claims nothing; the \(fleetLogs) logs of "
                + "--device-logs were replayed as a fleet and are reported per cohort in \(fleetReport).")
        level.fleetLogs = fleetLogs
        return level
    }

    /// Why a `notVerified` level verified nothing, for the status lines: "no device log", or the fleet's logs.
    package var notVerifiedReason: String {
        fleetLogs > 0 ? "no --device-log; \(fleetLogs) fleet logs in the fleet report" : "no device log"
    }

    /// The device level of replayed logs: `passed` when every log passed its stated criteria.
    /// Without one it is `notVerified`, naming the `fleet` of `accept --device-logs` when one was
    /// reported beside it (its log count and the fleet report's `index.html`).
    package init(replays: [DeviceReplayResult], fleet: (logs: Int, report: String)? = nil) {
        guard !replays.isEmpty else {
            self = fleet.map { .notVerified(fleetLogs: $0.logs, fleetReport: $0.report) } ?? .notVerified
            return
        }
        let failed = replays.filter { $0.status == .failed }.count
        self.init(
            status: failed == 0 ? .passed : .failed, logs: replays.map(\.file),
            note: "\(replays.count) device log(s) replayed through the engine and compared with the system's "
                + "enter/exit events; \(failed) failed. Only what the logs show is verified.",
            replays: replays)
    }

    /// The default: nothing was replayed.
    package static let notVerified = DeviceAcceptance(
        status: .notVerified, logs: [],
        note: "No device log was replayed: rules-level results say nothing about real-device callbacks.")
}

/// The two acceptance levels, kept apart (docs/report-format.md, `acceptance`).
package struct Acceptance: Sendable, Hashable {
    package var rules: RulesAcceptance
    package var device: DeviceAcceptance
}

/// Everything one run reports; the writers render it to the four files.
package struct RunReport: Sendable, Hashable {
    package var run: RunInfo
    package var scenarios: [ScenarioReport]
    package var acceptance: Acceptance
    /// When false (default), no raw coordinates appear in any file.
    package var includeCoordinates: Bool

    /// Builds the report; the rules level is derived from the scenarios' expectations.
    package init(
        run: RunInfo, scenarios: [ScenarioReport], device: DeviceAcceptance = .notVerified,
        includeCoordinates: Bool = false
    ) {
        self.run = run
        self.scenarios = scenarios
        self.includeCoordinates = includeCoordinates
        var failures: [AcceptanceFailure] = []
        var checks = 0
        for s in scenarios {
            checks += s.expectations.count
            for r in s.expectations where !r.passed { failures.append(AcceptanceFailure(scenario: s.name, result: r)) }
        }
        let rules = RulesAcceptance(status: failures.isEmpty ? .passed : .failed, checks: checks, failures: failures)
        self.acceptance = Acceptance(rules: rules, device: device)
    }

    /// True when the rules level passed (the exit code follows this; device level is separate).
    package var passed: Bool { acceptance.rules.status == .passed }

    /// The outcome a page headline states: `failed` when either level failed, `passed` when
    /// a level passed and none failed, `notVerified` when neither level checked anything.
    /// (`accept` exits 0 exactly when this is not `failed` and the rules level ran.)
    package var overallStatus: AcceptanceStatus {
        let levels = [acceptance.rules.status, acceptance.device.status]
        if levels.contains(.failed) { return .failed }
        return levels.contains(.passed) ? .passed : .notVerified
    }

    /// "rules level passed (163 checks) · device level failed (2 of 2 logs)": both levels, for headlines.
    package var levelsLine: String {
        let rules = acceptance.rules
        let device = acceptance.device
        let r: String
        switch rules.status {
        case .passed: r = "rules level passed (\(rules.checks) checks)"
        case .failed: r = "rules level FAILED (\(rules.failureCount) of \(rules.checks) checks)"
        case .notVerified: r = "rules level not verified (no rules check ran)"
        }
        let n = device.replays.count
        let failed = device.replays.filter { $0.status == .failed }.count
        let logs = "\(n) device log\(n == 1 ? "" : "s")"
        let d: String
        switch device.status {
        case .passed: d = "device level passed (\(logs))"
        case .failed: d = "device level FAILED (\(failed) of \(logs))"
        case .notVerified: d = "device level not verified (\(device.notVerifiedReason))"
        }
        return r + " · " + d
    }

    /// Adds a fixture suite's results to the rules level (checks, failures, rules versions).
    package mutating func addFixtures(_ fixtures: FixtureReport) {
        var rules = acceptance.rules
        rules.checks += fixtures.checks.count
        rules.fixtureChecks += fixtures.checks.count
        rules.fixtureFailures += fixtures.failures
        rules.fixtureResults += fixtures.checks
        rules.fixtureSeconds +=
            fixtures.checkSeconds.count == fixtures.checks.count
            ? fixtures.checkSeconds : Array(repeating: 0, count: fixtures.checks.count)
        rules.fixtureFiles += fixtures.files
        rules.status = rules.failureCount == 0 ? .passed : .failed
        acceptance.rules = rules
        for v in fixtures.rulesVersions where !run.rulesVersions.contains(v) { run.rulesVersions.append(v) }
    }

    /// A report with no rules-level check (`fencelab replay`): the rules level says `not-verified`.
    package static func deviceOnly(run: RunInfo, device: DeviceAcceptance) -> RunReport {
        var report = RunReport(run: run, scenarios: [], device: device)
        report.acceptance.rules.status = .notVerified
        report.acceptance.rules.note =
            "Not run: this report replays device logs only (run `fencelab accept` for the rules level)."
        return report
    }

    /// The report of `fencelab replay`: one device log replayed (`result`), its file and hash as
    /// the run's input, the rules level not run.
    package static func replay(_ result: DeviceReplayResult, logPath: String) -> RunReport {
        var report = deviceOnly(
            run: RunEnvironment.collect(generator: "none", seeds: [], rulesVersions: [result.rulesVersion]),
            device: DeviceAcceptance(replays: [result]))
        report.run.inputFiles = [
            InputFile(kind: "device-log", path: logPath, sha256: InputFileReader.sha256HexIfReadable(path: logPath))
        ]
        return report
    }
}

extension ScenarioReport {
    /// Aggregates replicates, checks the bounds and assembles the scenario's report.
    package static func make(
        name: String, rulesVersion: String, seed: UInt64, replicates: [ReplicateMetrics],
        bounds: [ExpectationBound], plots: ScenarioPlots? = nil,
        catalog: MetricCatalog = .standard
    ) throws(MetricsError) -> ScenarioReport {
        try make(
            name: name, rulesVersion: rulesVersion, seed: seed, aggregate: try MetricAggregate.aggregate(replicates),
            bounds: bounds, plots: plots, catalog: catalog)
    }

    /// The report of a scenario whose replicates were already aggregated (`MetricAccumulator`).
    package static func make(
        name: String, rulesVersion: String, seed: UInt64, aggregate: MetricAggregate,
        bounds: [ExpectationBound], plots: ScenarioPlots? = nil,
        catalog: MetricCatalog = .standard
    ) throws(MetricsError) -> ScenarioReport {
        let results = try Expectations.check(bounds, against: aggregate, catalog: catalog)
        return ScenarioReport(
            name: name, rulesVersion: rulesVersion, seed: seed, replicates: aggregate.replicates,
            metrics: aggregate, expectations: results, plots: plots)
    }

    /// Index of the replicate with the largest value at `path` (first on ties), e.g. the one
    /// whose plots to draw ("flutter.spurious"); nil when no replicate has the figure.
    package static func worstReplicate(_ replicates: [ReplicateMetrics], by path: String) -> Int? {
        var best: (Int, Double)?
        for (i, r) in replicates.enumerated() {
            guard let v = r.flattened()[path] else { continue }
            if best == nil || v > best!.1 { best = (i, v) }
        }
        return best?.0
    }
}
