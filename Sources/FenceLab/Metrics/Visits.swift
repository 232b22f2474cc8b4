import DriveSim
import GSLKit
import GeoPolicy

/// A stay inside: from `start_s` to `end_s` (seconds, scenario-relative).
package struct Visit: Sendable, Hashable {
    /// Time of the first inside sample (true visit) or of the fix that made the rule `inside` (observed).
    package var start_s: Double
    /// Time of the first outside sample / fix after the stay, or the end of the drive when `openAtEnd`.
    package var end_s: Double
    /// True when the stay had not ended when the drive ended (`end_s` is then the drive's end).
    package var openAtEnd: Bool

    package init(start_s: Double, end_s: Double, openAtEnd: Bool = false) {
        self.start_s = start_s
        self.end_s = end_s
        self.openAtEnd = openAtEnd
    }
}

/// Visit-level figures of one replicate against the place (docs/metrics.md "Visits").
package struct VisitMetrics: Sendable, Hashable {
    /// True visits (place truth after merging and the minimum dwell).
    package var trueVisits: Int
    /// True visits matched one-to-one by an observed visit.
    package var matchedVisits: Int
    /// True visits without an observed visit: `trueVisits − matchedVisits`.
    package var missedVisits: Int { trueVisits - matchedVisits }
    /// Observed visits that overlap no widened true visit (false alarms).
    package var falseVisits: Int
    /// Extra observed visits that overlap an already matched true visit (one stay split in several).
    package var fragments: Int
    /// Matched visits whose observed entry came before the true entry (negative entry latency).
    package var earlyEntries: Int
    /// Hours of drive the per-hour rates are taken over (> 0).
    package var driveHours: Double
    /// Entry latency (observed − true entry) of every matched visit, seconds, in true-visit order.
    package var entryLatencies_s: [Double]
    /// Exit latency (exit of the last observed fragment − true exit) of every matched visit whose
    /// true exit lies within the drive, seconds, in true-visit order.
    package var exitLatencies_s: [Double]

    /// Median and p95 (type 7) of `entryLatencies_s` as they are (early entries negative); nil when none matched.
    package var entryLatencyMedian_s: Double?
    package var entryLatencyP95_s: Double?
    /// Median and p95 of `exitLatencies_s`; nil when no matched visit has a true exit within the drive.
    package var exitLatencyMedian_s: Double?
    package var exitLatencyP95_s: Double?
    /// p95 of the entry latencies with early entries counted as 0 (the tuning constraint: early is
    /// never better than on time); nil when none matched.
    package var lateEntryP95_s: Double?

    /// Counts and latencies; the quantiles are computed here (GSL, type 7).
    package init(
        trueVisits: Int, matchedVisits: Int, falseVisits: Int, fragments: Int, earlyEntries: Int,
        driveHours: Double, entryLatencies_s: [Double], exitLatencies_s: [Double]
    ) throws(MetricsError) {
        self.trueVisits = trueVisits
        self.matchedVisits = matchedVisits
        self.falseVisits = falseVisits
        self.fragments = fragments
        self.earlyEntries = earlyEntries
        self.driveHours = driveHours
        self.entryLatencies_s = entryLatencies_s
        self.exitLatencies_s = exitLatencies_s
        let entry = try Visits.medianP95(entryLatencies_s)
        let exit = try Visits.medianP95(exitLatencies_s)
        entryLatencyMedian_s = entry?.median
        entryLatencyP95_s = entry?.p95
        exitLatencyMedian_s = exit?.median
        exitLatencyP95_s = exit?.p95
        // Without an early entry the clamped latencies are the latencies: no second quantile pass.
        lateEntryP95_s =
            earlyEntries == 0
            ? entryLatencyP95_s
            : try Visits.medianP95(entryLatencies_s.lazy.map { Swift.max(0, $0) })?.p95
    }

    /// matched / true; nil without a true visit.
    package var recall: Double? { trueVisits > 0 ? Double(matchedVisits) / Double(trueVisits) : nil }
    package var falsePerHour: Double { Double(falseVisits) / driveHours }
    package var fragmentsPerHour: Double { Double(fragments) / driveHours }

    /// The figures as `visits.*` metric paths (absent latencies and recall left out).
    func flattened(into out: inout [String: Double]) {
        out["visits.trueVisits"] = Double(trueVisits)
        out["visits.matchedVisits"] = Double(matchedVisits)
        out["visits.missedVisits"] = Double(missedVisits)
        out["visits.recall"] = recall
        out["visits.falseVisits"] = Double(falseVisits)
        out["visits.fragments"] = Double(fragments)
        out["visits.falsePerHour"] = falsePerHour
        out["visits.fragmentsPerHour"] = fragmentsPerHour
        out["visits.entryLatency_s.median"] = entryLatencyMedian_s
        out["visits.entryLatency_s.p95"] = entryLatencyP95_s
        out["visits.exitLatency_s.median"] = exitLatencyMedian_s
        out["visits.exitLatency_s.p95"] = exitLatencyP95_s
        out["visits.earlyEntries"] = Double(earlyEntries)
    }
}

/// Visit-level scoring: observed visits of a rule against true visits of the place.
///
/// The truth is the place (`PlaceSpec`), not the rule on the noiseless track, so it is the same
/// for every rule setting and can rank settings. Definitions and a worked example: docs/metrics.md.
package enum Visits {
    /// Default widening of each true visit on both sides before matching, seconds.
    package static let defaultMatchSlack_s = 60.0

    /// Relative margin within which the spherical distance cannot decide inside/outside of the
    /// place and the WGS84 distance is computed: sphere (R = 6 371 000 m) and ellipsoid distances
    /// differ by less than 0.6 % (the WGS84 radii of curvature lie within 6 335–6 400 km).
    static let sphereMargin = 0.01

    /// True visits of `place` from the noiseless positions at `time_s` (sorted), ending at `end_s`.
    ///
    /// Inside ⇔ WGS84 distance from `center` ≤ `radius_m`. A maximal run of inside samples is a
    /// span from its first inside sample to the first outside sample after it (or `end_s`);
    /// spans separated by less than `mergeGap_s` of outside are merged; visits shorter than
    /// `minDwell_s` are dropped (an open visit counts its length to `end_s`).
    package static func trueVisits(
        time_s: [Double], truth: [Coordinate], center: Coordinate, place: PlaceSpec,
        end_s: Double
    ) -> [Visit] {
        let sphere = Haversine()
        let ellipsoid = WGS84()
        let inside = truth.map { c -> Bool in
            let d = sphere.distance_m(center, c)
            if abs(d - place.radius_m) > sphereMargin * Swift.max(d, place.radius_m) { return d <= place.radius_m }
            return ellipsoid.distance_m(center, c) <= place.radius_m
        }
        return trueVisits(time_s: time_s, inside: inside, place: place, end_s: end_s)
    }

    /// True visits of `place` from a generated drive: the truth at every sample slot (first
    /// delivery of each slot), the drive ending at `end_s`.
    package static func trueVisits(
        samples: [GeneratedSample], center: Coordinate, place: PlaceSpec,
        end_s: Double
    ) -> [Visit] {
        var time: [Double] = []
        var truth: [Coordinate] = []
        var lastSlot = -1
        for s in samples where s.sampleIndex > lastSlot {
            lastSlot = s.sampleIndex
            time.append(s.time_s)
            truth.append(s.truth)
        }
        return trueVisits(time_s: time, truth: truth, center: center, place: place, end_s: end_s)
    }

    /// The same true visits from the truth's Haversine distances computed once per drive
    /// (`TruthDistances` of the same `samples` and `center`, which the fence's true states read
    /// too): the same slots and the same sphere distance, WGS84 only near the place's edge.
    package static func trueVisits(
        truth: TruthDistances, samples: [GeneratedSample], center: Coordinate, place: PlaceSpec, end_s: Double
    ) -> [Visit] {
        let ellipsoid = WGS84()
        var inside: [Bool] = []
        inside.reserveCapacity(truth.distance_m.count)
        var lastSlot = -1
        for s in samples where s.sampleIndex > lastSlot {
            lastSlot = s.sampleIndex
            let d = truth.distance_m[inside.count]
            if abs(d - place.radius_m) > sphereMargin * Swift.max(d, place.radius_m) {
                inside.append(d <= place.radius_m)
            } else {
                inside.append(ellipsoid.distance_m(center, s.truth) <= place.radius_m)
            }
        }
        return trueVisits(time_s: truth.time_s, inside: inside, place: place, end_s: end_s)
    }

    /// True visits from per-sample inside flags (see `trueVisits(time_s:truth:center:place:end_s:)`).
    package static func trueVisits(time_s: [Double], inside: [Bool], place: PlaceSpec, end_s: Double) -> [Visit] {
        var spans: [Visit] = []
        var start: Double?
        for (t, isIn) in zip(time_s, inside) {
            if isIn, start == nil { start = t }
            if !isIn, let s = start {
                spans.append(Visit(start_s: s, end_s: t))
                start = nil
            }
        }
        if let s = start { spans.append(Visit(start_s: s, end_s: end_s, openAtEnd: true)) }
        return mergeAndFilter(spans, place: place)
    }

    /// Merges inside spans separated by less than `place.mergeGap_s` and drops visits shorter
    /// than `place.minDwell_s` (the last steps of `trueVisits`).
    static func mergeAndFilter(_ spans: [Visit], place: PlaceSpec) -> [Visit] {
        var merged: [Visit] = []
        for v in spans {
            if let last = merged.last, v.start_s - last.end_s < place.mergeGap_s {
                merged[merged.count - 1].end_s = v.end_s
                merged[merged.count - 1].openAtEnd = v.openAtEnd
            } else {
                merged.append(v)
            }
        }
        return merged.filter { $0.end_s - $0.start_s >= place.minDwell_s }
    }

    /// Observed visits of a rule: from the fix that made the state `inside` (the first inside
    /// determination included) to the fix that made it `outside`, or to `end_s`. `unknown` is
    /// skipped, as for transitions (inside → unknown → outside ends the visit at the outside fix).
    package static func observedVisits(of states: [StateSample], end_s: Double) -> [Visit] {
        var visits: [Visit] = []
        var start: Double?
        for s in states where s.state != .unknown {
            if s.state == .inside, start == nil { start = s.time_s }
            if s.state == .outside, let t = start {
                visits.append(Visit(start_s: t, end_s: s.time_s))
                start = nil
            }
        }
        if let t = start { visits.append(Visit(start_s: t, end_s: Swift.max(end_s, t), openAtEnd: true)) }
        return visits
    }

    /// Matches observed visits to true visits and counts.
    ///
    /// Each true visit is widened by `matchSlack_s` on both sides. Observed visits are taken
    /// earliest first; each is matched to the earliest unmatched true visit whose widened span
    /// overlaps it (closed intervals); otherwise it is a fragment of the latest matched true
    /// visit it overlaps; otherwise a false visit. Entry latency = observed start − true start;
    /// exit latency = end of the last observed visit of that true visit (match or fragment) − true
    /// end, for true visits that end within the drive (an observed visit still open at the end
    /// counts the drive's end: a lower bound).
    /// - Parameters:
    ///   - truth, observed: sorted by start, finite times, non-overlapping.
    ///   - duration_s: the drive's length for the per-hour rates, finite, > 0.
    ///   - matchSlack_s: finite, ≥ 0.
    package static func measure(
        truth: [Visit], observed: [Visit], duration_s: Double,
        matchSlack_s: Double = defaultMatchSlack_s
    ) throws(MetricsError) -> VisitMetrics {
        var buffers = Buffers()
        return try measure(
            truth: truth, observed: observed, duration_s: duration_s, matchSlack_s: matchSlack_s, buffers: &buffers)
    }

    /// The latency arrays `measure` fills, kept by a caller that measures many rules (a sweep's
    /// worker): emptied at each call, so that once they are large enough a call allocates
    /// nothing. The metrics share their storage until they are dropped.
    package struct Buffers: Sendable {
        var entry: [Double] = []
        var exit: [Double] = []
        package init() {}
    }

    /// `measure(truth:observed:duration_s:matchSlack_s:)` in `buffers` (the same metrics).
    package static func measure(
        truth: [Visit], observed: [Visit], duration_s: Double, matchSlack_s: Double = defaultMatchSlack_s,
        buffers: inout Buffers
    ) throws(MetricsError) -> VisitMetrics {
        guard matchSlack_s.isFinite, matchSlack_s >= 0 else {
            throw .invalidValue(key: "matchSlack_s", value: "\(matchSlack_s)", reason: "must be finite and ≥ 0")
        }
        guard duration_s.isFinite, duration_s > 0 else {
            throw .invalidValue(key: "duration_s", value: "\(duration_s)", reason: "must be finite and > 0")
        }
        try checkSorted(truth, key: "truth")
        try checkSorted(observed, key: "observed")
        // Per true visit: the observed visit matched to it (−1: none) and the end of its last
        // observed visit, in two stack buffers (an array of tuples looks its type's metadata up
        // in the runtime at every call: ≈ 950 instructions, 3.5 % of a 1 420-point sweep).
        var falseVisits = 0
        var fragments = 0
        var early = 0
        buffers.entry.removeAll(keepingCapacity: true)
        buffers.exit.removeAll(keepingCapacity: true)
        buffers.entry.reserveCapacity(truth.count)
        buffers.exit.reserveCapacity(truth.count)
        withUnsafeTemporaryAllocation(of: Int.self, capacity: truth.count) { matchedObserved in
            withUnsafeTemporaryAllocation(of: Double.self, capacity: truth.count) { lastEnd in
                matchedObserved.initialize(repeating: -1)
                lastEnd.initialize(repeating: -.infinity)
                match(truth: truth, observed: observed, matchSlack_s: matchSlack_s) { i, role in
                    let o = observed[i]
                    switch role {
                    case .match(let j):
                        matchedObserved[j] = i
                        lastEnd[j] = o.end_s
                    case .fragment(let j):
                        fragments += 1
                        lastEnd[j] = Swift.max(lastEnd[j], o.end_s)
                    case .falseVisit: falseVisits += 1
                    }
                }
                for (j, t) in truth.enumerated() where matchedObserved[j] >= 0 {
                    let latency = observed[matchedObserved[j]].start_s - t.start_s
                    buffers.entry.append(latency)
                    if latency < 0 { early += 1 }
                    if !t.openAtEnd { buffers.exit.append(lastEnd[j] - t.end_s) }
                }
            }
        }
        return try VisitMetrics(
            trueVisits: truth.count, matchedVisits: buffers.entry.count, falseVisits: falseVisits,
            fragments: fragments, earlyEntries: early, driveHours: duration_s / 3600,
            entryLatencies_s: buffers.entry, exitLatencies_s: buffers.exit)
    }

    /// What an observed visit is to the truth: matched to true visit j, a fragment of j, or false.
    package enum ObservedRole: Sendable, Hashable {
        case match(Int)
        case fragment(Int)
        case falseVisit
    }

    /// The matching of `measure` (see there), reporting each observed visit's role in order.
    /// `truth` and `observed` must be sorted by start (checked by the callers).
    package static func match(
        truth: [Visit], observed: [Visit], matchSlack_s: Double,
        _ report: (_ observed: Int, _ role: ObservedRole) -> Void
    ) {
        // Which true visits are matched, in a temporary buffer (`measure` runs per work item of a
        // sweep; an array here was its one allocation per call).
        withUnsafeTemporaryAllocation(of: Bool.self, capacity: truth.count) { matched in
            matched.initialize(repeating: false)
            var first = 0
            for (i, o) in observed.enumerated() {
                while first < truth.count, truth[first].end_s + matchSlack_s < o.start_s { first += 1 }
                var match: Int?
                var fragmentOf: Int?
                var j = first
                while j < truth.count, truth[j].start_s - matchSlack_s <= o.end_s {
                    if !matched[j] {
                        match = j
                        break
                    }
                    fragmentOf = j
                    j += 1
                }
                if let j = match {
                    matched[j] = true
                    report(i, .match(j))
                } else if let j = fragmentOf {
                    report(i, .fragment(j))
                } else {
                    report(i, .falseVisit)
                }
            }
        }
    }

    /// The median and 95th percentile of `values` (nil when empty), selected in a temporary
    /// buffer they are copied to: a caller passes a lazy view (latencies of matches, clamped
    /// latencies) and no array is made.
    static func medianP95<Values: Collection<Double>>(
        _ values: Values
    ) throws(MetricsError) -> (median: Double, p95: Double)? {
        let n = values.count
        guard n > 0 else { return nil }
        let q = try withUnsafeTemporaryAllocation(of: Double.self, capacity: n) {
            (buffer) throws(MetricsError) -> (Double, Double) in
            _ = buffer.initialize(from: values)
            defer { buffer.deinitialize() }
            return try gsl { () throws(GSLError) in
                try Statistics.quantilePair(reordering: buffer, medianAndP95[0], medianAndP95[1])
            }
        }
        return (q.0, q.1)
    }

    /// The probabilities of `medianP95` and of flutter's latencies, allocated once (both run per
    /// work item of a sweep).
    static let medianAndP95: [Double] = [0.5, 0.95]

    static func checkSorted(_ list: [Visit], key: String) throws(MetricsError) {
        for (i, v) in list.enumerated() {
            guard v.start_s.isFinite, v.end_s.isFinite, v.end_s >= v.start_s else {
                throw .invalidValue(
                    key: "\(key)[\(i)]", value: "\(v.start_s)…\(v.end_s)",
                    reason: "must be a finite span with end ≥ start")
            }
            if i > 0, v.start_s < list[i - 1].end_s {
                throw .invalidValue(
                    key: "\(key)[\(i)].start_s", value: "\(v.start_s)",
                    reason: "visits must be sorted and disjoint; previous ends at \(list[i - 1].end_s)")
            }
        }
    }
}
