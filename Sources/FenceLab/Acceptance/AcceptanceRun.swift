import DeviceLogKit
import DriveSim
import Foundation
import GeoPolicy
import _FenceLabSupport

/// What `fencelab accept` checks: scenarios and fixtures (rules level), device logs (device level).
package struct AcceptanceRequest: Sendable {
    /// Scenario run options (paths, replicates, seed, jobs, engine settings).
    package var run = RunRequest()
    /// Folder of rules fixtures (`FixtureSuite`), default `scenarios/fixtures`.
    package var fixturesDirectory = FixtureSuite.defaultDirectory
    /// Device logs to replay (paths); empty: the device level is `not-verified`.
    package var deviceLogs: [String] = []
    /// The format of every device log (`--format`); nil: each log's extension, else its content.
    package var deviceLogFormat: DeviceLogFormat?
    /// What the readers may assume and whether damage is refused (`--assume-accuracy`, `--date`, `--strict`).
    package var readOptions = DeviceLogReadOptions()
    /// Fence centre the app monitored while logging: one for every log, or one per log in
    /// `deviceLogs` order; required when `deviceLogs` is not empty.
    package var fences: [Coordinate] = []
    /// Rule for the replays (default seed 000's `hysteresis:80:120:30`).
    package var rule: RuleSpec = .default
    /// What the replayed rule decides on (`--rule SPEC+kalman`); default the logged fixes.
    package var input: FenceInput = .raw
    /// The places every log was recorded against (`--places`), instead of `fences`; events name their place.
    package var places: ReplayPlaces?
    /// Staleness limit of the replays, seconds (≥ 0).
    package var maxAge_s = DeviceReplay.defaultMaxAge_s
    /// The fleet `accept --device-logs` reports beside this report: its log count and its
    /// `index.html`; a device level without `deviceLogs` names it instead of "no device log".
    package var fleet: (logs: Int, report: String)?

    package init() {}
}

/// Why an acceptance run could not start.
package enum AcceptanceError: Error, Sendable, CustomStringConvertible {
    case fenceRequired
    case fenceCount(fences: Int, logs: Int)
    case fixtures(FixtureError)
    case deviceLog(DeviceLogError)
    case rule(String)

    package var description: String {
        switch self {
        case .fenceRequired: return "--fence LAT,LON is required with --device-log"
        case .fenceCount(let f, let l):
            return "--fence: give one fence for all logs or one per log; got \(f) fences for \(l) logs"
        case .fixtures(let e): return e.description
        case .deviceLog(let e): return e.description
        case .rule(let m): return m
        }
    }
}

/// Runs the two acceptance levels and assembles one report (docs/report-format.md, `acceptance`).
///
/// Rules level: every fixture of `fixturesDirectory` and every scenario `expect` bound.
/// Device level: the replay of every given device log against its system events; without a
/// log it is `not-verified`: it is never inferred from the simulation.
package enum AcceptanceRun {
    /// Loads every input first (fixtures, device logs, scenarios: bad input fails before any
    /// long work), replays the logs, runs fixtures and scenarios.
    /// - Throws: `AcceptanceError`, `ScenarioError`, `RunError` (all bad input).
    /// What `fencelab accept` does: preflights `out`, executes and writes the report folder atomically.
    package static func executeAndWrite(_ request: AcceptanceRequest, out: String) throws -> RunReport {
        try ReportWriter.preflight(destination: out)
        let report = try execute(request)
        try ReportWriter.write(report, to: out)
        return report
    }

    package static func execute(_ request: AcceptanceRequest) throws -> RunReport {
        if !request.deviceLogs.isEmpty, request.places == nil {
            guard !request.fences.isEmpty else { throw AcceptanceError.fenceRequired }
            guard request.fences.count == 1 || request.fences.count == request.deviceLogs.count else {
                throw AcceptanceError.fenceCount(fences: request.fences.count, logs: request.deviceLogs.count)
            }
        }
        let suite: FixtureSuite
        do { suite = try FixtureSuite.load(directory: request.fixturesDirectory) } catch {
            throw AcceptanceError.fixtures(error)
        }
        var logs: [DeviceLog] = []
        for path in request.deviceLogs {
            do {
                logs.append(
                    try DeviceLogImporter.load(
                        path: path, format: request.deviceLogFormat, options: request.readOptions))
            } catch { throw AcceptanceError.deviceLog(error) }
        }
        let scenarios = try ScenarioRunner.prepare(request.run)
        var replays: [DeviceReplayResult] = []
        for (i, log) in logs.enumerated() {
            if let places = request.places {
                replays.append(
                    try DeviceReplay.run(
                        log, places: places, rule: request.rule, input: request.input, maxAge_s: request.maxAge_s))
                continue
            }
            try DeviceReplay.checkOneFence(log)
            let fence = request.fences[request.fences.count == 1 ? 0 : i]
            do {
                replays.append(
                    try DeviceReplay.run(
                        log, center: fence, rule: request.rule, input: request.input,
                        maxAge_s: request.maxAge_s))
            } catch {
                throw AcceptanceError.rule("\(log.file): \(error)")
            }
        }
        var report =
            scenarios.isEmpty
            ? RunReport(run: RunEnvironment.collect(generator: "mt19937", seeds: [], rulesVersions: []), scenarios: [])
            : try ScenarioRunner.run(scenarios, request: request.run)
        report.addFixtures(suite.run())
        report.acceptance.device = DeviceAcceptance(replays: replays, fleet: request.fleet)
        for r in replays where !report.run.rulesVersions.contains(r.rulesVersion) {
            report.run.rulesVersions.append(r.rulesVersion)
        }
        report.run.inputFiles =
            scenarios.flatMap(InputFile.files(of:))
            + suite.files.map {
                InputFile(kind: "fixture", path: $0, sha256: InputFileReader.sha256HexIfReadable(path: $0))
            }
            + request.deviceLogs.map {
                InputFile(kind: "device-log", path: $0, sha256: InputFileReader.sha256HexIfReadable(path: $0))
            }
        return report
    }

    /// The two status lines `fencelab accept` prints, e.g. `Rules level: passed (N checks)` and
    /// `Device level: not verified (no device log)` (with a fleet and no `--device-log`:
    /// `not verified (no --device-log; N fleet logs in the fleet report)`).
    package static func statusLines(_ report: RunReport) -> [String] {
        let rules = report.acceptance.rules
        let device = report.acceptance.device
        let rulesLine: String
        switch rules.status {
        case .passed: rulesLine = "Rules level: passed (\(rules.checks) checks)"
        case .failed: rulesLine = "Rules level: failed (\(rules.failureCount) of \(rules.checks) checks)"
        case .notVerified: rulesLine = "Rules level: not verified (no rules check ran)"
        }
        let n = device.replays.count
        let failed = device.replays.filter { $0.status == .failed }.count
        let deviceLine: String
        switch device.status {
        case .notVerified: deviceLine = "Device level: not verified (\(device.notVerifiedReason))"
        case .passed: deviceLine = "Device level: passed (\(n) device log\(n == 1 ? "" : "s"))"
        case .failed: deviceLine = "Device level: failed (\(failed) of \(n) device log\(n == 1 ? "" : "s"))"
        }
        return [rulesLine, deviceLine]
    }

    /// The failures to print above the status lines: each failed check with unrounded values.
    package static func failureLines(_ report: RunReport) -> [String] {
        let rules = report.acceptance.rules
        return rules.failures.map { "FAIL \($0.scenario): \($0.result.message)" }
            + rules.fixtureFailures.map(\.description)
    }

    /// Exit status: true only when the rules level passed and every given device log passed.
    package static func passed(_ report: RunReport) -> Bool {
        report.acceptance.rules.status == .passed && report.acceptance.device.status != .failed
    }
}
