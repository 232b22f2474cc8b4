import DeviceLogKit
import GeoPolicy

/// The compact per-log figures a fleet run keeps (no coordinates, no per-fix arrays): the replay
/// itself is dropped as soon as this is computed, so memory grows only by one of these per log.
package struct FleetLogSummary: Sendable, Hashable {
    /// Position of the log in the fleet (manifest order) and its name as listed.
    package var index: Int
    package var name: String
    /// Cohort values, parallel to `FleetReport.keys`.
    package var values: [String]
    /// `passed`/`failed` of the log's own replay (`DeviceReplayResult.status`).
    package var status: DeviceCheckStatus
    /// Span of the fix timestamps, hours (exposure of the rates).
    package var hours: Double
    /// Engine crossings (accepted decisions from inside to outside or back).
    package var crossings: Int
    /// Counts of the divergence classes and of the fixes rejected (any reason) and stale.
    package var duplicate: Int
    package var missing: Int
    package var unsupported: Int
    package var late: Int
    package var flutter: Int
    package var rejected: Int
    package var stale: Int
    package var fixes: Int
    /// Fixes rejected per reason, parallel to `RejectionReason.allCases` (`stale` included).
    package var rejectedByReason: [Int]
    /// NIS of the input filter: innovations counted and those above the χ²(2) 95 % quantile;
    /// both 0 for raw input (`hasFilter` false).
    package var hasFilter: Bool
    package var innovations: Int
    package var innovationsAbove95: Int
    /// Median delay of the system events after the engine's own transition (matched and late), s.
    package var delayMedian_s: Double
    /// Median distance past the exit radius at which exit events arrived, and before the enter
    /// radius at which enter events arrived (enter radius − distance), metres.
    package var exitPast_m: Double
    package var entryBefore_m: Double
    /// Achieved sampling interval between consecutive fixes (median, p95), s, and gaps longer than
    /// `FleetLogSummary.gapThreshold_s`.
    package var intervalMedian_s: Double
    package var intervalP95_s: Double
    package var gaps: Int

    /// Fraction of the log's innovations with NIS above the χ²(2) 95 % quantile (a consistent
    /// filter: ≈ 0.05); NaN without a filter or without an innovation.
    package var nisAbove95Fraction: Double {
        hasFilter && innovations > 0 ? Double(innovationsAbove95) / Double(innovations) : .nan
    }

    /// A pause between fixes longer than this is a gap, seconds: the default match window of
    /// `DivergenceSettings` (a pause that long can hide a crossing and its event).
    package static let gapThreshold_s = 60.0

    /// Summarises one replay. `band` is the rule's enter and exit radius.
    package init(
        index: Int, name: String, values: [String], replay r: DeviceReplayResult, events: [SystemEvent],
        band: FlutterBand
    ) {
        self.index = index
        self.name = name
        self.values = values
        status = r.status
        fixes = r.fixCount
        let counts = r.divergences.counts
        duplicate = counts[.duplicateSystemEvent] ?? 0
        missing = counts[.missingSystemEvent] ?? 0
        unsupported = counts[.unsupportedSystemEvent] ?? 0
        late = counts[.lateSystemEvent] ?? 0
        flutter = counts[.ruleFlutter] ?? 0
        rejected = r.fixCount - r.accepted
        stale = r.rejections.first { $0.reason == "stale" }?.count ?? 0
        rejectedByReason = RejectionReason.allCases.map { reason in
            r.rejections.first { $0.reason == reason.rawValue }?.count ?? 0
        }
        hasFilter = r.innovation != nil
        innovations = r.innovation?.count ?? 0
        innovationsAbove95 = r.innovation?.above95 ?? 0
        var times: [Double] = []
        times.reserveCapacity(r.decisions.count)
        var crossings = 0
        for d in r.decisions {
            if d.timestamp_s.isFinite { times.append(d.timestamp_s) }
            if d.isAccepted, d.oldState != d.newState, d.oldState != .unknown, d.newState != .unknown { crossings += 1 }
        }
        self.crossings = crossings
        times.sort()
        hours = times.count > 1 ? (times[times.count - 1] - times[0]) / 3600 : 0
        var intervals: [Double] = []
        intervals.reserveCapacity(max(0, times.count - 1))
        var gaps = 0
        for i in times.indices.dropFirst() {
            let dt = times[i] - times[i - 1]
            intervals.append(dt)
            if dt > Self.gapThreshold_s { gaps += 1 }
        }
        self.gaps = gaps
        intervals.sort()
        intervalMedian_s = FleetStatistics.quantile(sorted: intervals, 0.5)
        intervalP95_s = FleetStatistics.quantile(sorted: intervals, 0.95)
        var delays = r.divergences.matched.map(\.delay_s)
        delays += r.divergences.divergences.compactMap { $0.kind == .lateSystemEvent ? $0.delay_s : nil }
        delayMedian_s = FleetStatistics.median(delays).estimate
        // Distance at each event: the last accepted decision with a distance at or before it.
        let accepted = r.decisions.filter { $0.isAccepted && $0.distance_m != nil && $0.timestamp_s.isFinite }
            .sorted { $0.timestamp_s < $1.timestamp_s }
        var exits: [Double] = []
        var entries: [Double] = []
        for e in events where e.timestamp_s.isFinite {
            var lo = 0
            var hi = accepted.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if accepted[mid].timestamp_s <= e.timestamp_s { lo = mid + 1 } else { hi = mid }
            }
            guard lo > 0, let d = accepted[lo - 1].distance_m else { continue }
            if e.kind == .exit { exits.append(d - band.outer_m) } else { entries.append(band.inner_m - d) }
        }
        exitPast_m = FleetStatistics.median(exits).estimate
        entryBefore_m = FleetStatistics.median(entries).estimate
    }

    /// A summary from figures alone (simulation at the per-log level and tests).
    package init(index: Int, name: String, values: [String], hours: Double, delayMedian_s: Double) {
        self.index = index
        self.name = name
        self.values = values
        status = .passed
        self.hours = hours
        crossings = 0
        duplicate = 0
        missing = 0
        unsupported = 0
        late = 0
        flutter = 0
        rejected = 0
        stale = 0
        fixes = 0
        rejectedByReason = RejectionReason.allCases.map { _ in 0 }
        hasFilter = false
        innovations = 0
        innovationsAbove95 = 0
        self.delayMedian_s = delayMedian_s
        exitPast_m = .nan
        entryBefore_m = .nan
        intervalMedian_s = .nan
        intervalP95_s = .nan
        gaps = 0
    }
}
