import FenceLab
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
package struct SweepFixArrays: Sendable {
    package var now_s: [Double] = []
    package var timestamp_s: [Double] = []
    package var distance_m: [Double] = []
    /// Horizontal accuracy in metres, NaN for a fix every monitor refuses.
    package var gateAccuracy_m: [Double] = []

    package var count: Int { now_s.count }

    package init() {}

    /// Fills the arrays from the delivered fixes (as `FenceMonitor.process` validates and measures them).
    init(fixes: [Fix], now_s: [Double], center: Coordinate) {
        let model = Haversine()
        let origin = Haversine.Target(center)
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
            if f.timestamp_s.isFinite, now_s[i].isFinite,
                let c = try? Coordinate(latitude: f.latitude, longitude: f.longitude)
            {
                d = model.distance_m(from: origin, c)
            } else {
                a = .nan
            }
            if !(a.isFinite && a >= 0) { a = .nan }
            distance_m.append(d)
            gateAccuracy_m.append(a)
        }
    }
}

/// The fixes one accuracy gate accepts (see `SweepScan.accepted`), contiguous.
package struct AcceptedFixes: Sendable {
    package var now_s: [Double] = []
    /// The fixes' own times (what a time confirmation measures its span by).
    package var timestamp_s: [Double] = []
    package var distance_m: [Double] = []
    package var accuracy_m: [Double] = []
    package init() {}
}

/// A change of the determined fence state: the first determination, then every enter / exit.
package struct StateChange: Sendable, Hashable {
    package var time_s: Double
    package var inside: Bool
}

/// The rule of one grid point in the scan's terms (sweeps confirm by fix count only).
@usableFromInline
struct ScanRule {
    @usableFromInline var kind: SweepRuleKind
    @usableFromInline var enter_m: Double
    @usableFromInline var exit_m: Double
    @usableFromInline var maxAccuracy_m: Double
    @usableFromInline var confirm_n: Int
    /// Seconds the agreeing fixes must span (0: none).
    @usableFromInline var confirm_s: Double

    init(
        kind: SweepRuleKind, enter_m: Double, exit_m: Double, maxAccuracy_m: Double, confirm_n: Int, confirm_s: Double
    ) {
        self.kind = kind
        self.enter_m = enter_m
        self.exit_m = exit_m
        self.maxAccuracy_m = maxAccuracy_m
        self.confirm_n = confirm_n
        self.confirm_s = confirm_s
    }

    init(_ point: SweepPoint) {
        kind = point.kind
        enter_m = point.enter_m
        exit_m = point.exit_m
        maxAccuracy_m = point.kind == .hysteresis ? point.maxAccuracy_m : .infinity
        confirm_n = Swift.max(point.confirm_n, 1)
        confirm_s = point.confirm_s ?? 0
    }

    /// True when a change needs more than the first proposing fix.
    var confirms: Bool { confirm_n > 1 || confirm_s > 0 }
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

    /// The fixes a monitor with accuracy gate `maxAccuracy_m` and staleness limit `maxAge_s`
    /// accepts and its rule counts, in order: the same for every grid point with that gate, so a
    /// drive computes it once per gate. Refused: NaN accuracy (invalid fix), over the gate, stale,
    /// duplicate or out of order (time not after the last accepted fix's). An accepted fix with a
    /// non-finite distance changes nothing in the evaluator, so it is left out after updating the order check.
    /// `timestamps`: also keep the fixes' own times (for a time confirmation; else left empty).
    static func accepted(
        _ x: SweepFixArrays, maxAccuracy_m: Double, maxAge_s: Double, timestamps: Bool = true,
        into out: inout AcceptedFixes
    ) {
        let n = x.count
        // Which fixes pass, in order (one pass over the inputs' buffers), then each output array
        // gathered from them at once: no per-fix append with its capacity and uniqueness checks.
        var kept = [Int32](repeating: 0, count: n)
        var count = 0
        x.now_s.withUnsafeBufferPointer { now in
            x.timestamp_s.withUnsafeBufferPointer { stamp in
                x.distance_m.withUnsafeBufferPointer { dist in
                    x.gateAccuracy_m.withUnsafeBufferPointer { acc in
                        kept.withUnsafeMutableBufferPointer { kept in
                            var lastTimestamp_s = -Double.infinity
                            for i in 0..<n {
                                let a = acc[i]
                                let t = stamp[i]
                                guard a <= maxAccuracy_m, !(now[i] - t > maxAge_s), t > lastTimestamp_s else {
                                    continue
                                }
                                lastTimestamp_s = t
                                let d = dist[i]
                                guard d.isFinite, d >= 0 else { continue }
                                kept[count] = Int32(truncatingIfNeeded: i)
                                count += 1
                            }
                        }
                    }
                }
            }
        }
        kept.withUnsafeBufferPointer { kept in
            let kept = UnsafeBufferPointer(rebasing: kept[..<count])
            out.now_s = gather(x.now_s, kept)
            out.timestamp_s = timestamps ? gather(x.timestamp_s, kept) : []
            out.distance_m = gather(x.distance_m, kept)
            out.accuracy_m = gather(x.gateAccuracy_m, kept)
        }
    }

    /// `values` at the positions `indices`, in their order.
    private static func gather(_ values: [Double], _ indices: UnsafeBufferPointer<Int32>) -> [Double] {
        values.withUnsafeBufferPointer { v in
            [Double](unsafeUninitializedCapacity: indices.count) { out, initialized in
                for (j, i) in indices.enumerated() { out[j] = v[Int(i)] }
                initialized = indices.count
            }
        }
    }

    /// The determined-state changes of `rule` over accepted fixes (or truth slots), appended to
    /// `changes` (emptied first). The tight loop of a grid point: raw buffers, the rule kind and
    /// confirmation hoisted out of the loop, nothing allocated while `changes` has capacity.
    /// `timestamp_s`: the fixes' own times for a time confirmation (nil: `time_s`, as for the truth).
    static func changes(
        time_s: UnsafeBufferPointer<Double>, distance_m: UnsafeBufferPointer<Double>,
        accuracy_m: UnsafeBufferPointer<Double>?, rule: ScanRule, into changes: inout [StateChange],
        timestamp_s: UnsafeBufferPointer<Double>? = nil
    ) {
        changes.removeAll(keepingCapacity: true)
        if rule.confirm_s > 0 {
            timed(time_s, timestamp_s ?? time_s, distance_m, accuracy_m, rule, &changes)
            return
        }
        switch (rule.kind, rule.confirm_n > 1) {
        case (.hysteresis, false):
            hysteresis(time_s, distance_m, enter_m: rule.enter_m, exit_m: rule.exit_m, &changes)
        case (.hysteresis, true): scan(time_s, distance_m, accuracy_m, rule, .hysteresis, confirms: true, &changes)
        case (.threshold, false): scan(time_s, distance_m, accuracy_m, rule, .threshold, confirms: false, &changes)
        case (.threshold, true): scan(time_s, distance_m, accuracy_m, rule, .threshold, confirms: true, &changes)
        case (.conservative, false):
            scan(time_s, distance_m, accuracy_m, rule, .conservative, confirms: false, &changes)
        case (.conservative, true): scan(time_s, distance_m, accuracy_m, rule, .conservative, confirms: true, &changes)
        }
    }

    /// Hysteresis without confirmation, the common grid point: a branch-free state update per fix
    /// and a rarely taken branch when the state changes.
    private static func hysteresis(
        _ time: UnsafeBufferPointer<Double>, _ dist: UnsafeBufferPointer<Double>,
        enter_m: Double, exit_m: Double, _ changes: inout [StateChange]
    ) {
        var cur: UInt8 = 0
        for i in 0..<dist.count {
            let d = dist[i]
            let next: UInt8 = d <= enter_m ? 1 : (d >= exit_m ? 2 : cur)
            if next != cur {
                cur = next
                changes.append(StateChange(time_s: time[i], inside: next == 1))
            }
        }
    }

    @inline(__always)
    private static func scan(
        _ time: UnsafeBufferPointer<Double>, _ dist: UnsafeBufferPointer<Double>,
        _ acc: UnsafeBufferPointer<Double>?, _ rule: ScanRule, _ kind: SweepRuleKind,
        confirms: Bool, _ changes: inout [StateChange]
    ) {
        let required = rule.confirm_n
        var cur: UInt8 = 0
        var pending: UInt8 = 0
        var pendingCount = 0
        for i in 0..<dist.count {
            let proposal = propose(kind, rule, dist[i], acc?[i] ?? 0, cur)
            if proposal == cur {
                pendingCount = 0
                continue
            }
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
    }

    /// Confirmation by fixes and seconds (`FenceEvaluator` with `.seconds` / `.fixesAndSeconds`):
    /// a pending change is taken at the first fix with `confirm_n` agreeing proposals whose own
    /// time is at least `confirm_s` after the first of them's.
    @inline(never)
    private static func timed(
        _ time: UnsafeBufferPointer<Double>, _ stamp: UnsafeBufferPointer<Double>, _ dist: UnsafeBufferPointer<Double>,
        _ acc: UnsafeBufferPointer<Double>?, _ rule: ScanRule, _ changes: inout [StateChange]
    ) {
        var cur: UInt8 = 0
        var pending: UInt8 = 0
        var pendingCount = 0
        var pendingSince = 0.0
        for i in 0..<dist.count {
            let proposal = propose(rule.kind, rule, dist[i], acc?[i] ?? 0, cur)
            if proposal == cur {
                pendingCount = 0
                continue
            }
            if pendingCount == 0 || proposal != pending {
                pending = proposal
                pendingCount = 1
                pendingSince = stamp[i]
            } else {
                pendingCount &+= 1
            }
            guard pendingCount >= rule.confirm_n, stamp[i] - pendingSince >= rule.confirm_s else { continue }
            pendingCount = 0
            cur = proposal
            changes.append(StateChange(time_s: time[i], inside: cur == 1))
        }
    }

    /// Inside/outside transitions (`Flutter.transitions`): every change after the first determination.
    static func transitions(_ changes: [StateChange]) -> [Transition] {
        var out: [Transition] = []
        transitions(changes, into: &out)
        return out
    }

    /// `transitions(changes)` into `out` (emptied first, its capacity kept: a worker reuses one
    /// buffer for every point).
    static func transitions(_ changes: [StateChange], into out: inout [Transition]) {
        out.removeAll(keepingCapacity: true)
        guard changes.count > 1 else { return }
        for c in changes[1...] { out.append(Transition(time_s: c.time_s, direction: c.inside ? .entered : .exited)) }
    }

    /// Observed visits (`Visits.observedVisits`): from each change to inside to the next change to outside, or `end_s`.
    static func visits(_ changes: [StateChange], end_s: Double) -> [Visit] {
        var out: [Visit] = []
        visits(changes, end_s: end_s, into: &out)
        return out
    }

    /// `visits(changes, end_s:)` into `visits` (emptied first, its capacity kept).
    static func visits(_ changes: [StateChange], end_s: Double, into visits: inout [Visit]) {
        visits.removeAll(keepingCapacity: true)
        var start: Double?
        for c in changes {
            if c.inside {
                start = c.time_s
            } else if let t = start {
                visits.append(Visit(start_s: t, end_s: c.time_s))
                start = nil
            }
        }
        if let t = start { visits.append(Visit(start_s: t, end_s: Swift.max(end_s, t), openAtEnd: true)) }
    }
}

/// Up to `SweepLanes.width` grid points' hysteresis rules, one vector lane per point (fixed-size
/// storage without an allocation per pass; `SweepScan.lanes` reads each lane into its state).
/// Lanes past `count` repeat lane 0 and are not scanned.
struct SweepLanes {
    static let width = 8
    var enter_m: SIMD8<Double>
    var exit_m: SIMD8<Double>
    /// Agreeing fixes a change needs (`confirm_n`, ≥ 1).
    var required: SIMD8<Int64>
    /// Seconds the agreeing fixes must span, −∞ for none (every finite span passes).
    var confirm_s: SIMD8<Double>
    /// Lanes in use, 1…8.
    var count: Int

    /// The lanes of `rules` (1…8 hysteresis rules).
    init<Rules: Collection>(_ rules: Rules) where Rules.Element == ScanRule {
        precondition((1...Self.width).contains(rules.count), "SweepLanes: 1…8 rules")
        let first = rules.first!
        enter_m = SIMD8(repeating: first.enter_m)
        exit_m = SIMD8(repeating: first.exit_m)
        required = SIMD8(repeating: Int64(first.confirm_n))
        confirm_s = SIMD8(repeating: first.confirm_s > 0 ? first.confirm_s : -.infinity)
        count = rules.count
        for (l, r) in rules.enumerated() {
            enter_m[l] = r.enter_m
            exit_m[l] = r.exit_m
            required[l] = Int64(r.confirm_n)
            confirm_s[l] = r.confirm_s > 0 ? r.confirm_s : -.infinity
        }
    }
}

extension SweepScan {
    /// Whether `rule` goes through the lane kernel (`lanes`): hysteresis with exit > enter (the
    /// grid's; the kernel relies on a fix never proposing both), confirmed by fixes, seconds or
    /// both. Threshold and conservative rules take the scalar scan (`changes`).
    static func inLanes(_ rule: ScanRule) -> Bool { rule.kind == .hysteresis && rule.exit_m > rule.enter_m }

    /// The determined-state changes of up to 8 hysteresis rules over one stream in one pass:
    /// lane `l`'s changes go to `changes[l]` (emptied first; `changes` holds at least 8 arrays).
    /// The same decisions as `changes(…)` for each rule alone, driven by state changes: a lane
    /// can propose a change only at `d ≤ lo` or `d ≥ hi` (unknown: lo = enter, hi = exit;
    /// inside: −∞, exit; outside: enter, +∞), so a fix at which no lane can is one test against
    /// the pass's largest `lo` and smallest `hi` (exact: the same Double comparisons of the same
    /// values). A fix that reaches a lane's trigger makes each lane's proposal `d ≤ enter ?
    /// inside : d ≥ exit ? outside : current`; lanes whose proposal is their state forget their
    /// pending change, and only the others run the scalar steps — the pending count,
    /// and the change at the fix with `confirm_n` agreeing proposals whose own time (`stamp_s`)
    /// is at least `confirm_s` after the first of them's. A fix that reaches no trigger forgets
    /// every pending change (the scalar scan's `proposal == current` branch). `stamp_s`: the
    /// fixes' own times (`time_s` when no lane confirms by time). Rules must satisfy `inLanes`.
    static func lanes(
        time_s: UnsafeBufferPointer<Double>, stamp_s: UnsafeBufferPointer<Double>,
        distance_m: UnsafeBufferPointer<Double>, _ lanes: SweepLanes, into changes: inout [[StateChange]]
    ) {
        let used = lanes.count
        for l in 0..<used { changes[l].removeAll(keepingCapacity: true) }
        let n = distance_m.count
        guard let dist = distance_m.baseAddress, n > 0 else { return }
        // The lanes' rules and states as plain scalars on the stack: the decision at a fix that
        // reaches a trigger reads and writes single lanes, which SIMD vectors would do through
        // memory, element by element.
        withUnsafeTemporaryAllocation(of: LaneState.self, capacity: SweepLanes.width) { buffer in
            let lane = buffer.baseAddress!
            for l in 0..<used {
                (lane + l).initialize(
                    to: LaneState(
                        enter_m: lanes.enter_m[l], exit_m: lanes.exit_m[l], required: Int(lanes.required[l]),
                        confirm_s: lanes.confirm_s[l]))
            }
            defer { _ = buffer.baseAddress!.deinitialize(count: used) }
            var maxLo = -Double.infinity
            var minHi = Double.infinity
            for l in 0..<used {
                maxLo = Swift.max(maxLo, lane[l].lo)
                minHi = Swift.min(minHi, lane[l].hi)
            }
            // Whether some lane has a pending change (count > 0).
            var pendingLanes = false
            var i = 0
            while i < n {
                let d = dist[i]
                guard d <= maxLo || d >= minHi else {
                    if pendingLanes {
                        for l in 0..<used { lane[l].count = 0 }
                        pendingLanes = false
                    }
                    // The fixes up to the next one that reaches a trigger, four at a time (the
                    // same comparisons, so a NaN reaches none, as one at a time).
                    i = Self.nextTrigger(dist, from: i + 1, count: n, lo: maxLo, hi: minHi)
                    continue
                }
                // Each lane's proposal (inside wins over outside, as in the scalar rule); a lane
                // whose proposal is its state forgets its pending change, the others run the
                // scalar steps.
                let t = stamp_s[i]
                var changed = false
                pendingLanes = false
                for l in 0..<used {
                    let cur = lane[l].state
                    let p: Int8 = d <= lane[l].enter_m ? 1 : (d >= lane[l].exit_m ? 2 : cur)
                    if p == cur {
                        lane[l].count = 0
                        continue
                    }
                    if lane[l].count == 0 || p != lane[l].pending {
                        lane[l].pending = p
                        lane[l].count = 1
                        lane[l].since = t
                    } else {
                        lane[l].count &+= 1
                    }
                    guard lane[l].count >= lane[l].required, t - lane[l].since >= lane[l].confirm_s else {
                        pendingLanes = true
                        continue
                    }
                    lane[l].count = 0
                    lane[l].state = p
                    lane[l].lo = p == 1 ? -.infinity : lane[l].enter_m
                    lane[l].hi = p == 1 ? lane[l].exit_m : .infinity
                    changed = true
                    changes[l].append(StateChange(time_s: time_s[i], inside: p == 1))
                }
                if changed {
                    maxLo = -.infinity
                    minHi = .infinity
                    for l in 0..<used {
                        maxLo = Swift.max(maxLo, lane[l].lo)
                        minHi = Swift.min(minHi, lane[l].hi)
                    }
                }
                i += 1
            }
        }
    }

    /// The first index ≥ `start` (or `count`) whose value is ≤ `lo` or ≥ `hi`.
    @inline(__always)
    static func nextTrigger(
        _ values: UnsafePointer<Double>, from start: Int, count: Int, lo: Double, hi: Double
    )
        -> Int
    {
        var i = start
        let lo2 = SIMD2<Double>(repeating: lo)
        let hi2 = SIMD2<Double>(repeating: hi)
        while i + 4 <= count {
            let raw = UnsafeRawPointer(values + i)
            let a = raw.loadUnaligned(as: SIMD2<Double>.self)
            let b = raw.loadUnaligned(fromByteOffset: 16, as: SIMD2<Double>.self)
            // Two-lane masks: their `any` is one bit test (a four-lane mask's takes shuffles).
            if any((a .<= lo2) .| (a .>= hi2) .| (b .<= lo2) .| (b .>= hi2)) { break }
            i += 4
        }
        while i < count {
            let d = values[i]
            if d <= lo || d >= hi { return i }
            i += 1
        }
        return count
    }

    /// One lane of `lanes`: its rule and its state (0 unknown, 1 inside, 2 outside), the pending
    /// proposal with its count and first time, and the thresholds at which it can propose a
    /// change (`lo`, `hi`).
    struct LaneState {
        let enter_m: Double
        let exit_m: Double
        let required: Int
        let confirm_s: Double
        var lo: Double
        var hi: Double
        var since = 0.0
        var count = 0
        var state: Int8 = 0
        var pending: Int8 = 0

        init(enter_m: Double, exit_m: Double, required: Int, confirm_s: Double) {
            self.enter_m = enter_m
            self.exit_m = exit_m
            self.required = required
            self.confirm_s = confirm_s
            lo = enter_m
            hi = exit_m
        }
    }
}
