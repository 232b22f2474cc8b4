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
    let fixes: [Fix]
    let now_s: [Double]

    /// Generates replicate `replicate` of `spec` (seeded as in `fencelab run`).
    public init(spec: ScenarioSpec, replicate: Int) throws {
        var generator = try ScenarioGenerator(spec: spec, replicate: replicate)
        let samples = generator.collect()
        truth = TruthDistances(samples: samples, center: spec.fence.center)
        var fixes: [Fix] = [], now: [Double] = []
        fixes.reserveCapacity(samples.count)
        now.reserveCapacity(samples.count)
        for s in samples { if let f = s.fix { fixes.append(f); now.append(s.time_s) } }
        self.fixes = fixes
        self.now_s = now
        self.center = spec.fence.center
        self.scenario = spec.name
        self.replicate = replicate
    }

    /// Delivered fixes.
    public var fixCount: Int { fixes.count }

    /// Runs `point`'s rule over the delivered fixes (`FenceDecisions.observe`, Haversine monitor
    /// only) and over the truth distances computed once per drive (`FenceDecisions.truth`), and matches the transitions (`Flutter.measure`).
    public func evaluate(_ point: SweepPoint, item: Int, settings: EvaluationSettings) throws -> SweepRecord {
        let rule = point.rule
        var local = settings
        local.engine = nil
        let observed = try FenceDecisions.observe(fixes: fixes, now_s: now_s, center: center, rule: rule, settings: local,
                                                  scenario: scenario, replicate: replicate, compareModels: false)
        let truth = try FenceDecisions.truth(self.truth, rule: rule)
        let flutter: FlutterMetrics
        do {
            flutter = try Flutter.measure(truth: Flutter.transitions(of: truth), observed: Flutter.transitions(of: observed.states),
                                          window_s: settings.window_s)
        } catch { throw RunError.metrics(scenario: scenario, error) }
        return SweepRecord(item: item, flutter: flutter)
    }
}
