import GeoPolicy

/// The team's geofence rule, as its app ships it: a hysteresis with its own radii, a
/// stricter accuracy gate than seed 000's, and a minimum dwell time before any change.
///
/// A counting fix (distance finite ≥ 0, accuracy within 0…`maxAccuracy_m`) proposes
/// `inside` at distance ≤ `enter_m`, `outside` at distance ≥ `exit_m`, and the previous
/// state in between. The dwell is not part of `next` (a `FenceRule` sees one fix at a
/// time, no clock): it is the `.seconds(dwell_s)` confirmation of GeoPolicy's
/// `FenceEvaluator`, so a proposed change is taken only when counting fixes keep proposing
/// it for `dwell_s` seconds (like Android's loitering delay). `evaluator()` builds both.
public struct DwellRule: FenceRule, Hashable {
    /// Enter radius in metres (finite, ≥ 0).
    public let enter_m: Double
    /// Exit radius in metres (finite, > `enter_m`).
    public let exit_m: Double
    /// Largest reported accuracy in metres for which a fix counts (finite, ≥ 0).
    public let maxAccuracy_m: Double
    /// Minimum time in seconds a new state must be proposed before it is taken (finite, ≥ 0).
    public let dwell_s: Double

    /// The parameters the app ships: enter 75 m, exit 125 m, accuracy ≤ 20 m, dwell 10 s.
    public static let shipped = DwellRule(unchecked: 75, 125, 20, 10)

    /// - Throws: `DwellRuleError` naming the parameter when one is negative or not finite,
    ///   or when `exit_m ≤ enter_m`.
    public init(enter_m: Double, exit_m: Double, maxAccuracy_m: Double, dwell_s: Double) throws(DwellRuleError) {
        for (name, value) in [
            ("enter_m", enter_m), ("exit_m", exit_m), ("maxAccuracy_m", maxAccuracy_m), ("dwell_s", dwell_s),
        ] {
            guard value.isFinite, value >= 0 else { throw .invalid(parameter: name, value: value) }
        }
        guard exit_m > enter_m else { throw .exitNotAboveEnter(enter_m: enter_m, exit_m: exit_m) }
        self.init(unchecked: enter_m, exit_m, maxAccuracy_m, dwell_s)
    }

    private init(unchecked enter_m: Double, _ exit_m: Double, _ maxAccuracy_m: Double, _ dwell_s: Double) {
        self.enter_m = enter_m
        self.exit_m = exit_m
        self.maxAccuracy_m = maxAccuracy_m
        self.dwell_s = dwell_s
    }

    /// `team-dwell-ENTER-EXIT-accMAX`; the evaluator appends the dwell (`+confirm10s`).
    public var rulesVersion: String {
        "team-dwell-\(Self.text(enter_m))-\(Self.text(exit_m))-acc\(Self.text(maxAccuracy_m))"
    }

    /// The dwell as a GeoPolicy confirmation.
    public var dwell: Confirmation { .seconds(dwell_s) }

    /// The stateful evaluator the app runs per fence: this rule plus its dwell, starting `unknown`.
    public func evaluator() throws(FenceRuleError) -> FenceEvaluator<DwellRule> {
        try FenceEvaluator(rule: self, confirmation: dwell)
    }

    /// The proposed state after one fix (no dwell; see the type's summary).
    public func next(previous: FenceState, distance_m: Double, accuracy_m: Double) -> FenceState {
        guard counts(distance_m: distance_m, accuracy_m: accuracy_m) else { return previous }
        if distance_m <= enter_m { return .inside }
        if distance_m >= exit_m { return .outside }
        return previous
    }

    /// Integers without a fraction (`75`), other values in Swift's shortest form (`75.5`).
    private static func text(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e15 ? String(Int64(x)) : "\(x)"
    }
}

/// Why a `DwellRule` could not be built.
public enum DwellRuleError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A parameter is negative, NaN or infinite.
    case invalid(parameter: String, value: Double)
    /// The exit radius must be strictly larger than the enter radius.
    case exitNotAboveEnter(enter_m: Double, exit_m: Double)

    /// One line naming the parameter and the value.
    public var description: String {
        switch self {
        case .invalid(let p, let v): return "\(p) must be finite and >= 0, got \(v)"
        case .exitNotAboveEnter(let e, let x): return "exit_m (\(x)) must be greater than enter_m (\(e))"
        }
    }
}
