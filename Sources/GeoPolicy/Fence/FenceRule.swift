/// A pure fence decision rule: the next state from the previous one and one fix.
///
/// Rules are small value types without side effects, clocks or I/O, so the
/// harness can run them at ≥ 10⁷ fixes/s and an app can ship the same code.
/// A fix that does not count (see `counts(distance_m:accuracy_m:)`) must leave
/// the state unchanged (seed 000: "an invalid fix changes nothing").
public protocol FenceRule: Sendable {
    /// A stable string derived from the rule's parameters, e.g. `hysteresis-80-120-acc30`.
    /// Fixtures carry it; when it changes, their expected results must be reviewed.
    var rulesVersion: String { get }

    /// The largest horizontal accuracy (metres) for which a fix counts; `.infinity` when
    /// the rule does not gate on accuracy. The monitor reports larger values as `inaccurate`.
    var maxAccuracy_m: Double { get }

    /// The state after one fix.
    /// - Parameters:
    ///   - previous: the state before the fix.
    ///   - distance_m: distance from the fence centre in metres; counts only when finite and ≥ 0.
    ///   - accuracy_m: horizontal accuracy in metres; counts only when finite and within 0…`maxAccuracy_m`.
    func next(previous: FenceState, distance_m: Double, accuracy_m: Double) -> FenceState

    /// True when, for every `previous` and `accuracy_m`, `next` over the counting distances is
    /// `.inside` on a set closed downwards (every smaller distance is in it too), `.outside` on a
    /// set closed upwards, and `previous` between them (each part may be empty). Then `next` is
    /// the same at every distance of an interval where it is the same at both ends, and a
    /// monitor that only knows an interval the distance lies in can decide without the distance
    /// (`FenceMonitor.processState(_:now_s:distanceBetween:)`). False by default.
    var decidesByDistanceIntervals: Bool { get }
}

extension FenceRule {
    /// Unknown for a rule that does not say: false.
    public var decidesByDistanceIntervals: Bool { false }
}

extension FenceRule {
    /// True when a fix may change the state: distance finite and ≥ 0, accuracy finite
    /// and within 0…`maxAccuracy_m` (seed 000). Accuracy is a measurement quality, never
    /// an offset to subtract (except in `Conservative`, which is defined that way by seed 001).
    @inlinable
    public func counts(distance_m: Double, accuracy_m: Double) -> Bool {
        distance_m.isFinite && distance_m >= 0
            && accuracy_m.isFinite && accuracy_m >= 0 && accuracy_m <= maxAccuracy_m
    }
}

/// Why a fence rule, confirmation or monitor could not be built.
public enum FenceRuleError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A parameter is NaN or infinite.
    case notFinite(parameter: String, value: Double)
    /// A parameter that must be ≥ 0 is negative.
    case negative(parameter: String, value: Double)
    /// The exit radius of a hysteresis must be strictly larger than the enter radius.
    case exitNotAboveEnter(enter_m: Double, exit_m: Double)
    /// A confirmation by count needs at least one fix.
    case confirmationCount(Int)

    public var description: String {
        switch self {
        case .notFinite(let p, let v): return "\(p) must be finite, got \(v)"
        case .negative(let p, let v): return "\(p) must be >= 0, got \(v)"
        case .exitNotAboveEnter(let e, let x): return "exit_m (\(x)) must be greater than enter_m (\(e))"
        case .confirmationCount(let n): return "confirmation needs at least 1 fix, got \(n)"
        }
    }

    /// Checks that `value` is finite and ≥ 0, naming `parameter` otherwise.
    static func requireNonNegative(_ value: Double, _ parameter: String) throws(FenceRuleError) {
        guard value.isFinite else { throw .notFinite(parameter: parameter, value: value) }
        guard value >= 0 else { throw .negative(parameter: parameter, value: value) }
    }
}

/// Formats a rule parameter for a `rulesVersion`: integers without a fraction
/// (`80`), other values in Swift's shortest round-trip form (`80.5`).
func versionNumber(_ x: Double) -> String {
    if x.isFinite, x == x.rounded(.towardZero), Swift.abs(x) < 1e15 { return String(Int64(x)) }
    return "\(x)"
}
