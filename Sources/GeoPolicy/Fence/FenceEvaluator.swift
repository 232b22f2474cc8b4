/// How long a proposed state change must persist before it is taken
/// (like Android's geofence loitering delay).
public enum Confirmation: Sendable, Hashable, CustomStringConvertible {
    /// N consecutive counting fixes (N ≥ 1) that each propose the same new state.
    case fixes(Int)
    /// The same new state proposed by counting fixes spanning at least T seconds
    /// (T finite, ≥ 0): from the first proposing fix to the current one.
    case seconds(Double)
    /// Both at once: N consecutive counting fixes proposing the same new state (N ≥ 1) AND at
    /// least T seconds (T finite, ≥ 0) from the first of them to the current one. The change is
    /// taken at the first fix that satisfies both; `.fixesAndSeconds(n, 0)` decides as
    /// `.fixes(n)` and `.fixesAndSeconds(1, t)` as `.seconds(t)` (their rules versions differ).
    case fixesAndSeconds(fixes: Int, seconds: Double)

    /// The suffix appended to a rule's `rulesVersion`: `+confirm3`, `+confirm10s`,
    /// `+confirm3+confirm10s` (fixes first).
    public var versionSuffix: String {
        switch self {
        case .fixes(let n): return "+confirm\(n)"
        case .seconds(let t): return "+confirm\(versionNumber(t))s"
        case .fixesAndSeconds(let n, let t): return "+confirm\(n)+confirm\(versionNumber(t))s"
        }
    }

    /// `confirm3`, `confirm10s` or `confirm3+confirm10s`, the form `RuleSpec` parses.
    public var description: String { String(versionSuffix.dropFirst()) }

    /// The fix count a change needs (1 for `.seconds`).
    public var requiredFixes: Int {
        switch self {
        case .fixes(let n), .fixesAndSeconds(let n, _): return n
        case .seconds: return 1
        }
    }

    /// The seconds a change needs from its first proposing fix, or nil for `.fixes`.
    public var requiredDuration_s: Double? {
        switch self {
        case .fixes: return nil
        case .seconds(let t), .fixesAndSeconds(_, let t): return t
        }
    }

    /// - Throws: `FenceRuleError` for a count < 1 or a negative or non-finite duration.
    public func validate() throws(FenceRuleError) {
        if requiredFixes < 1 { throw .confirmationCount(requiredFixes) }
        if let t = requiredDuration_s { try FenceRuleError.requireNonNegative(t, "confirmation seconds") }
    }
}

/// A rule plus its state and an optional confirmation: the stateful per-fix evaluator.
///
/// Algorithm: a fix that does not count (`FenceRule.counts`) changes nothing, not
/// even a pending confirmation. A counting fix proposes `rule.next(previous: state, …)`.
/// A proposal equal to the current state cancels any pending change. Without a
/// confirmation a different proposal is taken at once; with one it becomes pending
/// and is taken when N consecutive proposals agree (`.fixes`), when agreeing proposals span
/// T seconds (`.seconds`), or when both hold (`.fixesAndSeconds`). A different new proposal
/// restarts the count and the clock. Value type of scalars:
/// no allocation per fix.
public struct FenceEvaluator<Rule: FenceRule>: Sendable {
    /// The decision rule.
    public let rule: Rule
    /// The confirmation, or nil for immediate changes.
    public let confirmation: Confirmation?
    /// The current (confirmed) state.
    @inlinable public var state: FenceState { current }
    @usableFromInline var current: FenceState
    @usableFromInline var pending: FenceState = .unknown
    @usableFromInline var pendingCount: Int = 0
    @usableFromInline var pendingSince_s: Double = 0
    @usableFromInline let requiredFixes: Int
    @usableFromInline let requiredDuration_s: Double
    @usableFromInline let confirms: Bool
    @usableFromInline let byTime: Bool

    /// - Parameters:
    ///   - rule: the decision rule.
    ///   - confirmation: optional confirmation; nil changes state on the first proposing fix.
    ///   - initial: the starting state, `unknown` unless a fixture or test says otherwise.
    /// - Throws: `FenceRuleError` for an invalid confirmation.
    public init(rule: Rule, confirmation: Confirmation? = nil, initial: FenceState = .unknown) throws(FenceRuleError) {
        try confirmation?.validate()
        self.rule = rule
        self.confirmation = confirmation
        self.current = initial
        let n = confirmation?.requiredFixes ?? 1
        let t = confirmation?.requiredDuration_s
        (requiredFixes, requiredDuration_s) = (n, t ?? 0)
        confirms = n > 1 || (t ?? 0) > 0
        byTime = t != nil
    }

    /// The rule's version plus the confirmation suffix, e.g. `hysteresis-80-120-acc30+confirm3`.
    public var rulesVersion: String { rule.rulesVersion + (confirmation?.versionSuffix ?? "") }

    /// The state a pending change would lead to, or nil when none is pending.
    public var pendingState: FenceState? { pendingCount > 0 ? pending : nil }

    /// Feeds one fix and returns the (possibly unchanged) state.
    /// - Parameters:
    ///   - distance_m: distance from the fence centre in metres.
    ///   - accuracy_m: horizontal accuracy in metres.
    ///   - timestamp_s: time of the fix in seconds; used only by `.seconds` and `.fixesAndSeconds`
    ///     (the caller, e.g. `FenceMonitor`, guarantees finite increasing timestamps;
    ///     a NaN timestamp never confirms a time-based change).
    @inlinable
    public mutating func update(distance_m: Double, accuracy_m: Double, timestamp_s: Double) -> FenceState {
        guard rule.counts(distance_m: distance_m, accuracy_m: accuracy_m) else { return current }
        let proposal = rule.next(previous: current, distance_m: distance_m, accuracy_m: accuracy_m)
        if proposal == current {
            pendingCount = 0
            return current
        }
        if !confirms {
            current = proposal
            return current
        }
        if pendingCount == 0 || proposal != pending {
            pending = proposal
            pendingCount = 1
            pendingSince_s = timestamp_s
        } else {
            pendingCount &+= 1
        }
        // `.seconds` needs 1 fix (always met here); `.fixes` has no clock.
        let confirmed =
            pendingCount >= requiredFixes && (!byTime || timestamp_s - pendingSince_s >= requiredDuration_s)
        if confirmed {
            current = proposal
            pendingCount = 0
        }
        return current
    }

    /// `update(distance_m:accuracy_m:timestamp_s:)` for a distance known only to lie in
    /// `lower_m...upper_m` (0 ≤ lower ≤ upper, finite): when the rule `decidesByDistanceIntervals`
    /// and proposes the same state at both ends, that is its proposal at every distance between
    /// them, and the update is made exactly as with the distance; otherwise nothing changes and
    /// the result is nil (the caller then computes the distance).
    @inlinable
    public mutating func update(
        distanceBetween lower_m: Double, and upper_m: Double, accuracy_m: Double, timestamp_s: Double
    ) -> FenceState? {
        guard rule.decidesByDistanceIntervals, lower_m >= 0, lower_m <= upper_m, upper_m.isFinite else { return nil }
        let proposal = rule.next(previous: current, distance_m: lower_m, accuracy_m: accuracy_m)
        guard rule.next(previous: current, distance_m: upper_m, accuracy_m: accuracy_m) == proposal else { return nil }
        // Every distance of the interval counts or none does (finite, ≥ 0): the accuracy decides.
        return update(distance_m: lower_m, accuracy_m: accuracy_m, timestamp_s: timestamp_s)
    }

    /// Sets the state (e.g. `unknown` after an authorization loss) and drops any pending change.
    public mutating func reset(to state: FenceState = .unknown) {
        current = state
        pendingCount = 0
    }
}

extension FenceEvaluator: Equatable where Rule: Equatable {}
extension FenceEvaluator: Hashable where Rule: Hashable {}
