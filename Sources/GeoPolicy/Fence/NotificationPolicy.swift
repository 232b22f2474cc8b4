/// What the app tells the user about the rule's decisions: the last stage of the pipeline
/// (sampling policy → optional filter input → rule → confirmation → notification policy).
///
/// The input is the rule's determined-state changes: `(time_s, inside)` in time order, the first
/// determination first (an `unknown` state is not a change, as in the rule's transitions). From
/// them the policy makes notifications (`FenceNotification`):
///
/// - **entry** at a change to inside, the first determination included (the app learns the user
///   is inside at that moment);
/// - **exit** at a change to outside, only when that stay's entry was notified: an exit after a
///   suppressed entry is not notified (the user never heard of the entry). A first determination
///   of outside is no exit;
/// - **dwell** (`dwell_s` = T): at entry time + T when the stay lasts at least T, i.e. no change
///   to outside before entry + T (a change to outside exactly at entry + T still lets the dwell
///   fire first) and entry + T within the drive (≤ `end_s`). This is the loitering delay of
///   Android geofencing: `Geofence.getLoiteringDelay()` is "the delay between
///   GEOFENCE_TRANSITION_ENTER and GEOFENCE_TRANSITION_DWELL" and a dwell transition means "the
///   user enters and dwells in geofences for a given period of time" (Google Play services
///   location API reference, `com.google.android.gms.location.Geofence`). One dwell per stay;
/// - **cooldown** (`cooldown_s` = T): an entry less than T s after the last exit of the rule's
///   state (every change to outside counts, notified or not) is suppressed, and so is the whole
///   stay it starts: no entry, no dwell, no exit. An entry exactly T s after the exit is
///   notified. So a stay is announced only after the user has been outside for at least T.
///
/// Spec strings (CLI `--notify`, scenario `notification.policy`): `none` (entry and exit
/// notifications as the rule decides; no rules-version suffix), `dwell:T`, `cooldown:T`,
/// `dwell:T+cooldown:T` (either order), T in seconds, finite and > 0.
public struct NotificationPolicy: Sendable, Hashable, CustomStringConvertible {
    /// Loitering delay in seconds: a dwell notification T s after an entry when still inside; nil for none.
    public let dwell_s: Double?
    /// Seconds after an exit during which a new entry is not notified; nil for none.
    public let cooldown_s: Double?

    /// Entry and exit notifications as the rule decides, no dwell, no cooldown.
    public static let none = NotificationPolicy(unchecked: nil, nil)

    /// - Throws: `NotificationPolicyError.invalidParameter` when a duration is not finite and > 0.
    public init(dwell_s: Double? = nil, cooldown_s: Double? = nil) throws(NotificationPolicyError) {
        if let t = dwell_s, !(t.isFinite && t > 0) { throw .invalidParameter(spec: nil, name: "dwell T", value: t) }
        if let t = cooldown_s, !(t.isFinite && t > 0) {
            throw .invalidParameter(spec: nil, name: "cooldown T", value: t)
        }
        self.init(unchecked: dwell_s, cooldown_s)
    }

    private init(unchecked dwell_s: Double?, _ cooldown_s: Double?) {
        self.dwell_s = dwell_s
        self.cooldown_s = cooldown_s
    }

    /// True for `none`.
    public var isNone: Bool { dwell_s == nil && cooldown_s == nil }

    /// Appended to the rules version: `""` for `none`, else `+dwell300`, `+cooldown600`,
    /// `+dwell300+cooldown600`.
    public var versionSuffix: String {
        (dwell_s.map { "+dwell\(versionNumber($0))" } ?? "")
            + (cooldown_s.map { "+cooldown\(versionNumber($0))" } ?? "")
    }

    /// The spec string, which `parse` reads back: `none`, `dwell:300`, `dwell:300+cooldown:600`.
    public var description: String {
        var parts: [String] = []
        if let t = dwell_s { parts.append("dwell:\(versionNumber(t))") }
        if let t = cooldown_s { parts.append("cooldown:\(versionNumber(t))") }
        return parts.isEmpty ? "none" : parts.joined(separator: "+")
    }

    /// Parses a spec string (`none`, `dwell:T`, `cooldown:T`, both joined by `+`).
    /// - Throws: `NotificationPolicyError` naming the part of `text` that is wrong.
    public static func parse(_ text: String) throws(NotificationPolicyError) -> NotificationPolicy {
        if text == "none" { return .none }
        var dwell: Double?
        var cooldown: Double?
        for part in text.split(separator: "+", omittingEmptySubsequences: false).map(String.init) {
            let p = part.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            let name = p[0]
            guard name == "dwell" || name == "cooldown" else {
                throw .unknownPart(spec: text, part: part)
            }
            guard p.count == 2 else { throw .malformed(spec: text, part: part, reason: "expected \(name):T") }
            guard let t = Double(p[1]) else {
                throw .malformed(spec: text, part: part, reason: "\(name) T is not a number")
            }
            guard t.isFinite, t > 0 else { throw .invalidParameter(spec: text, name: "\(name) T", value: t) }
            if name == "dwell" {
                guard dwell == nil else { throw .malformed(spec: text, part: part, reason: "at most one dwell:T") }
                dwell = t
            } else {
                guard cooldown == nil else {
                    throw .malformed(spec: text, part: part, reason: "at most one cooldown:T")
                }
                cooldown = t
            }
        }
        return NotificationPolicy(unchecked: dwell, cooldown)
    }

    /// The notifications for a whole sequence of determined-state changes (see the type's
    /// definition), appended to `out` in time order. Nothing is allocated while `out` has room.
    /// - Parameters:
    ///   - changes: `(time_s, inside)` in non-decreasing time, first determination first.
    ///   - end_s: the end of the drive: a dwell due after it does not fire.
    public func notifications<Changes: Sequence>(
        of changes: Changes, end_s: Double, into out: inout [FenceNotification]
    ) where Changes.Element == (time_s: Double, inside: Bool) {
        var tracker = NotificationTracker(policy: self)
        for c in changes { tracker.change(time_s: c.time_s, inside: c.inside, into: &out) }
        tracker.finish(end_s: end_s, into: &out)
    }

    /// The notifications for a sequence of determined-state changes, as a new array.
    public func notifications<Changes: Sequence>(
        of changes: Changes, end_s: Double
    ) -> [FenceNotification] where Changes.Element == (time_s: Double, inside: Bool) {
        var out: [FenceNotification] = []
        notifications(of: changes, end_s: end_s, into: &out)
        return out
    }
}

/// One notification the app shows: when (seconds, the time of the deciding change, or entry +
/// T for a dwell) and which kind.
public struct FenceNotification: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case entry, exit, dwell
    }
    public var time_s: Double
    public var kind: Kind

    public init(time_s: Double, kind: Kind) {
        self.time_s = time_s
        self.kind = kind
    }
}

/// `NotificationPolicy` applied change by change: a few scalars, no allocation, for callers
/// that hold their changes in their own type. Call `change` per determined-state change in
/// time order, then `finish` once at the end of the drive.
public struct NotificationTracker: Sendable {
    public let policy: NotificationPolicy
    /// The last determined state (nil before the first determination).
    private var inside: Bool?
    /// Whether the current stay's entry was notified (its exit and dwell are then notified).
    private var announced = false
    private var entry_s = 0.0
    private var dwellDue = false
    private var lastExit_s = -Double.infinity

    public init(policy: NotificationPolicy) {
        self.policy = policy
    }

    /// Feeds one determined-state change; a change equal to the current state is ignored.
    public mutating func change(time_s: Double, inside now: Bool, into out: inout [FenceNotification]) {
        guard now != inside else { return }
        let first = inside == nil
        inside = now
        if now {
            let quiet = policy.cooldown_s.map { time_s - lastExit_s < $0 } ?? false
            announced = !quiet
            entry_s = time_s
            dwellDue = announced && policy.dwell_s != nil
            if announced { out.append(FenceNotification(time_s: time_s, kind: .entry)) }
        } else {
            guard !first else { return }
            fireDwell(until: time_s, into: &out)
            dwellDue = false
            lastExit_s = time_s
            if announced { out.append(FenceNotification(time_s: time_s, kind: .exit)) }
            announced = false
        }
    }

    /// Ends the drive at `end_s`: a dwell due at or before it fires.
    public mutating func finish(end_s: Double, into out: inout [FenceNotification]) {
        if inside == true { fireDwell(until: end_s, into: &out) }
        dwellDue = false
    }

    private mutating func fireDwell(until t: Double, into out: inout [FenceNotification]) {
        guard dwellDue, let d = policy.dwell_s, entry_s + d <= t else { return }
        out.append(FenceNotification(time_s: entry_s + d, kind: .dwell))
        dwellDue = false
    }
}

/// Why a notification policy was refused; every case names the spec part at fault.
public enum NotificationPolicyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A part that is neither `dwell:T` nor `cooldown:T` (or `none` joined with others).
    case unknownPart(spec: String, part: String)
    case malformed(spec: String, part: String, reason: String)
    /// A duration that is not finite and > 0; `spec` is nil when built in code.
    case invalidParameter(spec: String?, name: String, value: Double)

    /// One line; the spec is echoed at most 80 characters, controls escaped.
    public var description: String {
        func c(_ t: String) -> String { ShownText.shown(t) }
        switch self {
        case .unknownPart(let s, let p):
            return "notification policy '\(c(s))': unknown part '\(c(p))'; expected none, dwell:T, cooldown:T "
                + "or dwell:T+cooldown:T"
        case .malformed(let s, let p, let r):
            return "notification policy '\(c(s))': \(r) (at '\(c(p))')"
        case .invalidParameter(let s?, let n, let v):
            return "notification policy '\(c(s))': \(n) must be finite and > 0 seconds, got \(v)"
        case .invalidParameter(nil, let n, let v):
            return "notification policy: \(n) must be finite and > 0 seconds, got \(v)"
        }
    }
}
