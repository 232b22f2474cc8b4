import GeoPolicy

/// A `FenceRule` made from a closure, for a team whose decision logic is a function
/// rather than a type (or lives behind a bridge).
///
/// The closure receives the previous state, the distance from the fence centre and the
/// reported accuracy of a fix that counts (`FenceEvaluator` has already checked that the
/// distance is finite and ≥ 0 and the accuracy finite and within 0…`maxAccuracy_m`; other
/// fixes never reach it and leave the state unchanged). It must be pure: no clock, no I/O,
/// no state of its own — the harness calls it from several threads at once and on the
/// noiseless truth as well as on the noisy fixes.
///
/// ```swift
/// let rule = ClosureRule(rulesVersion: "team-radius-100", maxAccuracy_m: 25) { previous, distance_m, _ in
///     distance_m <= 100 ? .inside : .outside
/// }
/// ```
public struct ClosureRule: FenceRule {
    /// The rule's version string (non-empty); fixtures and reports carry it, and
    /// `RuleLab.run` compares it with the scenario's `rulesVersion`.
    public let rulesVersion: String
    /// The largest horizontal accuracy in metres for which a fix counts (≥ 0, or `.infinity`
    /// for no accuracy gate); larger ones are rejected as `inaccurate`.
    public let maxAccuracy_m: Double
    private let body: @Sendable (FenceState, Double, Double) -> FenceState

    /// - Parameters:
    ///   - rulesVersion: a stable, non-empty string that changes whenever the logic changes.
    ///   - maxAccuracy_m: accuracy gate in metres, ≥ 0 or `.infinity` (default: no gate).
    ///   - next: `(previous, distance_m, accuracy_m) -> state`, called only for counting fixes.
    /// - Throws: `LabError.invalidArgument` for an empty version or a negative/NaN gate.
    public init(
        rulesVersion: String, maxAccuracy_m: Double = .infinity,
        next: @escaping @Sendable (_ previous: FenceState, _ distance_m: Double, _ accuracy_m: Double) -> FenceState
    )
        throws(LabError)
    {
        guard !rulesVersion.isEmpty else {
            throw .invalidArgument(name: "rulesVersion", value: "\"\"", reason: "must not be empty")
        }
        guard !maxAccuracy_m.isNaN, maxAccuracy_m >= 0 else {
            throw .invalidArgument(
                name: "maxAccuracy_m", value: "\(maxAccuracy_m)", reason: "must be >= 0 or .infinity")
        }
        self.rulesVersion = rulesVersion
        self.maxAccuracy_m = maxAccuracy_m
        self.body = next
    }

    /// Calls the closure for a counting fix; a fix that does not count leaves `previous`.
    public func next(previous: FenceState, distance_m: Double, accuracy_m: Double) -> FenceState {
        guard counts(distance_m: distance_m, accuracy_m: accuracy_m) else { return previous }
        return body(previous, distance_m, accuracy_m)
    }
}
