import GSLKit

/// `--compare KEY=A..B`: the baseline and candidate values of one cohort key.
package struct FleetComparisonSpec: Sendable, Hashable {
    package var key: String
    package var baseline: String
    package var candidate: String
    package init(key: String, baseline: String, candidate: String) {
        self.key = key
        self.baseline = baseline
        self.candidate = candidate
    }

    /// Parses `KEY=A..B`; nil when malformed.
    package init?(parsing text: String) {
        guard let eq = text.firstIndex(of: "="), let dots = text.range(of: "..", range: eq..<text.endIndex) else {
            return nil
        }
        key = String(text[..<eq])
        baseline = String(text[text.index(after: eq)..<dots.lowerBound])
        candidate = String(text[dots.upperBound...])
        if key.isEmpty || baseline.isEmpty || candidate.isEmpty || baseline == candidate { return nil }
    }
    package var description: String { "\(key)=\(baseline)..\(candidate)" }
}

/// `--gate FIGURE:LIMIT`: fail when the candidate is worse than the baseline by more than LIMIT
/// (in the figure's unit).
package struct FleetGate: Sendable, Hashable {
    package var figure: String
    package var limit: Double
    package init(figure: String, limit: Double) {
        self.figure = figure
        self.limit = limit
    }
    package var description: String { "\(figure):\(limit)" }
}

/// One figure's comparison in one stratum (a cohort of the keys other than the compared one, or all logs).
package struct FleetComparisonRow: Sendable, Hashable {
    package var figure: String
    /// `all`, or `key=value` pairs joined by `, `.
    package var stratum: String
    package var baselineLogs: Int
    package var candidateLogs: Int
    package var baseline: FleetInterval
    package var candidate: FleetInterval
    /// Candidate − baseline with its 95 % interval.
    package var difference: FleetInterval
    /// One-sided p-value of "candidate − baseline ≤ limit" (limit 0 for an ungated figure), and Holm-adjusted
    /// within its family (the gated rows, or the ungated rows).
    package var p: Double
    package var pHolm: Double
    /// The gate's limit, nil when the figure is not gated; `failed` when pHolm < 1 − level.
    package var limit: Double?
    package var failed: Bool
}

/// A cohort (one value of every key) with its figures.
package struct FleetCohort: Sendable, Hashable {
    package var values: [String]
    package var logs: Int
    package var figures: [FleetInterval]
}

/// The whole device-level fleet analysis (pure: no I/O).
package struct FleetAnalysis: Sendable {
    package var keys: [String]
    package var logs: Int
    package var overall: [FleetInterval]
    package var cohorts: [FleetCohort]
    package var comparison: FleetComparisonSpec?
    package var rows: [FleetComparisonRow]
    package var gates: [FleetGate]
    /// Logs sorted worst first (failing divergences, then delay), at most `worstCount`.
    package var worst: [FleetLogSummary]
    package static let worstCount = 10

    /// True when no gated row failed.
    package var gatePassed: Bool { !rows.contains { $0.failed } }

    /// Analyses the summaries. `seed` drives the bootstrap (each row its own stream).
    package static func analyse(
        keys: [String], summaries: [FleetLogSummary], comparison: FleetComparisonSpec?, gates: [FleetGate],
        seed: UInt64 = 0, bootstrap: Bool = true
    ) -> FleetAnalysis {
        let figures = FleetFigure.all
        var groups: [[String]: [FleetLogSummary]] = [:]
        for s in summaries { groups[s.values, default: []].append(s) }
        let cohorts = groups.keys.sorted { $0.lexicographicallyPrecedes($1) }.map { v in
            FleetCohort(values: v, logs: groups[v]!.count, figures: figures.map { $0.aggregate(groups[v]!) })
        }
        var rows: [FleetComparisonRow] = []
        if let comparison, let k = keys.firstIndex(of: comparison.key) {
            var strata: [([String], [FleetLogSummary])] = [([], summaries)]
            var byStratum: [[String]: [FleetLogSummary]] = [:]
            for s in summaries {
                var v = s.values
                v.remove(at: k)
                byStratum[v, default: []].append(s)
            }
            if keys.count > 1 {
                strata += byStratum.keys.sorted { $0.lexicographicallyPrecedes($1) }.map { ($0, byStratum[$0]!) }
            }
            var otherKeys = keys
            otherKeys.remove(at: k)
            for (si, (values, members)) in strata.enumerated() {
                let a = members.filter { $0.values[k] == comparison.baseline }
                let b = members.filter { $0.values[k] == comparison.candidate }
                guard !a.isEmpty, !b.isEmpty else { continue }
                let name = values.isEmpty ? "all" : zip(otherKeys, values).map { "\($0)=\($1)" }.joined(separator: ", ")
                for (fi, f) in figures.enumerated() {
                    let gate = gates.first { $0.figure == f.name }
                    // GSL seeds are 1…2³²−1 (`RandomSource`).
                    let seedHere =
                        SeedDerivation.splitMix64(seed ^ UInt64(si * figures.count + fi + 1)) % UInt64(UInt32.max) + 1
                    let (d, p) = f.compare(
                        baseline: a, candidate: b, limit: gate?.limit ?? 0, seed: seedHere, bootstrap: bootstrap)
                    rows.append(
                        FleetComparisonRow(
                            figure: f.name, stratum: name, baselineLogs: a.count, candidateLogs: b.count,
                            baseline: f.aggregate(a), candidate: f.aggregate(b), difference: d, p: p, pHolm: p,
                            limit: gate?.limit, failed: false))
                }
            }
            for gated in [true, false] {
                let idx = rows.indices.filter { (rows[$0].limit != nil) == gated }
                let adjusted = FleetStatistics.holm(idx.map { rows[$0].p })
                for (j, i) in idx.enumerated() {
                    rows[i].pHolm = adjusted[j]
                    rows[i].failed = gated && adjusted[j].isFinite && adjusted[j] < 1 - FleetStatistics.level
                }
            }
        }
        // Sorts positions, not summaries: no second copy of every summary.
        let worst = summaries.indices.sorted { i, j in
            let (x, y) = (summaries[i], summaries[j])
            let fa = x.missing + x.unsupported + x.late + x.flutter
            let fb = y.missing + y.unsupported + y.late + y.flutter
            if fa != fb { return fa > fb }
            let da = x.delayMedian_s.isFinite ? x.delayMedian_s : -1
            let db = y.delayMedian_s.isFinite ? y.delayMedian_s : -1
            return da != db ? da > db : x.index < y.index
        }.prefix(worstCount).map { summaries[$0] }
        return FleetAnalysis(
            keys: keys, logs: summaries.count, overall: figures.map { $0.aggregate(summaries) }, cohorts: cohorts,
            comparison: comparison, rows: rows, gates: gates, worst: Array(worst))
    }
}
