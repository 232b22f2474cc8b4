import GeoPolicy

/// The per-drive inputs of the sweep's inner loop, computed once per drive into contiguous
/// arrays so that a grid point costs one tight scan and no distance computation.
///
/// Per delivered fix: the injected `now`, the fix time, the Haversine distance from the fence
/// centre (the `FenceMonitor` formula: `Haversine().distance_m(center, fix)`) and the accuracy
/// gate input. Fixes every monitor refuses whatever the rule (invalid time or coordinate,
/// non-finite or negative accuracy) carry accuracy NaN, which no gate `a ≤ maxAccuracy_m`
/// passes; staleness (`now − time > maxAge_s`) is checked in the scan because `maxAge_s` is a
/// sweep setting. Duplicate and out-of-order fixes are one test in the scan: a fix is refused
/// when its time is not after the last accepted fix's (a duplicate has the same time).
public struct SweepFixArrays: Sendable {
    public var now_s: [Double] = []
    public var timestamp_s: [Double] = []
    public var distance_m: [Double] = []
    /// Horizontal accuracy in metres, NaN for a fix every monitor refuses.
    public var gateAccuracy_m: [Double] = []

    public var count: Int { now_s.count }

    public init() {}

    /// Fills the arrays from the delivered fixes (as `FenceMonitor.process` validates and measures them).
    init(fixes: [Fix], now_s: [Double], center: Coordinate) {
        let model = Haversine()
        let n = fixes.count
        self.now_s = now_s
        timestamp_s.reserveCapacity(n)
        distance_m.reserveCapacity(n)
        gateAccuracy_m.reserveCapacity(n)
        for i in 0..<n {
            let f = fixes[i]
            timestamp_s.append(f.timestamp_s)
            var a = f.horizontalAccuracy_m
            var d = Double.nan
            if f.timestamp_s.isFinite, now_s[i].isFinite, let c = try? Coordinate(latitude: f.latitude, longitude: f.longitude) {
                d = model.distance_m(center, c)
            } else {
                a = .nan
            }
            if !(a.isFinite && a >= 0) { a = .nan }
            distance_m.append(d)
            gateAccuracy_m.append(a)
        }
    }
}

/// A change of the determined fence state: the first determination, then every enter / exit.
public struct StateChange: Sendable, Hashable {
    public var time_s: Double
    public var inside: Bool
}

/// The rule of one grid point in the scan's terms (sweeps confirm by fix count only).
@usableFromInline
struct ScanRule {
    @usableFromInline var kind: SweepRuleKind
    @usableFromInline var enter_m: Double
    @usableFromInline var exit_m: Double
    @usableFromInline var maxAccuracy_m: Double
    @usableFromInline var confirm_n: Int

    init(_ point: SweepPoint) {
        kind = point.kind
        enter_m = point.enter_m
        exit_m = point.exit_m
        maxAccuracy_m = point.kind == .hysteresis ? point.maxAccuracy_m : .infinity
        confirm_n = Swift.max(point.confirm_n, 1)
    }
}

/// The sweep's inner loop: a grid point's fence decisions over precomputed arrays, written as
/// the determined-state changes the scoring needs. Same decisions as `FenceMonitor` +
/// `FenceEvaluator` (Haversine, logging off) on the same fixes; no dispatch, no allocation
/// beyond the caller's reused buffer.
enum SweepScan {
    /// State codes: 0 unknown, 1 inside, 2 outside.
    @inline(__always)
    static func propose(_ kind: SweepRuleKind, _ rule: ScanRule, _ d: Double, _ a: Double, _ cur: UInt8) -> UInt8 {
        switch kind {
        case .hysteresis: return d <= rule.enter_m ? 1 : (d >= rule.exit_m ? 2 : cur)
        case .threshold: return d <= rule.enter_m ? 1 : 2
        case .conservative: return d + a <= rule.enter_m ? 1 : (d - a > rule.enter_m ? 2 : cur)
        }
    }

    /// The observed changes of `rule` on the delivered fixes, appended to `changes` (emptied first).
    static func observed(_ x: SweepFixArrays, rule: ScanRule, maxAge_s: Double, into changes: inout [StateChange]) {
        changes.removeAll(keepingCapacity: true)
        switch (rule.kind, rule.confirm_n > 1) {
        case (.hysteresis, false): observed(x, rule, .hysteresis, confirms: false, maxAge_s, &changes)
        case (.hysteresis, true): observed(x, rule, .hysteresis, confirms: true, maxAge_s, &changes)
        case (.threshold, false): observed(x, rule, .threshold, confirms: false, maxAge_s, &changes)
        case (.threshold, true): observed(x, rule, .threshold, confirms: true, maxAge_s, &changes)
        case (.conservative, false): observed(x, rule, .conservative, confirms: false, maxAge_s, &changes)
        case (.conservative, true): observed(x, rule, .conservative, confirms: true, maxAge_s, &changes)
        }
    }

    @inline(__always)
    private static func observed(_ x: SweepFixArrays, _ rule: ScanRule, _ kind: SweepRuleKind, confirms: Bool,
                                 _ maxAge_s: Double, _ changes: inout [StateChange]) {
        let maxAccuracy_m = rule.maxAccuracy_m, required = rule.confirm_n
        var cur: UInt8 = 0, pending: UInt8 = 0, pendingCount = 0
        var lastTimestamp_s = -Double.infinity
        x.now_s.withUnsafeBufferPointer { now in
        x.timestamp_s.withUnsafeBufferPointer { ts in
        x.distance_m.withUnsafeBufferPointer { dist in
        x.gateAccuracy_m.withUnsafeBufferPointer { acc in
            for i in 0..<now.count {
                let a = acc[i], t = ts[i]
                // Refused: NaN accuracy (invalid fix), over the gate, stale, duplicate or out of order.
                guard a <= maxAccuracy_m, !(now[i] - t > maxAge_s), t > lastTimestamp_s else { continue }
                lastTimestamp_s = t
                let d = dist[i]
                guard d.isFinite, d >= 0 else { continue }  // accepted, but the rule does not count it
                let proposal = propose(kind, rule, d, a, cur)
                if proposal == cur { pendingCount = 0; continue }
                if confirms {
                    if pendingCount == 0 || proposal != pending {
                        pending = proposal
                        pendingCount = 1
                    } else {
                        pendingCount &+= 1
                    }
                    guard pendingCount >= required else { continue }
                    pendingCount = 0
                }
                cur = proposal
                changes.append(StateChange(time_s: now[i], inside: cur == 1))
            }
        }}}}
    }

    /// The true changes of `rule` on the noiseless truth (accuracy 0, every slot counts).
    static func truth(_ truth: TruthDistances, rule: ScanRule, into changes: inout [StateChange]) {
        changes.removeAll(keepingCapacity: true)
        let required = rule.confirm_n, confirms = required > 1, kind = rule.kind
        var cur: UInt8 = 0, pending: UInt8 = 0, pendingCount = 0
        truth.time_s.withUnsafeBufferPointer { time in
        truth.distance_m.withUnsafeBufferPointer { dist in
            for i in 0..<time.count {
                let d = dist[i]
                guard d.isFinite, d >= 0 else { continue }
                let proposal = propose(kind, rule, d, 0, cur)
                if proposal == cur { pendingCount = 0; continue }
                if confirms {
                    if pendingCount == 0 || proposal != pending {
                        pending = proposal
                        pendingCount = 1
                    } else {
                        pendingCount &+= 1
                    }
                    guard pendingCount >= required else { continue }
                    pendingCount = 0
                }
                cur = proposal
                changes.append(StateChange(time_s: time[i], inside: cur == 1))
            }
        }}
    }

    /// Inside/outside transitions (`Flutter.transitions`): every change after the first determination.
    static func transitions(_ changes: [StateChange]) -> [Transition] {
        guard changes.count > 1 else { return [] }
        return changes[1...].map { Transition(time_s: $0.time_s, direction: $0.inside ? .entered : .exited) }
    }

    /// Observed visits (`Visits.observedVisits`): from each change to inside to the next change to outside, or `end_s`.
    static func visits(_ changes: [StateChange], end_s: Double) -> [Visit] {
        var visits: [Visit] = []
        var start: Double?
        for c in changes {
            if c.inside { start = c.time_s } else if let t = start { visits.append(Visit(start_s: t, end_s: c.time_s)); start = nil }
        }
        if let t = start { visits.append(Visit(start_s: t, end_s: Swift.max(end_s, t), openAtEnd: true)) }
        return visits
    }
}
