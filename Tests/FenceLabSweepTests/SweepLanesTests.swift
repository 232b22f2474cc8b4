import DriveSim
import Foundation
import GeoPolicy
import Testing
import _TestSupport

@testable import FenceLab
@testable import FenceLabSweep

/// The lane kernel (`SweepScan.lanes`, eight hysteresis rules per pass over one stream) against
/// the scalar scan (`SweepScan.changes`, one rule at a time) it replaces in sweeps: the same
/// state changes, time for time, on every catalog and tuning drive, on the truth, and on a
/// stream of values exactly at, and one ulp either side of, every threshold. The times are
/// copied, never computed, so the comparison is exact.
struct SweepLanesTests {
    /// The scalar changes of `rule` on a stream.
    static func scalar(
        time: [Double], stamp: [Double], distance: [Double], rule: ScanRule
    ) -> [StateChange] {
        var changes: [StateChange] = []
        time.withUnsafeBufferPointer { t in
            distance.withUnsafeBufferPointer { d in
                stamp.withUnsafeBufferPointer { s in
                    SweepScan.changes(
                        time_s: t, distance_m: d, accuracy_m: nil, rule: rule, into: &changes, timestamp_s: s)
                }
            }
        }
        return changes
    }

    /// The lane changes of `rules` on a stream, eight at a time (the last pass partly filled).
    static func lanes(
        time: [Double], stamp: [Double], distance: [Double], rules: [ScanRule]
    ) -> [[StateChange]] {
        var out: [[StateChange]] = []
        var buffers = [[StateChange]](repeating: [], count: SweepLanes.width)
        for start in stride(from: 0, to: rules.count, by: SweepLanes.width) {
            let chunk = rules[start..<min(rules.count, start + SweepLanes.width)]
            time.withUnsafeBufferPointer { t in
                distance.withUnsafeBufferPointer { d in
                    stamp.withUnsafeBufferPointer { s in
                        SweepScan.lanes(time_s: t, stamp_s: s, distance_m: d, SweepLanes(chunk), into: &buffers)
                    }
                }
            }
            out += buffers[0..<chunk.count]
        }
        return out
    }

    /// Checks lanes against scalar for `rules` on one stream; returns the number of changes seen.
    @discardableResult
    static func check(
        _ what: String, time: [Double], stamp: [Double], distance: [Double], rules: [ScanRule]
    ) -> Int {
        let actual = lanes(time: time, stamp: stamp, distance: distance, rules: rules)
        var total = 0
        for (rule, got) in zip(rules, actual) {
            let expected = scalar(time: time, stamp: stamp, distance: distance, rule: rule)
            total += expected.count
            #expect(
                got == expected,
                "\(what) enter \(rule.enter_m) m exit \(rule.exit_m) m confirm \(rule.confirm_n) / \(rule.confirm_s) s: \(got.count) vs \(expected.count) changes"
            )
        }
        return total
    }

    /// Hysteresis rules around `values` (thresholds taken from the stream itself, so that some
    /// distances are exactly at a threshold), with every kind of confirmation.
    static func rules(thresholds values: [Double]) -> [ScanRule] {
        var out: [ScanRule] = []
        let confirmations: [(Int, Double)] = [(1, 0), (2, 0), (3, 0), (1, 4), (3, 10), (2, 1)]
        for (k, e) in values.enumerated() {
            for x in values[(k + 1)...] where x > e {
                for (n, s) in confirmations {
                    out.append(
                        ScanRule(
                            kind: .hysteresis, enter_m: e, exit_m: x, maxAccuracy_m: 30, confirm_n: n, confirm_s: s))
                }
            }
        }
        return out
    }

    static var drivePaths: [String] {
        let root = TestPaths.packageRoot.appendingPathComponent("scenarios")
        let top = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        let tuning =
            (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("tuning").path)) ?? []
        return (top.filter { $0.hasSuffix(".json") } + tuning.filter { $0.hasSuffix(".json") }.map { "tuning/" + $0 })
            .sorted()
    }

    /// Every catalog and tuning drive: the delivered fixes each gate accepts (with the fixes' own
    /// times for the time confirmations) and the truth slots, under rules whose thresholds are
    /// distances of the stream and round radii.
    @Test func lanesEqualScalarOnEveryCatalogAndTuningDrive() throws {
        let paths = Self.drivePaths
        #expect(paths.count >= 16, "expected the catalog (8) and the tuning mix (8), found \(paths.count)")
        var total = 0
        for name in paths {
            let spec = try ScenarioSpec.load(
                path: TestPaths.packageRoot.appendingPathComponent("scenarios/\(name)").path)
            var generator = try ScenarioGenerator(spec: spec, replicate: 0)
            let samples = generator.collect()
            var fixes: [Fix] = []
            var now: [Double] = []
            for s in samples {
                if let f = s.fix {
                    fixes.append(f)
                    now.append(s.time_s)
                }
            }
            let arrays = SweepFixArrays(fixes: fixes, now_s: now, center: spec.fence.center)
            for gate in [15.0, 50] {
                var accepted = AcceptedFixes()
                SweepScan.accepted(
                    arrays, maxAccuracy_m: gate, maxAge_s: EvaluationSettings().maxFixAge_s, into: &accepted)
                guard accepted.distance_m.count > 10 else { continue }
                let d = accepted.distance_m
                let picked = [d[d.count / 3], d[d.count / 2], d[2 * d.count / 3]].sorted()
                let rules = Self.rules(thresholds: picked + [60, 100, 140])
                total += Self.check(
                    "\(name) gate \(gate) m", time: accepted.now_s, stamp: accepted.timestamp_s, distance: d,
                    rules: rules)
                // Without a time confirmation the scan is given the delivery times as stamps.
                total += Self.check(
                    "\(name) gate \(gate) m (delivery times)", time: accepted.now_s, stamp: accepted.now_s,
                    distance: d, rules: rules.filter { $0.confirm_s == 0 })
            }
            let truth = TruthDistances(samples: samples, center: spec.fence.center)
            let t = truth.distance_m
            let picked = [t[t.count / 4], t[t.count / 2], t[3 * t.count / 4]].sorted()
            total += Self.check(
                "\(name) truth", time: truth.time_s, stamp: truth.time_s, distance: t,
                rules: Self.rules(thresholds: picked + [60, 100, 140]))
        }
        #expect(total > 1000, "too few state changes (\(total)) to test the kernel")
    }

    /// A stream of exactly the thresholds and their neighbouring Doubles, in a pattern that
    /// confirms and abandons pending changes: every comparison at its boundary.
    @Test func lanesEqualScalarAtThresholds() {
        let e = 80.0
        let x = 120.0
        let values = [e, e.nextDown, e.nextUp, x, x.nextDown, x.nextUp, 0, 100, 1e6, -0.0]
        var time: [Double] = []
        var distance: [Double] = []
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for i in 0..<6000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            // Runs of one value (so that confirmations complete), then a switch.
            let run = Int(state >> 61) + 1
            let v = values[Int((state >> 33) % UInt64(values.count))]
            for _ in 0..<run where distance.count < 6000 {
                time.append(Double(i) + Double(distance.count) * 0.25)
                distance.append(v)
            }
        }
        var rules: [ScanRule] = []
        for enter in [e, e.nextDown, e.nextUp] {
            for exit in [x, x.nextDown, x.nextUp] {
                for (n, s) in [(1, 0.0), (2, 0), (4, 0), (1, 0.5), (2, 0.25), (3, 1)] {
                    rules.append(
                        ScanRule(
                            kind: .hysteresis, enter_m: enter, exit_m: exit, maxAccuracy_m: 30, confirm_n: n,
                            confirm_s: s))
                }
            }
        }
        let total = Self.check("thresholds", time: time, stamp: time, distance: distance, rules: rules)
        #expect(total > 1000, "too few state changes (\(total)) to test the kernel")
    }

    /// The batch evaluation (lanes, truth once per drive) gives the same records as evaluating
    /// point by point, on a grid of mixed kinds, gates, confirmations, sampling and notification
    /// policies over two drives.
    @Test(arguments: ["edge-loiter-100m.json", "tuning/walk-out.json"])
    func batchEqualsPointByPoint(name: String) throws {
        let spec = try ScenarioSpec.load(path: TestPaths.packageRoot.appendingPathComponent("scenarios/\(name)").path)
        let samplings: [SamplingPolicy?] = [nil, try SamplingPolicy.parse("interval:30")]
        let drive = try SweepDrive(spec: spec, replicate: 0, samplings: samplings)
        let notify = try NotificationPolicy.parse("dwell:300+cooldown:600")
        var items: [SweepItem] = []
        var k = 0
        for sampling in 0..<2 {
            for policy in [nil, notify] {
                for e in [70.0, 85, 100] {
                    for x in [110.0, 130] {
                        for gate in [20.0, 50] {
                            for (n, s) in [(1, 0.0), (3, 0), (2, 20)] {
                                items.append(
                                    SweepItem(
                                        point: SweepPoint(
                                            kind: .hysteresis, enter_m: e, exit_m: x, maxAccuracy_m: gate, confirm_n: n,
                                            confirm_s: s),
                                        item: k, sampling: sampling, notify: policy))
                                k += 1
                            }
                        }
                    }
                    for kind in [SweepRuleKind.threshold, .conservative] {
                        items.append(
                            SweepItem(
                                point: SweepPoint(
                                    kind: kind, enter_m: e, exit_m: e, maxAccuracy_m: .infinity, confirm_n: 2),
                                item: k, sampling: sampling, notify: policy))
                        k += 1
                    }
                }
            }
        }
        let settings = EvaluationSettings()
        var scratch = SweepScratch()
        var batch: [SweepRecord] = []
        try drive.evaluate(items, settings: settings, scratch: &scratch, into: &batch)
        var one = SweepScratch()
        let expected = try items.map {
            try drive.evaluate(
                $0.point, item: $0.item, settings: settings, sampling: $0.sampling, notify: $0.notify, scratch: &one)
        }
        #expect(batch.count == items.count)
        for (got, want) in zip(batch, expected) {
            #expect(got == want, "\(name): item \(want.item) differs")
        }
        #expect(expected.contains { $0.transitions > 0 }, "\(name): no transitions to compare")
    }
}
