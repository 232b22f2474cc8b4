import DriveSim
import FenceLab
import GeoPolicy

/// One place's figures at one point, pooled over the replicates.
package struct SweepPlaceTotals: Sendable, Hashable {
    package var trueVisits = 0
    package var matchedVisits = 0
    /// False visits + fragments.
    package var unwanted = 0
    package var attributionErrors = 0
    package var orderingErrors = 0
    package var notMonitored = 0

    /// Matched / true visits over the replicates; nil without a true visit.
    package var recall: Double? { trueVisits > 0 ? Double(matchedVisits) / Double(trueVisits) : nil }
}

/// One point's figures: the weighted place figures per replicate (mean and 95 % CI), the
/// per-place totals, and whether the constraints hold and which places bind.
package struct SweepPlacePointSummary: Sendable, Hashable {
    package var id: Int
    package var point: SweepPlacePoint
    /// Weighted recall Σ wₚ·matchedₚ / Σ wₚ·trueₚ per replicate (nil: no true visit at all).
    package var recall: Estimate?
    /// Weighted false + fragment visits per hour.
    package var unwantedPerHour: Estimate
    /// Weighted missed true visits per hour.
    package var missedPerHour: Estimate
    package var attributionPerHour: Estimate
    package var orderingPerHour: Estimate
    package var oscillationsPerHour: Estimate
    package var swapsPerHour: Estimate
    /// Missed visits classed `notMonitored`, over the replicates' missed visits (nil: none missed).
    package var notMonitoredShare: Double?
    package var places: [SweepPlaceTotals]
    /// Lowest per-place recall among places with true visits, and that place's index.
    package var worstRecall: Double?
    package var worstPlace: Int?
    /// True when the recall constraint (and `maxUnwanted`, if given) holds.
    package var meets: Bool
    /// The places that bind: below the bound when the point fails (worst mode), else the worst place.
    package var binding: [Int]
}

/// What a place-set sweep's figures are judged by: the scenario and its places (names, in set
/// order), the points, and the constraints. The same from a run's request and from the manifest
/// of its shards, so a merge judges exactly as the run.
package struct SweepPlacesJudgement: Sendable, Hashable {
    package var scenario: String
    package var placeNames: [String]
    package var points: [SweepPlacePoint]
    package var minRecall: Double
    package var constraint: PlaceConstraint
    package var maxUnwanted: Double?
}

/// The outcome of a place-set sweep.
package struct SweepPlacesSummary: Sendable, Hashable {
    package var scenario: String
    package var placeNames: [String]
    package var replicates: Int
    package var minRecall: Double
    package var constraint: PlaceConstraint
    package var maxUnwanted: Double?
    package var points: [SweepPlacePointSummary]
    /// The recommended point's id, nil when no point meets the constraints or matches a visit.
    package var recommended: Int?
    /// Points no other beats or equals in all of (unwanted/h ↓, missed/h ↓, swaps/h ↓) while
    /// beating them in one, by swaps per hour.
    package var frontier: [Int]
    /// The unwanted bound applied: `maxUnwanted`, or the fewest a meeting point reaches.
    package var unwantedBound: Double?

    static func make(_ judged: SweepPlacesJudgement, perDrive: [[PlaceSetMetrics]]) throws -> SweepPlacesSummary {
        var points: [SweepPlacePointSummary] = []
        for (id, point) in judged.points.enumerated() {
            points.append(try summarise(id: id, point: point, perDrive.map { $0[id] }, judged: judged))
        }
        let meeting = points.filter { $0.meets && ($0.recall?.mean ?? 0) > 0 }
        let bound = judged.maxUnwanted ?? meeting.map(\.unwantedPerHour.mean).min()
        let chosen = meeting.filter { $0.unwantedPerHour.mean <= (bound ?? .infinity) }.min(by: better)
        return SweepPlacesSummary(
            scenario: judged.scenario, placeNames: judged.placeNames, replicates: perDrive.count,
            minRecall: judged.minRecall, constraint: judged.constraint, maxUnwanted: judged.maxUnwanted,
            points: points, recommended: chosen?.id, frontier: frontier(points), unwantedBound: bound)
    }

    /// The objective's order: fewer unwanted visits per hour, fewer swaps per hour (the refresh's
    /// battery cost), a smaller budget (`all` largest), higher worst-place recall, lower id.
    static func better(_ a: SweepPlacePointSummary, _ b: SweepPlacePointSummary) -> Bool {
        if a.unwantedPerHour.mean != b.unwantedPerHour.mean { return a.unwantedPerHour.mean < b.unwantedPerHour.mean }
        if a.swapsPerHour.mean != b.swapsPerHour.mean { return a.swapsPerHour.mean < b.swapsPerHour.mean }
        let ka = a.point.budget ?? .max
        let kb = b.point.budget ?? .max
        if ka != kb { return ka < kb }
        if (a.worstRecall ?? 0) != (b.worstRecall ?? 0) { return (a.worstRecall ?? 0) > (b.worstRecall ?? 0) }
        return a.id < b.id
    }

    static func summarise(
        id: Int, point: SweepPlacePoint, _ drives: [PlaceSetMetrics], judged: SweepPlacesJudgement
    ) throws -> SweepPlacePointSummary {
        let placeCount = drives[0].perPlace.count
        var totals = [SweepPlaceTotals](repeating: SweepPlaceTotals(), count: placeCount)
        var recall: [Double] = []
        var unwanted: [Double] = []
        var missed: [Double] = []
        var attribution: [Double] = []
        var ordering: [Double] = []
        var oscillations: [Double] = []
        var swaps: [Double] = []
        var missedAll = 0
        var notMonitoredAll = 0
        for m in drives {
            let hours = m.driveHours
            let t = m.weightedSum(\.trueVisits)
            let matched = m.weightedSum(\.matchedVisits)
            if t > 0 { recall.append(matched / t) }
            unwanted.append((m.weightedSum(\.falseVisits) + m.weightedSum(\.fragments)) / hours)
            missed.append((t - matched) / hours)
            attribution.append(m.weightedSum(\.attributionErrors) / hours)
            ordering.append(m.weightedSum(\.orderingErrors) / hours)
            oscillations.append(Double(m.oscillations) / hours)
            swaps.append(Double(m.swaps) / hours)
            for (p, f) in m.perPlace.enumerated() {
                totals[p].trueVisits += f.trueVisits
                totals[p].matchedVisits += f.matchedVisits
                totals[p].unwanted += f.falseVisits + f.fragments
                totals[p].attributionErrors += f.attributionErrors
                totals[p].orderingErrors += f.orderingErrors
                totals[p].notMonitored += f.notMonitored
                missedAll += f.notMonitored + f.ruleMissed
                notMonitoredAll += f.notMonitored
            }
        }
        func est(_ v: [Double], _ key: String) throws -> Estimate { try Estimate.of(v, key: key) }
        var worst: (recall: Double, place: Int)?
        for (p, t) in totals.enumerated() {
            if let r = t.recall, worst.map({ r < $0.recall }) ?? true { worst = (r, p) }
        }
        let recallEstimate = recall.count == drives.count ? try est(recall, "places.recall") : nil
        let unwantedEstimate = try est(unwanted, "places.unwantedPerHour")
        var meets: Bool
        var binding: [Int]
        switch judged.constraint {
        case .worst:
            let below = totals.indices.filter { totals[$0].recall.map { $0 < judged.minRecall } ?? false }
            meets = below.isEmpty && worst != nil
            binding = below.isEmpty ? worst.map { [$0.place] } ?? [] : below
        case .weighted:
            meets = (recallEstimate?.mean).map { $0 >= judged.minRecall } ?? false
            binding = worst.map { [$0.place] } ?? []
        }
        if let u = judged.maxUnwanted, unwantedEstimate.mean > u { meets = false }
        return SweepPlacePointSummary(
            id: id, point: point, recall: recallEstimate, unwantedPerHour: unwantedEstimate,
            missedPerHour: try est(missed, "places.missedPerHour"),
            attributionPerHour: try est(attribution, "places.attributionErrorsPerHour"),
            orderingPerHour: try est(ordering, "places.orderingErrorsPerHour"),
            oscillationsPerHour: try est(oscillations, "places.oscillationsPerHour"),
            swapsPerHour: try est(swaps, "places.swapsPerHour"),
            notMonitoredShare: missedAll > 0 ? Double(notMonitoredAll) / Double(missedAll) : nil, places: totals,
            worstRecall: worst?.recall, worstPlace: worst?.place, meets: meets, binding: binding)
    }

    /// The (unwanted/h, missed/h, swaps/h) frontier, ordered by swaps/h then id.
    static func frontier(_ points: [SweepPlacePointSummary]) -> [Int] {
        func key(_ p: SweepPlacePointSummary) -> (Double, Double, Double) {
            (p.unwantedPerHour.mean, p.missedPerHour.mean, p.swapsPerHour.mean)
        }
        let front = points.filter { p in
            let a = key(p)
            return !points.contains { q in
                let b = key(q)
                return b.0 <= a.0 && b.1 <= a.1 && b.2 <= a.2 && (b.0 < a.0 || b.1 < a.1 || b.2 < a.2)
            }
        }
        return front.sorted { ($0.swapsPerHour.mean, $0.id) < ($1.swapsPerHour.mean, $1.id) }.map(\.id)
    }
}

extension PlaceSetMetrics {
    /// Σ wₚ·xₚ / w̄ over places (as the `places.*` report keys).
    func weightedSum(_ x: (PlaceFigures) -> Int) -> Double {
        let mean = weights.reduce(0, +) / Double(weights.count)
        var sum = 0.0
        for (f, w) in zip(perPlace, weights) { sum += w * Double(x(f)) }
        return sum / mean
    }
}
