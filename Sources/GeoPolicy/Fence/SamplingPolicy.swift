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
/// - any of them followed by `+batch:S` — fixes are handed over in batches every S s (at
///   `phase_s + k·S`): each keeps its own timestamp, but the app sees it, and decides, only at
///   the batch's delivery time, so latency includes the batching. A batch is one wake-up.
///
/// `interval` and `distance` do not compose with each other (pick one); `batch` composes with
/// both and with `all`.
public struct SamplingPolicy: Sendable, Hashable, CustomStringConvertible {
    /// Which fixes the app is given.
    public enum Selection: Sendable, Hashable {
        /// Every fix.
        case all
        /// One fix per `period_s` seconds.
        case interval(period_s: Double)
        /// A fix when it lies at least `distance_m` from the last delivered one.
        case distance(distance_m: Double)
    }

    public let selection: Selection
    /// Batch period in seconds (fixes are handed over every `batch_s`), nil for immediate delivery.
    public let batch_s: Double?

    /// Every fix at once: what the harness did before policies (and what `all` means).
    public static let all = SamplingPolicy(uncheckedSelection: .all, batch_s: nil)

    /// - Throws: `SamplingPolicyError.invalidParameter` when a period or distance is not finite and > 0.
    public init(_ selection: Selection, batch_s: Double? = nil) throws(SamplingPolicyError) {
        switch selection {
        case .all: break
        case .interval(let s):
            guard s.isFinite, s > 0 else { throw .invalidParameter(name: "interval S", value: s) }
        case .distance(let d):
            guard d.isFinite, d > 0 else { throw .invalidParameter(name: "distance D", value: d) }
        }
        if let b = batch_s, !(b.isFinite && b > 0) { throw .invalidParameter(name: "batch S", value: b) }
        self.init(uncheckedSelection: selection, batch_s: batch_s)
    }

    private init(uncheckedSelection: Selection, batch_s: Double?) {
        selection = uncheckedSelection
        self.batch_s = batch_s
    }

    /// True for `all` without batching: the app is given exactly what the device measures.
    public var isAll: Bool { selection == .all && batch_s == nil }

    /// True when the policy uses a timer phase (`interval`, `batch`).
    public var usesPhase: Bool {
        if batch_s != nil { return true }
        if case .interval = selection { return true }
        return false
    }

    /// The shortest period the policy names, seconds (nil for `all` and `distance`): a period
    /// below the scenario's base sampling interval cannot be honoured.
    public var shortestPeriod_s: Double? {
        var periods: [Double] = []
        if case .interval(let s) = selection { periods.append(s) }
        if let b = batch_s { periods.append(b) }
        return periods.min()
    }

    /// Appended to the rules version: `""` for `all`, else `+interval60`, `+distance50`,
    /// `+interval60-batch300`, `+batch120`.
    public var versionSuffix: String {
        var parts: [String] = []
        switch selection {
        case .all: break
        case .interval(let s): parts.append("interval\(versionNumber(s))")
        case .distance(let d): parts.append("distance\(versionNumber(d))")
        }
        if let b = batch_s { parts.append("batch\(versionNumber(b))") }
        return parts.isEmpty ? "" : "+" + parts.joined(separator: "-")
    }

    /// The spec string, which `parse` reads back: `all`, `interval:60`, `distance:50+batch:300`.
    public var description: String {
        var base: String
        switch selection {
        case .all: base = "all"
        case .interval(let s): base = "interval:\(versionNumber(s))"
        case .distance(let d): base = "distance:\(versionNumber(d))"
        }
        if let b = batch_s { base += "+batch:\(versionNumber(b))" }
        return base
    }

    /// Parses a spec string (`all`, `interval:S`, `distance:D`, each optionally `+batch:S`).
    /// - Throws: `SamplingPolicyError` naming the part of `text` that is wrong.
    public static func parse(_ text: String) throws(SamplingPolicyError) -> SamplingPolicy {
        let pieces = text.split(separator: "+", omittingEmptySubsequences: false).map(String.init)
        guard pieces.count <= 2 else { throw .malformed(spec: text, part: pieces[2], reason: "at most one +batch:S") }
        var batch: Double?
        if pieces.count == 2 {
            let p = pieces[1].split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard p.count == 2, p[0] == "batch" else {
                throw .malformed(spec: text, part: pieces[1], reason: "only batch:S may follow '+'")
            }
            batch = try number(p[1], name: "batch S", spec: text)
        }
        let parts = pieces[0].split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let selection: Selection
        switch parts[0] {
        case "all":
            guard parts.count == 1 else {
                throw .malformed(spec: text, part: pieces[0], reason: "all takes no parameter")
            }
            selection = .all
        case "interval":
            guard parts.count == 2 else { throw .malformed(spec: text, part: pieces[0], reason: "expected interval:S") }
            selection = .interval(period_s: try number(parts[1], name: "interval S", spec: text))
        case "distance":
            guard parts.count == 2 else { throw .malformed(spec: text, part: pieces[0], reason: "expected distance:D") }
            selection = .distance(distance_m: try number(parts[1], name: "distance D", spec: text))
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

    func quoting(_ spec: String) -> SamplingPolicyError {
        if case .invalidParameter(let n, let v) = self { return .invalidParameterIn(spec: spec, name: n, value: v) }
        return self
    }

    /// One line; the spec is echoed at most 80 characters, controls escaped.
    public var description: String {
        func c(_ t: String) -> String { ShownText.shown(t) }
        switch self {
        case .unknownPolicy(let s, let n):
            return "sampling policy '\(c(s))': unknown policy '\(c(n))'; expected all, interval:S or distance:D, "
                + "optionally +batch:S"
        case .malformed(let s, let p, let r):
            return "sampling policy '\(c(s))': \(r) (at '\(c(p))')"
        case .invalidParameter(let n, let v):
            return "sampling policy: \(n) must be finite and > 0, got \(v)"
        case .invalidParameterIn(let s, let n, let v):
            return "sampling policy '\(c(s))': \(n) must be finite and > 0, got \(v)"
        }
    }
}

/// Applies a `SamplingPolicy` to a device's fixes as they arrive: allocation-free, one call per
/// measured fix, in delivery order.
///
/// `offer` returns the time at which the app is handed the fix (its `now`), or nil when the
/// policy drops it. The decision uses only what was delivered before and the clock.
public struct SamplingGate: Sendable {
    public let policy: SamplingPolicy
    /// Timer phase in seconds, in [0, period): ticks of `interval` at `phase_s + k·S`, batch
    /// deliveries at `phase_s + k·batch_s` (the same phase for both).
    public let phase_s: Double
    private var nextTick_s: Double = -.infinity
    private var last: Coordinate?
    private static let sphere = Haversine()

    /// - Parameter phase_s: finite, ≥ 0; ignored by policies without a timer.
    public init(policy: SamplingPolicy, phase_s: Double = 0) {
        self.policy = policy
        self.phase_s = phase_s.isFinite && phase_s >= 0 ? phase_s : 0
    }

    /// When the app is handed `fix`, which the device delivers at `now_s` (seconds, increasing
    /// between calls); nil when the policy drops it.
    public mutating func offer(_ fix: Fix, now_s: Double) -> Double? {
        switch policy.selection {
        case .all: break
        case .interval(let period):
            if nextTick_s == -.infinity { nextTick_s = phase_s }
            guard now_s >= nextTick_s else { return nil }
            // The next tick after this delivery: ticks stay on phase_s + k·period.
            nextTick_s = phase_s + ((now_s - phase_s) / period).rounded(.down) * period + period
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
        }
        guard let b = policy.batch_s else { return now_s }
        // The first batch delivery at or after now_s.
        let k = ((now_s - phase_s) / b).rounded(.up)
        return max(phase_s + k * b, now_s)
    }
}
