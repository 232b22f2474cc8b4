import GeoPolicy

extension EngineFence {
    /// The `fence` message for a rule spec, as docs/engine-protocol.md specifies it.
    package init(center: Coordinate, spec: RuleSpec) throws(FenceRuleError) {
        var rule: [String: EngineValue] = [:]
        switch spec {
        case .hysteresis(let e, let x, let a, _):
            rule = [
                "kind": .string("hysteresis"), "enter_m": .number(e), "exit_m": .number(x), "maxAccuracy_m": .number(a),
            ]
        case .threshold(let r, _):
            rule = ["kind": .string("threshold"), "radius_m": .number(r)]
        case .conservative(let r, _):
            rule = ["kind": .string("conservative"), "radius_m": .number(r)]
        }
        switch spec.confirmation {
        case .fixes(let n)?: rule["confirm_n"] = .number(Double(n))
        case .seconds(let s)?: rule["confirm_s"] = .number(s)
        case .fixesAndSeconds(let n, let s)?:
            rule["confirm_n"] = .number(Double(n))
            rule["confirm_s"] = .number(s)
        case nil: break
        }
        self.init(center: center, rule: rule, rulesVersion: try spec.rulesVersion())
    }

    /// The rule spec described by a `fence` message's `rule` object (the built-in engine's side).
    package func ruleSpec() throws(EngineServerError) -> RuleSpec {
        func number(_ key: String) throws(EngineServerError) -> Double {
            guard let v = rule[key]?.double else { throw .badFence("rule.\(key) missing or not a number") }
            return v
        }
        var confirmation: Confirmation?
        if let n = rule["confirm_n"]?.double {
            guard let fixes = Int(exactly: n), fixes >= 1 else {
                throw .badFence("rule.confirm_n must be a whole number ≥ 1, got \(n)")
            }
            confirmation = .fixes(fixes)
        }
        if let s = rule["confirm_s"]?.double {
            if case .fixes(let n)? = confirmation {
                confirmation = .fixesAndSeconds(fixes: n, seconds: s)
            } else {
                confirmation = .seconds(s)
            }
        }
        switch rule["kind"]?.string {
        case "hysteresis":
            return .hysteresis(
                enter_m: try number("enter_m"), exit_m: try number("exit_m"),
                maxAccuracy_m: try number("maxAccuracy_m"), confirmation: confirmation)
        case "threshold": return .threshold(radius_m: try number("radius_m"), confirmation: confirmation)
        case "conservative": return .conservative(radius_m: try number("radius_m"), confirmation: confirmation)
        default: throw .badFence("rule.kind must be hysteresis, threshold or conservative")
        }
    }
}
