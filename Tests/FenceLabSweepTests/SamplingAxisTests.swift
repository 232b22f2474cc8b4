import DriveSim
import Foundation
import GeoPolicy
import Testing
import _TestSupport

@testable import FenceLab
@testable import FenceLabSweep

/// The sweep's sampling axis: every policy on one generated drive, the truth untouched, the cost
/// per policy, and a recommendation that minimises it within the unwanted-visits bound.
@Suite struct SamplingAxisTests {
    static func spec(_ name: String, replicates: Int = 3) throws -> ScenarioSpec {
        var run = RunRequest()
        run.paths = [TestPaths.packageRoot.appendingPathComponent("scenarios/tuning/\(name).json").path]
        run.replicates = replicates
        return try #require(try ScenarioRunner.prepare(run).first).spec
    }

    static let points = [
        SweepPoint(kind: .hysteresis, enter_m: 80, exit_m: 120, maxAccuracy_m: 30, confirm_n: 1),
        SweepPoint(kind: .hysteresis, enter_m: 100, exit_m: 140, maxAccuracy_m: 30, confirm_n: 2),
        SweepPoint(kind: .threshold, enter_m: 90, exit_m: 90, maxAccuracy_m: .infinity, confirm_n: 1),
    ]

    /// A policy on the axis gives the records a scenario with that `sampling.policy` gives: the
    /// same deliveries (the phase comes from the same stream), the same decisions, the same cost.
    @Test(arguments: ["interval:60", "distance:50", "interval:30+batch:120", "all+batch:60"])
    func aPolicyOnTheAxisEqualsTheScenarioPolicy(_ text: String) throws {
        let policy = try SamplingPolicy.parse(text)
        let base = try Self.spec("drive-in-stay")
        var own = base
        own.sampling.policy = policy
        var settings = EvaluationSettings()
        settings.maxFixAge_s = 3600  // batched fixes are not refused as stale here
        for r in 0..<base.replicates {
            let axis = try SweepDrive(spec: base, replicate: r, samplings: [nil, policy])
            let scenario = try SweepDrive(spec: own, replicate: r)
            for p in Self.points {
                let a = try axis.evaluate(p, item: 0, settings: settings, sampling: 1)
                let b = try scenario.evaluate(p, item: 0, settings: settings)
                #expect(a == b, "\(text), replicate \(r), \(p.label)")
            }
        }
    }

    /// The truth never moves: true visits, true exits and true transitions are those of the
    /// noiseless base-rate track whatever the policy delivers, and the cost is the policy's own.
    @Test func theTruthIsTheSameForEveryPolicyAndTheCostIsThePolicys() throws {
        let spec = try Self.spec("walk-in")
        let policies: [SamplingPolicy?] = [
            nil, try SamplingPolicy.parse("interval:30"), try SamplingPolicy.parse("interval:120"),
            try SamplingPolicy.parse("distance:50"), try SamplingPolicy.parse("interval:60+batch:300"),
        ]
        let settings = EvaluationSettings()
        for r in 0..<spec.replicates {
            let drive = try SweepDrive(spec: spec, replicate: r, samplings: policies)
            let records = try policies.indices.map { k in
                try drive.evaluate(Self.points[0], item: 0, settings: settings, sampling: k)
            }
            for rec in records {
                #expect(rec.trueVisits == records[0].trueVisits)
                #expect(rec.truthTransitions == records[0].truthTransitions)
                #expect(rec.trueExits == records[0].trueExits)
            }
            #expect(records[0].trueVisits == 1, "the walk-in enters once")
            // 1 Hz, no gaps: every second a fix; interval:S one per S s (± the first tick).
            let hours = spec.sampling.duration_s / 3600
            #expect(abs(records[0].fixesPerHour - 3600) <= 1e-9)
            #expect(abs(records[1].fixesPerHour * hours - spec.sampling.duration_s / 30) <= 1)
            #expect(abs(records[2].fixesPerHour * hours - spec.sampling.duration_s / 120) <= 1)
            // Batching: one wake-up per batch of 300 s, 60 s between fixes.
            #expect(abs(records[4].wakeupsPerHour * hours - spec.sampling.duration_s / 300) <= 1)
            #expect(abs(records[4].fixesPerHour * hours - spec.sampling.duration_s / 60) <= 1)
            #expect(records[0].wakeupsPerHour == records[0].fixesPerHour, "without batching a fix is a wake-up")
            // Sparser sampling never enters earlier than the 1 Hz policy on the same noise.
            #expect(records[2].fixesPerHour < records[1].fixesPerHour)
        }
    }

    /// The grid lists its policies in the order given, each block in the order and with the ids
    /// of a sweep of that policy alone; the seeds' 80/120/30 is in every block.
    @Test func theGridIsGroupedByPolicyInTheOrderGiven() throws {
        let single = try SweepGrid(
            parsing: .hysteresis, enter: "70:90:10", exit: "110:130:10", maxAccuracy: nil, confirm: "1,2", limit: nil)
        let axis = try SweepGrid(
            parsing: .hysteresis, enter: "70:90:10", exit: "110:130:10", maxAccuracy: nil, confirm: "1,2",
            sampling: "interval:60, all,interval:60", limit: nil)
        #expect(axis.samplings == ["interval:60", "all"], "duplicates dropped, order kept")
        #expect(axis.points.count == 2 * single.points.count)
        #expect(Array(axis.points.prefix(single.points.count)) == single.points.map { $0.sampled("interval:60") })
        #expect(axis.points.filter(\.isSeedReference).count == 2)
        #expect(axis.referenceIndex == single.referenceIndex)
        #expect(throws: SweepGridError.self) {
            try SweepGrid(
                parsing: .hysteresis, enter: "70:90:10", exit: "110:130:10", maxAccuracy: nil, confirm: nil,
                sampling: "interval:60,all", limit: 10)
        }
    }

    /// The objective within the bound: the cheapest feasible point with at most the bound's
    /// unwanted visits; by default the bound is the minimum reached, so one policy gives the
    /// answer of a sweep without costs.
    @Test func theCheapestPointWithinTheUnwantedBoundIsPicked() throws {
        func point(_ i: Int, unwanted: Double, latency: Double, cost: Double, feasible: Bool = true) -> MixPoint {
            MixPoint(
                point: i, unwantedPerHour: unwanted, worstEntryP95_s: latency, worstRecall: 1, fixesPerHour: cost,
                cost: cost, matchedVisits: 1,
                violations: feasible ? [] : [MixViolation(constraint: .recall, scenario: 0, value: 0.5)])
        }
        var points = MixPoints()
        for p in [
            point(0, unwanted: 0, latency: 10, cost: 3600), point(1, unwanted: 0, latency: 40, cost: 120),
            point(2, unwanted: 0.2, latency: 30, cost: 60),
            point(3, unwanted: 0, latency: 5, cost: 30, feasible: false),
            point(4, unwanted: 0, latency: 50, cost: 120),
        ] {
            points.append(p)
        }
        let m = SweepManifest(
            toolVersion: "t", rule: .hysteresis, points: [], scenarios: [], window_s: 10, maxFixAge_s: 30,
            maxLatency_s: 60, minRecall: 0.95, matchSlack_s: 0, shard: 0, shards: 1, items: 0)
        let byDefault = SweepMix.pick(points, ids: points.indices, manifest: m)
        #expect(byDefault.bound == 0)
        #expect(byDefault.point?.point == 1, "cheapest with no unwanted visit; ties to the lower latency")
        var loose = m
        loose.maxUnwanted = 0.25
        #expect(SweepMix.pick(points, ids: points.indices, manifest: loose).point?.point == 2)
        #expect(SweepMix.costFrontier(points) == [0, 1, 2], "feasible points not beaten in unwanted, latency and cost")
        // All at one cost (one policy): the order of a sweep without costs.
        var flat = MixPoints()
        for p in [
            point(0, unwanted: 0.1, latency: 10, cost: 60), point(1, unwanted: 0, latency: 40, cost: 60),
            point(2, unwanted: 0, latency: 30, cost: 60),
        ] {
            flat.append(p)
        }
        #expect(SweepMix.pick(flat, ids: flat.indices, manifest: m).point?.point == 2)
    }

    /// A point's notification figures are those of the run's stage: the policy on the monitor's
    /// decisions (`FenceDecisions.observe`), scored by `NotificationMetrics.measure` against the
    /// same true visits — for raw points through the scan, for filtered ones through the monitor.
    @Test(arguments: ["dwell:120", "cooldown:300", "dwell:60+cooldown:120", "none"])
    func notificationFiguresEqualTheRunStage(_ text: String) throws {
        let policy = try NotificationPolicy.parse(text)
        let spec = try Self.spec("long-stay-edge-urban", replicates: 2)
        let settings = EvaluationSettings()
        var local = settings
        local.engine = nil
        for r in 0..<spec.replicates {
            let kalman = try FenceInput(.kalman, accelerationDensity_m2ps3: 1)
            let drive = try SweepDrive(spec: spec, replicate: r, filters: [kalman])
            var generator = try ScenarioGenerator(spec: spec, replicate: r)
            let samples = generator.collect()
            let fixes = samples.compactMap(\.fix)
            let now = samples.filter { $0.fix != nil }.map(\.time_s)
            let truth = Visits.trueVisits(
                samples: samples, center: spec.fence.center, place: try #require(spec.place),
                end_s: spec.sampling.duration_s)
            var points = Self.points
            points.append(
                SweepPoint(
                    kind: .hysteresis, enter_m: 90, exit_m: 140, maxAccuracy_m: 30, confirm_n: 1, input: .kalman))
            for p in points {
                let record = try drive.evaluate(p, item: 0, settings: settings, notify: policy)
                let states = try FenceDecisions.observe(
                    fixes: fixes, now_s: now, center: spec.fence.center,
                    rule: try RuleUnderTest(spec: p.rule, input: p.fenceInput), settings: local, scenario: "t",
                    replicate: r, compareModels: false
                ).states
                let notes = policy.notifications(
                    of: NotificationMetrics.changes(of: states), end_s: spec.sampling.duration_s)
                let expected = try NotificationMetrics.measure(
                    truth: truth, notifications: notes, duration_s: spec.sampling.duration_s,
                    matchSlack_s: settings.matchSlack_s, dwell_s: policy.dwell_s)
                let got = try #require(record.notifications)
                #expect(got.entries == expected.entries, "\(text) \(p.label)")
                #expect(got.unwanted == expected.unwanted, "\(text) \(p.label)")
                #expect(got.falseDwells == expected.falseDwells)
                #expect(got.matchedDwells == expected.matchedDwells)
                #expect(got.dwellVisits == (expected.dwellVisits ?? 0))
                #expect(got.dwellLatencyP95_s == expected.dwellLatencyP95_s)
            }
        }
    }

    /// Records with and without notification figures survive the line format and the store bit for bit.
    @Test func notificationFiguresRoundTrip() throws {
        var r = SweepRecord(
            item: 7, spurious: 1, missed: 0, flaps: 2, transitions: 3, truthTransitions: 1, latencyMedian_s: 4.5,
            latencyP95_s: nil)
        r.fixesPerHour = 120
        r.wakeupsPerHour = 12
        r.trueExits = 1
        for figures in [
            nil,
            SweepNotificationFigures(
                entries: 3, unwanted: 2, falseDwells: 1, matchedDwells: 1, dwellVisits: 1, dwellLatencyP95_s: 0.25),
            SweepNotificationFigures(
                entries: 0, unwanted: 0, falseDwells: 0, matchedDwells: 0, dwellVisits: 0, dwellLatencyP95_s: nil),
        ] {
            r.notifications = figures
            let back = try SweepRecord(parsing: r.jsonLine[...], file: "t", line: 1)
            #expect(back == r)
            let store = try SweepRecordStore(count: 8, directory: NSTemporaryDirectory(), streams: 1)
            try store.store([r])
            #expect(try store.record(7) == r)
        }
    }

    /// `--cost`: the keys, their bounds and the weighted cost.
    @Test func costWeightsParseAndWeigh() throws {
        let c = try CostWeights(parsing: "fix=1,wakeup=20")
        #expect(abs(c.cost(fixesPerHour: 60, wakeupsPerHour: 12) - 300) <= 1e-12)
        #expect(try CostWeights(parsing: "wakeup=1") == CostWeights(perFix: 0, perWakeup: 1))
        for bad in ["fix=-1", "fix=0", "fix=1,fix=2", "watts=3", "fix", "fix=inf"] {
            #expect(throws: SweepGridError.self, "\(bad)") { try CostWeights(parsing: bad) }
        }
    }
}
