import ReportKit

/// A constraint of the mix objective that a point misses in one scenario.
package struct MixViolation: Sendable, Hashable {
    package enum Constraint: String, Sendable, Hashable {
        /// Mean recall below `--min-recall`.
        case recall
        /// Mean p95 entry latency (early counted as 0) above `--max-latency`, or no visit matched at all.
        case latency
        /// Mean p95 exit latency above `--max-exit-latency` in a scenario that leaves the place
        /// (+∞ when no exit was matched).
        case exitLatency
        /// Weighted unwanted visits per hour above `--max-unwanted` (over the mix: no scenario).
        case unwanted
    }
    package var constraint: Constraint
    /// Index into the sweep's scenarios; nil for a constraint over the whole mix (`unwanted`).
    package var scenario: Int?
    /// The measured mean (recall, or latency in seconds; +∞ when nothing was matched).
    package var value: Double
}

/// One grid point scored on the whole weighted scenario mix.
package struct MixPoint: Sendable, Hashable {
    package var point: Int
    /// Σ wᵢ (falsePerHourᵢ + fragmentsPerHourᵢ) / Σ wᵢ over all scenarios (means over replicates): the objective.
    package var unwantedPerHour: Double
    /// Largest mean p95 entry latency (early counted as 0) over the scenarios with true visits,
    /// seconds; +∞ when such a scenario matched no visit; 0 when no scenario has true visits.
    package var worstEntryP95_s: Double
    /// Smallest mean recall over the scenarios with true visits; nil when none has true visits.
    package var worstRecall: Double?
    /// Largest mean p95 exit latency over the scenarios that leave the place, seconds (+∞ when
    /// such a scenario matched no exit); nil when no scenario leaves the place.
    package var worstExitP95_s: Double?
    /// Σ wᵢ × mean fixes (wake-ups) per hour delivered to the app / Σ wᵢ.
    package var fixesPerHour: Double = 0
    package var wakeupsPerHour: Double = 0
    /// The objective's cost: `CostWeights.cost` of the two (fixes per hour by default).
    package var cost: Double = 0
    /// Σ mean matched visits over the scenarios (0: the setting misses every visit).
    package var matchedVisits: Double
    /// The constraints this point misses, by scenario.
    package var violations: [MixViolation]

    /// Meets every constraint and matches at least one visit.
    package var feasible: Bool { violations.isEmpty && matchedVisits > 0 }
}

/// Every grid point's mix figures, in point order, held as columns (`SweepColumn`: at most 64
/// bytes per point, less where a column is constant or its values are floats, plus 16 per
/// violation, where `[MixPoint]` with an array per point took ≈ 240); `MixPoint`s are made when
/// asked for.
package struct MixPoints: RandomAccessCollection, Sendable, Hashable {
    var unwantedPerHour = SweepColumn(), worstEntryP95_s = SweepColumn(), matchedVisits = SweepColumn(),
        fixesPerHour = SweepColumn(), wakeupsPerHour = SweepColumn(), cost = SweepColumn()
    /// `MixPoint.worstRecall` and `worstExitP95_s`, NaN for nil (a mean of recalls or latencies
    /// is never NaN): at most 8 bytes each where `[Double?]` takes 16.
    var worstRecallOrNaN = SweepColumn(), worstExitOrNaN_s = SweepColumn()
    /// Point i's violations are the entries `violationStart[i]..<violationStart[i + 1]` of
    /// `violationTags` (the constraint and the scenario), with the values from
    /// `violationValueStart[i]` on in `violationValues`: a value equal to the point's worst figure
    /// of its constraint (in a one-scenario sweep every value) is not stored but marked in the tag.
    /// 4 bytes a violation, 12 with its value, where `MixViolation` takes 32; the two starts take
    /// about 2 bytes a point each (`PrefixOffsets`).
    var violationStart = PrefixOffsets(first: 0)
    var violationValueStart = PrefixOffsets(first: 0)
    var violationTags = Chunked<UInt32>()
    var violationValues = Chunked<Double>()

    /// An array of unknown final length in chunks of `chunk` elements: it never reallocates, so
    /// it holds at most one chunk unused and no copy of itself while it grows (a doubling array
    /// holds up to half unused, and three times its count while it is copied).
    struct Chunked<Element: Sendable & Hashable>: Sendable, Hashable {
        static var chunk: Int { 1 << 16 }
        private var chunks: [[Element]] = []
        private(set) var count = 0

        subscript(k: Int) -> Element { chunks[k >> 16][k & (Self.chunk - 1)] }

        mutating func append(_ e: Element) {
            if count & (Self.chunk - 1) == 0 {
                var c: [Element] = []
                c.reserveCapacity(Self.chunk)
                chunks.append(c)
            }
            chunks[chunks.count - 1].append(e)
            count += 1
        }
    }

    static let constraints: [MixViolation.Constraint] = [.recall, .latency, .exitLatency, .unwanted]

    /// The tag bit of a violation whose value is the point's worst figure of its constraint.
    static let valueIsWorst: UInt32 = 1 << 2

    /// The constraint in the low 2 bits, `valueIsWorst` above, the scenario + 1 (0: none) above it.
    static func tag(_ v: MixViolation, valueIsWorst: Bool) -> UInt32 {
        let scenario = v.scenario.map { $0 + 1 } ?? 0
        precondition(scenario < 1 << 29, "MixPoints: more scenarios than a violation tag holds")
        return UInt32(scenario) << 3 | (valueIsWorst ? Self.valueIsWorst : 0)
            | UInt32(constraints.firstIndex(of: v.constraint) ?? 0)
    }

    /// The point's worst figure a violation of `constraint` is measured against.
    static func worst(
        _ constraint: MixViolation.Constraint, recall: Double?, entry_s: Double, exit_s: Double?,
        unwanted: Double
    ) -> Double? {
        switch constraint {
        case .recall: return recall
        case .latency: return entry_s
        case .exitLatency: return exit_s
        case .unwanted: return unwanted
        }
    }

    /// One point's violations, made when read.
    struct Violations: RandomAccessCollection {
        let tags: Chunked<UInt32>
        let values: Chunked<Double>
        let startIndex: Int
        let endIndex: Int
        /// The point's first stored value, and its worst figures.
        let valueStart: Int
        let recall: Double?, entry_s: Double, exit_s: Double?, unwanted: Double

        subscript(k: Int) -> MixViolation {
            MixPoints.violation(
                tag: tags[k], recall: recall, entry_s: entry_s, exit_s: exit_s, unwanted: unwanted
            ) {
                var v = valueStart
                for j in startIndex..<k where tags[j] & MixPoints.valueIsWorst == 0 { v += 1 }
                return values[v]
            }
        }
    }

    /// The violation a tag stands for: its constraint and scenario, and as its value the point's
    /// worst figure of that constraint when the tag says so, else `stored()` (the value kept for it).
    @inline(__always)
    static func violation(
        tag t: UInt32, recall: Double?, entry_s: Double, exit_s: Double?, unwanted: Double, stored: () -> Double
    ) -> MixViolation {
        let constraint = constraints[Int(t & 3)]
        let value =
            t & valueIsWorst != 0
            ? worst(constraint, recall: recall, entry_s: entry_s, exit_s: exit_s, unwanted: unwanted) ?? .nan
            : stored()
        return MixViolation(constraint: constraint, scenario: t >> 3 == 0 ? nil : Int(t >> 3) - 1, value: value)
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { unwantedPerHour.count }

    package subscript(i: Int) -> MixPoint {
        MixPoint(
            point: i, unwantedPerHour: unwantedPerHour[i], worstEntryP95_s: worstEntryP95_s[i],
            worstRecall: worstRecall(i), worstExitP95_s: worstExitP95_s(i), fixesPerHour: fixesPerHour[i],
            wakeupsPerHour: wakeupsPerHour[i], cost: cost[i],
            matchedVisits: matchedVisits[i],
            violations: Array(violations(i)))
    }

    func worstRecall(_ i: Int) -> Double? { Self.worstRecall(stored: worstRecallOrNaN[i]) }

    /// The worst recall a `worstRecallOrNaN` value stands for (NaN: nil).
    static func worstRecall(stored v: Double) -> Double? { v.isNaN ? nil : v }

    func worstExitP95_s(_ i: Int) -> Double? { worstExitOrNaN_s[i].isNaN ? nil : worstExitOrNaN_s[i] }

    /// Point i's violations.
    func violations(_ i: Int) -> Violations {
        Violations(
            tags: violationTags, values: violationValues, startIndex: Int(violationStart[i]),
            endIndex: Int(violationStart[i + 1]), valueStart: Int(violationValueStart[i]),
            recall: worstRecall(i), entry_s: worstEntryP95_s[i], exit_s: worstExitP95_s(i),
            unwanted: unwantedPerHour[i])
    }

    /// How many constraints point i misses (`violations(i).count` without making the list).
    func violationCount(_ i: Int) -> Int { Int(violationStart[i + 1] - violationStart[i]) }

    /// `SweepMix.shortfall(violations(i))`, the same sum in the same order, read from the columns
    /// in place: making `Violations` copies the tag and value chunks, a retain and a release each
    /// per point ranked.
    func shortfall(_ i: Int) -> Double {
        let (start, end) = (Int(violationStart[i]), Int(violationStart[i + 1]))
        guard start < end else { return 0 }
        let (recall, entry_s, exit_s, unwanted) = (
            worstRecall(i), worstEntryP95_s[i], worstExitP95_s(i), unwantedPerHour[i]
        )
        var sum = 0.0
        var v = Int(violationValueStart[i])
        for k in start..<end {
            let x = Self.violation(
                tag: violationTags[k], recall: recall, entry_s: entry_s, exit_s: exit_s, unwanted: unwanted
            ) {
                defer { v += 1 }
                return violationValues[v]
            }
            sum = SweepMix.addShortfall(sum, x.constraint, x.value)
        }
        return sum
    }

    /// `MixPoint.feasible` of point i without making the point.
    func feasible(_ i: Int) -> Bool { violationStart[i + 1] == violationStart[i] && matchedVisits[i] > 0 }

    mutating func reserveCapacity(_ n: Int) {
        unwantedPerHour.reserveCapacity(n)
        worstEntryP95_s.reserveCapacity(n)
        worstRecallOrNaN.reserveCapacity(n)
        matchedVisits.reserveCapacity(n)
        worstExitOrNaN_s.reserveCapacity(n)
        fixesPerHour.reserveCapacity(n)
        wakeupsPerHour.reserveCapacity(n)
        cost.reserveCapacity(n)
        violationStart.reserveCapacity(n + 1)
        violationValueStart.reserveCapacity(n + 1)
    }

    /// Appends the next point (its `point` must be `count`).
    mutating func append(_ p: MixPoint) { append(p, violations: p.violations) }

    /// Appends the next point with these violations in place of `p.violations`.
    mutating func append(_ p: MixPoint, violations: some Collection<MixViolation>) {
        precondition(p.point == count, "mix points are appended in point order")
        unwantedPerHour.append(p.unwantedPerHour)
        worstEntryP95_s.append(p.worstEntryP95_s)
        worstRecallOrNaN.append(p.worstRecall ?? .nan)
        matchedVisits.append(p.matchedVisits)
        worstExitOrNaN_s.append(p.worstExitP95_s ?? .nan)
        fixesPerHour.append(p.fixesPerHour)
        wakeupsPerHour.append(p.wakeupsPerHour)
        cost.append(p.cost)
        for v in violations {
            let worst = Self.worst(
                v.constraint, recall: p.worstRecall, entry_s: p.worstEntryP95_s, exit_s: p.worstExitP95_s,
                unwanted: p.unwantedPerHour)
            let isWorst = worst.map { $0.bitPattern == v.value.bitPattern } ?? false
            violationTags.append(Self.tag(v, valueIsWorst: isWorst))
            if !isWorst { violationValues.append(v.value) }
        }
        precondition(violationTags.count < Int(Int32.max), "MixPoints: more violations than 32-bit offsets hold")
        violationStart.append(Int32(violationTags.count))
        violationValueStart.append(Int32(violationValues.count))
    }
}

/// The point the objective picks among one sampling policy's points.
package struct SamplingBest: Sendable, Hashable {
    /// The policy's spec (nil: each scenario's own).
    package var sampling: String?
    /// The point, nil when none of the policy's points meets the constraints.
    package var point: Int?
}

/// The recommendation over the mix and the mix frontier (docs/sweeps.md "Objective").
package struct SweepMix: Sendable, Hashable {
    /// One per grid point, in point order.
    package var points: MixPoints
    /// Points no other point beats or equals in all of (unwanted per hour ↓, worst p95 entry latency ↓,
    /// worst recall ↑) while beating it in one.
    package var frontier: SweepPointSet
    /// The three-way frontier: the points meeting every constraint that no other such point beats
    /// or equals in all of (unwanted per hour ↓, worst p95 entry latency ↓, cost ↓) while beating
    /// it in one. The recommendation is always on it.
    package var costFrontier: SweepPointSet = []
    /// The recommended point id; nil when no point meets the constraints (see `reason`).
    package var recommended: Int?
    /// The unwanted-visits bound the recommendation met: `--max-unwanted`, else the minimum
    /// reached by a setting meeting the other constraints (nil when none does).
    package var unwantedBound: Double?
    /// With a sampling axis: per sampling policy (grid order), the point the objective picks among
    /// that policy's points alone (what a sweep of that policy would recommend), nil when none.
    package var bestPerSampling: [SamplingBest] = []
    /// Why: the recommendation and what bound it, or why there is none.
    package var reasons: [String]
    /// When nothing is recommended: the points closest to meeting the constraints (at most 5).
    package var closest: [Int]

    static let listedClosest = 5

    /// Scores every point on the mix and picks the one recommendation.
    static func make(manifest m: SweepManifest, scenarios: [SweepScenarioSummary]) -> SweepMix {
        let weights = m.scoringWeights
        let totalWeight = weights.reduce(0, +)
        var points = MixPoints()
        for p in m.points.indices {
            points.append(
                score(
                    point: p, visits: scenarios.map { $0.cells[p].visits }, costs: scenarios.map { $0.cells[p].cost },
                    notifications: scenarios.map { $0.cells[p].notifications }, manifest: m, weights: weights,
                    totalWeight: totalWeight))
        }
        return make(manifest: m, scenarios: scenarios, points: points)
    }

    /// The recommendation among `ids`: the bound on unwanted visits (`--max-unwanted`, else the
    /// smallest a feasible point reaches), then the minimum of `better` over the feasible points
    /// within it (a strict total order: the same as sorting them all).
    static func pick(
        _ points: MixPoints, ids: some Sequence<Int>, manifest m: SweepManifest
    ) -> (
        point: MixPoint?, bound: Double?
    ) {
        var bound = m.maxUnwanted
        if bound == nil {
            for i in ids where points.feasible(i) { bound = min(bound ?? .infinity, points.unwantedPerHour[i]) }
        }
        guard let bound else { return (nil, nil) }
        var best: MixPoint?
        for i in ids where points.feasible(i) && points.unwantedPerHour[i] <= bound {
            let p = points[i]
            if best.map({ better(p, $0) }) ?? true { best = p }
        }
        return (best, bound)
    }

    /// Picks the one recommendation from every point's mix figures (`score`, in point order).
    /// `frontiers`: the mix and three-way frontiers when already found (`SweepSummary.make` finds
    /// them beside the recommendation; they do not enter it), else computed here.
    static func make(
        manifest m: SweepManifest, scenarios: [SweepScenarioSummary], points: MixPoints,
        frontiers: (mix: SweepPointSet, cost: SweepPointSet)? = nil
    ) -> SweepMix {
        let frontier = frontiers?.mix ?? mixFrontier(points)
        let costFrontier = frontiers?.cost ?? costFrontier(points)
        let names = m.scenarios.map(\.name)
        guard scenarios.contains(where: { $0.cells.first?.visits.hasVisits ?? false }) else {
            var mix = SweepMix(
                points: points, frontier: frontier, recommended: nil,
                reasons: [
                    "No recommendation: no scenario has a true visit of its place, so a setting that never fires would win. "
                        + "Add scenarios in which the user really visits the place."
                ], closest: [])
            mix.costFrontier = costFrontier
            return mix
        }
        var perSampling: [SamplingBest] = []
        if m.hasSamplingAxis {
            for spec in SweepGrid.samplings(of: m.points) {
                let ids = m.points.indices.filter { m.points[$0].sampling == spec }
                perSampling.append(
                    SamplingBest(sampling: spec, point: pick(points, ids: ids, manifest: m).point?.point))
            }
        }
        // The `listedClosest` smallest by `closer` of the points matching a visit (a strict total order).
        let (chosen, bound) = pick(points, ids: points.indices, manifest: m)
        guard let best = chosen else {
            var closest: [MixPoint] = []
            for i in points.indices where points.matchedVisits[i] > 0 {
                let p = points[i]
                guard closest.count < listedClosest || closer(p, closest[closest.count - 1]) else { continue }
                closest.insert(p, at: closest.firstIndex { closer(p, $0) } ?? closest.count)
                if closest.count > listedClosest { closest.removeLast() }
            }
            var mix = SweepMix(
                points: points, frontier: frontier, recommended: nil,
                reasons: [
                    "No setting meets \(m.constraintText) "
                        + (m.maxExitLatency_s == nil && m.maxUnwanted == nil
                            ? "in every scenario with true visits" : "where each applies")
                        + "; the closest settings are "
                        + "listed with what they miss. Widen the grid or relax \(m.constraintOptions)."
                ] + exitNote(m, scenarios: scenarios), closest: closest.map(\.point))
            mix.costFrontier = costFrontier
            mix.bestPerSampling = perSampling
            return mix
        }
        var mix = SweepMix(
            points: points, frontier: frontier, recommended: best.point,
            reasons: reasons(
                best, bound: bound ?? best.unwantedPerHour, points: points, manifest: m, scenarios: scenarios,
                names: names)
                + exitNote(m, scenarios: scenarios),
            closest: [])
        mix.costFrontier = costFrontier
        mix.unwantedBound = bound
        mix.bestPerSampling = perSampling
        return mix
    }

    /// A note when `--max-exit-latency` was given but no scenario leaves the place (not an error).
    static func exitNote(_ m: SweepManifest, scenarios: [SweepScenarioSummary]) -> [String] {
        guard let bound = m.maxExitLatency_s,
            !scenarios.contains(where: { $0.cells.first?.visits.leavesPlace ?? false })
        else { return [] }
        return [
            "--max-exit-latency \(fmt(bound)) s constrains nothing: no scenario of the mix leaves the place "
                + "(add one in which the user walks or drives away)."
        ]
    }

    /// Point `p` on the mix, from its visit cells in every scenario (scenario order).
    static func score(
        point p: Int, visits: [SweepVisitCell], costs: [SweepCostCell], notifications: [SweepNotifyCell?] = [],
        manifest m: SweepManifest, weights: [Double], totalWeight: Double
    ) -> MixPoint {
        var violations: [MixViolation] = []
        var point = score(
            point: p, visits: visits, costs: costs, notifications: notifications, manifest: m, weights: weights,
            totalWeight: totalWeight, appendingViolationsTo: &violations)
        point.violations = violations
        return point
    }

    /// `score` with the point's violations appended to `violations` (in the order `score` lists
    /// them) and an empty list in the point: the summary scores every point of a run into one
    /// buffer instead of allocating a list per point. Allocations per point cost more than their
    /// instructions with `--jobs` > 1: the consumer freed each list on another thread than the
    /// one that made it, and the threads waited on each other's allocator arena locks.
    static func score(
        point p: Int, visits: [SweepVisitCell], costs: [SweepCostCell], notifications: [SweepNotifyCell?] = [],
        manifest m: SweepManifest, weights: [Double], totalWeight: Double,
        appendingViolationsTo violations: inout [MixViolation]
    ) -> MixPoint {
        // With --notify the unwanted figure is what the user is told: unwanted notifications.
        let byNotifications = m.scoresNotifications && notifications.count == visits.count
        var unwanted = 0.0
        var worstLatency = 0.0
        var worstRecall: Double?
        var worstExit: Double?
        var matched = 0.0
        var fixes = 0.0
        var wakeups = 0.0
        for (s, v) in visits.enumerated() {
            unwanted +=
                weights[s]
                * (byNotifications ? notifications[s]?.unwantedPerHour.mean ?? v.unwantedPerHour : v.unwantedPerHour)
            fixes += weights[s] * costs[s].fixesPerHour.mean
            wakeups += weights[s] * costs[s].wakeupsPerHour.mean
            matched += v.matchedVisits.mean
            if v.leavesPlace {
                let exit = v.exitLatencyP95_s?.mean ?? .infinity
                worstExit = max(worstExit ?? exit, exit)
                if let bound = m.maxExitLatency_s, exit > bound {
                    violations.append(MixViolation(constraint: .exitLatency, scenario: s, value: exit))
                }
            }
            guard v.hasVisits else { continue }
            let recall = v.recall?.mean ?? 0
            let latency = v.lateEntryP95_s?.mean ?? .infinity
            worstRecall = min(worstRecall ?? recall, recall)
            worstLatency = max(worstLatency, latency)
            if recall < m.minRecall { violations.append(MixViolation(constraint: .recall, scenario: s, value: recall)) }
            if latency > m.maxLatency_s {
                violations.append(MixViolation(constraint: .latency, scenario: s, value: latency))
            }
        }
        let unwantedPerHour = unwanted / totalWeight
        if let bound = m.maxUnwanted, unwantedPerHour > bound {
            violations.append(MixViolation(constraint: .unwanted, scenario: nil, value: unwantedPerHour))
        }
        let fixesPerHour = fixes / totalWeight
        let wakeupsPerHour = wakeups / totalWeight
        return MixPoint(
            point: p, unwantedPerHour: unwantedPerHour, worstEntryP95_s: worstLatency,
            worstRecall: worstRecall, worstExitP95_s: worstExit, fixesPerHour: fixesPerHour,
            wakeupsPerHour: wakeupsPerHour,
            cost: m.cost.cost(fixesPerHour: fixesPerHour, wakeupsPerHour: wakeupsPerHour), matchedVisits: matched,
            violations: [])
    }

    /// The objective's order among the points within the unwanted-visits bound: lower cost, then
    /// fewer unwanted visits per hour, then lower worst latency, then higher worst recall, then
    /// lower id. Exact comparisons, so the minimum is never dominated (it lies on the mix frontier
    /// and the three-way frontier: any point dominating a feasible point within the bound is one
    /// itself and ranks before it). At one sampling policy every point costs the same, and the
    /// order is the one of a sweep without costs.
    static func better(_ a: MixPoint, _ b: MixPoint) -> Bool {
        if a.cost != b.cost { return a.cost < b.cost }
        if a.unwantedPerHour != b.unwantedPerHour { return a.unwantedPerHour < b.unwantedPerHour }
        if a.worstEntryP95_s != b.worstEntryP95_s { return a.worstEntryP95_s < b.worstEntryP95_s }
        let ra = a.worstRecall ?? 1
        let rb = b.worstRecall ?? 1
        if ra != rb { return ra > rb }
        return a.point < b.point
    }

    /// Closeness to feasibility: fewer missed constraints, then the smaller total relative shortfall, then the objective.
    static func closer(_ a: MixPoint, _ b: MixPoint) -> Bool {
        if a.violations.count != b.violations.count { return a.violations.count < b.violations.count }
        let sa = shortfall(a)
        let sb = shortfall(b)
        if sa != sb { return sa < sb }
        return better(a, b)
    }

    static func shortfall(_ p: MixPoint) -> Double { shortfall(p.violations) }

    static func shortfall(_ violations: some Sequence<MixViolation>) -> Double {
        violations.reduce(0) { sum, v in addShortfall(sum, v.constraint, v.value) }
    }

    /// `sum` plus one violation's relative shortfall.
    @inline(__always)
    static func addShortfall(_ sum: Double, _ constraint: MixViolation.Constraint, _ value: Double) -> Double {
        switch constraint {
        case .recall: return sum + (1 - value)
        case .latency, .exitLatency: return sum + (value.isFinite ? min(value / 600, 1) : 1)
        case .unwanted: return sum + min(value, 1)
        }
    }

    /// Ids of the points not dominated in (unwanted ↓, worst latency ↓, worst recall ↑, nil as 1);
    /// O(n log n) (`Pareto.nonDominated`, recall negated: exact).
    static func mixFrontier(_ points: [MixPoint]) -> Set<Int> {
        frontier(
            ids: points.map(\.point),
            keys: points.map { SIMD3($0.unwantedPerHour, $0.worstEntryP95_s, -($0.worstRecall ?? 1)) })
    }

    /// Ids of the feasible points not dominated in (unwanted ↓, worst latency ↓, cost ↓) among them.
    static func costFrontier(_ points: MixPoints) -> SweepPointSet {
        let ids = points.indices.filter { points.feasible($0) }
        // Read through the columns' readers: the sort's comparisons copy what the key captured.
        let kept = SweepColumn.withReaders(points.unwantedPerHour, points.worstEntryP95_s, points.cost) {
            unwanted, latency, cost in
            ids.withUnsafeBufferPointer { ids in
                Pareto.nonDominated(count: ids.count) { SIMD3(unwanted[ids[$0]], latency[ids[$0]], cost[ids[$0]]) }
            }
        }
        var out = SweepPointSet()
        for (id, k) in zip(ids, kept) where k { out.insert(id) }
        return out
    }

    static func mixFrontier(_ points: MixPoints) -> SweepPointSet {
        SweepColumn.withReaders(points.unwantedPerHour, points.worstEntryP95_s, points.worstRecallOrNaN) {
            unwanted, latency, recall in
            SweepPointSet(
                members: Pareto.nonDominated(count: points.count) {
                    SIMD3(unwanted[$0], latency[$0], -(MixPoints.worstRecall(stored: recall[$0]) ?? 1))
                })
        }
    }

    private static func frontier(ids: [Int], keys: [SIMD3<Double>]) -> Set<Int> {
        var out = Set<Int>()
        for (id, kept) in zip(ids, Pareto.nonDominated(keys)) where kept { out.insert(id) }
        return out
    }

    /// The definition, point against point (O(n²)): the reference `mixFrontier` is tested against.
    static func mixFrontierByDefinition(_ points: [MixPoint]) -> Set<Int> {
        var out = Set<Int>()
        for p in points {
            let rp = p.worstRecall ?? 1
            let dominated = points.contains { q in
                let rq = q.worstRecall ?? 1
                return q.point != p.point && q.unwantedPerHour <= p.unwantedPerHour
                    && q.worstEntryP95_s <= p.worstEntryP95_s
                    && rq >= rp
                    && (q.unwantedPerHour < p.unwantedPerHour || q.worstEntryP95_s < p.worstEntryP95_s || rq > rp)
            }
            if !dominated { out.insert(p.point) }
        }
        return out
    }

    /// The reasons shown with a recommendation: what it costs and where, which constraint stopped
    /// the settings with fewer unwanted visits, and its tightest margin.
    static func reasons(
        _ best: MixPoint, bound: Double, points: MixPoints, manifest m: SweepManifest,
        scenarios: [SweepScenarioSummary], names: [String]
    ) -> [String] {
        var lines: [String] = []
        let weights = m.scoringWeights
        let byNotifications = m.scoresNotifications
        let contributions = scenarios.indices.map { s in
            let cell = scenarios[s].cells[best.point]
            return weights[s]
                * (byNotifications
                    ? cell.notifications?.unwantedPerHour.mean ?? cell.visits.unwantedPerHour
                    : cell.visits.unwantedPerHour)
        }
        let what = byNotifications ? "unwanted notifications" : "unwanted (false + fragment) visits"
        if best.unwantedPerHour > 0, let top = contributions.indices.max(by: { contributions[$0] < contributions[$1] })
        {
            let total = contributions.reduce(0, +)
            lines.append(
                "Its \(short(best.unwantedPerHour)) \(what) per hour come mostly from "
                    + "\(names[top]) (\(percent(contributions[top] / total)) of the weighted total).")
        } else {
            lines.append(
                byNotifications
                    ? "It gave no unwanted notification in any replicate of any scenario."
                    : "It produced no false or fragment visit in any replicate of any scenario.")
        }
        // Points with fewer unwanted visits: those failing a constraint, and (with --max-unwanted)
        // feasible ones that cost more.
        // Not held as a list (up to every point of the grid).
        let cheaper = points.indices.lazy.filter {
            points.unwantedPerHour[$0] < best.unwantedPerHour && !points.feasible($0)
        }
        let cheaperCount = cheaper.count
        let fewerButCostlier = points.indices.count(where: {
            points.unwantedPerHour[$0] < best.unwantedPerHour && points.feasible($0)
        })
        let within = points.indices.filter {
            points.feasible($0) && points.unwantedPerHour[$0] <= bound && $0 != best.point
        }
        let costlier = within.filter { points.cost[$0] > best.cost }
        let tied = within.count(where: {
            points.cost[$0] == best.cost && points.unwantedPerHour[$0] == best.unwantedPerHour
        })
        if !costlier.isEmpty || m.hasSamplingAxis {
            let top = costlier.map { points.cost[$0] }.max()
            lines.append(
                "It costs \(short(best.fixesPerHour)) fixes and \(short(best.wakeupsPerHour)) wake-ups per hour over the "
                    + "mix\(m.cost == .fixes ? "" : " (cost \(short(best.cost)) with \(m.cost))")"
                    + (costlier.isEmpty
                        ? "."
                        : "; \(costlier.count) other setting\(costlier.count == 1 ? " meets" : "s meet") every constraint "
                            + (m.maxUnwanted == nil
                                ? "with as few \(m.unwantedNoun)" : "within \(short(bound)) \(m.unwantedNoun) per hour")
                            + " but cost\(costlier.count == 1 ? "s" : "") more (up to \(short(top ?? 0)) "
                            + "\(m.cost == .fixes ? "fixes per hour" : "cost units")).")
            )
        }
        if fewerButCostlier > 0 {
            lines.append(
                "\(fewerButCostlier) setting\(fewerButCostlier == 1 ? " meets" : "s meet") every constraint with fewer "
                    + "\(m.unwantedNoun) per hour but cost\(fewerButCostlier == 1 ? "s" : "") more: --max-unwanted "
                    + "\(fmt(bound)) lets this one trade them for cost.")
        }
        if tied > 0 {
            var worst = ""
            for (s, sc) in scenarios.enumerated()
            where sc.cells[best.point].visits.hasVisits
                && (sc.cells[best.point].visits.lateEntryP95_s?.mean ?? .infinity) == best.worstEntryP95_s
            {
                worst = " in \(names[s])"
                break
            }
            lines.append(
                "\(tied) other setting\(tied == 1 ? " meets" : "s meet") every constraint with as few \(m.unwantedNoun); "
                    + "this one has the lowest worst-scenario p95 entry latency (\(ReportText.latency(best.worstEntryP95_s)) s\(worst))."
            )
        }
        if cheaperCount == 0 {
            if fewerButCostlier == 0 {
                lines.append("No setting has fewer \(m.unwantedNoun) per hour, so no constraint had to give way.")
            }
        } else {
            let tally = failedConstraints(points, ids: cheaper, manifest: m, names: names)
            let ranked = tally.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            lines.append(
                "\(cheaperCount) setting\(cheaperCount == 1 ? "" : "s") with fewer \(m.unwantedNoun) per hour "
                    + "fail a constraint: " + ranked.prefix(4).map { "\($0.key) (\($0.value))" }.joined(separator: "; ")
                    + ".")
        }
        var tight: (String, Double)?
        for (s, sc) in scenarios.enumerated() where sc.cells[best.point].visits.hasVisits {
            let v = sc.cells[best.point].visits
            let recall = v.recall?.mean ?? 0
            let latency = v.lateEntryP95_s?.mean ?? 0
            let recallMargin = 1 - m.minRecall > 0 ? (recall - m.minRecall) / (1 - m.minRecall) : 1
            let latencyMargin = m.maxLatency_s > 0 ? (m.maxLatency_s - latency) / m.maxLatency_s : 1
            if recallMargin < (tight?.1 ?? .infinity) {
                tight = ("recall \(short(recall)) in \(names[s]) (bound \(fmt(m.minRecall)))", recallMargin)
            }
            if latencyMargin < (tight?.1 ?? .infinity) {
                tight = (
                    "p95 entry latency \(ReportText.latency(latency)) s in \(names[s]) (bound \(fmt(m.maxLatency_s)) s)",
                    latencyMargin
                )
            }
        }
        if let bound = m.maxExitLatency_s {
            for (s, sc) in scenarios.enumerated() where sc.cells[best.point].visits.leavesPlace {
                let exit = sc.cells[best.point].visits.exitLatencyP95_s?.mean ?? 0
                let margin = bound > 0 ? (bound - exit) / bound : 1
                if margin < (tight?.1 ?? .infinity) {
                    tight = (
                        "p95 exit latency \(ReportText.latency(exit)) s in \(names[s]) (bound \(fmt(bound)) s)", margin
                    )
                }
            }
        }
        if let tight { lines.append("Tightest margin: \(tight.0).") }
        return lines
    }

    /// How often each constraint fails among the points `ids`, by what the reasons call it
    /// ("recall < 0.95 in NAME", …; "no visit matched at all" for a point that misses none but
    /// matches nothing). Counted by violation tag (the constraint and the scenario: all the name
    /// says), each tag's name made once: a name per violation cost ≈ 7 000 instructions per grid
    /// point on the 97 600-point sweep.
    static func failedConstraints(
        _ points: MixPoints, ids: some Sequence<Int>, manifest m: SweepManifest, names: [String]
    ) -> [String: Int] {
        var byTag = [Int](repeating: 0, count: (names.count + 1) << 3)
        var noVisit = 0
        for i in ids {
            let start = Int(points.violationStart[i])
            let end = Int(points.violationStart[i + 1])
            if start == end { noVisit += 1 }
            for k in start..<end { byTag[Int(points.violationTags[k] & ~MixPoints.valueIsWorst)] += 1 }
        }
        var tally: [String: Int] = [:]
        for (tag, n) in byTag.enumerated() where n > 0 {
            let scenario = tag >> 3 == 0 ? nil : tag >> 3 - 1
            let in_ = scenario.map { " in \(names[$0])" } ?? ""
            let key: String
            switch MixPoints.constraints[tag & 3] {
            case .recall: key = "recall < \(fmt(m.minRecall))\(in_)"
            case .latency: key = "p95 entry latency > \(fmt(m.maxLatency_s)) s\(in_)"
            case .exitLatency: key = "p95 exit latency > \(fmt(m.maxExitLatency_s ?? .infinity)) s\(in_)"
            case .unwanted: key = "\(m.unwantedNoun) per hour > \(fmt(m.maxUnwanted ?? .infinity))"
            }
            tally[key, default: 0] += n
        }
        if noVisit > 0 { tally["no visit matched at all", default: 0] += noVisit }
        return tally
    }

    static func short(_ v: Double) -> String { ReportText.plain(v) }

    static func percent(_ f: Double) -> String {
        guard f.isFinite, abs(f) <= 1e6 else { return "– %" }  // never trap on a 0/0 share
        return "\(Int((f * 100).rounded())) %"
    }
}

extension SweepManifest {
    /// What the objective's unwanted figure counts: unwanted notifications with `--notify`, else
    /// unwanted (false + fragment) visits.
    var unwantedNoun: String { scoresNotifications ? "unwanted notifications" : "unwanted visits" }

    /// The constraints in words: "recall ≥ 0.95 and p95 entry latency ≤ 60 s" plus the exit
    /// latency and unwanted-visit bounds when given.
    var constraintText: String {
        var parts = ["recall ≥ \(fmt(minRecall))", "p95 entry latency ≤ \(fmt(maxLatency_s)) s"]
        if let e = maxExitLatency_s { parts.append("p95 exit latency ≤ \(fmt(e)) s (scenarios that leave the place)") }
        if let u = maxUnwanted { parts.append("at most \(fmt(u)) \(unwantedNoun) per hour over the mix") }
        return parts.count == 2
            ? parts.joined(separator: " and ")
            : parts.dropLast().joined(separator: ", ")
                + " and " + parts.last!
    }

    /// The options that relax the constraints.
    var constraintOptions: String {
        var options = ["--min-recall", "--max-latency"]
        if maxExitLatency_s != nil { options.append("--max-exit-latency") }
        if maxUnwanted != nil { options.append("--max-unwanted") }
        return options.joined(separator: " / ")
    }

    /// The scenario weights as the objective uses them: all scaled by one power of two so that
    /// the largest lies in [1, 2). The scaling is exact, so the weighted mean is bit for bit what
    /// the given weights give whenever those do not overflow or underflow, and weights anywhere
    /// in the finite positive range (1e308 each, 5e-324 each) rank exactly as weights of 1 do.
    var scoringWeights: [Double] {
        let weights = scenarios.map(\.weight)
        guard let largest = weights.max(), largest.isFinite, largest > 0 else { return weights }
        let shift = -Int(largest.exponent)
        return weights.map { w in
            // In two halves: 2^±1074 (a subnormal largest weight) is not a Double itself.
            let half = shift / 2
            return w * Double(sign: .plus, exponent: half, significand: 1)
                * Double(sign: .plus, exponent: shift - half, significand: 1)
        }
    }
}
