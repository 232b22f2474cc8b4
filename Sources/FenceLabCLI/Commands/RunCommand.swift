import FenceLab
import Foundation
import GeoPolicy
import _CommandLineKit
import _FenceLabSupport

/// `fencelab run [PATH...] [--out DIR] [--replicates N] [--seed N] [--jobs N] ...`
enum RunCommand: Command {
    static let name = "run"
    static let summary = "Run scenarios through the engine, measure, write reports (default command)."
    static let arguments = "[PATH...]"
    static let options = [out("reports/latest")] + common + [notify] + engine
    static let discussion = """
        For every scenario (files or folders; default scenarios/) and replicate: generates
        the noisy drive with GSL, runs the fixes through FenceMonitor (or an external engine),
        the Kalman filter, the RTS smoother, the seed-004 baseline and every gap-fill method,
        scores them against the truth and aggregates over replicates (mean and 95 % CI).
        Writes DIR/report.json, report.md, junit.xml and index.html atomically and prints a
        summary table. Same inputs and seed give the same report for any --jobs (only
        run.time and throughput figures differ).
        """
    static let footer = """
        EXIT: 0 every expectation met, 1 an expectation failed, 2 bad input (scenario file,
        rules version, unwritable output, failing engine), 64 usage error.
        """

    /// `--out DIR` with the command's default folder.
    static func out(_ folder: String) -> OptionDeclaration {
        OptionDeclaration("--out", .text("DIR"), default: folder, help: "Output folder")
    }

    /// The options `run`, `accept` and `sweep` share.
    static let common: [OptionDeclaration] = [
        OptionDeclaration(
            "--replicates", .integer("N", 1...100_000),
            help: "Override every scenario's replicate count (1 ... 100000, as in scenario files)."),
        OptionDeclaration(
            "--seed", .integer("N", 1...Int(UInt32.max)), help: "Override every scenario's seed (N >= 1)."),
        OptionDeclaration(
            "--jobs", .integer("N", 1...4096),
            help: "Worker threads (default: all cores); results identical for any N."),
        OptionDeclaration(
            "--window", .number("S", .positive), default: OptionDeclaration.defaultText(Flutter.defaultWindow_s),
            help: "Flutter matching window in seconds"),
        OptionDeclaration(
            "--match-slack", .number("S", .nonNegative),
            default: OptionDeclaration.defaultText(Visits.defaultMatchSlack_s),
            help: "Visits: widen each true visit by S seconds on both sides when matching"),
        OptionDeclaration(
            "--max-age", .number("S", .nonNegative),
            default: OptionDeclaration.defaultText(DeviceReplay.defaultMaxAge_s),
            help: "Fixes older than S seconds relative to `now` are stale"),
        OptionDeclaration(
            "--include-coordinates", .flag, help: "Put raw coordinates in the reports (off: metres from the fence)."),
        OptionDeclaration("--progress", .flag, help: "Progress on stderr even when it is not a terminal."),
    ]

    /// `--notify SPEC`: the notification policy of every scenario for this run.
    static let notify = OptionDeclaration(
        "--notify", .text("SPEC"),
        help:
            "Notification policy for every scenario: none, dwell:T, cooldown:T or\ndwell:T+cooldown:T (T seconds > 0); scored as notify.*"
    )

    /// The external-engine options of `run` and `accept`.
    static let engine: [OptionDeclaration] = [
        OptionDeclaration(
            "--engine", .text("'COMMAND'"), help: "Decide fences with an external engine (docs/engine-protocol.md)."),
        OptionDeclaration(
            "--engine-timeout", .number("S", .positive), default: "5", requires: "--engine",
            help: "Seconds allowed per engine answer, after the one before"),
        OptionDeclaration(
            "--engine-startup", .number("S", .nonNegative),
            default: OptionDeclaration.defaultText(ExternalEngine.defaultStartupGrace_s),
            requires: "--engine",
            help:
                "Extra seconds, once per work item, for the engine to start: the\nready line must arrive within S + the timeout"
        ),
    ]

    static func run(_ arguments: Arguments) throws -> ExitCode {
        var request = RunRequest()
        parseCommon(arguments, into: &request)
        request.settings.engine = parseEngine(arguments)
        if let text = arguments.option("--notify") { request.notification = try ArgumentValue.notification(text) }
        let out = arguments.option("--out")!
        let paths = arguments.positionals
        if !paths.isEmpty { request.paths = paths }
        InterruptNotice.install { InterruptNotice.runMessage(out: out) }
        AllocatorTuning.keepHeapTopPadded()
        let report: RunReport
        do { report = try ScenarioRunner.runAndWrite(request, out: out) } catch { throw CLIError.badInput("\(error)") }
        for s in report.scenarios {
            for warning in s.warnings { printError("fencelab: warning: \(s.name): \(warning)") }
        }
        print(SummaryTable.render(report))
        print("Report: \(out)/index.html")
        return report.passed ? .success : .checkFailed
    }

    /// The `common` options (validated by the parser) into a request.
    static func parseCommon(_ arguments: Arguments, into request: inout RunRequest) {
        request.replicates = arguments.integer("--replicates")
        if let seed = arguments.integer("--seed") { request.seed = UInt64(seed) }
        request.jobs = arguments.integer("--jobs") ?? request.jobs
        request.settings.window_s = arguments.number("--window")!
        request.settings.maxFixAge_s = arguments.number("--max-age")!
        request.settings.matchSlack_s = arguments.number("--match-slack")!
        request.settings.includeCoordinates = arguments.flag("--include-coordinates")
        request.forceProgress = arguments.flag("--progress")
    }

    /// The `engine` options: nil without `--engine` (the parser refuses its companions alone).
    static func parseEngine(_ arguments: Arguments) -> ExternalEngine? {
        guard let command = arguments.option("--engine") else { return nil }
        return ExternalEngine(
            command: command, perFixTimeout_s: arguments.number("--engine-timeout")!,
            startupGrace_s: arguments.number("--engine-startup")!)
    }
}
