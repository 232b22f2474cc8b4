/// A rule chosen by name and parameters, as the CLI, scenario files and the
/// harness write it: `hysteresis:80:120:30`, `threshold:500`, `conservative:100`,
/// each optionally followed by a confirmation `+confirm3` (fixes), `+confirm10s` (seconds) or
/// both, `+confirm3+confirm10s` (3 agreeing fixes and 10 s since the first of them; either order).
///
/// `hysteresis` alone means the seed-000 defaults (80:120:30).
public enum RuleSpec: Sendable, Hashable, CustomStringConvertible {
    /// `Hysteresis(enter_m:exit_m:maxAccuracy_m:)` in metres.
    case hysteresis(enter_m: Double, exit_m: Double, maxAccuracy_m: Double, confirmation: Confirmation? = nil)
    /// `Threshold(radius_m:)` in metres.
    case threshold(radius_m: Double, confirmation: Confirmation? = nil)
    /// `Conservative(radius_m:)` in metres.
    case conservative(radius_m: Double, confirmation: Confirmation? = nil)

    /// The seed-000 rule: `hysteresis:80:120:30`, no confirmation.
    public static let `default` = RuleSpec.hysteresis(enter_m: 80, exit_m: 120, maxAccuracy_m: 30)

    /// The confirmation, if any.
    public var confirmation: Confirmation? {
        switch self {
        case .hysteresis(_, _, _, let c), .threshold(_, let c), .conservative(_, let c): return c
        }
    }

    /// The validated rule, without the confirmation.
    /// - Throws: `FenceRuleError` for invalid parameters.
    public func rule() throws(FenceRuleError) -> AnyFenceRule {
        switch self {
        case .hysteresis(let e, let x, let a, _):
            return .hysteresis(try Hysteresis(enter_m: e, exit_m: x, maxAccuracy_m: a))
        case .threshold(let r, _): return .threshold(try Threshold(radius_m: r))
        case .conservative(let r, _): return .conservative(try Conservative(radius_m: r))
        }
    }

    /// A fresh evaluator (rule + confirmation) starting at `initial`.
    /// - Throws: `FenceRuleError` for invalid parameters or confirmation.
    public func evaluator(initial: FenceState = .unknown) throws(FenceRuleError) -> FenceEvaluator<AnyFenceRule> {
        try FenceEvaluator(rule: try rule(), confirmation: confirmation, initial: initial)
    }

    /// The rules version of the evaluator this spec builds, e.g. `hysteresis-80-120-acc30+confirm3`.
    /// - Throws: `FenceRuleError` for invalid parameters.
    public func rulesVersion() throws(FenceRuleError) -> String {
        try evaluator().rulesVersion
    }

    /// The CLI form, which `parse` reads back: `hysteresis:80:120:30+confirm3`.
    public var description: String {
        let base: String
        switch self {
        case .hysteresis(let e, let x, let a, _):
            base = "hysteresis:\(versionNumber(e)):\(versionNumber(x)):\(versionNumber(a))"
        case .threshold(let r, _): base = "threshold:\(versionNumber(r))"
        case .conservative(let r, _): base = "conservative:\(versionNumber(r))"
        }
        return base + (confirmation.map { "+" + $0.description } ?? "")
    }

    /// Parses the CLI form and validates the parameters.
    /// - Throws: `RuleSpecError` naming the part of `text` that is wrong.
    public static func parse(_ text: String) throws(RuleSpecError) -> RuleSpec {
        let pieces = text.split(separator: "+", omittingEmptySubsequences: false).map(String.init)
        for part in pieces.dropFirst() where isInputStage(part) { throw .inputNotAccepted(spec: text, part: part) }
        guard pieces.count <= 3 else { throw .extraPart(spec: text, part: pieces[3]) }
        var confirmation: Confirmation? = pieces.count >= 2 ? try parseConfirmation(pieces[1], spec: text) : nil
        if pieces.count == 3 {
            // A second confirmation of the other kind: fixes and seconds together.
            switch (confirmation, try parseConfirmation(pieces[2], spec: text)) {
            case (.fixes(let n)?, .seconds(let t)), (.seconds(let t)?, .fixes(let n)):
                confirmation = .fixesAndSeconds(fixes: n, seconds: t)
            default: throw .extraPart(spec: text, part: pieces[2])
            }
        }
        let parts = pieces[0].split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let kind = parts[0]
        let values = Array(parts.dropFirst())
        let spec: RuleSpec
        switch kind {
        case "hysteresis":
            if values.isEmpty {
                spec = .hysteresis(enter_m: 80, exit_m: 120, maxAccuracy_m: 30, confirmation: confirmation)
            } else {
                let v = try numbers(values, names: ["ENTER_M", "EXIT_M", "MAX_ACCURACY_M"], kind: kind, spec: text)
                spec = .hysteresis(enter_m: v[0], exit_m: v[1], maxAccuracy_m: v[2], confirmation: confirmation)
            }
        case "threshold":
            spec = .threshold(
                radius_m: try numbers(values, names: ["RADIUS_M"], kind: kind, spec: text)[0],
                confirmation: confirmation)
        case "conservative":
            spec = .conservative(
                radius_m: try numbers(values, names: ["RADIUS_M"], kind: kind, spec: text)[0],
                confirmation: confirmation)
        default:
            throw .unknownKind(spec: text, kind: kind)
        }
        do {
            _ = try spec.evaluator()
        } catch {
            throw .invalidRule(spec: text, error)
        }
        return spec
    }

    private static func numbers(
        _ values: [String], names: [String], kind: String, spec: String
    ) throws(RuleSpecError) -> [Double] {
        guard values.count == names.count else {
            throw .parameterCount(spec: spec, kind: kind, expected: names, got: values.count)
        }
        var out: [Double] = []
        for (text, name) in zip(values, names) {
            guard let v = Double(text) else { throw .notANumber(spec: spec, parameter: name, part: text) }
            out.append(v)
        }
        return out
    }

    /// True for a spec part naming an input stage (`kalman`, `imm:0.5`, `raw`).
    static func isInputStage(_ part: String) -> Bool {
        FenceInput.Kind(rawValue: String(part.prefix { $0 != ":" })) != nil
    }

    private static func parseConfirmation(_ part: String, spec: String) throws(RuleSpecError) -> Confirmation {
        guard part.hasPrefix("confirm") else { throw .badConfirmation(spec: spec, part: part) }
        let body = part.dropFirst("confirm".count)
        if body.hasSuffix("s"), let t = Double(body.dropLast()) { return .seconds(t) }
        if let n = Int(body) { return .fixes(n) }
        throw .badConfirmation(spec: spec, part: part)
    }
}

/// Why a rule spec string was refused; every case names the offending part.
public enum RuleSpecError: Error, Sendable, Hashable, CustomStringConvertible {
    case unknownKind(spec: String, kind: String)
    case parameterCount(spec: String, kind: String, expected: [String], got: Int)
    case notANumber(spec: String, parameter: String, part: String)
    case badConfirmation(spec: String, part: String)
    case extraPart(spec: String, part: String)
    case invalidRule(spec: String, FenceRuleError)
    /// An input stage (`+kalman`, `+imm`) where only a rule is accepted (fixtures, engines).
    case inputNotAccepted(spec: String, part: String)
    /// A malformed input stage: `kalman:x`, `imm:-1`, `raw:2`.
    case badInput(spec: String, part: String)

    /// The same error naming `text` as the spec (for a part of a longer spec).
    func quoting(_ text: String) -> RuleSpecError {
        switch self {
        case .unknownKind(_, let k): return .unknownKind(spec: text, kind: k)
        case .parameterCount(_, let k, let e, let g): return .parameterCount(spec: text, kind: k, expected: e, got: g)
        case .notANumber(_, let p, let part): return .notANumber(spec: text, parameter: p, part: part)
        case .badConfirmation(_, let part): return .badConfirmation(spec: text, part: part)
        case .extraPart(_, let part): return .extraPart(spec: text, part: part)
        case .invalidRule(_, let e): return .invalidRule(spec: text, e)
        case .inputNotAccepted(_, let part): return .inputNotAccepted(spec: text, part: part)
        case .badInput(_, let part): return .badInput(spec: text, part: part)
        }
    }

    /// One line: the spec and its parts are echoed at most 80 characters, controls escaped.
    public var description: String {
        func c(_ t: String) -> String { ShownText.shown(t) }
        switch self {
        case .unknownKind(let s, let k):
            return "rule '\(c(s))': unknown kind '\(c(k))'; expected hysteresis, threshold or conservative"
        case .parameterCount(let s, let k, let e, let g):
            return "rule '\(c(s))': \(k) takes \(e.count) parameter(s) \(k):\(e.joined(separator: ":")), got \(g)"
        case .notANumber(let s, let p, let part):
            return "rule '\(c(s))': \(p) is not a number: '\(c(part))'"
        case .badConfirmation(let s, let part):
            return "rule '\(c(s))': confirmation must be confirmN (fixes) or confirmTs (seconds), got '\(c(part))'"
        case .extraPart(let s, let part):
            return
                "rule '\(c(s))': unexpected part '+\(c(part))'; at most one confirmation by fixes, one by seconds and one input stage"
        case .invalidRule(let s, let e):
            return "rule '\(c(s))': \(e)"
        case .inputNotAccepted(let s, let part):
            return
                "rule '\(c(s))': the input stage '+\(c(part))' is not accepted here; fixtures and engines decide on the fixes themselves"
        case .badInput(let s, let part):
            return
                "rule '\(c(s))': input must be raw, kalman, imm, kalman:Q or imm:Q with Q the process noise in m²/s³ (finite, > 0), got '\(c(part))'"
        }
    }
}
