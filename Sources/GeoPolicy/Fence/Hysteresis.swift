/// Three-state hysteresis fence (seed 000): inside at distance ≤ `enter_m`,
/// outside at distance ≥ `exit_m`, the previous state in between.
///
/// A fix counts only when the distance is finite and ≥ 0 and the accuracy is
/// finite and within 0…`maxAccuracy_m`; otherwise the state is unchanged. In the
/// band between the radii `unknown` stays `unknown` (first start is never
/// "outside" by default). Boundaries are inclusive on both sides (`d == enter_m`
/// is inside, `d == exit_m` is outside).
public struct Hysteresis: FenceRule, Hashable {
    /// Enter radius in metres (finite, ≥ 0).
    public let enter_m: Double
    /// Exit radius in metres (finite, > `enter_m`).
    public let exit_m: Double
    /// Largest accuracy in metres for which a fix counts (finite, ≥ 0).
    public let maxAccuracy_m: Double

    /// The seed-000 defaults: enter 80 m, exit 120 m, accuracy ≤ 30 m.
    public static let seedDefault = Hysteresis(unchecked: 80, 120, 30)

    /// - Throws: `FenceRuleError` for a negative or non-finite parameter or `exit_m ≤ enter_m`.
    public init(enter_m: Double, exit_m: Double, maxAccuracy_m: Double) throws(FenceRuleError) {
        try FenceRuleError.requireNonNegative(enter_m, "enter_m")
        try FenceRuleError.requireNonNegative(exit_m, "exit_m")
        try FenceRuleError.requireNonNegative(maxAccuracy_m, "maxAccuracy_m")
        guard exit_m > enter_m else { throw .exitNotAboveEnter(enter_m: enter_m, exit_m: exit_m) }
        self.init(unchecked: enter_m, exit_m, maxAccuracy_m)
    }

    private init(unchecked enter_m: Double, _ exit_m: Double, _ maxAccuracy_m: Double) {
        self.enter_m = enter_m
        self.exit_m = exit_m
        self.maxAccuracy_m = maxAccuracy_m
    }

    /// `hysteresis-ENTER-EXIT-accMAX`, e.g. `hysteresis-80-120-acc30`.
    public var rulesVersion: String {
        "hysteresis-\(versionNumber(enter_m))-\(versionNumber(exit_m))-acc\(versionNumber(maxAccuracy_m))"
    }

    /// `.inside` at d ≤ enter, `.outside` at d ≥ exit, else the previous state.
    public var decidesByDistanceIntervals: Bool { true }

    @inlinable
    public func next(previous: FenceState, distance_m: Double, accuracy_m: Double) -> FenceState {
        guard counts(distance_m: distance_m, accuracy_m: accuracy_m) else { return previous }
        if distance_m <= enter_m { return .inside }
        if distance_m >= exit_m { return .outside }
        return previous
    }
}
