import FenceLab
import GeoPolicy
import _CommandLineKit

/// `fencelab fixtures [DIR] [--rule SPEC]`
enum FixturesCommand: Command {
    static let name = "fixtures"
    static let summary = "Run the rules-level fixtures (exact, offline) in scenarios/fixtures."
    static let arguments = "[DIR]"
    static let options = [
        OptionDeclaration(
            "--rule", .text("SPEC"),
            help: """
                The rule for fixtures that do not pin one (default hysteresis:80:120:30).
                SPEC: hysteresis:ENTER:EXIT:MAXACC, threshold:R, conservative:R,
                optionally +confirmN or +confirmTs. A fixture written for another
                rulesVersion is refused: its expected results must be reviewed.
                """)
    ]
    static let discussion = """
        Loads every *.json fixture in DIR (default scenarios/fixtures) strictly and runs it:
        distance pairs, coordinate validation, boundary checks and decision sequences.
        Prints "Rules fixtures: passed (N checks)", or one line per failed check with the
        unrounded values. This is the rules-level check only: it says nothing about
        device behaviour (system callbacks, background wake-ups).
        """
    static let footer = "EXIT: 0 all passed, 1 a check failed, 2 malformed fixture or version mismatch, 64 usage error."

    static func run(_ arguments: Arguments) throws -> ExitCode {
        var rule = RuleSpec.default
        if let text = arguments.option("--rule") {
            do { rule = try RuleSpec.parse(text) } catch { throw CLIError.usage("fixtures: --rule: \(error)") }
        }
        let values = arguments.positionals
        guard values.count <= 1 else {
            throw CLIError.usage("fixtures: expected at most one DIR, got \(values.count) values")
        }
        let directory = values.first ?? FixtureSuite.defaultDirectory
        let suite: FixtureSuite
        do {
            suite = try FixtureSuite.load(directory: directory, ruleUnderTest: rule)
        } catch {
            throw CLIError.badInput(error.description)
        }
        let report = suite.run()
        print(report.description)
        return report.passed ? .success : .checkFailed
    }
}
