import FenceLab
import Foundation
import _CommandLineKit
import _FenceLabSupport

/// `fencelab accept [PATH...] [--device-log FILE... (--fence LAT,LON | --places FILE) [--rule SPEC]] [--out DIR] ...`
enum AcceptCommand: Command {
    static let name = "accept"
    static let summary =
        "Acceptance report: rules level (fixtures + scenario bounds) and device level (device logs), kept apart."
    static let arguments = "[PATH...]"
    static let options =
        [
            OptionDeclaration(
                "--device-log", .text("FILE"), repetition: .greedy,
                help: "Device logs (any format of --format); repeatable."),
            OptionDeclaration(
                "--fence", .text("LAT,LON"), repetition: .each,
                help: """
                    Fence centre the app monitored (required with --device-log);
                    once for all logs, or repeated once per log in order.
                    Negative latitude: write --fence=-16.8,180.
                    """),
        ] + PlaceOptions.declarations + [
            OptionDeclaration(
                "--rule", .text("SPEC"),
                help: """
                    Rule for the replays (default hysteresis:80:120:30); +kalman or +imm
                    (optionally :Q, m²/s³) decides on the filter's estimate.
                    """),
            OptionDeclaration(
                "--fixtures", .text("DIR"),
                help: """
                    Rules fixtures folder. Default: scenarios/fixtures here, else
                    fixtures/ in (or beside) the scenario PATHs, else
                    scenarios/fixtures of the checkout the fencelab binary is in.
                    """),
            RunCommand.out("reports/acceptance"),
        ] + AcceptFleetOptions.declarations + DeviceLogOptions.declarations + RunCommand.common + RunCommand.engine
    static let discussion = """
        Rules level: every fixture in scenarios/fixtures/ (or --fixtures DIR) and every
        scenario `expect` bound (PATH: scenario files or folders, default scenarios/), each
        failure with its unrounded values and the assertion, and the rules version of every
        rule involved. Device level: `not-verified` without --device-log (it is never inferred
        from simulation); with logs, each is replayed through the engine (`fencelab replay`)
        and passes when no divergence of a failing class is found; what a log cannot show
        (background wake-ups, permission changes) is listed as not covered. The import
        options (--format, --assume-accuracy, --date, --strict) apply to every log; what
        each import skipped and assumed is printed and reported with its replay.
        Writes DIR/report.json, report.md, junit.xml and index.html (default
        reports/acceptance) and prints "Rules level: ..." and "Device level: ...".
        Fleet (--device-logs): every listed log is replayed and summarised, and the figures
        per cohort, the --compare rows and the --gate verdict go to --fleet-out DIR
        (report.json, report.md, junit.xml, index.html, a replay page per worst log);
        docs/fleet.md.
        --max-age is also the staleness limit of the replays. With --places FILE
        (and --monitoring) each log is replayed per place, as `fencelab replay --places`.
        """
    static let footer = """
        EXIT: 0 the rules level passed, every given device log passed and every --gate
        passed, 1 otherwise,
        2 bad input (scenario, fixture, log or place file, --fence, --monitoring, an event
        naming an unknown place, output), 64 usage error.
        """

    static func run(_ arguments: Arguments) throws -> ExitCode {
        var request = AcceptanceRequest()
        RunCommand.parseCommon(arguments, into: &request.run)
        request.run.settings.engine = RunCommand.parseEngine(arguments)
        request.deviceLogs = arguments.options("--device-log")
        (request.deviceLogFormat, request.readOptions) = try DeviceLogOptions.parse(arguments)
        let fenceTexts = arguments.options("--fence")
        let fixtures = arguments.option("--fixtures")
        let out = arguments.option("--out")!
        let paths = arguments.positionals
        if !paths.isEmpty { request.run.paths = paths }
        if let fixtures {
            request.fixturesDirectory = fixtures
        } else {
            guard
                let found = FixtureSuite.locate(
                    scenarioPaths: request.run.paths,
                    executablePath: Bundle.main.executablePath ?? CommandLine.arguments.first)
            else {
                throw CLIError.badInput(
                    "no rules fixtures found (looked for scenarios/fixtures here, fixtures/ beside the scenario "
                        + "paths and scenarios/fixtures above the fencelab binary); name the folder with --fixtures DIR"
                )
            }
            request.fixturesDirectory = found
        }
        let placesPath = arguments.option("--places")
        if placesPath != nil, !fenceTexts.isEmpty {
            throw CLIError.usage("accept: --fence and --places exclude each other")
        }
        if placesPath == nil, arguments.option("--monitoring") != nil {
            throw CLIError.usage("accept: --monitoring needs --places FILE")
        }
        if !request.deviceLogs.isEmpty, fenceTexts.isEmpty, placesPath == nil {
            throw CLIError.usage("accept: --fence LAT,LON is required with --device-log")
        }
        guard fenceTexts.count <= 1 || fenceTexts.count == request.deviceLogs.count else {
            throw CLIError.usage(
                "accept: --fence: give one fence for all logs or one per log; got \(fenceTexts.count) fences for \(request.deviceLogs.count) logs"
            )
        }
        request.fences = try fenceTexts.map { text throws(OptionError) in try ArgumentValue.fence(text) }
        var fleet = try AcceptFleetOptions.parse(
            arguments, fences: request.fences, jobs: request.run.jobs, seed: request.run.seed)
        let setup = try ArgumentValue.fenceSetup(arguments.option("--rule"))
        request.rule = setup.rule
        request.input = setup.input
        request.maxAge_s = request.run.settings.maxFixAge_s
        fleet?.rule = setup.rule
        fleet?.input = setup.input
        fleet?.maxAge_s = request.maxAge_s
        fleet?.format = request.deviceLogFormat
        fleet?.readOptions = request.readOptions
        let fleetRun = try fleet.map { try AcceptFleetCommand.analyse($0, out: arguments.option("--fleet-out")!) }
        request.fleet = fleetRun.map { (logs: $0.entries.count, report: "\($0.out)/index.html") }
        if let placesPath {
            request.places = try PlaceOptions.load(
                placesPath, monitoring: try PlaceOptions.strategy(arguments.option("--monitoring")), rule: setup.rule)
        }
        InterruptNotice.install { InterruptNotice.runMessage(out: out) }
        AllocatorTuning.keepHeapTopPadded()
        let report: RunReport
        do { report = try AcceptanceRun.executeAndWrite(request, out: out) } catch {
            throw CLIError.badInput("\(error)")
        }
        for line in AcceptanceRun.failureLines(report) { print(line) }
        for r in report.acceptance.device.replays {
            for line in r.summaryLines { print(line) }
        }
        for line in AcceptanceRun.statusLines(report) { print(line) }
        print("Report: \(out)/index.html")
        let fleetPassed = try fleetRun.map { try AcceptFleetCommand.finish($0) } ?? true
        return AcceptanceRun.passed(report) && fleetPassed ? .success : .checkFailed
    }
}
