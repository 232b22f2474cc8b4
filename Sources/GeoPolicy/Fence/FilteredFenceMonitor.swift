/// Something that turns delivered fixes into fence decisions: `FenceMonitor` (raw fixes) or
/// `FilteredFenceMonitor` (a filter's estimates).
public protocol FenceDeciding: Sendable {
    /// Processes one fix at the injected time `now_s` (same clock as `fix.timestamp_s`).
    mutating func process(_ fix: Fix, now_s: Double) -> FenceDecision
    /// The rules version of what decides, input stage included.
    var rulesVersion: String { get }
    /// Processes one fix exactly as `process(_:now_s:)` does and sets `innovation` to the input
    /// filter's innovation of the fix against its prediction (for NIS); nil when no filter weighed
    /// the fix: raw input, a fix refused before the filter, or the filter's first fix.
    mutating func process(_ fix: Fix, now_s: Double, innovation: inout Innovation?) -> FenceDecision
}

extension FenceDeciding {
    /// Raw input: no filter, no innovation.
    public mutating func process(_ fix: Fix, now_s: Double, innovation: inout Innovation?) -> FenceDecision {
        innovation = nil
        return process(fix, now_s: now_s)
    }
}

extension FenceMonitor: FenceDeciding {}

/// A fence monitor that decides on a track filter's causal estimate instead of the raw fix
/// (`FenceInput.kalman`, `.imm`).
///
/// Per fix: the checks of `FenceMonitor` that do not depend on the rule — timestamp, coordinate,
/// accuracy, staleness against `now`, duplicate, order — run on the raw fix first and refuse it with
/// the same reasons; a refused fix reaches neither the filter nor the rule. An accepted fix updates
/// the filter (a fix the filter cannot weigh, accuracy exactly 0, is refused as `invalidAccuracy`),
/// and the filtered position after it, at the fix's time and with the accuracy from the filter's
/// covariance (`FenceInput`), goes through the monitor: the accuracy gate (`inaccurate`) and the
/// conservative rule see the filter's uncertainty, the distance is the estimate's. Every fix feeds
/// the filter whatever its accuracy: the filter weighs it by that accuracy. Value type of fixed
/// size; no allocation per fix with logging off.
public struct FilteredFenceMonitor<Rule: FenceRule, Model: DistanceModel>: FenceDeciding {
    /// The monitor that sees the estimates.
    public private(set) var monitor: FenceMonitor<Rule, Model>
    /// The input stage (never `raw`).
    public let input: FenceInput
    var filter: InputFilter
    var order = OrderGate()

    /// - Parameters:
    ///   - monitor: a fresh monitor (rule, confirmation, distance model, staleness, logging).
    ///   - input: `kalman` or `imm` with its q.
    /// - Throws: `TrackError.invalidParameter` for a `raw` input (use the monitor itself).
    public init(monitor: FenceMonitor<Rule, Model>, input: FenceInput) throws(TrackError) {
        guard let filter = input.makeFilter() else {
            throw .invalidParameter(
                name: "input", value: .nan, expected: "kalman or imm (raw fixes need no filter: use FenceMonitor)")
        }
        self.monitor = monitor
        self.input = input
        self.filter = filter
    }

    /// The current state.
    public var state: FenceState { monitor.state }
    /// Rules version of rule + confirmation + input, e.g. `hysteresis-80-120-acc30+kalman-q1`.
    public var rulesVersion: String { monitor.rulesVersion + input.versionSuffix }

    public mutating func process(_ fix: Fix, now_s: Double) -> FenceDecision {
        process(fix, now_s: now_s) { (filter) throws(TrackRejection) in try filter.update(fix) }
    }

    /// `process(_:now_s:)` with the filter's innovation of the fix (a separate filter path, so the
    /// plain one computes nothing it does not return).
    public mutating func process(_ fix: Fix, now_s: Double, innovation: inout Innovation?) -> FenceDecision {
        innovation = nil
        return process(fix, now_s: now_s) { (filter) throws(TrackRejection) in
            try filter.update(fix, innovation: &innovation)
        }
    }

    /// The raw checks, then `estimate` (the filter's update with `fix`), then the monitor on the
    /// estimate.
    @inline(__always)
    private mutating func process(
        _ fix: Fix, now_s: Double,
        estimate: (inout InputFilter) throws(TrackRejection) -> (position: Coordinate, accuracy_m: Double)
    ) -> FenceDecision {
        guard fix.timestamp_s.isFinite, now_s.isFinite else { return monitor.reject(fix, reason: .invalidTimestamp) }
        guard Coordinate.isValid(latitude: fix.latitude, longitude: fix.longitude) else {
            return monitor.reject(fix, reason: .invalidCoordinate)
        }
        if let reason = order.rejection(fix, now_s: now_s, maxAge_s: monitor.maxAge_s) {
            return monitor.reject(fix, reason: reason)
        }
        let e: (position: Coordinate, accuracy_m: Double)
        do { e = try estimate(&filter) } catch { return monitor.reject(fix, reason: .invalidAccuracy) }
        order.accept(fix)
        return monitor.process(
            Fix(
                timestamp_s: fix.timestamp_s, latitude: e.position.latitude, longitude: e.position.longitude,
                horizontalAccuracy_m: e.accuracy_m), now_s: now_s)
    }
}
