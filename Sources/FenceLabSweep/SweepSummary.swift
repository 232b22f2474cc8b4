import FenceLab
import Foundation
import GeoPolicy
import _FenceLabSupport

/// One grid point on one scenario, aggregated over replicates (mean and 95 % CI).
package struct SweepCell: Sendable, Hashable {
    /// Index into the manifest's points.
    package var point: Int
    package var spurious: Estimate
    package var missed: Estimate
    package var flaps: Estimate
    package var transitions: Estimate
    package var truthTransitions: Estimate
    /// Over the replicates where something matched; nil when nothing matched in any replicate.
    package var latencyMedian_s: Estimate?
    package var latencyP95_s: Estimate?
    /// Visits against the place (`visits.*`), mean and 95 % CI over replicates.
    package var visits: SweepVisitCell
    /// RMSE of the point's input filter over the replicates; nil for raw input.
    package var filterRMSE_m: Estimate?
    /// What the point's sampling policy cost on the scenario.
    package var cost: SweepCostCell
    /// What its notification policy told the user (`--notify`); nil when none was scored.
    package var notifications: SweepNotifyCell?

    /// The cell as a trade-off point (latency NaN when nothing was detected).
    func tradeOff(_ p: SweepPoint) -> TradeOffPoint {
        TradeOffPoint(
            id: point, spurious: spurious.mean, latency_s: latencyMedian_s?.mean ?? .nan,
            missed: missed.mean, band_m: p.band_m)
    }
}

/// A scenario's flutter figures for every point, as columns: what the flutter frontier and its
/// order need (`TradeOffPoint` without its id and band: at most 24 bytes a point instead of 40,
/// `SweepColumn`).
struct TradeOffColumns: Sendable {
    var spurious = SweepColumn()
    /// Mean median latency, NaN when nothing was detected.
    var latency_s = SweepColumn()
    var missed = SweepColumn()

    mutating func reserveCapacity(_ n: Int) {
        spurious.reserveCapacity(n)
        latency_s.reserveCapacity(n)
        missed.reserveCapacity(n)
    }

    /// Appends a cell's `figures(_:)` (its point must be the count so far).
    mutating func append(figures f: SIMD3<Double>) {
        spurious.append(f.x)
        latency_s.append(f.y)
        missed.append(f.z)
    }

    /// The figures of `c` the columns hold: mean spurious, mean median latency (NaN when nothing
    /// was detected), mean missed.
    static func figures(_ c: SweepCell) -> SIMD3<Double> {
        SIMD3(c.spurious.mean, c.latencyMedian_s?.mean ?? .nan, c.missed.mean)
    }

    /// `TradeOff.frontier` of the points.
    func frontier() -> SweepPointSet {
        // Read through the columns' readers: the sort's comparisons copy what the key captured.
        SweepColumn.withReaders(spurious, latency_s, missed) { spurious, latency_s, missed in
            SweepPointSet(
                members: Pareto.nonDominated(count: spurious.count) { i in
                    let l = latency_s[i]
                    return SIMD3(spurious[i], l.isNaN ? (missed[i] == 0 ? -.infinity : .infinity) : l, missed[i])
                })
        }
    }

    /// `frontier` by mean median latency (nothing detected, NaN, last), then mean spurious, then
    /// id; only the first `first` when given (a strict total order: the same as the whole order's
    /// prefix).
    func byLatency(_ frontier: SweepPointSet, first: Int? = nil) -> [Int] {
        spurious.withReader { spurious in
            latency_s.withReader { latency_s in
                Self.byLatency(frontier, first: first, spurious: spurious, latency_s: latency_s)
            }
        }
    }

    private static func byLatency(
        _ frontier: SweepPointSet, first: Int?, spurious: SweepColumn.Reader, latency_s: SweepColumn.Reader
    ) -> [Int] {
        // A latency is NaN exactly when the cell has no median latency (a mean of finite values is
        // never NaN): the outputs' "nothing detected last", +∞.
        func latency(_ i: Int) -> Double { latency_s[i].isNaN ? .infinity : latency_s[i] }
        func before(_ a: Int, _ b: Int) -> Bool {
            if latency(a) != latency(b) { return latency(a) < latency(b) }
            if spurious[a] != spurious[b] { return spurious[a] < spurious[b] }
            return a < b
        }
        if let first, first < frontier.count {
            // The `first` smallest, kept sorted.
            var out: [Int] = []
            out.reserveCapacity(first + 1)
            for id in frontier {
                if out.count == first, !before(id, out[out.count - 1]) { continue }
                var lo = 0
                var hi = out.count
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if before(out[mid], id) { lo = mid + 1 } else { hi = mid }
                }
                out.insert(id, at: lo)
                if out.count > first { out.removeLast() }
            }
            return out
        }
        var ids: [Int32] = []
        ids.reserveCapacity(frontier.count)
        for id in frontier { ids.append(Int32(id)) }
        ids.sort { before(Int($0), Int($1)) }
        return ids.map(Int.init)
    }
}

/// The frontiers `SweepSummary.make` finds on a thread of its own: per scenario its flutter
/// frontier and that frontier by latency (each scenario's trade-off columns dropped once used,
/// as one thread drops them), then the mix and three-way frontiers. Written by that thread only,
/// read after it is done (`HelperWork.wait`).
final class FoundFrontiers: @unchecked Sendable {
    private var trade: [TradeOffColumns]
    private(set) var flutter: [(frontier: SweepPointSet, byLatency: [Int])] = []
    private(set) var mixFrontier = SweepPointSet()
    private(set) var costFrontier = SweepPointSet()

    init(trade: [TradeOffColumns]) { self.trade = trade }

    /// Each scenario's flutter frontier and its first `listedFrontier` points by latency.
    func findFlutter(listedFrontier: Int?) {
        for s in trade.indices {
            let frontier = trade[s].frontier()
            flutter.append((frontier, trade[s].byLatency(frontier, first: listedFrontier)))
            trade[s] = TradeOffColumns()
        }
    }

    /// The mix frontier and the cost frontier.
    func findMix(_ mix: MixPoints) {
        mixFrontier = SweepMix.mixFrontier(mix)
        costFrontier = SweepMix.costFrontier(mix)
    }
}

/// One grid point's cost on one scenario: fixes delivered to the app and wake-ups, per hour of
/// drive, mean and 95 % CI over replicates (the same for every rule at one sampling policy).
package struct SweepCostCell: Sendable, Hashable {
    package var fixesPerHour: Estimate
    package var wakeupsPerHour: Estimate
}

/// One grid point's notification figures on one scenario (`NotificationMetrics`), over replicates.
package struct SweepNotifyCell: Sendable, Hashable {
    /// Entry notifications per true visit, over the replicates with a true visit; nil when none has one.
    package var entriesPerTrueVisit: Estimate?
    package var unwantedPerHour: Estimate
    /// Dwell notifications outside every true visit of at least the loitering delay, per hour.
    package var falseDwellsPerHour: Estimate
    /// Matched dwells / true visits of at least T, over the replicates with such a visit.
    package var dwellRecall: Estimate?
    /// p95 dwell latency over the replicates where a dwell matched.
    package var dwellLatencyP95_s: Estimate?
}

/// One grid point's visit figures on one scenario.
package struct SweepVisitCell: Sendable, Hashable {
    package var trueVisits: Estimate
    package var matchedVisits: Estimate
    /// Over the replicates with a true visit; nil when no replicate has one.
    package var recall: Estimate?
    package var falseVisits: Estimate
    package var fragments: Estimate
    package var falsePerHour: Estimate
    package var fragmentsPerHour: Estimate
    package var earlyEntries: Estimate
    /// Over the replicates where a visit was matched; nil when none was.
    package var entryLatencyP95_s: Estimate?
    /// p95 entry latency with early entries counted as 0 (the constraint's figure).
    package var lateEntryP95_s: Estimate?
    package var exitLatencyP95_s: Estimate?
    /// True visits that end within the drive, per drive.
    package var trueExits: Estimate

    /// True when the user leaves the place in some replicate (the exit-latency constraint applies).
    package var leavesPlace: Bool { trueExits.mean > 0 }

    /// Mean false + fragment visits per hour: the objective's per-scenario term.
    package var unwantedPerHour: Double { falsePerHour.mean + fragmentsPerHour.mean }
    /// True when the place has at least one true visit in some replicate (the same for every point).
    package var hasVisits: Bool { trueVisits.mean > 0 }
}

/// A scenario's cells, one per grid point in point order, computed from the records each time one
/// is asked for: stored, they were ≈ 630 bytes per point and scenario (16 `Estimate`s), more than
/// the records they come from. `SweepSummary.make` computes every cell once (and refuses what
/// cannot be aggregated), so reading one here cannot fail on its values.
package struct SweepCells: RandomAccessCollection, Sendable, Hashable {
    let store: SweepRecordStore
    /// The scenario's first item, the grid's point count, the scenario's replicates.
    let offset: Int, points: Int, replicates: Int
    let scenario: String
    let scenarioHours: Double
    /// Every cell, when the grid is small enough to keep them (`SweepSummary.keptCellsBudget_bytes`):
    /// the outputs then read them instead of computing each point's figures again from its records.
    var kept: [SweepCell]?

    package var startIndex: Int { 0 }
    package var endIndex: Int { points }

    package subscript(point: Int) -> SweepCell {
        if let kept { return kept[point] }
        do {
            return try cell(point, records: (0..<replicates).map { store.recordReadBack(offset + $0 * points + point) })
        } catch {
            fatalError("fencelab: \(error) (aggregated without error before)")
        }
    }

    /// The records of `point`, one per replicate.
    func records(_ point: Int) throws(SweepError) -> [SweepRecord] {
        var out: [SweepRecord] = []
        out.reserveCapacity(replicates)
        for i in 0..<replicates { out.append(try store.record(offset + i * points + point)) }
        return out
    }

    func cell(_ point: Int, records: [SweepRecord]) throws -> SweepCell {
        try SweepSummary.cell(point: point, records, scenario: scenario, scenarioHours: scenarioHours)
    }
}

/// A scenario's cells and its flutter Pareto frontier.
package struct SweepScenarioSummary: Sendable, Hashable {
    package var scenario: SweepScenario
    /// One per grid point, in point order.
    package var cells: SweepCells
    /// Points not dominated in (spurious, median latency, missed) of the flutter figures.
    package var frontier: SweepPointSet
    /// `frontier` by mean median latency (nothing detected last), then mean spurious, then id:
    /// the order sweep.md and index.html list it in (`SweepOutput.frontierOrder`), found with the
    /// frontier so the outputs need not compute those cells again. Above the full-form limit only
    /// its first `SweepDigest.listedFrontier`, what the bounded outputs list.
    var frontierByLatency: [Int]

    /// Per filtered input kind (`kalman`, `imm`): every q of the grid with the filter's mean RMSE
    /// over the replicates (the same for every rule setting: the filter does not depend on the
    /// rule), in q order, and the q with the smallest RMSE first on ties to the smaller q.
    /// `points`: the manifest's.
    package func filterErrors(points: SweepPointList) -> [FilterErrors] {
        var out: [FilterErrors] = []
        for kind in FenceInput.Kind.allCases where kind != .raw {
            // No pass over a grid's points (this runs once per output) for an input it does not sweep.
            guard points.hasInput(kind) else { continue }
            var byQ: [Double: Estimate] = [:]
            for p in points.indices where points[p].input == kind && byQ[points[p].q_m2s3] == nil {
                if let e = cells[p].filterRMSE_m { byQ[points[p].q_m2s3] = e }
            }
            let sorted = byQ.keys.sorted().map { (q_m2s3: $0, rmse: byQ[$0]!) }
            guard let best = sorted.min(by: { $0.rmse.mean < $1.rmse.mean }) else { continue }
            out.append(FilterErrors(kind: kind, byQ: sorted, best_q_m2s3: best.q_m2s3))
        }
        return out
    }
}

/// One filter's error on one scenario for every q of a sweep, and the q with the smallest RMSE.
package struct FilterErrors: Sendable {
    package var kind: FenceInput.Kind
    /// In q order.
    package var byQ: [(q_m2s3: Double, rmse: Estimate)]
    package var best_q_m2s3: Double
}

/// The result of a sweep: what `sweep.json`, `sweep.csv`, `sweep.md` and `index.html` show.
/// Built only from a manifest and the complete item records, so an unsharded run and a merge
/// of shards produce the same summary and the same bytes.
package struct SweepSummary: Sendable, Hashable {
    package var manifest: SweepManifest
    package var scenarios: [SweepScenarioSummary]
    /// Every point on the weighted mix, the mix frontier and the one recommendation.
    package var mix: SweepMix
    /// What sweep.json and index.html list of a grid above `SweepDigest.fullFormLimit_points`
    /// (the bounded form); nil: they list every point (the full form).
    package var digest: SweepDigest? = nil

    /// Aggregates `records` (every item of the sweep exactly once, any order); the records are
    /// copied into a `SweepRecordStore` in the temporary folder.
    /// - Throws: `SweepError.badRecord` for a missing, duplicate or out-of-range item.
    package static func make(
        manifest: SweepManifest, records: [SweepRecord], fullFormLimit_points: Int = SweepDigest.fullFormLimit_points
    ) throws -> SweepSummary {
        let source = "records"
        var seen = [Bool](repeating: false, count: manifest.items)
        for r in records {
            guard r.item >= 0, r.item < manifest.items else {
                throw SweepError.badRecord(
                    file: source, line: 0, reason: "item \(r.item) is outside 0..<\(manifest.items)")
            }
            guard !seen[r.item] else {
                throw SweepError.badRecord(file: source, line: 0, reason: "item \(r.item) appears twice")
            }
            seen[r.item] = true
        }
        if let missing = seen.firstIndex(of: false) {
            throw SweepError.badRecord(file: source, line: 0, reason: "item \(missing) is missing")
        }
        let store = try SweepRecordStore(
            count: manifest.items, directory: NSTemporaryDirectory(),
            streams: manifest.scenarios.reduce(0) { $0 + $1.replicates })
        try store.store(records)
        return try make(manifest: manifest, store: store, fullFormLimit_points: fullFormLimit_points)
    }

    /// Aggregates the records of `store`, which holds every item of the sweep (stride 1).
    ///
    /// One pass computes every cell once, point by point: the per-scenario trade-off figures (for
    /// the flutter frontiers) and the point's mix figures; nothing else per cell is kept. The
    /// outputs compute the cells again from the records when they write them (`SweepCells`).
    /// Cells of all scenarios up to this size are kept in memory by `make` (16 MiB ≈ 26 000 cells
    /// of ≈ 630 bytes: a 14 200-point grid of one scenario, or the tuning mix many times over);
    /// larger grids compute a cell from its records whenever an output asks, so memory stays flat
    /// in the grid. The outputs compute a cell up to ≈ 7 times (sweep.json, sweep.csv, sweep.md,
    /// the page's tables and plot), which cost 9–23 % of a 20-replicate sweep's CPU.
    package static let keptCellsBudget_bytes = 16 << 20

    package static func make(
        manifest: SweepManifest, store: SweepRecordStore,
        keepingCellsUpTo budget_bytes: Int = keptCellsBudget_bytes,
        fullFormLimit_points: Int = SweepDigest.fullFormLimit_points, jobs: Int = 1
    ) throws -> SweepSummary {
        let (summary, digest) = try makePendingDigest(
            manifest: manifest, store: store, keepingCellsUpTo: budget_bytes,
            fullFormLimit_points: fullFormLimit_points, jobs: jobs)
        return digest?.summary(summary) ?? summary
    }

    /// `make`, with the digest's ranking (≈ 4 200 instructions a point) left running: with
    /// `jobs` > 1 it is started on threads of its own and the summary returns without its digest
    /// as soon as the frontiers are found, so sweep.csv (which shows no digest) is written while
    /// the ranking finishes; sweep.json, sweep.md and index.html take the finished summary from
    /// `PendingDigest.summary`. With one job the ranking runs when the digest is first asked
    /// for. nil: the grid is listed in full (`fullFormLimit_points`), with no digest.
    package static func makePendingDigest(
        manifest: SweepManifest, store: SweepRecordStore,
        keepingCellsUpTo budget_bytes: Int = keptCellsBudget_bytes,
        fullFormLimit_points: Int = SweepDigest.fullFormLimit_points, jobs: Int = 1
    ) throws -> (SweepSummary, PendingDigest?) {
        guard store.count == manifest.items, store.stride == 1, store.storedCount == manifest.items else {
            throw SweepError.badRecord(
                file: "records", line: 0,
                reason: "\(store.storedCount) of \(manifest.items) work items stored")
        }
        let offsets = manifest.offsets
        let points = manifest.points
        var cells = manifest.scenarios.enumerated().map { s, scenario in
            SweepCells(
                store: store, offset: offsets[s], points: points.count, replicates: scenario.replicates,
                scenario: scenario.name, scenarioHours: scenario.duration_s / 3600)
        }
        // The flutter figures the frontiers need, per scenario as columns (24 bytes a point).
        var trade = [TradeOffColumns](repeating: TradeOffColumns(), count: cells.count)
        for s in trade.indices { trade[s].reserveCapacity(points.count) }
        var mix = MixPoints()
        mix.reserveCapacity(points.count)
        let weights = manifest.scoringWeights
        let totalWeight = weights.reduce(0, +)
        let keep = points.count * cells.count * MemoryLayout<SweepCell>.stride <= budget_bytes
        var kept = [[SweepCell]](repeating: [], count: keep ? cells.count : 0)
        for s in kept.indices { kept[s].reserveCapacity(points.count) }
        // Runs of points on `jobs` threads, consumed in point order (the first failure in point
        // order is the one thrown, as one pass would throw it).
        let runs = SweepCells.chunks(count: points.count, jobs: jobs)
        let source = cells
        // The arrays a run's records are read into, one set per thread at a time (made afresh
        // for each run, a worker thread's allocator arena handed them back to the system and
        // faulted them in again).
        let spareRows = Locked<[[[[SweepRecord]]]]>([])
        try WorkPool.forEachInOrder(
            count: runs.count, jobs: jobs, window: 2 * max(1, jobs),
            { (k) throws -> AggregatedRun in
                let range = runs[k]
                var rows = spareRows.takeSpare { [[[SweepRecord]]](repeating: [], count: source.count) }
                defer { spareRows.putBack(rows) }
                for s in source.indices { try source[s].rows(range, into: &rows[s]) }
                // The run's thread reads nothing of the shared `SweepCells` per point (`cell(point:…)`).
                let names = source.map(\.ownName)
                let hours = source.map(\.scenarioHours)
                var part = AggregatedRun(scenarios: source.count, points: range.count, keepingCells: keep)
                var scratch: [SweepRecord] = []
                var values: [Double] = []
                var visits: [SweepVisitCell] = []
                var costs: [SweepCostCell] = []
                var notes: [SweepNotifyCell?] = []
                // The summary's cells are not kept yet (`kept` is set after this pass).
                for j in 0..<range.count {
                    let p = range.lowerBound + j
                    visits.removeAll(keepingCapacity: true)
                    costs.removeAll(keepingCapacity: true)
                    notes.removeAll(keepingCapacity: true)
                    for s in names.indices {
                        let c = try SweepCells.cell(
                            point: p, j, rows: rows[s], scenario: names[s], scenarioHours: hours[s],
                            scratch: &scratch, values: &values)
                        part.append(c, scenario: s)
                        visits.append(c.visits)
                        costs.append(c.cost)
                        notes.append(c.notifications)
                    }
                    part.mix.append(
                        SweepMix.score(
                            point: p, visits: visits, costs: costs, notifications: notes, manifest: manifest,
                            weights: weights, totalWeight: totalWeight, appendingViolationsTo: &part.violations))
                    part.violationEnds.append(part.violations.count)
                }
                return part
            },
            consume: { _, part in
                for s in trade.indices {
                    for f in part.trade[s] { trade[s].append(figures: f) }
                    if keep { kept[s] += part.cells[s] }
                }
                var start = 0
                for (k, m) in part.mix.enumerated() {
                    mix.append(m, violations: part.violations[start..<part.violationEnds[k]])
                    start = part.violationEnds[k]
                }
            })
        for s in kept.indices { cells[s].kept = kept[s] }
        kept = []
        let listedFrontier = points.count > fullFormLimit_points ? SweepDigest.listedFrontier : nil
        // The frontiers (Pareto sorts, ≈ 3 000 instructions per point at 10⁵ points) do not enter
        // the recommendation or the digest's ranking. With more threads the scenarios' flutter
        // frontiers are found on a thread of their own while this one makes the recommendation,
        // starts the ranking on others and then finds the mix and cost frontiers itself: waiting
        // for a frontier thread instead, it woke ≈ 3 ms after that thread ended, its core taken
        // by the ranking's threads (traced runs of the 97 600-point sweep).
        let found = FoundFrontiers(trade: trade)
        trade = []
        let flutter: HelperWork?
        if jobs > 1 {
            flutter = HelperThreads.shared.start { found.findFlutter(listedFrontier: listedFrontier) }
        } else {
            found.findFlutter(listedFrontier: listedFrontier)
            flutter = nil
        }
        let placeholders = manifest.scenarios.enumerated().map { s, scenario in
            SweepScenarioSummary(scenario: scenario, cells: cells[s], frontier: [], frontierByLatency: [])
        }
        var chosen = SweepMix.make(
            manifest: manifest, scenarios: placeholders, points: mix, frontiers: (mix: [], cost: []))
        let pending: PendingDigest?
        if points.count > fullFormLimit_points {
            let ranking = chosen
            let digest = PendingDigest(limit: fullFormLimit_points) {
                SweepDigest.ranked(ranking, points: points, jobs: jobs)
            }
            // The first caller ranks (under the digest's lock): with more threads, one of its own
            // started now, unless an output that needs the digest asks before it starts.
            if jobs > 1 { HelperThreads.shared.start { digest.rank() } }
            pending = digest
        } else {
            pending = nil
        }
        found.findMix(mix)
        flutter?.wait()
        chosen.frontier = found.mixFrontier
        chosen.costFrontier = found.costFrontier
        var summaries = placeholders
        for s in summaries.indices {
            summaries[s].frontier = found.flutter[s].frontier
            summaries[s].frontierByLatency = found.flutter[s].byLatency
        }
        return (SweepSummary(manifest: manifest, scenarios: summaries, mix: chosen), pending)
    }

    /// One cell from its records (replicate order). Every figure goes through `Estimate.of` with
    /// the values in replicate order, in a fixed order of figures (so the first failure is always
    /// the same one); the values are gathered in one reused buffer instead of an array per figure
    /// (this runs for every cell in `make` and again in sweep.csv).
    static func cell(point: Int, _ records: [SweepRecord], scenario: String, scenarioHours: Double) throws -> SweepCell
    {
        var values: [Double] = []
        return try cell(point: point, records, scenario: scenario, scenarioHours: scenarioHours, values: &values)
    }

    /// `cell(point:_:scenario:scenarioHours:)` with the figures' values gathered in `values`, which
    /// a thread computing many cells keeps from cell to cell (one array less per cell).
    static func cell(
        point: Int, _ records: [SweepRecord], scenario: String, scenarioHours: Double, values: inout [Double]
    ) throws -> SweepCell {
        // One buffer of one slot per record, overwritten for each figure (no emptying and
        // appending: 23 figures per point).
        if values.count != records.count {
            values.removeAll(keepingCapacity: true)
            values.append(contentsOf: repeatElement(0, count: records.count))
        }
        func est(_ key: String, _ value: (SweepRecord) -> Double) throws -> Estimate {
            for (i, r) in records.enumerated() { values[i] = value(r) }
            do { return try Estimate.of(values, key: key) } catch { throw RunError.metrics(scenario: scenario, error) }
        }
        /// Over the records that have the figure; nil when none has it.
        func optional(_ key: String, _ value: (SweepRecord) -> Double?) throws -> Estimate? {
            try Self.estimate(records, key: key, scenario: scenario, buffer: &values, value)
        }
        let hours = scenarioHours
        let visits = SweepVisitCell(
            trueVisits: try est("visits.trueVisits") { Double($0.trueVisits) },
            matchedVisits: try est("visits.matchedVisits") { Double($0.matchedVisits) },
            recall: try optional("visits.recall") {
                $0.trueVisits > 0 ? Double($0.matchedVisits) / Double($0.trueVisits) : nil
            },
            falseVisits: try est("visits.falseVisits") { Double($0.falseVisits) },
            fragments: try est("visits.fragments") { Double($0.fragments) },
            falsePerHour: try est("visits.falsePerHour") { Double($0.falseVisits) / hours },
            fragmentsPerHour: try est("visits.fragmentsPerHour") { Double($0.fragments) / hours },
            earlyEntries: try est("visits.earlyEntries") { Double($0.earlyEntries) },
            entryLatencyP95_s: try optional("visits.entryLatency_s.p95") { $0.entryLatencyP95_s },
            lateEntryP95_s: try optional("visits.lateEntryP95_s") { $0.lateEntryP95_s },
            exitLatencyP95_s: try optional("visits.exitLatency_s.p95") { $0.exitLatencyP95_s },
            trueExits: try est("visits.trueExits") { Double($0.trueExits) })
        return SweepCell(
            point: point,
            spurious: try est("flutter.spurious") { Double($0.spurious) },
            missed: try est("flutter.missed") { Double($0.missed) },
            flaps: try est("flutter.flaps") { Double($0.flaps) },
            transitions: try est("flutter.transitions") { Double($0.transitions) },
            truthTransitions: try est("flutter.truthTransitions") { Double($0.truthTransitions) },
            latencyMedian_s: try optional("flutter.latency_s.median") { $0.latencyMedian_s },
            latencyP95_s: try optional("flutter.latency_s.p95") { $0.latencyP95_s }, visits: visits,
            filterRMSE_m: try optional("filterRMSE_m") { $0.filterRMSE_m },
            cost: SweepCostCell(
                fixesPerHour: try est("cost.fixesPerHour") { $0.fixesPerHour },
                wakeupsPerHour: try est("cost.wakeupsPerHour") { $0.wakeupsPerHour }),
            notifications: try notifyCell(records, hours: scenarioHours, scenario: scenario, buffer: &values))
    }

    /// The estimate over the records that have the figure (nil when none has it), gathered in
    /// `buffer` (one slot per record): all of it when every record has the figure, else its
    /// first slots, the values found in record order (the buffer is cut to them for the call and
    /// given its slots back after it, without a new array).
    static func estimate(
        _ records: [SweepRecord], key: String, scenario: String, buffer: inout [Double],
        _ value: (SweepRecord) -> Double?
    ) throws -> Estimate? {
        var n = 0
        for r in records {
            if let v = value(r) {
                buffer[n] = v
                n += 1
            }
        }
        guard n > 0 else { return nil }
        let slots = buffer.count
        if n < slots { buffer.removeLast(slots - n) }
        defer { if n < slots { buffer.append(contentsOf: repeatElement(0, count: slots - n)) } }
        do { return try Estimate.of(buffer, key: key) } catch { throw RunError.metrics(scenario: scenario, error) }
    }

    static func notifyCell(
        _ records: [SweepRecord], hours: Double, scenario: String, buffer: inout [Double]
    ) throws -> SweepNotifyCell? {
        guard !records.isEmpty, records.allSatisfy({ $0.notifications != nil }) else { return nil }
        func est(_ key: String, _ value: (SweepNotificationFigures, SweepRecord) -> Double?) throws -> Estimate? {
            try Self.estimate(records, key: key, scenario: scenario, buffer: &buffer) { value($0.notifications!, $0) }
        }
        return SweepNotifyCell(
            entriesPerTrueVisit: try est("notify.entriesPerTrueVisit") {
                $1.trueVisits > 0 ? Double($0.entries) / Double($1.trueVisits) : nil
            },
            unwantedPerHour: try est("notify.unwantedPerHour") { n, _ in Double(n.unwanted) / hours }!,
            falseDwellsPerHour: try est("notify.falseDwellsPerHour") { n, _ in Double(n.falseDwells) / hours }!,
            dwellRecall: try est("notify.dwellRecall") { n, _ in
                n.dwellVisits > 0 ? Double(n.matchedDwells) / Double(n.dwellVisits) : nil
            },
            dwellLatencyP95_s: try est("notify.dwellLatency_s.p95") { n, _ in n.dwellLatencyP95_s })
    }

    /// True when some scenario of the mix leaves the place (its exit radius is tested).
    package var leavesPlace: Bool { scenarios.contains { $0.cells.first?.visits.leavesPlace ?? false } }

    /// The objective in words (for every output).
    package var objective: String {
        let m = manifest
        let unwanted = m.scoresNotifications ? "unwanted notifications" : "false + fragment visits"
        var text =
            "minimise the weighted mean of \(unwanted) per hour over the scenarios, subject to, in every "
            + "scenario with true visits, recall ≥ \(fmt(m.minRecall)) and p95 entry latency (early counted as 0) ≤ "
            + "\(fmt(m.maxLatency_s)) s"
        if let e = m.maxExitLatency_s {
            text += ", and p95 exit latency ≤ \(fmt(e)) s in every scenario that leaves the place"
        }
        guard m.hasSamplingAxis || m.maxUnwanted != nil || m.cost != .fixes || m.scoresNotifications else {
            return text
                + "; ties to the lower worst-scenario p95 entry latency, then the higher worst-scenario recall, then "
                + "the lower point id"
        }
        let cost = m.cost == .fixes ? "fixes per hour" : "cost \(m.cost) (per fix and per wake-up per hour)"
        let bound =
            m.maxUnwanted.map { "at most \(fmt($0)) \(unwanted) per hour" }
            ?? "the fewest \(unwanted) per hour any such setting reaches"
        return "among the settings that meet, in every scenario with true visits, recall ≥ \(fmt(m.minRecall)) and "
            + "p95 entry latency (early counted as 0) ≤ \(fmt(m.maxLatency_s)) s"
            + (m.maxExitLatency_s.map { ", p95 exit latency ≤ \(fmt($0)) s where the user leaves the place" } ?? "")
            + ", and have \(bound): minimise the weighted mean of \(cost) over the scenarios; ties to fewer \(unwanted) "
            + "per hour, the lower worst-scenario p95 entry latency, the higher worst-scenario recall, then the "
            + "lower point id"
    }
}

/// The digest of a summary whose ranking (`SweepDigest.ranked`) may still be running
/// (`SweepSummary.makePendingDigest`): the ranking runs once, by its first caller, and the digest
/// is made once from it; a caller that comes while it runs waits for it (the state's lock).
package final class PendingDigest: Sendable {
    private let limit: Int
    private let ranking: @Sendable () -> SweepDigest.Ranked
    private let state = Locked<(ranked: SweepDigest.Ranked?, finished: SweepSummary?)>((nil, nil))

    init(limit: Int, ranking: @escaping @Sendable () -> SweepDigest.Ranked) {
        self.limit = limit
        self.ranking = ranking
    }

    /// Runs the ranking unless it ran (or is running: then waits for it).
    func rank() {
        state.withLock { _ = ranked(&$0.ranked) }
    }

    /// `summary` with its digest (`summary` is the one `makePendingDigest` returned with this).
    package func summary(_ summary: SweepSummary) -> SweepSummary {
        state.withLock { state in
            if let finished = state.finished { return finished }
            var s = summary
            s.digest = SweepDigest.make(s, ranked: ranked(&state.ranked), limit: limit)
            state.finished = s
            return s
        }
    }

    /// The ranking held in `slot`, run now if it has not run (the caller holds the state's lock).
    private func ranked(_ slot: inout SweepDigest.Ranked?) -> SweepDigest.Ranked {
        if let slot { return slot }
        let r = ranking()
        slot = r
        return r
    }
}
