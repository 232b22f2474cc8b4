import FenceLab
import Foundation
import GeoPolicy
import TeamGeofence
import Testing

/// The team's acceptance bar for its geofence rule, measured with FenceLab under seeded,
/// GSL-generated GPS noise (20 replicates of one hour each on the edge-loitering scenario).
@Suite("DwellRule against FenceLab scenarios")
struct DwellRuleFlutterTests {
    /// The team's bound: at most this many spurious enter/exit transitions per hour of
    /// loitering near the fence edge.
    static let maxSpuriousPerHour = 0.5
    static let replicates = 20
    static let seed: UInt64 = 7
    /// FenceLab's `edge-loiter-100m` is recorded for seed 000's rule; running our rule on it
    /// is a deliberate override (a change to the scenario file stops this test for review).
    static let catalogRules = RulesVersionPolicy.override(scenarioRecordedFor: "hysteresis-80-120-acc30")

    @Test("DwellRule: spurious transitions per hour <= 0.5 on edge-loiter-100m")
    func dwellRuleMeetsTheFlutterBound() throws {
        let scenario = try RuleLab.loadScenario(path: Catalog.scenario("edge-loiter-100m"))
        let rule = DwellRule.shipped
        let result = try RuleLab().run(
            scenario: scenario, rule: rule, confirmation: rule.dwell,
            replicates: Self.replicates, seed: Self.seed, rulesVersion: Self.catalogRules)
        report("DwellRule on edge-loiter-100m", result)
        #expect(result.rulesVersion == "team-dwell-75-125-acc20+confirm10s")
        #expect(result.replicates == Self.replicates)
        // The bound on the mean, and on the upper end of its 95 % interval.
        #expect(result.spuriousPerHour.mean <= Self.maxSpuriousPerHour)
        #expect(result.spuriousPerHour.upper <= Self.maxSpuriousPerHour)
        #expect(try result.values("flutter.spurious").count == Self.replicates)

        // A folder of this run's own: FenceLab replaces only report folders it wrote.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "geofence-team-report-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try result.writeReports(to: folder)
        #expect(FileManager.default.fileExists(atPath: folder + "/report.json"))
        #expect(FileManager.default.fileExists(atPath: folder + "/index.html"))
    }

    @Test("seed 000's 80/120 m rule is worse than the bound on the same scenario")
    func seedRuleFailsTheFlutterBound() throws {
        let scenario = try RuleLab.loadScenario(path: Catalog.scenario("edge-loiter-100m"))
        // The scenario is recorded for this rule: the default `.mustMatch` applies.
        let result = try RuleLab().run(
            scenario: scenario, rule: Hysteresis.seedDefault,
            replicates: Self.replicates, seed: Self.seed)
        report("seed 80/120 rule on edge-loiter-100m", result)
        #expect(result.rulesVersion == scenario.rulesVersion)
        // Worse with confidence: even the lower end of its interval is above the team's bound.
        #expect(result.spuriousPerHour.lower > Self.maxSpuriousPerHour)
    }

    @Test("DwellRule still reports a walk through the fence (no missed enter or exit)")
    func dwellRuleStillDetectsAWalkThrough() throws {
        let scenario = try RuleLab.scenario(json: Self.walkThrough, name: "inline:walk-through")
        let rule = DwellRule.shipped
        let result = try RuleLab().run(
            scenario: scenario, rule: rule, confirmation: rule.dwell,
            replicates: Self.replicates, seed: 11, rulesVersion: Self.catalogRules)
        report("DwellRule on walk-through", result)
        // Truth (the same rule on the noiseless walk) enters and exits once each.
        #expect(try result.values("flutter.truthTransitions").allSatisfy { $0 == 2 })
        #expect(try result.mean("flutter.missed") == 0)
        #expect(try result.mean("flutter.spurious") <= 0.1)
        let maxMedianLatency_s = 15.0
        #expect(try result.mean("flutter.latency_s.median") <= maxMedianLatency_s)
    }

    @Test("a ClosureRule with seed 000's logic measures exactly what Hysteresis measures")
    func closureRuleMatchesTheBuiltInRule() throws {
        let scenario = try RuleLab.loadScenario(path: Catalog.scenario("edge-loiter-100m"))
        let closure = try ClosureRule(rulesVersion: "closure-80-120-acc30", maxAccuracy_m: 30) {
            previous, distance_m, _ in
            if distance_m <= 80 { return .inside }
            if distance_m >= 120 { return .outside }
            return previous
        }
        let lab = RuleLab()
        let a = try lab.run(
            scenario: scenario, rule: closure, replicates: 5, seed: Self.seed, jobs: 2,
            rulesVersion: Self.catalogRules)
        let b = try lab.run(scenario: scenario, rule: Hysteresis.seedDefault, replicates: 5, seed: Self.seed, jobs: 1)
        for path in ["flutter.transitions", "flutter.spurious", "rejections.inaccurate"] {
            #expect(try a.values(path) == b.values(path), "\(path)")
        }
        #expect(try a.mean("flutter.transitions") > 0)
    }

    @Test("a scenario recorded for other rules is refused without an explicit override")
    func rulesVersionMismatchIsRefused() throws {
        let scenario = try RuleLab.loadScenario(path: Catalog.scenario("edge-loiter-100m"))
        #expect(
            throws: LabError.rulesVersionMismatch(
                file: scenario.path, scenario: "hysteresis-80-120-acc30",
                rule: "team-dwell-75-125-acc20+confirm10s")
        ) {
            _ = try RuleLab().run(
                scenario: scenario, rule: DwellRule.shipped, confirmation: DwellRule.shipped.dwell,
                replicates: 1)
        }
        #expect(throws: LabError.unknownMetric(path: "flutter.spurius")) {
            _ = try RuleLab().run(scenario: scenario, rule: Hysteresis.seedDefault, replicates: 1).mean(
                "flutter.spurius")
        }
    }

    /// One line per measured figure in the test log (CI logs then show the margin).
    func report(_ title: String, _ r: LabResult) {
        let s = r.spuriousPerHour
        let latency = (try? r.mean("flutter.latency_s.median")).map { "\($0)" } ?? "n/a"
        print(
            "\(title): spurious/h \(s.mean) (ci95 \(s.lower)…\(s.upper), n \(s.n)); "
                + "transitions \((try? r.mean("flutter.transitions")) ?? .nan), missed \((try? r.mean("flutter.missed")) ?? .nan), "
                + "median latency \(latency) s")
    }

    /// A pedestrian (5 km/h) walking straight through the fence centre, 300 m each side,
    /// under 8 m Gaussian noise: 2 true transitions for our 75/125 m rule with a 10 s dwell.
    static let walkThrough = """
        {
          "name": "walk-through",
          "description": "A pedestrian crossing the fence through its centre, west to east, at 5 km/h.",
          "rulesVersion": "hysteresis-80-120-acc30",
          "seed": 11,
          "replicates": 20,
          "fence": { "center": [52.52, 13.405],
                     "rule": { "kind": "hysteresis", "enter_m": 80, "exit_m": 120, "maxAccuracy_m": 30 } },
          "route": { "kind": "waypoints", "points": [[52.52, 13.40057], [52.52, 13.40943]],
                     "speed": { "profile": "constant", "speed_kmh": 5 } },
          "sampling": { "rate_hz": 1, "duration_s": 480 },
          "noise": { "model": "gaussian", "sigma_m": 8 },
          "accuracy": { "model": "drms" }
        }
        """
}
