/// One grid point on one scenario, aggregated over replicates (mean and 95 % CI).
public struct SweepCell: Sendable, Hashable {
    /// Index into the manifest's points.
    public var point: Int
    public var spurious: Estimate
    public var missed: Estimate
    public var flaps: Estimate
    public var transitions: Estimate
    public var truthTransitions: Estimate
    /// Over the replicates where something matched; nil when nothing matched in any replicate.
    public var latencyMedian_s: Estimate?
    public var latencyP95_s: Estimate?

    /// The cell as a trade-off point (latency NaN when nothing was detected).
    func tradeOff(_ p: SweepPoint) -> TradeOffPoint {
        TradeOffPoint(id: point, spurious: spurious.mean, latency_s: latencyMedian_s?.mean ?? .nan,
                      missed: missed.mean, band_m: p.band_m)
    }
}

/// A scenario's cells, Pareto frontier and recommended setting.
public struct SweepScenarioSummary: Sendable, Hashable {
    public var scenario: SweepScenario
    /// One per grid point, in point order.
    public var cells: [SweepCell]
    /// Points not dominated in (spurious, median latency, missed).
    public var frontier: Set<Int>
    /// The objective's choice (`TradeOff.recommend`), nil when no point meets the constraints.
    public var recommended: Int?
}

/// The result of a sweep: what `sweep.json`, `sweep.csv`, `sweep.md` and `index.html` show.
/// Built only from a manifest and the complete item records, so an unsharded run and a merge
/// of shards produce the same summary and the same bytes.
public struct SweepSummary: Sendable, Hashable {
    public var manifest: SweepManifest
    public var scenarios: [SweepScenarioSummary]

    /// Aggregates `records` (every item of the sweep exactly once, any order).
    /// - Throws: `SweepError.badRecord` for a missing, duplicate or out-of-range item.
    public static func make(manifest: SweepManifest, records: [SweepRecord]) throws -> SweepSummary {
        let source = "records"
        var byItem = [SweepRecord?](repeating: nil, count: manifest.items)
        for r in records {
            guard r.item >= 0, r.item < manifest.items else {
                throw SweepError.badRecord(file: source, line: 0, reason: "item \(r.item) is outside 0..<\(manifest.items)")
            }
            guard byItem[r.item] == nil else {
                throw SweepError.badRecord(file: source, line: 0, reason: "item \(r.item) appears twice")
            }
            byItem[r.item] = r
        }
        if let missing = byItem.firstIndex(where: { $0 == nil }) {
            throw SweepError.badRecord(file: source, line: 0, reason: "item \(missing) is missing")
        }
        let offsets = manifest.offsets, points = manifest.points
        var summaries: [SweepScenarioSummary] = []
        for (s, scenario) in manifest.scenarios.enumerated() {
            var cells: [SweepCell] = []
            for p in points.indices {
                let mine = (0..<scenario.replicates).map { byItem[offsets[s] + $0 * points.count + p]! }
                cells.append(try cell(point: p, mine, scenario: scenario.name))
            }
            let trade = cells.map { $0.tradeOff(points[$0.point]) }
            summaries.append(SweepScenarioSummary(
                scenario: scenario, cells: cells, frontier: TradeOff.frontier(trade),
                recommended: TradeOff.recommend(trade, maxLatency_s: manifest.maxLatency_s)?.id))
        }
        return SweepSummary(manifest: manifest, scenarios: summaries)
    }

    static func cell(point: Int, _ records: [SweepRecord], scenario: String) throws -> SweepCell {
        func est(_ values: [Double], _ key: String) throws -> Estimate {
            do { return try Estimate.of(values, key: key) } catch { throw RunError.metrics(scenario: scenario, error) }
        }
        let medians = records.compactMap(\.latencyMedian_s), p95 = records.compactMap(\.latencyP95_s)
        return SweepCell(
            point: point,
            spurious: try est(records.map { Double($0.spurious) }, "flutter.spurious"),
            missed: try est(records.map { Double($0.missed) }, "flutter.missed"),
            flaps: try est(records.map { Double($0.flaps) }, "flutter.flaps"),
            transitions: try est(records.map { Double($0.transitions) }, "flutter.transitions"),
            truthTransitions: try est(records.map { Double($0.truthTransitions) }, "flutter.truthTransitions"),
            latencyMedian_s: medians.isEmpty ? nil : try est(medians, "flutter.latency_s.median"),
            latencyP95_s: p95.isEmpty ? nil : try est(p95, "flutter.latency_s.p95"))
    }

    /// The objective in words (for every output).
    public var objective: String {
        "minimise mean spurious transitions subject to mean missed = 0 and mean median latency ≤ "
            + "\(fmt(manifest.maxLatency_s)) s (a point with nothing to detect meets the latency bound); "
            + "ties to lower latency, then the narrower band"
    }
}
