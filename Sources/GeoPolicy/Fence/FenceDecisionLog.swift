/// What the monitor decided for one input: the seed-000 log fields, no coordinates.
public struct FenceDecision: Sendable, Hashable, CustomStringConvertible {
    /// 0-based index of the fix among all fixes given to the monitor; nil for an authorization loss.
    public let sampleIndex: Int?
    /// Distance from the fence centre in metres, unrounded; NaN when the coordinate was invalid.
    public let distance_m: Double
    /// Horizontal accuracy in metres as delivered; NaN for an authorization loss.
    public let accuracy_m: Double
    public let oldState: FenceState
    public let newState: FenceState
    /// Why the fix was refused, or nil when it was accepted.
    public let rejection: RejectionReason?
    /// The event emitted, if the state changed validly.
    public let event: FenceEvent?

    public init(
        sampleIndex: Int?, distance_m: Double, accuracy_m: Double, oldState: FenceState,
        newState: FenceState, rejection: RejectionReason?, event: FenceEvent?
    ) {
        self.sampleIndex = sampleIndex
        self.distance_m = distance_m
        self.accuracy_m = accuracy_m
        self.oldState = oldState
        self.newState = newState
        self.rejection = rejection
        self.event = event
    }

    /// True when the fix was accepted (it may still have left the state unchanged).
    public var accepted: Bool { rejection == nil }

    /// One log line, values unrounded: `#3 distance_m=85.2 accuracy_m=10 outside -> inside event=#2 entered`.
    public var description: String {
        var line = sampleIndex.map { "#\($0)" } ?? "authorizationLost"
        if sampleIndex != nil { line += " distance_m=\(distance_m) accuracy_m=\(accuracy_m)" }
        line += " \(oldState) -> \(newState)"
        if let rejection { line += " rejected=\(rejection)" }
        if let event { line += " event=#\(event.id) \(event.kind.rawValue)" }
        return line
    }
}

/// Which decisions the monitor keeps. Off for the hot path.
public struct FenceLogOptions: Sendable, Hashable {
    /// Keep a `FenceLogEntry` per input.
    public var enabled: Bool
    /// Also keep the raw latitude/longitude of each fix. Off by default (privacy, seed 000).
    public var includeCoordinates: Bool

    public init(enabled: Bool, includeCoordinates: Bool = false) {
        self.enabled = enabled
        self.includeCoordinates = includeCoordinates
    }

    /// No log (the hot path: nothing is stored per fix).
    public static let off = FenceLogOptions(enabled: false)
    /// Decisions without coordinates (the default).
    public static let decisions = FenceLogOptions(enabled: true)
    /// Decisions with raw coordinates; only when the user asks for it.
    public static let decisionsWithCoordinates = FenceLogOptions(enabled: true, includeCoordinates: true)
}

/// One kept log line: the decision, plus the raw coordinate only when enabled.
public struct FenceLogEntry: Sendable, Hashable, CustomStringConvertible {
    public let decision: FenceDecision
    /// Latitude in degrees as delivered; nil unless `includeCoordinates`.
    public let latitude: Double?
    /// Longitude in degrees as delivered; nil unless `includeCoordinates`.
    public let longitude: Double?

    public init(decision: FenceDecision, latitude: Double? = nil, longitude: Double? = nil) {
        self.decision = decision
        self.latitude = latitude
        self.longitude = longitude
    }

    public var description: String {
        guard let latitude, let longitude else { return decision.description }
        return decision.description + " latitude=\(latitude) longitude=\(longitude)"
    }
}

/// The monitor's decision log: data plus a description; the caller prints or stores it.
public struct FenceDecisionLog: Sendable, Hashable, CustomStringConvertible {
    public internal(set) var entries: [FenceLogEntry] = []

    public init(entries: [FenceLogEntry] = []) { self.entries = entries }

    /// One line per entry.
    public var description: String { entries.map(\.description).joined(separator: "\n") }
}
