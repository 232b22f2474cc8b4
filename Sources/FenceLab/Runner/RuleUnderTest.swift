import GeoPolicy

/// A fence rule that can say which circles the report's track plot draws.
///
/// The built-in rules conform; a team's rule may conform so that `index.html` draws its
/// radii instead of the scenario's `fence.rule`.
public protocol PlottableFenceRule: FenceRule {
    /// Inner (enter) and outer (exit) radius in metres to draw, finite, 0 < enter ≤ exit;
    /// equal for single-radius rules.
    var plotRadii_m: (enter_m: Double, exit_m: Double) { get }
}

extension Hysteresis: PlottableFenceRule {
    /// Enter and exit radius.
    public var plotRadii_m: (enter_m: Double, exit_m: Double) { (enter_m, exit_m) }
}

extension Threshold: PlottableFenceRule {
    /// The radius twice.
    public var plotRadii_m: (enter_m: Double, exit_m: Double) { (radius_m, radius_m) }
}

extension Conservative: PlottableFenceRule {
    /// The radius twice.
    public var plotRadii_m: (enter_m: Double, exit_m: Double) { (radius_m, radius_m) }
}

extension AnyFenceRule: PlottableFenceRule {
    /// The radii of the wrapped rule.
    public var plotRadii_m: (enter_m: Double, exit_m: Double) {
        switch self {
        case .hysteresis(let r): return r.plotRadii_m
        case .threshold(let r): return r.plotRadii_m
        case .conservative(let r): return r.plotRadii_m
        }
    }
}

/// The rule a run decides fences with, generic over the rule type so that the pipeline
/// (`ReplicateEvaluation`, `FenceDecisions`) serves the built-in rules (`AnyFenceRule`,
/// specialised, full speed) and a team's own `FenceRule` alike.
///
/// `evaluator` is a template in its initial state: each replicate copies it (a value type),
/// so every work item starts fresh and items stay independent.
package struct RuleUnderTest<Rule: FenceRule>: Sendable {
    /// Rule + confirmation in the initial state (`unknown`).
    var evaluator: FenceEvaluator<Rule>
    /// Caption text for plots, e.g. `hysteresis:80:120:30` or a rules version.
    var label: String
    /// The built-in rule spec, needed to describe the fence to an external engine; nil for a
    /// custom rule (which cannot be sent over the engine protocol).
    var engineSpec: RuleSpec?
    /// What the rule decides on: raw fixes (default) or a filter's estimates.
    var input: FenceInput = .raw

    /// The rules version of rule + confirmation + input stage.
    var rulesVersion: String { evaluator.rulesVersion + input.versionSuffix }

    /// Radii to draw: the rule's own when it is plottable, else nil (the scenario's are used).
    var plotRadii_m: (enter_m: Double, exit_m: Double)? {
        (evaluator.rule as? any PlottableFenceRule)?.plotRadii_m
    }
}

extension RuleUnderTest where Rule == AnyFenceRule {
    /// The built-in rule of a `RuleSpec` (what scenario files and the CLI name).
    init(spec: RuleSpec) throws(FenceRuleError) {
        self.init(evaluator: try spec.evaluator(), label: spec.description, engineSpec: spec)
    }

    /// The built-in rule of a `RuleSpec` deciding on `input`.
    package init(spec: RuleSpec, input: FenceInput) throws(FenceRuleError) {
        let setup = FenceSetup(rule: spec, input: input)
        self.init(evaluator: try spec.evaluator(), label: setup.description, engineSpec: spec, input: input)
    }
}
