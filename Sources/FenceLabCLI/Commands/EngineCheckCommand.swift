import FenceLab
import GeoPolicy
import _CommandLineKit

/// `fencelab engine-check 'COMMAND' [--rule SPEC] [--fixtures DIR] [--timeout SECONDS]`
enum EngineCheckCommand: Command {
    static let name = "engine-check"
    static let summary = "Check an external engine against the protocol and the rules fixtures."
    static let arguments = "'COMMAND'"
    static let options = [
        OptionDeclaration(
            "--rule", .text("SPEC"), default: "hysteresis:80:120:30",
            help: "hysteresis:ENTER:EXIT:MAXACC | threshold:R | conservative:R"),
        OptionDeclaration("--fixtures", .text("DIR"), default: FixtureSuite.defaultDirectory, help: "Fixture folder"),
        OptionDeclaration(
            "--timeout", .number("SECONDS", .positive), default: "5",
            help: "Seconds allowed per answer, after the one before"),
    ]
    static let discussion = """
        Starts COMMAND (through /bin/sh) once per fixture sequence, speaks the JSON Lines
        protocol of docs/engine-protocol.md, and compares every answer with the rules
        fixtures in DIR (default scenarios/fixtures) for the rule SPEC (default
        hysteresis:80:120:30, seed 000). Boundary cases are exact: a fix at "80 m" is
        placed so that the haversine (R = 6 371 000 m) gives exactly 80 m.
        """
    static let footer = """
        EXAMPLE: fencelab engine-check 'python3 Examples/engines/seed_rules.py'

        EXIT: 0 conforms, 1 an answer was wrong or the engine failed, 2 bad fixtures, 64 usage.
        """

    static func run(_ arguments: Arguments) throws -> ExitCode {
        let specText = arguments.option("--rule")!
        let directory = arguments.option("--fixtures")!
        let timeout = arguments.number("--timeout")!
        let rest = arguments.positionals
        guard rest.count == 1 else {
            throw CLIError.usage("engine-check: expected one COMMAND (quote it), got \(rest.count)")
        }
        let spec = try ArgumentValue.rule(specText)
        let report = try EngineCheck.run(
            engine: ExternalEngine(command: rest[0], perFixTimeout_s: timeout),
            fixturesDirectory: directory, rule: spec)
        for f in report.failures { print("FAIL \(f)") }
        if !report.skipped.isEmpty {
            print(
                "Not applicable to \(report.rulesVersion): \(report.skipped.count) sequence(s) pinned to another rule")
        }
        if report.passed {
            print("Engine check: passed (\(report.checks) checks, rules \(report.rulesVersion))")
            return .success
        }
        print(
            "Engine check: failed (\(report.failures.count) of \(report.checks) checks, rules \(report.rulesVersion))")
        return .checkFailed
    }
}
