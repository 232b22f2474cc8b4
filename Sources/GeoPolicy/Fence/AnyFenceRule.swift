/// One of the built-in rules, dispatched by a `switch` (no existential, no allocation).
///
/// What `RuleSpec` builds, so that the harness and the CLI can pick a rule at run
/// time and still evaluate it at full speed.
public enum AnyFenceRule: FenceRule, Hashable, CustomStringConvertible {
    case hysteresis(Hysteresis)
    case threshold(Threshold)
    case conservative(Conservative)

    public var rulesVersion: String {
        switch self {
        case let .hysteresis(r): return r.rulesVersion
        case let .threshold(r): return r.rulesVersion
        case let .conservative(r): return r.rulesVersion
        }
    }

    public var maxAccuracy_m: Double {
        switch self {
        case let .hysteresis(r): return r.maxAccuracy_m
        case let .threshold(r): return r.maxAccuracy_m
        case let .conservative(r): return r.maxAccuracy_m
        }
    }

    @inlinable
    public func next(previous: FenceState, distance_m: Double, accuracy_m: Double) -> FenceState {
        switch self {
        case let .hysteresis(r): return r.next(previous: previous, distance_m: distance_m, accuracy_m: accuracy_m)
        case let .threshold(r): return r.next(previous: previous, distance_m: distance_m, accuracy_m: accuracy_m)
        case let .conservative(r): return r.next(previous: previous, distance_m: distance_m, accuracy_m: accuracy_m)
        }
    }

    public var description: String { rulesVersion }
}
