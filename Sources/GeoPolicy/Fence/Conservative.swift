/// Accuracy-aware single-radius fence (seed 001): surely inside when d + a ≤ r,
/// surely outside when d − a > r, otherwise undetermined (the previous state is kept).
///
/// With d the distance, a the horizontal accuracy and r the radius, all in metres.
/// This is a conservative business decision, not a reading of `a` as a guaranteed
/// error bound (seed 001). A fix with a non-finite or negative distance or accuracy
/// leaves the state unchanged. From `unknown`, an undetermined fix stays `unknown`.
public struct Conservative: RadiusRule, Hashable {
    public let radius_m: Double

    /// - Throws: `FenceRuleError` when `radius_m` is negative or not finite.
    public init(radius_m: Double) throws(FenceRuleError) { self.radius_m = try Self.validRadius(radius_m) }

    public static var kind: String { "conservative" }

    /// Inside when d + a ≤ r, outside when d − a > r, else the previous state (undetermined).
    /// `.inside` where d + accuracy ≤ radius, `.outside` where d − accuracy > radius (both
    /// monotone in d, rounding included), else the previous state.
    public var decidesByDistanceIntervals: Bool { true }

    @inlinable
    public func decide(previous: FenceState, distance_m: Double, accuracy_m: Double) -> FenceState {
        if distance_m + accuracy_m <= radius_m { return .inside }
        if distance_m - accuracy_m > radius_m { return .outside }
        return previous
    }

    /// Seed 001's pure classification: `.inside` when d + a ≤ r, `.outside` when
    /// d − a > r, `.unknown` when undetermined or when any value is non-finite or negative.
    @inlinable
    public static func classify(distance_m: Double, accuracy_m: Double, radius_m: Double) -> FenceState {
        guard distance_m.isFinite, accuracy_m.isFinite, radius_m.isFinite,
            distance_m >= 0, accuracy_m >= 0, radius_m >= 0
        else { return .unknown }
        if distance_m + accuracy_m <= radius_m { return .inside }
        if distance_m - accuracy_m > radius_m { return .outside }
        return .unknown
    }
}
