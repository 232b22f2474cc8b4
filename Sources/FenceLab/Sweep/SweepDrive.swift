import DriveSim
import GeoPolicy

/// One generated drive (scenario × replicate), kept so that many rules can be evaluated on it.
///
/// Common random numbers: the drive depends only on the scenario and the replicate's derived
/// seed, so every grid point sees exactly the same fixes and truth, and differences between
/// points are due to the rule. Generating once and evaluating many rules also makes an extra
/// grid point cost only the fence decisions and the flutter matching.
public struct SweepDrive: Sendable {
    public let scenario: String
    public let replicate: Int
    let center: Coordinate
    /// Truth time and distance per sample slot (the same for every rule).
    let truth: TruthDistances
    /// Delivered fixes as the scan reads them: times, distances and gate inputs, computed once.
    public let fixArrays: SweepFixArrays
    /// True visits of the scenario's place (the same for every rule) and the drive's length.
    let trueVisits: [Visit]
    let duration_s: Double

    /// Generates replicate `replicate` of `spec` (seeded as in `fencelab run`); `spec.place` must be set.
    public init(spec: ScenarioSpec, replicate: Int) throws {
        guard let place = spec.place else { throw SweepError.noPlace(file: spec.name) }
        var generator = try ScenarioGenerator(spec: spec, replicate: replicate)
        let samples = generator.collect()
        truth = TruthDistances(samples: samples, center: spec.fence.center)
        duration_s = spec.sampling.duration_s
        trueVisits = Visits.trueVisits(samples: samples, center: spec.fence.center, place: place, end_s: duration_s)
        var fixes: [Fix] = [], now: [Double] = []
        fixes.reserveCapacity(samples.count)
        now.reserveCapacity(samples.count)
        for s in samples { if let f = s.fix { fixes.append(f); now.append(s.time_s) } }
        self.fixArrays = SweepFixArrays(fixes: fixes, now_s: now, center: spec.fence.center)
        self.center = spec.fence.center
        self.scenario = spec.name
        self.replicate = replicate
    }

    /// Delivered fixes.
    public var fixCount: Int { fixArrays.count }

    /// Runs `point`'s rule over the delivered fixes and over the truth distances (both computed once
    /// per drive; `SweepScan`, the same decisions as `FenceMonitor` with Haversine), matches the
    /// transitions (`Flutter.measure`) and scores the observed visits against the place (`Visits.measure`).
    public func evaluate(_ point: SweepPoint, item: Int, settings: EvaluationSettings) throws -> SweepRecord {
        var scratch = SweepScratch()
        return try evaluate(point, item: item, settings: settings, scratch: &scratch)
    }

    /// As `evaluate(_:item:settings:)`, reusing `scratch`'s buffers across the points of a drive.
    public func evaluate(_ point: SweepPoint, item: Int, settings: EvaluationSettings,
                         scratch: inout SweepScratch) throws -> SweepRecord {
        let rule = ScanRule(point)
        SweepScan.observed(fixArrays, rule: rule, maxAge_s: settings.maxFixAge_s, into: &scratch.observed)
        SweepScan.truth(truth, rule: rule, into: &scratch.truth)
        let flutter: FlutterMetrics, visits: VisitMetrics
        do {
            flutter = try Flutter.measure(truth: SweepScan.transitions(scratch.truth),
                                          observed: SweepScan.transitions(scratch.observed), window_s: settings.window_s)
            visits = try Visits.measure(truth: trueVisits, observed: SweepScan.visits(scratch.observed, end_s: duration_s),
                                        duration_s: duration_s, matchSlack_s: settings.matchSlack_s)
        } catch { throw RunError.metrics(scenario: scenario, error) }
        return SweepRecord(item: item, flutter: flutter, visits: visits)
    }
}

/// Buffers of the state changes of one grid point, reused across the points of a drive.
public struct SweepScratch: Sendable {
    var observed: [StateChange] = []
    var truth: [StateChange] = []
    public init() {}
}
