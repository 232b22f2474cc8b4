import FenceLab
import GeoPolicy

/// `fencelab engine-check 'COMMAND' [--rule SPEC] [--fixtures DIR] [--timeout SECONDS]`
enum EngineCheckCommand: Command {
    static let name = "engine-check"
    static let summary = "Check an external engine against the protocol and the rules fixtures."
    static let help = """
        USAGE: fencelab engine-check 'COMMAND' [--rule SPEC] [--fixtures DIR] [--timeout SECONDS]

        Starts COMMAND (through /bin/sh) once per fixture sequence, speaks the JSON Lines
        protocol of docs/engine-protocol.md, and compares every answer with the rules
        fixtures in DIR (default scenarios/fixtures) for the rule SPEC (default
        hysteresis:80:120:30, seed 000). Boundary cases are exact: a fix at "80 m" is
        placed so that the haversine (R = 6 371 000 m) gives exactly 80 m.

        OPTIONS:
          --rule SPEC         hysteresis:ENTER:EXIT:MAXACC | threshold:R | conservative:R
          --fixtures DIR      Fixture folder (default scenarios/fixtures).
          --timeout SECONDS   Seconds allowed per answer, after the one before (default 5).

        EXAMPLE: fencelab engine-check 'python3 Examples/engines/seed_rules.py'

        EXIT: 0 conforms, 1 an answer was wrong or the engine failed, 2 bad fixtures, 64 usage.
        """

    static func run(_ arguments: inout Arguments) throws -> ExitCode {
        let specText = try arguments.option("--rule") ?? "hysteresis:80:120:30"
        let directory = try arguments.option("--fixtures") ?? FixtureSuite.defaultDirectory
        let timeout = try arguments.option("--timeout").map { try parseDouble($0, name: "--timeout") } ?? 5
        guard timeout > 0 else { throw CLIError.badInput("--timeout: must be > 0, got \(timeout)") }
        let rest = try arguments.positionals()
        guard rest.count == 1 else { throw CLIError.usage("engine-check: expected one COMMAND (quote it), got \(rest.count)") }
        let spec: RuleSpec
        do { spec = try RuleSpec.parse(specText) } catch { throw CLIError.badInput("--rule: \(error)") }
        let report = try EngineCheck.run(engine: ExternalEngine(command: rest[0], perFixTimeout_s: timeout),
                                         fixturesDirectory: directory, rule: spec)
        for f in report.failures { print("FAIL \(f)") }
        if !report.skipped.isEmpty { print("Not applicable to \(report.rulesVersion): \(report.skipped.count) sequence(s) pinned to another rule") }
        if report.passed {
            print("Engine check: passed (\(report.checks) checks, rules \(report.rulesVersion))")
            return .success
        }
        print("Engine check: failed (\(report.failures.count) of \(report.checks) checks, rules \(report.rulesVersion))")
        return .checkFailed
    }
}
