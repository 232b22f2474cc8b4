extension AnyFenceRule {
    /// The largest distance, metres, at which a counting fix can move the rule out of `outside`:
    /// hysteresis `enter_m` (the band keeps the previous state), threshold and conservative
    /// `radius_m` (a conservative inside needs d + a ≤ r, so d ≤ r). Beyond it, a monitor that is
    /// `outside` with no change pending is unchanged by the fix, whatever its accuracy.
    public var entryReach_m: Double {
        switch self {
        case .hysteresis(let r): return r.enter_m
        case .threshold(let r): return r.radius_m
        case .conservative(let r): return r.radius_m
        }
    }
}

/// Every place of a set decided on the same delivered fixes, each by its own evaluator, visiting
/// per fix only the places that can change: those not at rest (`unknown`, `inside`, or a change
/// pending) and those whose entry reach contains the fix (`PlaceIndex`).
///
/// Decides exactly as one `FenceMonitor` (raw input) or `FilteredFenceMonitor` per place would:
/// the checks that do not depend on the place — timestamp, coordinate, accuracy, staleness,
/// duplicate, order, the rule's accuracy gate (one `maxAccuracy_m` for the set) and the input
/// filter — run once per fix, and the place's evaluator sees the same haversine distance. A place
/// at rest `outside` beyond its reach would propose `outside` (or not count) and keep its state
/// and its (empty) pending change, so skipping it changes nothing. Buffers are allocated once;
/// nothing is allocated per fix.
public struct PlaceSetMonitor: Sendable {
    public let centers: [Coordinate]
    public let maxAge_s: Double
    let maxAccuracy_m: Double
    let index: PlaceIndex
    var evaluators: [FenceEvaluator<AnyFenceRule>]
    var order = OrderGate()
    var innerOrder = OrderGate()
    var filter: InputFilter?
    /// Places not at rest, and a per-place mark of the fix that last visited them.
    var active: [Int32]
    var nextActive: [Int32] = []
    var isActive: [Bool]
    var visited: [UInt32]
    var stamp: UInt32 = 0
    var candidates: [Int32] = []
    let sphere = Haversine()

    /// - Parameters:
    ///   - centers: place centres.
    ///   - evaluators: one per place, each in its starting state, all with the same accuracy gate
    ///     (`maxAccuracy_m`; a place's radii never change it).
    ///   - input: `raw`, or a filter whose estimate every place decides on.
    ///   - maxAge_s: staleness limit in seconds, ≥ 0 (`.infinity` disables it).
    /// - Throws: `FenceRuleError` for a NaN or negative `maxAge_s`.
    public init(
        centers: [Coordinate], evaluators: [FenceEvaluator<AnyFenceRule>], input: FenceInput, maxAge_s: Double
    ) throws(FenceRuleError) {
        precondition(centers.count == evaluators.count, "one evaluator per place")
        guard !maxAge_s.isNaN else { throw .notFinite(parameter: "maxAge_s", value: maxAge_s) }
        guard maxAge_s >= 0 else { throw .negative(parameter: "maxAge_s", value: maxAge_s) }
        let gate = evaluators.first?.rule.maxAccuracy_m ?? .infinity
        precondition(evaluators.allSatisfy { $0.rule.maxAccuracy_m == gate }, "one accuracy gate for the set")
        self.centers = centers
        self.maxAge_s = maxAge_s
        self.maxAccuracy_m = gate
        self.evaluators = evaluators
        self.filter = input.makeFilter()
        index = PlaceIndex(centers: centers, reach_m: evaluators.map(\.rule.entryReach_m))
        let atRest = evaluators.map { $0.state == .outside && $0.pendingState == nil }
        isActive = atRest.map { !$0 }
        active = atRest.indices.filter { !atRest[$0] }.map { Int32($0) }
        active.reserveCapacity(centers.count)
        nextActive.reserveCapacity(centers.count)
        candidates.reserveCapacity(centers.count)
        visited = Array(repeating: 0, count: centers.count)
    }

    /// The state of place `i`.
    public func state(_ i: Int) -> FenceState { evaluators[i].state }

    /// Places visited by the last `process` (not at rest or within reach).
    public private(set) var lastVisited = 0

    /// Processes one fix at the injected time `now_s`; calls `changed(place, newState)` for every
    /// place whose state the fix changes.
    public mutating func process(_ fix: Fix, now_s: Double, changed: (Int, FenceState) -> Void) {
        lastVisited = 0
        guard let (c, a, t) = accepted(fix, now_s: now_s) else { return }
        stamp &+= 1
        if stamp == 0 {
            for i in visited.indices { visited[i] = 0 }
            stamp = 1
        }
        candidates.removeAll(keepingCapacity: true)
        for p in active {
            visited[Int(p)] = stamp
            candidates.append(p)
        }
        let s = stamp
        index.forEachCandidate(near: c) { p in
            if visited[p] != s {
                visited[p] = s
                candidates.append(Int32(p))
            }
        }
        nextActive.removeAll(keepingCapacity: true)
        for p32 in candidates {
            let p = Int(p32)
            let old = evaluators[p].state
            let new = evaluators[p].update(distance_m: sphere.distance_m(centers[p], c), accuracy_m: a, timestamp_s: t)
            if new != old { changed(p, new) }
            let rest = new == .outside && evaluators[p].pendingState == nil
            isActive[p] = !rest
            if !rest { nextActive.append(p32) }
        }
        lastVisited = candidates.count
        swap(&active, &nextActive)
    }

    /// The position, accuracy and time the evaluators see for `fix`, or nil when a check that
    /// does not depend on the place refuses it (the same checks, in the same order, as
    /// `FenceMonitor.process` or `FilteredFenceMonitor.process`).
    mutating func accepted(_ fix: Fix, now_s: Double) -> (Coordinate, Double, Double)? {
        guard fix.timestamp_s.isFinite, now_s.isFinite else { return nil }
        guard Coordinate.isValid(latitude: fix.latitude, longitude: fix.longitude) else { return nil }
        guard order.rejection(fix, now_s: now_s, maxAge_s: maxAge_s) == nil else { return nil }
        var seen = fix
        if filter != nil {
            let e: (position: Coordinate, accuracy_m: Double)
            do { e = try filter!.update(fix) } catch { return nil }
            order.accept(fix)
            seen = Fix(
                timestamp_s: fix.timestamp_s, latitude: e.position.latitude, longitude: e.position.longitude,
                horizontalAccuracy_m: e.accuracy_m)
            guard seen.timestamp_s.isFinite, Coordinate.isValid(latitude: seen.latitude, longitude: seen.longitude)
            else { return nil }
            guard innerOrder.rejection(seen, now_s: now_s, maxAge_s: maxAge_s) == nil,
                seen.horizontalAccuracy_m <= maxAccuracy_m
            else { return nil }
            innerOrder.accept(seen)
        } else {
            guard seen.horizontalAccuracy_m <= maxAccuracy_m else { return nil }
            order.accept(seen)
        }
        let c = Coordinate(computedLatitude: seen.latitude, longitude: seen.longitude)
        return (c, seen.horizontalAccuracy_m, seen.timestamp_s)
    }
}
