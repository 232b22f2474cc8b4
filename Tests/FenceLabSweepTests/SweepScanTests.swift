import DriveSim
import Foundation
import GeoPolicy
import Testing
import _TestSupport

@testable import FenceLab
@testable import FenceLabSweep

/// The sweep's inner loop (`SweepScan` over arrays computed once per drive) against the engine
/// it replaces in sweeps: `FenceMonitor` (Haversine, logging off) + `FenceEvaluator` per fix,
/// then `Flutter.transitions` / `Visits.observedVisits` of the per-fix states. The times are
/// copied, never computed, so the comparison is exact.
struct SweepScanTests {
    static let points: [SweepPoint] = [
        SweepPoint(kind: .hysteresis, enter_m: 80, exit_m: 120, maxAccuracy_m: 30, confirm_n: 1),
        SweepPoint(kind: .hysteresis, enter_m: 60, exit_m: 140, maxAccuracy_m: 15, confirm_n: 1),
        SweepPoint(kind: .hysteresis, enter_m: 85, exit_m: 115, maxAccuracy_m: 50, confirm_n: 3),
        SweepPoint(kind: .hysteresis, enter_m: 90, exit_m: 100, maxAccuracy_m: 8, confirm_n: 2),
        SweepPoint(kind: .threshold, enter_m: 100, exit_m: 0, maxAccuracy_m: 30, confirm_n: 1),
        SweepPoint(kind: .threshold, enter_m: 95, exit_m: 0, maxAccuracy_m: 30, confirm_n: 4),
        SweepPoint(kind: .conservative, enter_m: 110, exit_m: 0, maxAccuracy_m: 30, confirm_n: 1),
        SweepPoint(kind: .conservative, enter_m: 100, exit_m: 0, maxAccuracy_m: 30, confirm_n: 3),
        // Confirmation by seconds, and by fixes and seconds together (`--confirm-s`).
        SweepPoint(kind: .hysteresis, enter_m: 85, exit_m: 115, maxAccuracy_m: 50, confirm_n: 1, confirm_s: 4),
        SweepPoint(kind: .hysteresis, enter_m: 80, exit_m: 120, maxAccuracy_m: 30, confirm_n: 3, confirm_s: 10),
        SweepPoint(kind: .threshold, enter_m: 95, exit_m: 0, maxAccuracy_m: 30, confirm_n: 2, confirm_s: 3),
        SweepPoint(kind: .conservative, enter_m: 100, exit_m: 0, maxAccuracy_m: 30, confirm_n: 1, confirm_s: 6),
    ]

    /// The monitor's transitions and visits of `point` on `fixes`.
    static func monitor(
        _ fixes: [Fix], now_s: [Double], center: Coordinate, point: SweepPoint,
        end_s: Double
    ) throws -> ([Transition], [Visit]) {
        var settings = EvaluationSettings()
        settings.engine = nil
        let states = try FenceDecisions.observe(
            fixes: fixes, now_s: now_s, center: center, rule: point.rule,
            settings: settings, scenario: "test", replicate: 0,
            compareModels: false
        ).states
        return (Flutter.transitions(of: states), Visits.observedVisits(of: states, end_s: end_s))
    }

    /// The scan's transitions and visits of `point` on `arrays`.
    static func scan(_ arrays: SweepFixArrays, point: SweepPoint, end_s: Double) -> ([Transition], [Visit]) {
        let rule = ScanRule(point)
        var accepted = AcceptedFixes()
        var changes: [StateChange] = []
        SweepScan.accepted(
            arrays, maxAccuracy_m: rule.maxAccuracy_m, maxAge_s: EvaluationSettings().maxFixAge_s, into: &accepted)
        accepted.now_s.withUnsafeBufferPointer { t in
            accepted.distance_m.withUnsafeBufferPointer { d in
                accepted.accuracy_m.withUnsafeBufferPointer { a in
                    accepted.timestamp_s.withUnsafeBufferPointer { stamp in
                        SweepScan.changes(
                            time_s: t, distance_m: d, accuracy_m: a, rule: rule, into: &changes, timestamp_s: stamp)
                    }
                }
            }
        }
        return (SweepScan.transitions(changes), SweepScan.visits(changes, end_s: end_s))
    }

    /// Every refusal reason of the monitor, in a deterministic pattern: invalid times and
    /// coordinates, NaN / negative / infinite / over-gate accuracy, stale, duplicate and out-of-order
    /// fixes, around a 100 m circle so that every rule changes state many times.
    @Test func scanEqualsMonitorOnAdversarialFixes() throws {
        let center = try Coordinate(latitude: 52.52, longitude: 13.405)
        var fixes: [Fix] = []
        var now: [Double] = []
        let metresPerDegree = 111_195.0
        var t = 0.0
        for i in 0..<4000 {
            t += 1
            let r_m = 100 + 45 * sin(Double(i) * 0.037) + 12 * sin(Double(i) * 1.7)
            var lat = 52.52 + r_m / metresPerDegree
            var lon = 13.405
            var a = i % 23 == 11 ? 3 : 5 + 40 * abs(sin(Double(i) * 0.53))  // fix 11 passes every gate
            var ts = t
            var n = t
            switch i % 23 {
            case 1: a = .nan
            case 2: a = -1
            case 3: a = .infinity
            case 4: lat = 91
            case 5: lon = .nan
            case 6: ts = .nan
            case 7: n = t + 40  // stale (age 40 s > 30 s)
            case 8: ts = t - 5  // out of order
            case 9: n = .infinity
            case 12, 13:  // a duplicate, then the same time at another place (both refused after an accepted fix)
                ts = fixes[fixes.count - 1].timestamp_s
                lat = fixes[fixes.count - 1].latitude + (i % 23 == 13 ? 1e-4 : 0)
                lon = fixes[fixes.count - 1].longitude
                a = 3
            default: break
            }
            fixes.append(Fix(timestamp_s: ts, latitude: lat, longitude: lon, horizontalAccuracy_m: a))
            now.append(n)
        }
        let arrays = SweepFixArrays(fixes: fixes, now_s: now, center: center)
        for point in Self.points {
            let expected = try Self.monitor(fixes, now_s: now, center: center, point: point, end_s: t)
            let actual = Self.scan(arrays, point: point, end_s: t)
            #expect(expected.0.count > 10, "\(point.label): too few transitions to test")
            #expect(actual.0 == expected.0, "\(point.label): transitions differ")
            #expect(actual.1 == expected.1, "\(point.label): visits differ")
        }
    }

    /// The same on generated catalog drives (fault-storm has stale, duplicate and out-of-order
    /// fixes), and the truth changes against `FenceDecisions.truth`.
    @Test(arguments: ["fault-storm", "edge-loiter-100m", "urban-canyon"])
    func scanEqualsMonitorOnCatalogDrives(name: String) throws {
        let spec = try ScenarioSpec.load(
            path: TestPaths.packageRoot.appendingPathComponent("scenarios/\(name).json").path)
        var generator = try ScenarioGenerator(spec: spec, replicate: 1)
        let samples = generator.collect()
        var fixes: [Fix] = []
        var now: [Double] = []
        for s in samples {
            if let f = s.fix {
                fixes.append(f)
                now.append(s.time_s)
            }
        }
        let center = spec.fence.center
        let end_s = spec.sampling.duration_s
        let arrays = SweepFixArrays(fixes: fixes, now_s: now, center: center)
        let truth = TruthDistances(samples: samples, center: center)
        for point in Self.points {
            let expected = try Self.monitor(fixes, now_s: now, center: center, point: point, end_s: end_s)
            let actual = Self.scan(arrays, point: point, end_s: end_s)
            #expect(actual.0 == expected.0, "\(name) \(point.label): transitions differ")
            #expect(actual.1 == expected.1, "\(name) \(point.label): visits differ")

            let trueStates = try FenceDecisions.truth(truth, rule: point.rule)
            var changes: [StateChange] = []
            truth.time_s.withUnsafeBufferPointer { t in
                truth.distance_m.withUnsafeBufferPointer { d in
                    SweepScan.changes(time_s: t, distance_m: d, accuracy_m: nil, rule: ScanRule(point), into: &changes)
                }
            }
            #expect(
                SweepScan.transitions(changes) == Flutter.transitions(of: trueStates),
                "\(name) \(point.label): truth differs")
        }
    }
}
