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
        case .hysteresis(let r): return r.rulesVersion
        case .threshold(let r): return r.rulesVersion
        case .conservative(let r): return r.rulesVersion
        }
    }

    public var maxAccuracy_m: Double {
        switch self {
        case .hysteresis(let r): return r.maxAccuracy_m
        case .threshold(let r): return r.maxAccuracy_m
        case .conservative(let r): return r.maxAccuracy_m
        }
    }

    public var decidesByDistanceIntervals: Bool {
        switch self {
        case .hysteresis(let r): return r.decidesByDistanceIntervals
        case .threshold(let r): return r.decidesByDistanceIntervals
        case .conservative(let r): return r.decidesByDistanceIntervals
        }
    }

    @inlinable
    public func next(previous: FenceState, distance_m: Double, accuracy_m: Double) -> FenceState {
        switch self {
        case .hysteresis(let r): return r.next(previous: previous, distance_m: distance_m, accuracy_m: accuracy_m)
        case .threshold(let r): return r.next(previous: previous, distance_m: distance_m, accuracy_m: accuracy_m)
        case .conservative(let r): return r.next(previous: previous, distance_m: distance_m, accuracy_m: accuracy_m)
        }
    }

    public var description: String { rulesVersion }
}
