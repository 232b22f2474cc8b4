import DriveSim
import GeoPolicy

/// What one place of a set scored in one replicate (docs/metrics.md "Places").
package struct PlaceFigures: Sendable, Hashable {
    package var trueVisits = 0
    package var matchedVisits = 0
    package var falseVisits = 0
    package var fragments = 0
    /// False visits of this place that overlap a widened true visit of another place.
    package var attributionErrors = 0
    /// Entries into this place reported before the exit from the place the truth left first.
    package var orderingErrors = 0
    /// Missed true visits that began while the place was not registered (the budget's misses).
    package var notMonitored = 0
    /// Missed true visits that began while the place was registered (the rule's misses).
    package var ruleMissed = 0

    package init(
        trueVisits: Int = 0, matchedVisits: Int = 0, falseVisits: Int = 0, fragments: Int = 0,
        attributionErrors: Int = 0, orderingErrors: Int = 0, notMonitored: Int = 0, ruleMissed: Int = 0
    ) {
        self.trueVisits = trueVisits
        self.matchedVisits = matchedVisits
        self.falseVisits = falseVisits
        self.fragments = fragments
        self.attributionErrors = attributionErrors
        self.orderingErrors = orderingErrors
        self.notMonitored = notMonitored
        self.ruleMissed = ruleMissed
    }
}

/// Place-set figures of one replicate: every place's truth against its rule's observed visits,
/// and the errors only many places show — attribution, ordering, oscillation (docs/metrics.md
/// "Places"). Totals over places are weighted: Σ wₚ·xₚ / w̄ (w̄ the mean weight), so equal weights
/// give plain sums; recall is Σ wₚ·matchedₚ / Σ wₚ·trueₚ.
package struct PlaceSetMetrics: Sendable, Hashable {
    package var perPlace: [PlaceFigures]
    package var weights: [Double]
    /// A→B→A among consecutive observed entries, the third within the window of the first.
    package var oscillations: Int
    /// The same on the true visits' entries (what the user really did).
    package var trueOscillations: Int
    package var driveHours: Double
    /// Refreshes of the monitoring strategy that changed the registered set.
    package var swaps = 0

    package init(
        perPlace: [PlaceFigures], weights: [Double], oscillations: Int, trueOscillations: Int, driveHours: Double,
        swaps: Int = 0
    ) {
        self.perPlace = perPlace
        self.weights = weights
        self.oscillations = oscillations
        self.trueOscillations = trueOscillations
        self.driveHours = driveHours
        self.swaps = swaps
    }

    /// Σ wₚ·xₚ / w̄ over places.
    func weighted(_ x: (PlaceFigures) -> Int) -> Double {
        let mean = weights.reduce(0, +) / Double(weights.count)
        var sum = 0.0
        for (f, w) in zip(perPlace, weights) { sum += w * Double(x(f)) }
        return sum / mean
    }

    /// The figures as `places.*` metric paths; `places.byPlace.I.*` per place index I.
    func flattened(into out: inout [String: Double]) {
        let trueVisits = weighted(\.trueVisits)
        let matched = weighted(\.matchedVisits)
        out["places.trueVisits"] = trueVisits
        out["places.matchedVisits"] = matched
        out["places.missedVisits"] = trueVisits - matched
        if trueVisits > 0 { out["places.recall"] = matched / trueVisits }
        let falseVisits = weighted(\.falseVisits)
        let fragments = weighted(\.fragments)
        let attribution = weighted(\.attributionErrors)
        out["places.falseVisits"] = falseVisits
        out["places.falsePerHour"] = falseVisits / driveHours
        out["places.fragments"] = fragments
        out["places.fragmentsPerHour"] = fragments / driveHours
        out["places.attributionErrors"] = attribution
        out["places.attributionErrorsPerHour"] = attribution / driveHours
        out["places.orderingErrors"] = weighted(\.orderingErrors)
        out["places.oscillations"] = Double(oscillations)
        out["places.oscillationsPerHour"] = Double(oscillations) / driveHours
        out["places.trueOscillations"] = Double(trueOscillations)
        let notMonitored = weighted(\.notMonitored)
        out["places.notMonitored"] = notMonitored
        out["places.ruleMissed"] = weighted(\.ruleMissed)
        if trueVisits - matched > 0 { out["places.notMonitoredShare"] = notMonitored / (trueVisits - matched) }
        out["places.swaps"] = Double(swaps)
        out["places.swapsPerHour"] = Double(swaps) / driveHours
        for (i, f) in perPlace.enumerated() {
            let p = "places.byPlace.\(i)."
            out[p + "trueVisits"] = Double(f.trueVisits)
            if f.trueVisits > 0 { out[p + "recall"] = Double(f.matchedVisits) / Double(f.trueVisits) }
            out[p + "falseVisits"] = Double(f.falseVisits)
            out[p + "fragments"] = Double(f.fragments)
            out[p + "attributionErrors"] = Double(f.attributionErrors)
            out[p + "orderingErrors"] = Double(f.orderingErrors)
        }
    }
}

/// Scores a place set: per place as `Visits.measure`, then across places.
package enum PlaceSetScoring {
    /// - Parameters:
    ///   - truth, observed: per place, sorted by start, disjoint (as `Visits.measure`).
    ///   - weights: per place, finite, > 0.
    ///   - window_s: the oscillation window and the ordering window (how soon after leaving A an
    ///     entry into B makes A "left first"), seconds, finite, ≥ 0.
    package static func measure(
        truth: [[Visit]], observed: [[Visit]], weights: [Double], duration_s: Double,
        matchSlack_s: Double = Visits.defaultMatchSlack_s, window_s: Double,
        monitoredAt: ((_ place: Int, _ time_s: Double) -> Bool)? = nil
    ) throws(MetricsError) -> PlaceSetMetrics {
        precondition(truth.count == observed.count && truth.count == weights.count && !truth.isEmpty)
        guard window_s.isFinite, window_s >= 0 else {
            throw .invalidValue(key: "window_s", value: "\(window_s)", reason: "must be finite and ≥ 0")
        }
        var figures = [PlaceFigures](repeating: PlaceFigures(), count: truth.count)
        // Per place and true visit: the matched observed start and the end of its last observed visit.
        var matchedSpan: [[(start: Double, end: Double)?]] = []
        var falseOf: [[Visit]] = []
        for p in truth.indices {
            let m = try Visits.measure(
                truth: truth[p], observed: observed[p], duration_s: duration_s, matchSlack_s: matchSlack_s)
            figures[p].trueVisits = m.trueVisits
            figures[p].matchedVisits = m.matchedVisits
            figures[p].falseVisits = m.falseVisits
            figures[p].fragments = m.fragments
            var spans = [(start: Double, end: Double)?](repeating: nil, count: truth[p].count)
            var falses: [Visit] = []
            Visits.match(truth: truth[p], observed: observed[p], matchSlack_s: matchSlack_s) { i, role in
                let o = observed[p][i]
                switch role {
                case .match(let j): spans[j] = (o.start_s, o.end_s)
                case .fragment(let j):
                    if let span = spans[j] { spans[j] = (span.start, Swift.max(span.end, o.end_s)) }
                case .falseVisit: falses.append(o)
                }
            }
            for (j, t) in truth[p].enumerated() where spans[j] == nil {
                if monitoredAt?(p, t.start_s) ?? true {
                    figures[p].ruleMissed += 1
                } else {
                    figures[p].notMonitored += 1
                }
            }
            matchedSpan.append(spans)
            falseOf.append(falses)
        }
        // Attribution: a false visit of p overlapping a widened true visit of another place.
        for p in truth.indices {
            for o in falseOf[p] {
                let other = truth.indices.contains { q in
                    q != p
                        && truth[q].contains { t in
                            t.start_s - matchSlack_s <= o.end_s && t.end_s + matchSlack_s >= o.start_s
                        }
                }
                if other { figures[p].attributionErrors += 1 }
            }
        }
        // Ordering: the truth leaves A (at a.end) and enters B ≠ A within the window after it; both
        // true visits matched; the entry into B is reported before the exit from A.
        var exits: [(end: Double, place: Int, visit: Int)] = []
        for p in truth.indices {
            for (j, a) in truth[p].enumerated() where !a.openAtEnd && matchedSpan[p][j] != nil {
                exits.append((a.end_s, p, j))
            }
        }
        exits.sort { $0.end < $1.end || ($0.end == $1.end && $0.place < $1.place) }
        for b in truth.indices {
            for (j, v) in truth[b].enumerated() {
                guard let entered = matchedSpan[b][j] else { continue }
                var k = lowerBound(exits, v.start_s - window_s)
                while k < exits.count, exits[k].end <= v.start_s {
                    let e = exits[k]
                    if e.place != b, let left = matchedSpan[e.place][e.visit], entered.start < left.end {
                        figures[b].orderingErrors += 1
                    }
                    k += 1
                }
            }
        }
        return PlaceSetMetrics(
            perPlace: figures, weights: weights, oscillations: oscillations(observed, window_s: window_s),
            trueOscillations: oscillations(truth, window_s: window_s), driveHours: duration_s / 3600)
    }

    /// First index whose exit is at or after `t`.
    static func lowerBound(_ exits: [(end: Double, place: Int, visit: Int)], _ t: Double) -> Int {
        var lo = 0
        var hi = exits.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if exits[mid].end < t { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// A→B→A among consecutive entries of all places (by time, then place index), A ≠ B, the
    /// third entry at most `window_s` after the first.
    package static func oscillations(_ visits: [[Visit]], window_s: Double) -> Int {
        var entries: [(t: Double, place: Int)] = []
        for (p, list) in visits.enumerated() { for v in list { entries.append((v.start_s, p)) } }
        entries.sort { $0.t < $1.t || ($0.t == $1.t && $0.place < $1.place) }
        var count = 0
        var i = 0
        while i + 2 < entries.count {
            let a = entries[i]
            let b = entries[i + 1]
            let c = entries[i + 2]
            if a.place == c.place, a.place != b.place, c.t - a.t <= window_s { count += 1 }
            i += 1
        }
        return count
    }
}
