import DriveSim
import GeoPolicy

/// The error of a fence input's filter on a drive.
enum FilterScore {
    /// RMSE in metres over the fixes `input`'s filter accepts (all of them, in delivery order),
    /// of the causal estimate after each fix against the fix's truth; nil for raw input or when
    /// the filter accepts none.
    static func rmse_m(fixes: [Fix], truth: [Coordinate], input: FenceInput) -> Double? {
        let model = Haversine()
        var sum = 0.0, n = 0
        func add(_ e: KalmanEstimate?, _ t: Coordinate) {
            guard let e else { return }
            let d = model.distance_m(e.position, t)
            sum += d * d; n += 1
        }
        switch input.kind {
        case .raw: return nil
        case .kalman:
            guard var f = try? KalmanFilter(accelerationDensity_m2ps3: input.accelerationDensity_m2ps3) else { return nil }
            for (fix, t) in zip(fixes, truth) where (try? f.update(fix)) != nil { add(f.estimate, t) }
        case .imm:
            guard var f = try? IMMFilter(accelerationDensity_m2ps3: input.accelerationDensity_m2ps3) else { return nil }
            for (fix, t) in zip(fixes, truth) where (try? f.update(fix)) != nil { add(f.estimate, t) }
        }
        return n > 0 ? (sum / Double(n)).squareRoot() : nil
    }
}

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
    let fixes: [Fix]
    let now_s: [Double]
    /// True visits of the scenario's place (the same for every rule) and the drive's length.
    let trueVisits: [Visit]
    let duration_s: Double
    /// RMSE of each filtered input of the grid on this drive (`FilterScore`).
    let filterRMSE_m: [FenceInput: Double]

    /// Generates replicate `replicate` of `spec` (seeded as in `fencelab run`); `spec.place` must be set.
    /// - Parameter filters: the filtered inputs of the grid, each scored once on the drive.
    public init(spec: ScenarioSpec, replicate: Int, filters: [FenceInput] = []) throws {
        guard let place = spec.place else { throw SweepError.noPlace(file: spec.name) }
        var generator = try ScenarioGenerator(spec: spec, replicate: replicate)
        let samples = generator.collect()
        truth = TruthDistances(samples: samples, center: spec.fence.center)
        duration_s = spec.sampling.duration_s
        trueVisits = Visits.trueVisits(samples: samples, center: spec.fence.center, place: place, end_s: duration_s)
        var fixes: [Fix] = [], now: [Double] = [], fixTruth: [Coordinate] = []
        fixes.reserveCapacity(samples.count)
        now.reserveCapacity(samples.count)
        for s in samples { if let f = s.fix, let t = s.fixTruth { fixes.append(f); now.append(s.time_s); fixTruth.append(t) } }
        var rmse: [FenceInput: Double] = [:]
        for input in filters where rmse[input] == nil { rmse[input] = FilterScore.rmse_m(fixes: fixes, truth: fixTruth, input: input) }
        filterRMSE_m = rmse
        self.fixes = fixes
        self.now_s = now
        self.center = spec.fence.center
        self.scenario = spec.name
        self.replicate = replicate
    }

    /// Delivered fixes.
    public var fixCount: Int { fixes.count }

    /// Runs `point`'s rule over the delivered fixes (`FenceDecisions.observe`, Haversine monitor
    /// only) and over the truth distances computed once per drive (`FenceDecisions.truth`), matches the
    /// transitions (`Flutter.measure`) and scores the observed visits against the place (`Visits.measure`).
    public func evaluate(_ point: SweepPoint, item: Int, settings: EvaluationSettings) throws -> SweepRecord {
        let rule = point.rule
        var local = settings
        local.engine = nil
        let underTest: RuleUnderTest<AnyFenceRule>
        do { underTest = try RuleUnderTest(spec: rule, input: point.fenceInput) } catch {
            throw RunError.invalidRule(file: scenario, reason: "\(error)")
        }
        let observed = try FenceDecisions.observe(fixes: fixes, now_s: now_s, center: center, rule: underTest, settings: local,
                                                  scenario: scenario, replicate: replicate, compareModels: false)
        let truth = try FenceDecisions.truth(self.truth, rule: rule)
        let flutter: FlutterMetrics, visits: VisitMetrics
        do {
            flutter = try Flutter.measure(truth: Flutter.transitions(of: truth), observed: Flutter.transitions(of: observed.states),
                                          window_s: settings.window_s)
            visits = try Visits.measure(truth: trueVisits, observed: Visits.observedVisits(of: observed.states, end_s: duration_s),
                                        duration_s: duration_s, matchSlack_s: settings.matchSlack_s)
        } catch { throw RunError.metrics(scenario: scenario, error) }
        var record = SweepRecord(item: item, flutter: flutter, visits: visits)
        record.filterRMSE_m = point.input == .raw ? nil : filterRMSE_m[point.fenceInput]
        return record
    }
}
