import GeoPolicy

/// Metadata of one run (`report.json` → `run`, contract).
public struct RunInfo: Sendable, Hashable {
    /// `ToolVersion.string`.
    public var toolVersion: String
    /// Commit hash of the working tree, nil when not in a git checkout.
    public var gitCommit: String?
    /// Swift language/compiler version that built the tool (compile-time `#if compiler`).
    public var swiftToolchain: String
    /// GSL version linked at run time (`GSLRuntime.version`).
    public var gslVersion: String
    /// Random generator algorithm, e.g. `mt19937`.
    public var generator: String
    /// Scenario seeds of the run, in scenario order.
    public var seeds: [UInt64]
    /// Distinct rules versions of the run, in first-seen order.
    public var rulesVersions: [String]
    /// UTC start time, ISO-8601 with seconds (`2026-11-29T17:00:00Z`). Differs between runs.
    public var time_utc: String
    /// Input files of the run with their SHA-256 (scenarios; fixtures and device logs for `accept`).
    public var inputFiles: [InputFile] = []

    public init(toolVersion: String, gitCommit: String?, swiftToolchain: String, gslVersion: String,
                generator: String, seeds: [UInt64], rulesVersions: [String], time_utc: String) {
        self.toolVersion = toolVersion; self.gitCommit = gitCommit; self.swiftToolchain = swiftToolchain
        self.gslVersion = gslVersion; self.generator = generator; self.seeds = seeds
        self.rulesVersions = rulesVersions; self.time_utc = time_utc
    }
}

/// One input file of a run and the SHA-256 of its bytes (hex).
public struct InputFile: Sendable, Hashable {
    /// `scenario`, `fixture` or `device-log`.
    public var kind: String
    public var path: String
    public var sha256: String
    public init(kind: String, path: String, sha256: String) { self.kind = kind; self.path = path; self.sha256 = sha256 }
}

/// Fence geometry and, only when asked, its centre (for the track plot).
public struct FencePlotGeometry: Sendable, Hashable {
    /// Enter radius, metres (> 0).
    public var enter_m: Double
    /// Exit radius, metres (≥ enter_m).
    public var exit_m: Double
    /// Centre latitude/longitude in degrees; shown only with `includeCoordinates`.
    public var centerLatitude: Double?
    public var centerLongitude: Double?

    public init(enter_m: Double, exit_m: Double, centerLatitude: Double? = nil, centerLongitude: Double? = nil) {
        self.enter_m = enter_m; self.exit_m = exit_m
        self.centerLatitude = centerLatitude; self.centerLongitude = centerLongitude
    }
}

/// A point in the fence's local east-north frame, metres from the centre.
public struct PlanePoint: Sendable, Hashable {
    public var east_m: Double
    public var north_m: Double
    public init(east_m: Double, north_m: Double) { self.east_m = east_m; self.north_m = north_m }
}

/// An observed fix in the fence frame with the state the monitor held after it.
public struct TrackPoint: Sendable, Hashable {
    public var east_m: Double
    public var north_m: Double
    public var state: FenceState
    public init(east_m: Double, north_m: Double, state: FenceState) {
        self.east_m = east_m; self.north_m = north_m; self.state = state
    }
}

/// Horizontal error against truth over time for the compared tracks (equal lengths).
public struct ErrorSeries: Sendable, Hashable {
    public var time_s: [Double]
    public var raw_m: [Double]
    public var filtered_m: [Double]?
    public var smoothed_m: [Double]?
    public var seedBaseline_m: [Double]?
    public var imm_m: [Double]?

    public init(time_s: [Double], raw_m: [Double], filtered_m: [Double]? = nil,
                smoothed_m: [Double]? = nil, seedBaseline_m: [Double]? = nil, imm_m: [Double]? = nil) {
        self.time_s = time_s; self.raw_m = raw_m; self.filtered_m = filtered_m
        self.smoothed_m = smoothed_m; self.seedBaseline_m = seedBaseline_m; self.imm_m = imm_m
    }
}

/// Plain arrays for the HTML plots of one replicate (not serialized into report.json).
public struct ScenarioPlots: Sendable, Hashable {
    public var fence: FencePlotGeometry
    /// Which replicate is drawn and why, e.g. "replicate 7 (most spurious transitions)".
    public var caption: String
    /// Observed fixes with the monitor's state (fence frame, metres).
    public var observedTrack: [TrackPoint]
    /// Noiseless truth (fence frame, metres).
    public var truthTrack: [PlanePoint]
    /// State after each truth sample (rule on the noiseless truth).
    public var truthStates: [StateSample]
    /// State after each observed fix.
    public var observedStates: [StateSample]
    /// Error over time; nil when no filter ran.
    public var errors: ErrorSeries?
    /// Smallest sphere distance of the noiseless route to the fence centre, metres (nil: no samples).
    public var closestApproach_m: Double?

    public init(fence: FencePlotGeometry, caption: String, observedTrack: [TrackPoint], truthTrack: [PlanePoint],
                truthStates: [StateSample], observedStates: [StateSample], errors: ErrorSeries?) {
        self.fence = fence; self.caption = caption; self.observedTrack = observedTrack; self.truthTrack = truthTrack
        self.truthStates = truthStates; self.observedStates = observedStates; self.errors = errors
    }
}

/// One scenario's aggregated results (`report.json` → `scenarios[]`).
public struct ScenarioReport: Sendable, Hashable {
    public var name: String
    public var rulesVersion: String
    public var seed: UInt64
    public var replicates: Int
    /// Every figure, mean + 95 % CI over replicates, by metric path.
    public var metrics: MetricAggregate
    public var expectations: [ExpectationResult]
    /// Plot inputs for index.html; nil draws no plots.
    public var plots: ScenarioPlots?
    /// Problems with the scenario itself that do not stop the run (e.g. a route that never
    /// comes near its fence), shown in every report and printed on stderr.
    public var warnings: [String] = []
    /// Measured wall time of the scenario's work items (all replicates, summed over threads), seconds.
    /// Differs between runs: only junit.xml shows it.
    public var compute_s: Double = 0

    public init(name: String, rulesVersion: String, seed: UInt64, replicates: Int, metrics: MetricAggregate,
                expectations: [ExpectationResult], plots: ScenarioPlots? = nil) {
        self.name = name; self.rulesVersion = rulesVersion; self.seed = seed; self.replicates = replicates
        self.metrics = metrics; self.expectations = expectations; self.plots = plots
    }

    /// True when every expectation holds (vacuously true without expectations).
    public var passed: Bool { expectations.allSatisfy(\.passed) }

    /// A route that never comes within this many times the largest fence radius is reported as a
    /// likely input mistake (latitude and longitude swapped put a route thousands of km away).
    public static let farRouteFactor = 10.0

    /// The warning for a route whose closest approach exceeds `farRouteFactor` × `largestRadius_m`, or nil.
    public static func farRouteWarning(closestApproach_m: Double?, largestRadius_m: Double) -> String? {
        guard let d = closestApproach_m, d.isFinite, largestRadius_m > 0, d > farRouteFactor * largestRadius_m else { return nil }
        return "the route never comes within \(Int(farRouteFactor)) × the largest fence radius "
            + "(closest \(ReportText.distance(d)), radius \(ReportText.distance(largestRadius_m))): "
            + "are latitude and longitude swapped in fence.center or the route?"
    }
}

/// Pass/fail of a level.
public enum AcceptanceStatus: String, Sendable, Hashable {
    case passed, failed
    /// Device level only: no device log was replayed, so nothing is claimed.
    case notVerified = "not-verified"
}

/// One failed rules-level check, with the unrounded measured value.
public struct AcceptanceFailure: Sendable, Hashable {
    public var scenario: String
    public var result: ExpectationResult
    public init(scenario: String, result: ExpectationResult) { self.scenario = scenario; self.result = result }
}

/// Rules level: offline, deterministic checks of scenario expectations and rules fixtures.
public struct RulesAcceptance: Sendable, Hashable {
    /// `passed`/`failed`; `notVerified` only in a report that ran no rules check (`fencelab replay`).
    public var status: AcceptanceStatus
    /// Number of checks evaluated: scenario expectations plus fixture assertions.
    public var checks: Int
    /// Failed scenario expectations, with the unrounded measured mean.
    public var failures: [AcceptanceFailure]
    /// Fixture assertions evaluated (part of `checks`) and the failed ones, unrounded.
    public var fixtureChecks: Int = 0
    public var fixtureFailures: [FixtureCheckResult] = []
    /// Every fixture assertion evaluated, passed or not, in run order, and its measured time in
    /// seconds (parallel; for junit.xml: one test case each).
    public var fixtureResults: [FixtureCheckResult] = []
    public var fixtureSeconds: [Double] = []
    /// The fixture files that ran, with their rules versions.
    public var fixtureFiles: [FixtureFileSummary] = []
    /// Shown instead of results when nothing ran at this level.
    public var note: String?

    /// Number of failed checks of both kinds.
    public var failureCount: Int { failures.count + fixtureFailures.count }
}

/// Device level: only set from replayed device logs; never inferred from the rules level.
public struct DeviceAcceptance: Sendable, Hashable {
    public var status: AcceptanceStatus
    /// Replayed device logs (file names only).
    public var logs: [String]
    /// Human explanation shown in the reports.
    public var note: String
    /// The replay of every log, in the order given.
    public var replays: [DeviceReplayResult]

    public init(status: AcceptanceStatus, logs: [String], note: String, replays: [DeviceReplayResult] = []) {
        self.status = status; self.logs = logs; self.note = note; self.replays = replays
    }

    /// The device level of replayed logs: `passed` when every log passed its stated criteria.
    public init(replays: [DeviceReplayResult]) {
        guard !replays.isEmpty else { self = .notVerified; return }
        let failed = replays.filter { $0.status == .failed }.count
        self.init(status: failed == 0 ? .passed : .failed, logs: replays.map(\.file),
                  note: "\(replays.count) device log(s) replayed through the engine and compared with the system's "
                      + "enter/exit events; \(failed) failed. Only what the logs show is verified.",
                  replays: replays)
    }

    /// The default: nothing was replayed.
    public static let notVerified = DeviceAcceptance(
        status: .notVerified, logs: [],
        note: "No device log was replayed: rules-level results say nothing about real-device callbacks.")
}

/// The two acceptance levels, kept apart (docs/report-format.md, `acceptance`).
public struct Acceptance: Sendable, Hashable {
    public var rules: RulesAcceptance
    public var device: DeviceAcceptance
}

/// Everything one run reports; the writers render it to the four files.
public struct RunReport: Sendable, Hashable {
    public var run: RunInfo
    public var scenarios: [ScenarioReport]
    public var acceptance: Acceptance
    /// When false (default), no raw coordinates appear in any file.
    public var includeCoordinates: Bool

    /// Builds the report; the rules level is derived from the scenarios' expectations.
    public init(run: RunInfo, scenarios: [ScenarioReport], device: DeviceAcceptance = .notVerified,
                includeCoordinates: Bool = false) {
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
    public var passed: Bool { acceptance.rules.status == .passed }

    /// The outcome a page headline states: `failed` when either level failed, `passed` when
    /// a level passed and none failed, `notVerified` when neither level checked anything.
    /// (`accept` exits 0 exactly when this is not `failed` and the rules level ran.)
    public var overallStatus: AcceptanceStatus {
        let levels = [acceptance.rules.status, acceptance.device.status]
        if levels.contains(.failed) { return .failed }
        return levels.contains(.passed) ? .passed : .notVerified
    }

    /// "rules level passed (163 checks) · device level failed (2 of 2 logs)": both levels, for headlines.
    public var levelsLine: String {
        let rules = acceptance.rules, device = acceptance.device
        let r: String
        switch rules.status {
        case .passed: r = "rules level passed (\(rules.checks) checks)"
        case .failed: r = "rules level FAILED (\(rules.failureCount) of \(rules.checks) checks)"
        case .notVerified: r = "rules level not verified (no rules check ran)"
        }
        let n = device.replays.count, failed = device.replays.filter { $0.status == .failed }.count
        let logs = "\(n) device log\(n == 1 ? "" : "s")"
        let d: String
        switch device.status {
        case .passed: d = "device level passed (\(logs))"
        case .failed: d = "device level FAILED (\(failed) of \(logs))"
        case .notVerified: d = "device level not verified (no device log)"
        }
        return r + " · " + d
    }

    /// Adds a fixture suite's results to the rules level (checks, failures, rules versions).
    public mutating func addFixtures(_ fixtures: FixtureReport) {
        var rules = acceptance.rules
        rules.checks += fixtures.checks.count
        rules.fixtureChecks += fixtures.checks.count
        rules.fixtureFailures += fixtures.failures
        rules.fixtureResults += fixtures.checks
        rules.fixtureSeconds += fixtures.checkSeconds.count == fixtures.checks.count
            ? fixtures.checkSeconds : Array(repeating: 0, count: fixtures.checks.count)
        rules.fixtureFiles += fixtures.files
        rules.status = rules.failureCount == 0 ? .passed : .failed
        acceptance.rules = rules
        for v in fixtures.rulesVersions where !run.rulesVersions.contains(v) { run.rulesVersions.append(v) }
    }

    /// A report with no rules-level check (`fencelab replay`): the rules level says `not-verified`.
    public static func deviceOnly(run: RunInfo, device: DeviceAcceptance) -> RunReport {
        var report = RunReport(run: run, scenarios: [], device: device)
        report.acceptance.rules.status = .notVerified
        report.acceptance.rules.note = "Not run: this report replays device logs only (run `fencelab accept` for the rules level)."
        return report
    }

    /// The report of `fencelab replay`: one device log replayed (`result`), its file and hash as
    /// the run's input, the rules level not run.
    public static func replay(_ result: DeviceReplayResult, logPath: String) -> RunReport {
        var report = deviceOnly(
            run: RunEnvironment.collect(generator: "none", seeds: [], rulesVersions: [result.rulesVersion]),
            device: DeviceAcceptance(replays: [result]))
        report.run.inputFiles = [InputFile(kind: "device-log", path: logPath, sha256: AcceptanceRun.fileSHA256(path: logPath))]
        return report
    }
}

extension ScenarioReport {
    /// Aggregates replicates, checks the bounds and assembles the scenario's report.
    public static func make(name: String, rulesVersion: String, seed: UInt64, replicates: [ReplicateMetrics],
                            bounds: [ExpectationBound], plots: ScenarioPlots? = nil,
                            catalog: MetricCatalog = .standard) throws(MetricsError) -> ScenarioReport {
        try make(name: name, rulesVersion: rulesVersion, seed: seed, aggregate: try MetricAggregate.aggregate(replicates),
                 bounds: bounds, plots: plots, catalog: catalog)
    }

    /// The report of a scenario whose replicates were already aggregated (`MetricAccumulator`).
    public static func make(name: String, rulesVersion: String, seed: UInt64, aggregate: MetricAggregate,
                            bounds: [ExpectationBound], plots: ScenarioPlots? = nil,
                            catalog: MetricCatalog = .standard) throws(MetricsError) -> ScenarioReport {
        let results = try Expectations.check(bounds, against: aggregate, catalog: catalog)
        return ScenarioReport(name: name, rulesVersion: rulesVersion, seed: seed, replicates: aggregate.replicates,
                              metrics: aggregate, expectations: results, plots: plots)
    }

    /// Index of the replicate with the largest value at `path` (first on ties), e.g. the one
    /// whose plots to draw ("flutter.spurious"); nil when no replicate has the figure.
    public static func worstReplicate(_ replicates: [ReplicateMetrics], by path: String) -> Int? {
        var best: (Int, Double)?
        for (i, r) in replicates.enumerated() {
            guard let v = r.flattened()[path] else { continue }
            if best == nil || v > best!.1 { best = (i, v) }
        }
        return best?.0
    }
}
