/// Single-radius fence (seed 001 `isInside`): inside when distance ≤ `radius_m`, else outside.
///
/// Accuracy: this rule does not gate on the accuracy value (`maxAccuracy_m` is
/// `.infinity`, so a 1 km accuracy still decides), but a fix whose accuracy is
/// invalid (NaN, infinite or negative such as iOS's −1) does not count and leaves the
/// state unchanged, like any invalid fix. Use `Hysteresis` or `Conservative`
/// when accuracy should matter. A non-finite or negative distance leaves the
/// state unchanged (it is "not inside" without being proof of "outside").
public struct Threshold: RadiusRule, Hashable {
    public let radius_m: Double

    /// - Throws: `FenceRuleError` when `radius_m` is negative or not finite.
    public init(radius_m: Double) throws(FenceRuleError) { self.radius_m = try Self.validRadius(radius_m) }

    public static var kind: String { "threshold" }

    /// Inside when `distance_m <= radius_m` (equality inside), else outside.
    /// `.inside` at d ≤ radius, else `.outside`.
    public var decidesByDistanceIntervals: Bool { true }

    @inlinable
    public func decide(previous: FenceState, distance_m: Double, accuracy_m: Double) -> FenceState {
        distance_m <= radius_m ? .inside : .outside
    }

    /// Seed 001's pure boundary check: `distance_m <= radius_m`, equality inside;
    /// false when either value is non-finite or negative. Never decide from a rounded string.
    @inlinable
    public static func isInside(distance_m: Double, radius_m: Double) -> Bool {
        guard distance_m.isFinite, radius_m.isFinite, distance_m >= 0, radius_m >= 0 else { return false }
        return distance_m <= radius_m
    }
}
