/// Which of the fixes a device measures reach the app, and when: the first stage of the
/// pipeline an app ships (sampling policy → optional filter input → rule → confirmation).
///
/// A policy is causal: it decides from the fixes delivered so far (their times and positions)
/// and the clock, never from the truth. The device still measures at its base rate; the policy
/// is what the app is given. Spec strings (CLI `--sampling`, scenario `sampling.policy`):
///
/// - `all` — every fix, as the device measures it (the default; no rules-version suffix);
/// - `interval:S` — one fix per S seconds: an app timer ticks every S s (phase `phase_s`, drawn
///   per replicate by the harness) and the app takes the first fix measured at or after a tick;
/// - `distance:D` — a distance filter: a fix is delivered when it lies ≥ D m from the last
///   delivered one (haversine), the first fix always;
/// - `distance:D:elastic[:K]` — the same with a speed-elastic threshold
///   D · max(1, K · round(v / 5 m/s)) (`SamplingPolicy.elasticDistance_m`), v the speed between
///   the last two delivered fixes; K defaults to 1;
/// - `adaptive:MOVING_S:STOPPED_S[:R:T]` — a timer of period MOVING_S while moving and
///   STOPPED_S once a stop detector on the delivered fixes says stationary (every delivered fix
///   since the stop's anchor lies within R m of it and the latest is ≥ T s after it); back to
///   MOVING_S when a delivered fix lies more than R m from the anchor. R and T default to
///   `defaultStopRadius_m` and `defaultStopTime_s`;
/// - `rampup:R:NEAR_S:FAR_S` — a timer of period NEAR_S while the last delivered fix lies within
///   R m of the fence edge (a circle the app knows, `SamplingContext`), FAR_S otherwise;
/// - any of them followed by `+batch:S` — fixes are handed over in batches every S s (at
///   `phase + k·S`): each keeps its own timestamp, but the app sees it, and decides, only at
///   the batch's delivery time, so latency includes the batching. A batch is one wake-up.
///
/// Composition: `batch` composes with every other policy (`all`, `interval`, `distance` with or
/// without elasticity, `adaptive`, `rampup`); no two of the others compose (each is the one rule
/// that picks the fixes), and a spec that joins two of them is refused.
public struct SamplingPolicy: Sendable, Hashable, CustomStringConvertible {
    /// Which fixes the app is given.
    public enum Selection: Sendable, Hashable {
        /// Every fix.
        case all
        /// One fix per `period_s` seconds.
        case interval(period_s: Double)
        /// A fix when it lies at least `distance_m` from the last delivered one.
        case distance(distance_m: Double)
        /// A fix when it lies at least `SamplingPolicy.elasticDistance_m(distance_m:multiplier:speed_mps:)`
        /// from the last delivered one.
        case elasticDistance(distance_m: Double, multiplier: Double)
        /// A timer of period `moving_s` while moving, `stopped_s` once stationary (`stopRadius_m`
        /// for `stopTime_s`), judged on the delivered fixes.
        case adaptive(moving_s: Double, stopped_s: Double, stopRadius_m: Double, stopTime_s: Double)
        /// A timer of period `near_s` while the last delivered fix is within `ring_m` of the
        /// fence edge, `far_s` otherwise.
        case rampup(ring_m: Double, near_s: Double, far_s: Double)
    }

    public let selection: Selection
    /// Batch period in seconds (fixes are handed over every `batch_s`), nil for immediate delivery.
    public let batch_s: Double?

    /// Every fix at once: what the harness did before policies (and what `all` means).
    public static let all = SamplingPolicy(uncheckedSelection: .all, batch_s: nil)

    /// The stop radius of `adaptive` when the spec omits R, metres: the 200 m geofence around the
    /// last known position whose exit puts Transistorsoft background-geolocation back into its
    /// moving state ("Philosophy of Operation").
    public static let defaultStopRadius_m = 200.0
    /// The stop time of `adaptive` when the spec omits T, seconds: Transistorsoft
    /// background-geolocation's `stopTimeout` default of 5 minutes without movement before the
    /// stationary state.
    public static let defaultStopTime_s = 300.0
    /// The speed step of the distance elasticity, m/s: Transistorsoft background-geolocation
    /// rounds the speed to the nearest 5 m/s and scales `distanceFilter` by the number of steps.
    public static let elasticitySpeedStep_mps = 5.0
    /// The elasticity multiplier K when `distance:D:elastic` omits it: Transistorsoft's
    /// `elasticityMultiplier` default of 1.
    public static let defaultElasticityMultiplier = 1.0

    /// The threshold of `distance:D:elastic:K` at speed `speed_mps`, metres:
    /// D · max(1, K · round(v / 5 m/s)) with round half away from zero — Transistorsoft's
    /// documented rule (`distanceFilter` scaled by the speed rounded to the nearest 5 m/s, times
    /// `elasticityMultiplier`), never below D. A non-finite or negative speed counts as 0.
    public static func elasticDistance_m(distance_m: Double, multiplier: Double, speed_mps: Double) -> Double {
        let v = speed_mps.isFinite && speed_mps > 0 ? speed_mps : 0
        let steps = (v / elasticitySpeedStep_mps).rounded(.toNearestOrAwayFromZero)
        return distance_m * max(1, multiplier * steps)
    }

    /// - Throws: `SamplingPolicyError.invalidParameter` when a period, distance, radius, time or
    ///   multiplier is not finite and > 0; `.inconsistent` when `adaptive`'s MOVING_S exceeds its
    ///   STOPPED_S or `rampup`'s NEAR_S exceeds its FAR_S.
    public init(_ selection: Selection, batch_s: Double? = nil) throws(SamplingPolicyError) {
        func positive(_ v: Double, _ name: String) throws(SamplingPolicyError) {
            guard v.isFinite, v > 0 else { throw .invalidParameter(name: name, value: v) }
        }
        switch selection {
        case .all: break
        case .interval(let s): try positive(s, "interval S")
        case .distance(let d): try positive(d, "distance D")
        case .elasticDistance(let d, let k):
            try positive(d, "distance D")
            try positive(k, "distance elasticity K")
        case .adaptive(let m, let s, let r, let t):
            try positive(m, "adaptive MOVING_S")
            try positive(s, "adaptive STOPPED_S")
            try positive(r, "adaptive R")
            try positive(t, "adaptive T")
            // A stop detector that samples faster once stopped would spend more when still.
            guard m <= s else {
                throw .inconsistent(reason: "adaptive MOVING_S (\(m)) must be ≤ STOPPED_S (\(s))")
            }
        case .rampup(let r, let near, let far):
            try positive(r, "rampup R")
            try positive(near, "rampup NEAR_S")
            try positive(far, "rampup FAR_S")
            // Ramp-up samples faster near the edge; the reverse is a swapped spec.
            guard near <= far else {
                throw .inconsistent(reason: "rampup NEAR_S (\(near)) must be ≤ FAR_S (\(far))")
            }
        }
        if let b = batch_s { try positive(b, "batch S") }
        self.init(uncheckedSelection: selection, batch_s: batch_s)
    }

    private init(uncheckedSelection: Selection, batch_s: Double?) {
        selection = uncheckedSelection
        self.batch_s = batch_s
    }

    /// True for `all` without batching: the app is given exactly what the device measures.
    public var isAll: Bool { selection == .all && batch_s == nil }

    /// True when the policy uses a timer phase (`interval`, `adaptive`, `rampup`, `batch`).
    public var usesPhase: Bool {
        if batch_s != nil { return true }
        switch selection {
        case .interval, .adaptive, .rampup: return true
        case .all, .distance, .elasticDistance: return false
        }
    }

    /// True when the policy needs a `SamplingContext` (the fence edge): `rampup`.
    public var needsContext: Bool {
        if case .rampup = selection { return true }
        return false
    }

    /// Every period the policy names, seconds, in spec order (the batch's last): each must be at
    /// least the base sampling interval, which a policy cannot beat.
    public var periods_s: [Double] {
        var periods: [Double] = []
        switch selection {
        case .all, .distance, .elasticDistance: break
        case .interval(let s): periods.append(s)
        case .adaptive(let m, let s, _, _): periods += [m, s]
        case .rampup(_, let near, let far): periods += [near, far]
        }
        if let b = batch_s { periods.append(b) }
        return periods
    }

    /// The shortest period the policy names, seconds (nil for `all` and `distance`): a period
    /// below the scenario's base sampling interval cannot be honoured.
    public var shortestPeriod_s: Double? { periods_s.min() }

    /// Appended to the rules version: `""` for `all`, else `+interval60`, `+distance50`,
    /// `+distance50-elastic1`, `+adaptive30-300-r200-t300`, `+rampup50-10-60`,
    /// `+interval60-batch300`, `+batch120`.
    public var versionSuffix: String {
        var parts: [String] = []
        let n = versionNumber
        switch selection {
        case .all: break
        case .interval(let s): parts.append("interval\(n(s))")
        case .distance(let d): parts.append("distance\(n(d))")
        case .elasticDistance(let d, let k): parts.append("distance\(n(d))-elastic\(n(k))")
        case .adaptive(let m, let s, let r, let t): parts.append("adaptive\(n(m))-\(n(s))-r\(n(r))-t\(n(t))")
        case .rampup(let r, let near, let far): parts.append("rampup\(n(r))-\(n(near))-\(n(far))")
        }
        if let b = batch_s { parts.append("batch\(n(b))") }
        return parts.isEmpty ? "" : "+" + parts.joined(separator: "-")
    }

    /// The spec string, which `parse` reads back: `all`, `interval:60`, `distance:50+batch:300`,
    /// `distance:50:elastic:1`, `adaptive:30:300:200:300` (R and T always written),
    /// `rampup:50:10:60`.
    public var description: String {
        var base: String
        let n = versionNumber
        switch selection {
        case .all: base = "all"
        case .interval(let s): base = "interval:\(n(s))"
        case .distance(let d): base = "distance:\(n(d))"
        case .elasticDistance(let d, let k): base = "distance:\(n(d)):elastic:\(n(k))"
        case .adaptive(let m, let s, let r, let t): base = "adaptive:\(n(m)):\(n(s)):\(n(r)):\(n(t))"
        case .rampup(let r, let near, let far): base = "rampup:\(n(r)):\(n(near)):\(n(far))"
        }
        if let b = batch_s { base += "+batch:\(n(b))" }
        return base
    }

    /// The names of the selection policies, for refusals.
    private static let selectionNames: Set<String> = ["all", "interval", "distance", "adaptive", "rampup"]

    /// Parses a spec string (`all`, `interval:S`, `distance:D[:elastic[:K]]`,
    /// `adaptive:MOVING_S:STOPPED_S[:R:T]`, `rampup:R:NEAR_S:FAR_S`, each optionally `+batch:S`).
    /// - Throws: `SamplingPolicyError` naming the part of `text` that is wrong.
    public static func parse(_ text: String) throws(SamplingPolicyError) -> SamplingPolicy {
        let pieces = text.split(separator: "+", omittingEmptySubsequences: false).map(String.init)
        var batch: Double?
        if pieces.count >= 2 {
            let p = pieces[1].split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            if p[0] != "batch", selectionNames.contains(p[0]) {
                let first = pieces[0].split(separator: ":", omittingEmptySubsequences: false)[0]
                throw .impossibleComposition(
                    spec: text, part: pieces[1],
                    reason: "\(first) and \(p[0]) do not compose; only batch:S may follow '+'")
            }
            guard p.count == 2, p[0] == "batch" else {
                throw .malformed(spec: text, part: pieces[1], reason: "only batch:S may follow '+'")
            }
            guard pieces.count == 2 else {
                throw .malformed(spec: text, part: pieces[2], reason: "at most one +batch:S")
            }
            batch = try number(p[1], name: "batch S", spec: text)
        }
        let parts = pieces[0].split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        func value(_ i: Int, _ name: String) throws(SamplingPolicyError) -> Double {
            try number(parts[i], name: name, spec: text)
        }
        let selection: Selection
        switch parts[0] {
        case "all":
            guard parts.count == 1 else {
                throw .malformed(spec: text, part: pieces[0], reason: "all takes no parameter")
            }
            selection = .all
        case "interval":
            guard parts.count == 2 else { throw .malformed(spec: text, part: pieces[0], reason: "expected interval:S") }
            selection = .interval(period_s: try value(1, "interval S"))
        case "distance":
            guard parts.count >= 2, parts.count <= 4, parts.count == 2 || parts[2] == "elastic" else {
                throw .malformed(spec: text, part: pieces[0], reason: "expected distance:D or distance:D:elastic[:K]")
            }
            let d = try value(1, "distance D")
            if parts.count == 2 {
                selection = .distance(distance_m: d)
            } else {
                let k = parts.count == 4 ? try value(3, "distance elasticity K") : defaultElasticityMultiplier
                selection = .elasticDistance(distance_m: d, multiplier: k)
            }
        case "adaptive":
            guard parts.count == 3 || parts.count == 5 else {
                throw .malformed(
                    spec: text, part: pieces[0],
                    reason: "expected adaptive:MOVING_S:STOPPED_S or adaptive:MOVING_S:STOPPED_S:R:T")
            }
            selection = .adaptive(
                moving_s: try value(1, "adaptive MOVING_S"), stopped_s: try value(2, "adaptive STOPPED_S"),
                stopRadius_m: parts.count == 5 ? try value(3, "adaptive R") : defaultStopRadius_m,
                stopTime_s: parts.count == 5 ? try value(4, "adaptive T") : defaultStopTime_s)
        case "rampup":
            guard parts.count == 4 else {
                throw .malformed(spec: text, part: pieces[0], reason: "expected rampup:R:NEAR_S:FAR_S")
            }
            selection = .rampup(
                ring_m: try value(1, "rampup R"), near_s: try value(2, "rampup NEAR_S"),
                far_s: try value(3, "rampup FAR_S"))
        default:
            throw .unknownPolicy(spec: text, name: parts[0])
        }
        do { return try SamplingPolicy(selection, batch_s: batch) } catch { throw error.quoting(text) }
    }

    private static func number(_ text: String, name: String, spec: String) throws(SamplingPolicyError) -> Double {
        guard let v = Double(text) else { throw .malformed(spec: spec, part: text, reason: "\(name) is not a number") }
        guard v.isFinite, v > 0 else { throw .invalidParameter(name: name, value: v).quoting(spec) }
        return v
    }
}

/// Why a sampling policy was refused; every case names the spec or parameter at fault.
public enum SamplingPolicyError: Error, Sendable, Hashable, CustomStringConvertible {
    case unknownPolicy(spec: String, name: String)
    case malformed(spec: String, part: String, reason: String)
    case invalidParameter(name: String, value: Double)
    /// An invalid parameter of the spec `spec`.
    case invalidParameterIn(spec: String, name: String, value: Double)
    /// Parameters that are valid one by one but not together (e.g. MOVING_S > STOPPED_S).
    case inconsistent(reason: String)
    /// As `inconsistent`, in the spec `spec`.
    case inconsistentIn(spec: String, reason: String)
    /// Two selection policies joined by '+' (only `+batch:S` composes).
    case impossibleComposition(spec: String, part: String, reason: String)

    func quoting(_ spec: String) -> SamplingPolicyError {
        switch self {
        case .invalidParameter(let n, let v): return .invalidParameterIn(spec: spec, name: n, value: v)
        case .inconsistent(let r): return .inconsistentIn(spec: spec, reason: r)
        default: return self
        }
    }

    /// One line; the spec is echoed at most 80 characters, controls escaped.
    public var description: String {
        func c(_ t: String) -> String { ShownText.shown(t) }
        switch self {
        case .unknownPolicy(let s, let n):
            return "sampling policy '\(c(s))': unknown policy '\(c(n))'; expected all, interval:S, "
                + "distance:D[:elastic[:K]], adaptive:MOVING_S:STOPPED_S[:R:T] or rampup:R:NEAR_S:FAR_S, "
                + "optionally +batch:S"
        case .malformed(let s, let p, let r):
            return "sampling policy '\(c(s))': \(r) (at '\(c(p))')"
        case .invalidParameter(let n, let v):
            return "sampling policy: \(n) must be finite and > 0, got \(v)"
        case .invalidParameterIn(let s, let n, let v):
            return "sampling policy '\(c(s))': \(n) must be finite and > 0, got \(v)"
        case .inconsistent(let r):
            return "sampling policy: \(r)"
        case .inconsistentIn(let s, let r):
            return "sampling policy '\(c(s))': \(r)"
        case .impossibleComposition(let s, let p, let r):
            return "sampling policy '\(c(s))': \(r) (at '\(c(p))')"
        }
    }
}

/// What a policy may know of the fence besides the fixes: its centre and the circle whose edge
/// `rampup` measures from. Both are settings the app ships, never the truth.
public struct SamplingContext: Sendable, Hashable {
    /// The fence centre.
    public let center: Coordinate
    /// Radius of the edge circle around `center`, metres, finite and > 0.
    public let edge_m: Double

    /// - Precondition: `edge_m` is finite and > 0.
    public init(center: Coordinate, edge_m: Double) {
        precondition(edge_m.isFinite && edge_m > 0, "SamplingContext edge_m must be finite and > 0")
        self.center = center
        self.edge_m = edge_m
    }
}

/// The timer phases of a policy, seconds, each in [0, its period): the phase of the interval's
/// timer (or of the faster period of `adaptive` / `rampup`), of the slower period, and of the
/// batch deliveries.
public struct SamplingPhases: Sendable, Hashable {
    /// `interval`'s ticks at `timer_s + k·S`; `adaptive`'s MOVING_S and `rampup`'s NEAR_S grid.
    public var timer_s: Double
    /// `adaptive`'s STOPPED_S and `rampup`'s FAR_S grid.
    public var slowTimer_s: Double
    /// Batch deliveries at `batch_s + k·B`.
    public var batch_s: Double

    /// Each phase finite and ≥ 0 (anything else counts as 0).
    public init(timer_s: Double, slowTimer_s: Double, batch_s: Double) {
        func valid(_ x: Double) -> Double { x.isFinite && x >= 0 ? x : 0 }
        self.timer_s = valid(timer_s)
        self.slowTimer_s = valid(slowTimer_s)
        self.batch_s = valid(batch_s)
    }

    /// One phase for every timer.
    public init(all phase_s: Double) { self.init(timer_s: phase_s, slowTimer_s: phase_s, batch_s: phase_s) }
}

/// Applies a `SamplingPolicy` to a device's fixes as they arrive: allocation-free, one call per
/// measured fix, in delivery order.
///
/// `offer` returns the time at which the app is handed the fix (its `now`), or nil when the
/// policy drops it. The decision uses only what was delivered before and the clock.
///
/// The two-period timers (`adaptive`, `rampup`) tick on the grid of the period in force
/// (`phase + k·P`, each period with its own phase): after a delivered fix, the next tick is the
/// first grid point of that period after it. The state (stopped or not, near or not) is updated
/// from each delivered fix with a valid position, and takes effect when the app receives the fix
/// — at once, or at the batch's delivery time — since only then can the app change its timer.
public struct SamplingGate: Sendable {
    public let policy: SamplingPolicy
    /// Timer phase in seconds, in [0, period): ticks of `interval` at `phase_s + k·S` (and of the
    /// faster period of `adaptive` / `rampup`).
    public var phase_s: Double { phases.timer_s }
    public let phases: SamplingPhases
    public let context: SamplingContext?
    private var nextTick_s: Double = -.infinity
    private var last: Coordinate?
    private static let sphere = Haversine()
    // Elastic distance: the last delivered fix's timestamp and the speed between the last two.
    private var lastTimestamp_s = Double.nan
    private var speed_mps = 0.0
    // Two-period timers: the device time of the last delivered fix, the slow period in force, and
    // the state the last delivered fix gives, in force from `pendingAt_s`.
    private var lastDelivered_s: Double?
    private var slow = false
    private var pendingSlow = false
    private var pendingAt_s = Double.infinity
    // Adaptive stop detector: the anchor (first delivered fix since the last move) and its time.
    private var anchor: Coordinate?
    private var anchor_s = 0.0
    private var stopped = false

    /// - Parameters:
    ///   - phase_s: finite, ≥ 0; one phase for every timer, ignored by policies without one.
    ///   - context: the fence edge; required by `rampup` (`policy.needsContext`).
    public init(policy: SamplingPolicy, phase_s: Double = 0, context: SamplingContext? = nil) {
        self.init(policy: policy, phases: SamplingPhases(all: phase_s), context: context)
    }

    /// - Parameters:
    ///   - phases: each timer's phase, ignored by policies without that timer.
    ///   - context: the fence edge; required by `rampup` (`policy.needsContext`).
    /// - Precondition: `context` is given when `policy.needsContext`.
    public init(policy: SamplingPolicy, phases: SamplingPhases, context: SamplingContext?) {
        precondition(!policy.needsContext || context != nil, "rampup needs a SamplingContext (the fence edge)")
        self.policy = policy
        self.phases = phases
        self.context = context
        // `rampup` starts far from the edge (no fix yet), `adaptive` moving.
        if case .rampup = policy.selection {
            slow = true
            pendingSlow = true
        }
    }

    /// When the app is handed `fix`, which the device delivers at `now_s` (seconds, increasing
    /// between calls); nil when the policy drops it.
    public mutating func offer(_ fix: Fix, now_s: Double) -> Double? {
        switch policy.selection {
        case .all: break
        case .interval(let period):
            if nextTick_s == -.infinity { nextTick_s = phases.timer_s }
            guard now_s >= nextTick_s else { return nil }
            // The next tick after this delivery: ticks stay on phase_s + k·period.
            nextTick_s = phases.timer_s + ((now_s - phases.timer_s) / period).rounded(.down) * period + period
        case .distance(let d):
            if let last {
                guard let here = try? Coordinate(latitude: fix.latitude, longitude: fix.longitude),
                    Self.sphere.distance_m(last, here) >= d
                else { return nil }
                self.last = here
            } else {
                guard let here = try? Coordinate(latitude: fix.latitude, longitude: fix.longitude) else { return nil }
                last = here
            }
        case .elasticDistance(let d, let k):
            guard let here = try? Coordinate(latitude: fix.latitude, longitude: fix.longitude) else { return nil }
            if let last {
                let threshold = SamplingPolicy.elasticDistance_m(distance_m: d, multiplier: k, speed_mps: speed_mps)
                let step = Self.sphere.distance_m(last, here)
                guard step >= threshold else { return nil }
                // The speed between the last two delivered fixes, by their own timestamps; a
                // repeated or out-of-order timestamp keeps the previous estimate.
                let dt = fix.timestamp_s - lastTimestamp_s
                if dt.isFinite, dt > 0 { speed_mps = step / dt }
            }
            last = here
            lastTimestamp_s = fix.timestamp_s
        case .adaptive(let fast, let slowPeriod, let r, let t):
            guard takeTick(now_s: now_s, fast_s: fast, slow_s: slowPeriod) else { return nil }
            if let here = try? Coordinate(latitude: fix.latitude, longitude: fix.longitude) {
                if let anchor, Self.sphere.distance_m(anchor, here) <= r {
                    if !stopped, now_s - anchor_s >= t { stopped = true }
                } else {
                    anchor = here
                    anchor_s = now_s
                    stopped = false
                }
                pendingSlow = stopped
            }
        case .rampup(let r, let near, let far):
            guard takeTick(now_s: now_s, fast_s: near, slow_s: far) else { return nil }
            if let here = try? Coordinate(latitude: fix.latitude, longitude: fix.longitude), let context {
                let d = Self.sphere.distance_m(context.center, here)
                pendingSlow = !(abs(d - context.edge_m) <= r)
            }
        }
        let delivery: Double
        if let b = policy.batch_s {
            // The first batch delivery at or after now_s.
            let k = ((now_s - phases.batch_s) / b).rounded(.up)
            delivery = max(phases.batch_s + k * b, now_s)
        } else {
            delivery = now_s
        }
        if lastDelivered_s != nil { pendingAt_s = delivery }
        return delivery
    }

    /// The two-period timer: true when `now_s` is at or after the next tick of the period in
    /// force (the state from a fix the app has received by `now_s`); records the delivery.
    private mutating func takeTick(now_s: Double, fast_s: Double, slow_s: Double) -> Bool {
        if pendingAt_s <= now_s { slow = pendingSlow }
        let (period, phase) = slow ? (slow_s, phases.slowTimer_s) : (fast_s, phases.timer_s)
        let tick = lastDelivered_s.map { phase + (($0 - phase) / period).rounded(.down) * period + period } ?? phase
        guard now_s >= tick else { return false }
        lastDelivered_s = now_s
        return true
    }
}
