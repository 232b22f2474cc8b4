import GeoPolicy

/// Notification-level figures of one replicate against the place's true visits (docs/metrics.md
/// "Notifications"): what the user is told, scored against the truth, never against the rule.
package struct NotificationMetrics: Sendable, Hashable {
    /// True visits of the place (after merging and the minimum dwell).
    package var trueVisits: Int
    /// Entry, exit and dwell notifications shown.
    package var entries: Int
    package var exits: Int
    package var dwells: Int
    /// Entry notifications of stays that match no true visit one-to-one (false arrivals and repeats).
    package var unwantedEntries: Int
    /// Exit notifications other than the one true exit of a visit: an exit while the user is
    /// still inside (a flap, a stay open at the end of the drive) or of an unmatched stay.
    package var unwantedExits: Int
    /// Dwell notifications outside every widened true visit of at least the loitering delay.
    package var falseDwells: Int
    /// The other unwanted dwell notifications: within a widened true visit of at least the
    /// loitering delay, but not that visit's dwell (a fragment's dwell, a repeat).
    package var repeatDwells: Int
    /// The loitering delay T the dwells were made with, seconds; nil without dwell.
    package var dwell_s: Double?
    /// True visits lasting at least T (an open visit counts its length to the drive's end); nil without dwell.
    package var dwellVisits: Int?
    /// Those of them whose matched stay dwelled within the visit's widened span.
    package var matchedDwells: Int
    /// Hours of drive the per-hour rates are taken over (> 0).
    package var driveHours: Double
    /// Dwell latency (dwell notification − (true entry + T)) of every matched dwell, seconds, in true-visit order.
    package var dwellLatencies_s: [Double]
    /// Median and p95 (type 7) of `dwellLatencies_s`; nil when none matched.
    package var dwellLatencyMedian_s: Double?
    package var dwellLatencyP95_s: Double?

    /// Every unwanted notification: unwanted entries and exits, false and repeated dwells.
    package var unwanted: Int { unwantedEntries + unwantedExits + falseDwells + repeatDwells }
    package var unwantedPerHour: Double { Double(unwanted) / driveHours }
    /// Entry notifications per true visit (1 is one arrival per visit); nil without a true visit.
    package var entriesPerTrueVisit: Double? { trueVisits > 0 ? Double(entries) / Double(trueVisits) : nil }
    /// matched dwells / true visits of at least T; nil without dwell or without such a visit.
    package var dwellRecall: Double? {
        guard let n = dwellVisits, n > 0 else { return nil }
        return Double(matchedDwells) / Double(n)
    }
    /// False dwells per hour; nil without dwell.
    package var falseDwellsPerHour: Double? { dwell_s == nil ? nil : Double(falseDwells) / driveHours }

    /// The figures as `notify.*` metric paths (absent figures left out).
    func flattened(into out: inout [String: Double]) {
        out["notify.entries"] = Double(entries)
        out["notify.exits"] = Double(exits)
        out["notify.entriesPerTrueVisit"] = entriesPerTrueVisit
        out["notify.unwanted"] = Double(unwanted)
        out["notify.unwantedPerHour"] = unwantedPerHour
        guard dwell_s != nil else { return }
        out["notify.dwells"] = Double(dwells)
        out["notify.dwellRecall"] = dwellRecall
        out["notify.falseDwells"] = Double(falseDwells)
        out["notify.falseDwellsPerHour"] = falseDwellsPerHour
        out["notify.dwellLatency_s.median"] = dwellLatencyMedian_s
        out["notify.dwellLatency_s.p95"] = dwellLatencyP95_s
    }

    /// The rule's determined-state changes of a state sequence: `(time_s, inside)` at each
    /// determined state that differs from the last determined one, the first determination
    /// first (`unknown` is skipped, as in `Flutter.transitions`).
    package static func changes(of states: [StateSample]) -> [(time_s: Double, inside: Bool)] {
        var out: [(time_s: Double, inside: Bool)] = []
        var last: FenceState?
        for s in states where s.state != .unknown && s.state != last {
            out.append((s.time_s, s.state == .inside))
            last = s.state
        }
        return out
    }

    /// Scores notifications against true visits.
    ///
    /// The notifications are cut into stays: an entry opens one, the next exit closes it (a stay
    /// still open ends at `duration_s`), a dwell belongs to the open stay. Stays are matched to
    /// the true visits widened by `matchSlack_s` exactly as `Visits.measure` matches observed
    /// visits (match, fragment or false). An entry is wanted when its stay is a match. An exit
    /// is wanted when it closes the last stay (match or fragment) of a matched true visit that
    /// ends within the drive, at or after that visit's end − `matchSlack_s`; every other exit
    /// (a flap while inside, the exit of a false stay) is unwanted. A dwell is wanted when its stay matches a true visit of at
    /// least `dwell_s` and the dwell's time lies within that visit's widened span; its latency
    /// is dwell time − (true entry + `dwell_s`). An unwanted dwell is false when its time lies
    /// within no widened true visit of at least `dwell_s`, otherwise a repeat.
    /// - Parameters:
    ///   - truth: sorted, disjoint true visits (`Visits.trueVisits`).
    ///   - notifications: in time order, as `NotificationPolicy.notifications` makes them.
    ///   - duration_s: the drive's length, finite, > 0.
    ///   - matchSlack_s: finite, ≥ 0.
    ///   - dwell_s: the policy's loitering delay, nil without dwell (then no dwell may occur).
    /// - Throws: `MetricsError.invalidValue` for invalid parameters or an inconsistent sequence.
    package static func measure(
        truth: [Visit], notifications: [FenceNotification], duration_s: Double,
        matchSlack_s: Double = Visits.defaultMatchSlack_s, dwell_s: Double?
    ) throws(MetricsError) -> NotificationMetrics {
        guard matchSlack_s.isFinite, matchSlack_s >= 0 else {
            throw .invalidValue(key: "matchSlack_s", value: "\(matchSlack_s)", reason: "must be finite and ≥ 0")
        }
        guard duration_s.isFinite, duration_s > 0 else {
            throw .invalidValue(key: "duration_s", value: "\(duration_s)", reason: "must be finite and > 0")
        }
        if let t = dwell_s, !(t.isFinite && t > 0) {
            throw .invalidValue(key: "dwell_s", value: "\(t)", reason: "must be finite and > 0")
        }
        try Visits.checkSorted(truth, key: "truth")
        // Stays, and per stay whether it closed with an exit notification and when it dwelled.
        var stays: [Visit] = []
        var closed: [Bool] = []
        var dwellAt: [Double?] = []
        var open = false
        var counts = (entries: 0, exits: 0, dwells: 0)
        for (i, n) in notifications.enumerated() {
            guard n.time_s.isFinite, i == 0 || n.time_s >= notifications[i - 1].time_s else {
                throw .invalidValue(
                    key: "notifications[\(i)].time_s", value: "\(n.time_s)", reason: "must be finite and in time order")
            }
            switch n.kind {
            case .entry:
                guard !open else { throw inconsistent(i, "an entry inside an open stay") }
                stays.append(Visit(start_s: n.time_s, end_s: n.time_s))
                closed.append(false)
                dwellAt.append(nil)
                open = true
                counts.entries += 1
            case .exit:
                guard open else { throw inconsistent(i, "an exit without an entry") }
                stays[stays.count - 1].end_s = n.time_s
                closed[stays.count - 1] = true
                open = false
                counts.exits += 1
            case .dwell:
                guard dwell_s != nil else { throw inconsistent(i, "a dwell without a dwell policy") }
                guard open, dwellAt[stays.count - 1] == nil else { throw inconsistent(i, "a dwell outside a stay") }
                dwellAt[stays.count - 1] = n.time_s
                counts.dwells += 1
            }
        }
        if open {
            stays[stays.count - 1].end_s = Swift.max(duration_s, stays[stays.count - 1].start_s)
            stays[stays.count - 1].openAtEnd = true
        }
        let long = dwell_s.map { t in truth.map { $0.end_s - $0.start_s >= t } } ?? []
        func within(_ t: Double, _ v: Visit) -> Bool { t >= v.start_s - matchSlack_s && t <= v.end_s + matchSlack_s }
        var unwantedEntries = 0
        var unwantedExits = 0
        var falseDwells = 0
        var repeatDwells = 0
        var latencies: [(visit: Int, latency_s: Double)] = []
        // Per stay its true visit (match or fragment), per true visit its last stay.
        var visitOf = [Int](repeating: -1, count: stays.count)
        var lastStay = [Int](repeating: -1, count: truth.count)
        Visits.match(truth: truth, observed: stays, matchSlack_s: matchSlack_s) { i, role in
            var matched: Int?
            switch role {
            case .match(let j):
                matched = j
                (visitOf[i], lastStay[j]) = (j, i)
            case .fragment(let j): (visitOf[i], lastStay[j]) = (j, i)
            case .falseVisit: break
            }
            if matched == nil { unwantedEntries += 1 }
            guard let t = dwellAt[i], let d = dwell_s else { return }
            if let j = matched, long[j], within(t, truth[j]) {
                latencies.append((j, t - (truth[j].start_s + d)))
            } else if truth.indices.contains(where: { long[$0] && within(t, truth[$0]) }) {
                repeatDwells += 1
            } else {
                falseDwells += 1
            }
        }
        for i in stays.indices where closed[i] {
            let j = visitOf[i]
            let trueExit =
                j >= 0 && lastStay[j] == i && !truth[j].openAtEnd && stays[i].end_s >= truth[j].end_s - matchSlack_s
            if !trueExit { unwantedExits += 1 }
        }
        latencies.sort { $0.visit < $1.visit }
        let dwellLatencies = latencies.map(\.latency_s)
        let q = try Visits.medianP95(dwellLatencies)
        return NotificationMetrics(
            trueVisits: truth.count, entries: counts.entries, exits: counts.exits, dwells: counts.dwells,
            unwantedEntries: unwantedEntries, unwantedExits: unwantedExits, falseDwells: falseDwells,
            repeatDwells: repeatDwells, dwell_s: dwell_s, dwellVisits: dwell_s.map { _ in long.filter { $0 }.count },
            matchedDwells: dwellLatencies.count, driveHours: duration_s / 3600, dwellLatencies_s: dwellLatencies,
            dwellLatencyMedian_s: q?.median, dwellLatencyP95_s: q?.p95)
    }

    private static func inconsistent(_ i: Int, _ what: String) -> MetricsError {
        .invalidValue(key: "notifications[\(i)]", value: what, reason: "notifications must alternate entry … exit")
    }
}
