/// A named, unrounded number reported with a check (an input or a result).
public struct FixtureValue: Sendable, Hashable, CustomStringConvertible {
    public let name: String
    public let value: Double
    public init(_ name: String, _ value: Double) {
        self.name = name
        self.value = value
    }
    /// `name=value` with Swift's shortest round-trip form (never rounded for display).
    public var description: String { "\(name)=\(value)" }
}

/// The outcome of one fixture assertion.
public struct FixtureCheckResult: Sendable, Hashable, CustomStringConvertible {
    /// Fixture file path as loaded.
    public let file: String
    /// Where in the file the assertion is written, e.g. `sequences[0].steps[4]`.
    public let keyPath: String
    /// The rules version the file declares (checked against the rule before running).
    public let rulesVersion: String
    /// What must hold, in words and exact numbers.
    public let assertion: String
    public let passed: Bool
    /// What the engine produced (a state, `true`/`false`, an error case, or metres unrounded).
    public let actual: String
    /// Inputs and results as unrounded numbers.
    public let values: [FixtureValue]

    public init(file: String, keyPath: String, rulesVersion: String, assertion: String,
                passed: Bool, actual: String, values: [FixtureValue]) {
        self.file = file
        self.keyPath = keyPath
        self.rulesVersion = rulesVersion
        self.assertion = assertion
        self.passed = passed
        self.actual = actual
        self.values = values
    }

    /// One line: `FAIL file keyPath [rulesVersion]: assertion; got actual (values)`.
    public var description: String {
        let vs = values.isEmpty ? "" : " (" + values.map(\.description).joined(separator: ", ") + ")"
        return "\(passed ? "PASS" : "FAIL") \(file) \(keyPath) [\(rulesVersion)]: \(assertion); got \(actual)\(vs)"
    }
}

/// One loaded fixture file, as the report lists it.
public struct FixtureFileSummary: Sendable, Hashable {
    public let file: String
    public let name: String
    public let rulesVersion: String
    /// The rule the file ran against (`RuleSpec` form), nil for contract fixtures.
    public let rule: String?
}

/// The result of running a `FixtureSuite`: "rules-level", offline and deterministic.
/// It says nothing about device behaviour (system callbacks, background wake-ups).
public struct FixtureReport: Sendable, Hashable, CustomStringConvertible {
    public let checks: [FixtureCheckResult]
    public let files: [FixtureFileSummary]
    /// Measured wall time of each check, seconds, parallel to `checks` (empty when not timed).
    /// Differs between runs: only junit.xml shows it.
    public let checkSeconds: [Double]

    public init(checks: [FixtureCheckResult], files: [FixtureFileSummary], checkSeconds: [Double] = []) {
        self.checks = checks
        self.files = files
        self.checkSeconds = checkSeconds.count == checks.count ? checkSeconds : []
    }

    public var failures: [FixtureCheckResult] { checks.filter { !$0.passed } }
    /// True when every check passed (and there was at least one).
    public var passed: Bool { !checks.isEmpty && checks.allSatisfy(\.passed) }
    /// Every rules version the fixtures declared, sorted, without repeats.
    public var rulesVersions: [String] { Array(Set(files.map(\.rulesVersion))).sorted() }

    /// `Rules fixtures: passed (N checks)` or `Rules fixtures: failed (K of N checks)`.
    public var summary: String {
        passed ? "Rules fixtures: passed (\(checks.count) checks)"
            : "Rules fixtures: failed (\(failures.count) of \(checks.count) checks)"
    }

    /// Each failure on its own line, then the summary.
    public var description: String {
        (failures.map(\.description) + [summary]).joined(separator: "\n")
    }
}
