/// A named, unrounded number reported with a check (an input or a result).
package struct FixtureValue: Sendable, Hashable, CustomStringConvertible {
    package let name: String
    package let value: Double
    package init(_ name: String, _ value: Double) {
        self.name = name
        self.value = value
    }
    /// `name=value` with Swift's shortest round-trip form (never rounded for display).
    package var description: String { "\(name)=\(value)" }
}

/// The outcome of one fixture assertion.
package struct FixtureCheckResult: Sendable, Hashable, CustomStringConvertible {
    /// Fixture file path as loaded.
    package let file: String
    /// Where in the file the assertion is written, e.g. `sequences[0].steps[4]`.
    package let keyPath: String
    /// The rules version the file declares (checked against the rule before running).
    package let rulesVersion: String
    /// What must hold, in words and exact numbers.
    package let assertion: String
    package let passed: Bool
    /// What the engine produced (a state, `true`/`false`, an error case, or metres unrounded).
    package let actual: String
    /// Inputs and results as unrounded numbers.
    package let values: [FixtureValue]

    package init(
        file: String, keyPath: String, rulesVersion: String, assertion: String,
        passed: Bool, actual: String, values: [FixtureValue]
    ) {
        self.file = file
        self.keyPath = keyPath
        self.rulesVersion = rulesVersion
        self.assertion = assertion
        self.passed = passed
        self.actual = actual
        self.values = values
    }

    /// One line: `FAIL file keyPath [rulesVersion]: assertion; got actual (values)`.
    package var description: String {
        let vs = values.isEmpty ? "" : " (" + values.map(\.description).joined(separator: ", ") + ")"
        return "\(passed ? "PASS" : "FAIL") \(file) \(keyPath) [\(rulesVersion)]: \(assertion); got \(actual)\(vs)"
    }
}

/// One loaded fixture file, as the report lists it.
package struct FixtureFileSummary: Sendable, Hashable {
    package let file: String
    package let name: String
    package let rulesVersion: String
    /// The rule the file ran against (`RuleSpec` form), nil for contract fixtures.
    package let rule: String?
}

/// The result of running a `FixtureSuite`: "rules-level", offline and deterministic.
/// It says nothing about device behaviour (system callbacks, background wake-ups).
package struct FixtureReport: Sendable, Hashable, CustomStringConvertible {
    package let checks: [FixtureCheckResult]
    package let files: [FixtureFileSummary]
    /// Measured wall time of each check, seconds, parallel to `checks` (empty when not timed).
    /// Differs between runs: only junit.xml shows it.
    package let checkSeconds: [Double]

    package init(checks: [FixtureCheckResult], files: [FixtureFileSummary], checkSeconds: [Double] = []) {
        self.checks = checks
        self.files = files
        self.checkSeconds = checkSeconds.count == checks.count ? checkSeconds : []
    }

    package var failures: [FixtureCheckResult] { checks.filter { !$0.passed } }
    /// True when every check passed (and there was at least one).
    package var passed: Bool { !checks.isEmpty && checks.allSatisfy(\.passed) }
    /// Every rules version the fixtures declared, sorted, without repeats.
    package var rulesVersions: [String] { Array(Set(files.map(\.rulesVersion))).sorted() }

    /// `Rules fixtures: passed (N checks)` or `Rules fixtures: failed (K of N checks)`.
    package var summary: String {
        passed
            ? "Rules fixtures: passed (\(checks.count) checks)"
            : "Rules fixtures: failed (\(failures.count) of \(checks.count) checks)"
    }

    /// Each failure on its own line, then the summary.
    package var description: String {
        (failures.map(\.description) + [summary]).joined(separator: "\n")
    }
}
