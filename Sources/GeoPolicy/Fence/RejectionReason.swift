/// Why `FenceMonitor` refused a fix (contract names: docs/metrics.md and docs/engine-protocol.md). A rejected fix
/// changes no state and emits no event; only the reason is logged.
///
/// Checks run in this order, the first failing one is reported:
/// `invalidTimestamp`, `invalidCoordinate`, `invalidAccuracy`, `stale`,
/// `duplicate`, `outOfOrder`, `inaccurate`.
public enum RejectionReason: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// The fix's timestamp (or the injected `now`) is NaN or infinite. (Added to the
    /// contract list: without it a NaN timestamp would pass the stale and order checks.)
    case invalidTimestamp
    /// Latitude/longitude not finite or out of range (never clamped).
    case invalidCoordinate
    /// Accuracy NaN, infinite or negative (iOS's −1 "invalid" marker).
    case invalidAccuracy
    /// Accuracy valid but larger than the rule's `maxAccuracy_m`.
    case inaccurate
    /// Older than `maxAge_s` relative to the injected `now`.
    case stale
    /// Not newer than the last accepted fix.
    case outOfOrder
    /// Same timestamp and position as the last accepted fix (a re-delivery).
    case duplicate

    public var description: String { rawValue }
}

/// A state change the business logic may act on. The `id` is unique and
/// increasing per monitor, so a side effect keyed by it runs at most once.
public struct FenceEvent: Sendable, Hashable, CustomStringConvertible {
    /// What happened.
    public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
        /// First known state after `unknown` (first start or after an authorization loss).
        case determined
        /// `outside` → `inside`.
        case entered
        /// `inside` → `outside`.
        case exited
    }

    /// Monotonic per monitor, starting at 1.
    public let id: UInt64
    public let kind: Kind
    /// The state before the change.
    public let previous: FenceState
    /// The state after the change.
    public let state: FenceState
    /// Index of the fix that caused it (0-based, counting every fix given to the monitor).
    public let sampleIndex: Int
    /// Timestamp of that fix, in seconds.
    public let timestamp_s: Double

    public init(id: UInt64, kind: Kind, previous: FenceState, state: FenceState, sampleIndex: Int, timestamp_s: Double)
    {
        self.id = id
        self.kind = kind
        self.previous = previous
        self.state = state
        self.sampleIndex = sampleIndex
        self.timestamp_s = timestamp_s
    }

    public var description: String {
        "event #\(id) \(kind.rawValue) \(previous) -> \(state) at sample \(sampleIndex)"
    }
}
