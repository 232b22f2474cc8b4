import FenceLab
import Foundation

/// `fencelab run [PATH...] [--out DIR] [--replicates N] [--seed N] [--jobs N] ...`
enum RunCommand: Command {
    static let name = "run"
    static let summary = "Run scenarios through the engine, measure, write reports (default command)."
    static let help = """
        USAGE: fencelab run [PATH...] [--out DIR] [--replicates N] [--seed N] [--jobs N]
                            [--engine 'COMMAND'] [--progress] [--include-coordinates]

        For every scenario (files or folders; default scenarios/) and replicate: generates
        the noisy drive with GSL, runs the fixes through FenceMonitor (or an external engine),
        the Kalman filter, the RTS smoother, the seed-004 baseline and every gap-fill method,
        scores them against the truth and aggregates over replicates (mean and 95 % CI).
        Writes DIR/report.json, report.md, junit.xml and index.html atomically and prints a
        summary table. Same inputs and seed give the same report for any --jobs (only
        run.time and throughput figures differ).

        OPTIONS:
          --out DIR              Output folder (default reports/latest).
          --replicates N         Override every scenario's replicate count (N >= 1).
          --seed N               Override every scenario's seed (N >= 1).
          --jobs N               Worker threads (default: all cores).
          --engine 'COMMAND'     Decide fences with an external engine (docs/engine-protocol.md).
          --engine-timeout S     Seconds allowed per fix for the external engine (default 5).
          --engine-startup S     Seconds added once per work item for the engine to start
                                 (default 5): the item's deadline is S + fixes × timeout.
          --window S             Flutter matching window in seconds (default 60).
          --match-slack S        Visits: widen each true visit by S seconds when matching (default 60).
          --max-age S            Fixes older than S seconds relative to `now` are stale (default 30).
          --include-coordinates  Put raw coordinates in the reports (off: metres from the fence).
          --progress             Progress on stderr even when it is not a terminal.

        EXIT: 0 every expectation met, 1 an expectation failed, 2 bad input (scenario file,
        rules version, unwritable output, failing engine), 64 usage error.
        """

    static func run(_ arguments: inout Arguments) throws -> ExitCode {
        var request = RunRequest()
        try parseCommon(&arguments, into: &request)
        let out = try arguments.option("--out") ?? "reports/latest"
        let paths = try arguments.positionals()
        if !paths.isEmpty { request.paths = paths }
        InterruptNotice.install { InterruptNotice.runMessage(out: out) }
        let report = try execute(request, out: out)
        for s in report.scenarios { s.warnings.forEach { printError("fencelab: warning: \(s.name): \($0)") } }
        print(SummaryTable.render(report))
        print("Report: \(out)/index.html")
        return report.passed ? .success : .checkFailed
    }

    /// Options shared by `run` and `accept`.
    static func parseCommon(_ arguments: inout Arguments, into request: inout RunRequest) throws {
        request.replicates = try arguments.intOption("--replicates", in: 1...1_000_000)
        if let seed = try arguments.intOption("--seed", in: 1...Int(UInt32.max)) { request.seed = UInt64(seed) }
        request.jobs = try arguments.intOption("--jobs", in: 1...4096) ?? request.jobs
        if let command = try arguments.option("--engine") {
            let timeout = try arguments.option("--engine-timeout").map { try parseDouble($0, name: "--engine-timeout") } ?? 5
            guard timeout > 0 else { throw CLIError.badInput("--engine-timeout: must be > 0, got \(timeout)") }
            let grace = try arguments.option("--engine-startup").map { try parseDouble($0, name: "--engine-startup") }
                ?? ExternalEngine.defaultStartupGrace_s
            guard grace >= 0 else { throw CLIError.badInput("--engine-startup: must be >= 0, got \(grace)") }
            request.settings.engine = ExternalEngine(command: command, perFixTimeout_s: timeout, startupGrace_s: grace)
        }
        if let w = try arguments.option("--window") {
            request.settings.window_s = try parseDouble(w, name: "--window")
            guard request.settings.window_s > 0 else { throw CLIError.badInput("--window: must be > 0, got \(w)") }
        }
        if let a = try arguments.option("--max-age") {
            request.settings.maxFixAge_s = try parseDouble(a, name: "--max-age")
            guard request.settings.maxFixAge_s >= 0 else { throw CLIError.badInput("--max-age: must be >= 0, got \(a)") }
        }
        if let m = try arguments.option("--match-slack") {
            request.settings.matchSlack_s = try parseDouble(m, name: "--match-slack")
            guard request.settings.matchSlack_s >= 0 else { throw CLIError.badInput("--match-slack: must be >= 0, got \(m)") }
        }
        request.settings.includeCoordinates = arguments.flag("--include-coordinates")
        request.forceProgress = arguments.flag("--progress")
    }

    /// Preflight the output, prepare every scenario, run, write. Bad input → exit 2 before any work.
    static func execute(_ request: RunRequest, out: String) throws -> RunReport {
        do {
            try ReportFolder.preflight(destination: out)
            let scenarios = try ScenarioRunner.prepare(request)
            guard !scenarios.isEmpty else { throw CLIError.badInput("no scenario files found in \(request.paths.joined(separator: ", "))") }
            let report = try ScenarioRunner.run(scenarios, request: request)
            try ReportWriter.write(report, to: out)
            return report
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError.badInput("\(error)")
        }
    }
}
