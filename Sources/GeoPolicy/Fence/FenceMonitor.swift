/// The adapter between a location source and a fence rule (seed 000).
///
/// Per fix it validates (coordinate, accuracy, timestamp against the injected
/// `now` — never the system clock), computes the distance with the injected
/// `DistanceModel` (the same API production uses), updates a `FenceEvaluator`,
/// and emits a `FenceEvent` only on a valid state change: `determined` out of
/// `unknown`, `entered`, `exited`. A rejected fix changes nothing and emits
/// nothing; the same state is never announced twice. A value type: with logging
/// off, `process` allocates nothing.
public struct FenceMonitor<Rule: FenceRule, Model: DistanceModel>: Sendable {
    /// Fence centre.
    public let center: Coordinate
    /// Distance model used for every fix.
    public let distanceModel: Model
    /// Largest age in seconds (`now_s − timestamp_s`) of a fix that still counts; finite ≥ 0 or `.infinity`.
    public let maxAge_s: Double
    /// What the decision log keeps.
    public let logOptions: FenceLogOptions
    @usableFromInline var evaluator: FenceEvaluator<Rule>
    @usableFromInline var storedLog = FenceDecisionLog()
    @usableFromInline var sampleCount = 0
    @usableFromInline var lastEventId: UInt64 = 0
    @usableFromInline var order = OrderGate()

    /// - Parameters:
    ///   - center: fence centre.
    ///   - evaluator: rule, optional confirmation and starting state (normally `unknown`).
    ///   - distanceModel: e.g. `Haversine()`.
    ///   - maxAge_s: staleness limit in seconds, ≥ 0 (`.infinity` disables it).
    ///   - logging: `.decisions` (default), `.off` for the hot path, or `.decisionsWithCoordinates`.
    /// - Throws: `FenceRuleError` when `maxAge_s` is NaN or negative.
    public init(
        center: Coordinate, evaluator: FenceEvaluator<Rule>, distanceModel: Model,
        maxAge_s: Double, logging: FenceLogOptions = .decisions
    ) throws(FenceRuleError) {
        guard !maxAge_s.isNaN else { throw .notFinite(parameter: "maxAge_s", value: maxAge_s) }
        guard maxAge_s >= 0 else { throw .negative(parameter: "maxAge_s", value: maxAge_s) }
        self.center = center
        self.evaluator = evaluator
        self.distanceModel = distanceModel
        self.maxAge_s = maxAge_s
        self.logOptions = logging
    }

    /// The current state.
    @inlinable public var state: FenceState { evaluator.state }
    /// The rule in use.
    public var rule: Rule { evaluator.rule }
    /// Rules version of rule + confirmation, e.g. `hysteresis-80-120-acc30+confirm3`.
    public var rulesVersion: String { evaluator.rulesVersion }
    /// The decisions kept so far (empty when logging is off).
    public var log: FenceDecisionLog { storedLog }
    /// Number of fixes given to the monitor so far.
    public var samplesSeen: Int { sampleCount }

    /// Processes one fix at the injected time `now_s` (same clock as `fix.timestamp_s`).
    @inlinable
    public mutating func process(_ fix: Fix, now_s: Double) -> FenceDecision {
        let index = sampleCount
        sampleCount &+= 1
        let old = evaluator.state
        let a = fix.horizontalAccuracy_m
        guard fix.timestamp_s.isFinite, now_s.isFinite else {
            return record(index, .nan, a, old, old, .invalidTimestamp, nil, fix)
        }
        guard Coordinate.isValid(latitude: fix.latitude, longitude: fix.longitude) else {
            return record(index, .nan, a, old, old, .invalidCoordinate, nil, fix)
        }
        let c = Coordinate(computedLatitude: fix.latitude, longitude: fix.longitude)
        let d = distanceModel.distance_m(center, c)
        if let reason = rejection(fix, now_s: now_s) {
            return record(index, d, a, old, old, reason, nil, fix)
        }
        order.accept(fix)
        let new = evaluator.update(distance_m: d, accuracy_m: a, timestamp_s: fix.timestamp_s)
        var event: FenceEvent?
        if new != old, let kind = FenceMonitor.eventKind(old, new) {
            lastEventId &+= 1
            event = FenceEvent(
                id: lastEventId, kind: kind, previous: old, state: new,
                sampleIndex: index, timestamp_s: fix.timestamp_s)
        }
        return record(index, d, a, old, new, nil, event, fix)
    }

    /// The state after `fix`: exactly `process(fix, now_s:).newState`, with the monitor changed as
    /// `process` changes it, but the model's distance computed only when the decision depends on
    /// it. `bounds(c)` gives an interval the model's distance from `center` to `c` is known to lie
    /// in (`WGS84.distanceBounds(sphereDistance_m:)`); where the rule `decidesByDistanceIntervals`
    /// and decides the same at both ends, the distance is not computed. With logging on (the log
    /// holds every distance) this is `process`.
    @inlinable
    public mutating func processState(
        _ fix: Fix, now_s: Double, distanceBetween bounds: (Coordinate) -> (lower_m: Double, upper_m: Double)
    ) -> FenceState {
        guard !logOptions.enabled else { return process(fix, now_s: now_s).newState }
        sampleCount &+= 1
        let old = evaluator.state
        guard fix.timestamp_s.isFinite, now_s.isFinite,
            Coordinate.isValid(latitude: fix.latitude, longitude: fix.longitude)
        else { return old }
        if rejection(fix, now_s: now_s) != nil { return old }
        order.accept(fix)
        let c = Coordinate(computedLatitude: fix.latitude, longitude: fix.longitude)
        let a = fix.horizontalAccuracy_m
        let t = fix.timestamp_s
        let (lower, upper) = bounds(c)
        let new =
            evaluator.update(distanceBetween: lower, and: upper, accuracy_m: a, timestamp_s: t)
            ?? evaluator.update(distance_m: distanceModel.distance_m(center, c), accuracy_m: a, timestamp_s: t)
        if new != old, FenceMonitor.eventKind(old, new) != nil { lastEventId &+= 1 }
        return new
    }

    /// The location permission was revoked: the state returns to `unknown` (no event;
    /// the next determination emits `determined`). Order checks keep the last accepted fix.
    /// - Parameter now_s: the injected current time in seconds (part of the adapter's
    ///   interface so a caller records when it happened; the state change does not depend on it).
    @discardableResult
    public mutating func authorizationLost(now_s: Double) -> FenceDecision {
        let old = evaluator.state
        evaluator.reset(to: .unknown)
        let decision = FenceDecision(
            sampleIndex: nil, distance_m: .nan, accuracy_m: .nan,
            oldState: old, newState: .unknown, rejection: nil, event: nil)
        if logOptions.enabled { storedLog.entries.append(FenceLogEntry(decision: decision)) }
        return decision
    }

    /// The reason a fix with a valid coordinate is refused, or nil.
    @inlinable
    func rejection(_ fix: Fix, now_s: Double) -> RejectionReason? {
        if let reason = order.rejection(fix, now_s: now_s, maxAge_s: maxAge_s) { return reason }
        if fix.horizontalAccuracy_m > evaluator.rule.maxAccuracy_m { return .inaccurate }
        return nil
    }

    /// Records `fix` as refused for `reason` by a stage in front of the monitor
    /// (`FilteredFenceMonitor`): nothing changes but the sample count and the log.
    @usableFromInline
    mutating func reject(_ fix: Fix, reason: RejectionReason) -> FenceDecision {
        let index = sampleCount
        sampleCount &+= 1
        let old = evaluator.state
        var d = Double.nan
        if Coordinate.isValid(latitude: fix.latitude, longitude: fix.longitude) {
            d = distanceModel.distance_m(center, Coordinate(computedLatitude: fix.latitude, longitude: fix.longitude))
        }
        return record(index, d, fix.horizontalAccuracy_m, old, old, reason, nil, fix)
    }

    @inlinable
    static func eventKind(_ old: FenceState, _ new: FenceState) -> FenceEvent.Kind? {
        switch (old, new) {
        case (.unknown, .inside), (.unknown, .outside): return .determined
        case (.outside, .inside): return .entered
        case (.inside, .outside): return .exited
        default: return nil  // a rule returning `unknown` is logged but not announced
        }
    }

    @inlinable
    mutating func record(
        _ index: Int, _ d: Double, _ a: Double, _ old: FenceState, _ new: FenceState,
        _ reason: RejectionReason?, _ event: FenceEvent?, _ fix: Fix
    ) -> FenceDecision {
        let decision = FenceDecision(
            sampleIndex: index, distance_m: d, accuracy_m: a, oldState: old,
            newState: new, rejection: reason, event: event)
        if logOptions.enabled { appendLog(decision, fix) }
        return decision
    }

    @usableFromInline
    mutating func appendLog(_ decision: FenceDecision, _ fix: Fix) {
        let withCoordinates = logOptions.includeCoordinates
        storedLog.entries.append(
            FenceLogEntry(
                decision: decision,
                latitude: withCoordinates ? fix.latitude : nil,
                longitude: withCoordinates ? fix.longitude : nil))
    }
}

/// The checks of a fix that do not depend on its position or the rule: accuracy valid, not stale
/// against the injected `now`, not a duplicate of or older than the last accepted fix (in this order).
@usableFromInline
struct OrderGate: Sendable, Hashable {
    @usableFromInline var hasAccepted = false
    @usableFromInline var lastTimestamp_s = 0.0
    @usableFromInline var lastLatitude = 0.0
    @usableFromInline var lastLongitude = 0.0

    @inlinable init() {}

    /// The reason `fix` (finite timestamp, valid coordinate) is refused, or nil.
    @inlinable
    func rejection(_ fix: Fix, now_s: Double, maxAge_s: Double) -> RejectionReason? {
        let a = fix.horizontalAccuracy_m
        guard a.isFinite, a >= 0 else { return .invalidAccuracy }
        if now_s - fix.timestamp_s > maxAge_s { return .stale }
        if hasAccepted {
            if fix.timestamp_s == lastTimestamp_s, fix.latitude == lastLatitude, fix.longitude == lastLongitude {
                return .duplicate
            }
            if fix.timestamp_s <= lastTimestamp_s { return .outOfOrder }
        }
        return nil
    }

    @inlinable
    mutating func accept(_ fix: Fix) {
        hasAccepted = true
        lastTimestamp_s = fix.timestamp_s
        lastLatitude = fix.latitude
        lastLongitude = fix.longitude
    }
}

extension FenceMonitor where Model == Haversine {
    /// A monitor on the seeds' sphere (`Haversine()`, R = 6 371 000 m).
    public init(
        center: Coordinate, evaluator: FenceEvaluator<Rule>, maxAge_s: Double,
        logging: FenceLogOptions = .decisions
    ) throws(FenceRuleError) {
        try self.init(
            center: center, evaluator: evaluator, distanceModel: Haversine(),
            maxAge_s: maxAge_s, logging: logging)
    }
}

extension FenceMonitor: Equatable where Rule: Equatable, Model: Equatable {}
extension FenceMonitor: Hashable where Rule: Hashable, Model: Hashable {}
