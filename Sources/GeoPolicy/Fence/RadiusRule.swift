/// A fence of one radius that does not gate on accuracy: `Threshold`, `Conservative`.
///
/// The parts the two share live here once: the radius, its validation, the rules version
/// `KIND-R` and the rule that a fix which does not count leaves the state unchanged. Each
/// rule states only its decision for a fix that counts.
public protocol RadiusRule: FenceRule {
    /// Fence radius in metres (finite, ≥ 0).
    var radius_m: Double { get }

    /// The rule's word in `rulesVersion` (`threshold`, `conservative`).
    static var kind: String { get }

    /// The state after a fix that counts (distance and accuracy finite and ≥ 0).
    func decide(previous: FenceState, distance_m: Double, accuracy_m: Double) -> FenceState
}

extension RadiusRule {
    /// `KIND-R`, e.g. `threshold-500`, `conservative-100`.
    public var rulesVersion: String { "\(Self.kind)-\(versionNumber(radius_m))" }

    /// `.infinity`: accuracy is not a gate for these rules (`Threshold` ignores its value,
    /// `Conservative` turns a large one into "undetermined"); an invalid accuracy still does not count.
    public var maxAccuracy_m: Double { .infinity }

    @inlinable
    public func next(previous: FenceState, distance_m: Double, accuracy_m: Double) -> FenceState {
        guard counts(distance_m: distance_m, accuracy_m: accuracy_m) else { return previous }
        return decide(previous: previous, distance_m: distance_m, accuracy_m: accuracy_m)
    }

    /// `radius_m` when it is finite and ≥ 0 (for the rules' initialisers).
    static func validRadius(_ radius_m: Double) throws(FenceRuleError) -> Double {
        try FenceRuleError.requireNonNegative(radius_m, "radius_m")
        return radius_m
    }
}
