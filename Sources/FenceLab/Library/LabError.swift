/// Why a `RuleLab` call failed; every case names the file, argument or metric at fault.
public enum LabError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A scenario file or JSON text was refused (`file` is the path or the name given to the text).
    case scenario(file: String, reason: String)
    /// The scenario was recorded for another rules version than the rule under test
    /// (see `RulesVersionPolicy`).
    case rulesVersionMismatch(file: String, scenario: String, rule: String)
    /// `RulesVersionPolicy.override` named a version the scenario does not carry.
    case overrideMismatch(file: String, scenario: String, named: String)
    /// The rule or its confirmation is invalid.
    case invalidRule(rulesVersion: String, reason: String)
    /// An argument is out of range.
    case invalidArgument(name: String, value: String, reason: String)
    /// The run itself failed (generator, metrics, track), with the scenario and replicate in `reason`.
    case run(reason: String)
    /// The metric path is not one `MetricCatalog.standard` knows (a typo).
    case unknownMetric(path: String)
    /// The metric exists but no replicate measured it (e.g. a latency when nothing matched).
    case noData(path: String)
    /// The report folder could not be written.
    case output(folder: String, reason: String)

    /// One line naming what was wrong.
    public var description: String {
        switch self {
        case .scenario(let file, let reason):
            return reason.hasPrefix(file) ? reason : "\(file): \(reason)"
        case .rulesVersionMismatch(let file, let scenario, let rule):
            return
                "\(file): rulesVersion: the scenario was recorded for \(scenario) but the rule under test is \(rule); "
                + "use a scenario recorded for \(rule), or pass rulesVersion: .override(scenarioRecordedFor: \"\(scenario)\") deliberately"
        case .overrideMismatch(let file, let scenario, let named):
            return
                "\(file): rulesVersion: the override names \(named) but the scenario is recorded for \(scenario); review the scenario change"
        case .invalidRule(let version, let reason):
            return "rule \(version): \(reason)"
        case .invalidArgument(let name, let value, let reason):
            return "\(name): \(reason) (got \(value))"
        case .run(let reason):
            return reason
        case .unknownMetric(let path):
            return "unknown metric path '\(path)'"
        case .noData(let path):
            return "metric '\(path)': no replicate measured it"
        case .output(let folder, let reason):
            return "\(folder): \(reason)"
        }
    }
}
