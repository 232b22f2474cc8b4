import DeviceLogKit
import FenceLab
import FenceLabBench
import GeoPolicy

/// Device-log replay at scale: `DeviceReplay.run` (engine decisions for every fix, then the
/// divergence classifier) on logs generated here, deterministically, rather than committed:
/// the two shapes whose classification grew with the square or cube of the log before the
/// classifier indexed its searches.
enum ReplayBenchmarks {
    static let all: [Benchmark] = [flips, edgeLoiterWeek]

    static let flipCount = 10_000
    /// One week at 1 Hz.
    static let weekFixes = 7 * 86_400

    /// A fix `distance_m` from the fence centre at bearing 0.5 rad.
    static func fix(_ t: Double, distance_m: Double, accuracy_m: Double, frame: LocalFrame, line: Int) -> DeviceLogFix {
        let c = frame.coordinate(east_m: distance_m * _sin(0.5), north_m: distance_m * _cos(0.5))
        return DeviceLogFix(
            fix: Fix(timestamp_s: t, latitude: c.latitude, longitude: c.longitude, horizontalAccuracy_m: accuracy_m),
            line: line)
    }

    /// 10 000 fixes at 1 Hz alternating 50 m and 150 m from the centre (accuracy 5 m) and no system
    /// event: every fix crosses the 80/120 m band, so every fix is an unmatched crossing whose
    /// reversal holds fixes clearly beyond the band (a missing system event each).
    static func flipLog() -> DeviceLog {
        let frame = Workloads.centerFrame()
        let fixes = (0..<flipCount).map { i in
            fix(Double(i), distance_m: i % 2 == 0 ? 50 : 150, accuracy_m: 5, frame: frame, line: i + 2)
        }
        return DeviceLog(file: "flips.csv", format: .csv, fixes: fixes, events: [])
    }

    /// A week at 1 Hz loitering at the fence edge: the true distance a mean-reverting walk about
    /// 100 m (step σ 2 m, reversion 0.5 % per second: stationary σ ≈ 20 m), fixes with Gaussian
    /// noise σ 12 m and accuracy 5–15 m, and the system's enter/exit 20 s after the true distance
    /// crosses 78/122 m. Seeded (GSL, seed 73): the same log every run.
    static func edgeLoiterLog() -> DeviceLog {
        let rng = Workloads.source(seed: 73)
        let frame = Workloads.centerFrame()
        var fixes: [DeviceLogFix] = []
        fixes.reserveCapacity(weekFixes)
        var events: [SystemEvent] = []
        var r = 100.0
        var inside = false
        for i in 0..<weekFixes {
            let t = 1_772_366_400 + Double(i)
            r += rng.gaussianZiggurat(sigma: 2) - 0.005 * (r - 100)
            let measured = max(0, r + rng.gaussianZiggurat(sigma: 12))
            fixes.append(fix(t, distance_m: measured, accuracy_m: 5 + 10 * rng.uniform(), frame: frame, line: i + 2))
            if !inside, r < 78 {
                inside = true
                events.append(SystemEvent(kind: .enter, timestamp_s: t + 20, line: i + 2))
            } else if inside, r > 122 {
                inside = false
                events.append(SystemEvent(kind: .exit, timestamp_s: t + 20, line: i + 2))
            }
        }
        return DeviceLog(file: "edge-loiter-7d.csv", format: .csv, fixes: fixes, events: events)
    }

    static func replay(_ log: DeviceLog) -> () -> Double {
        let center: Coordinate
        do {
            center = try Coordinate(
                latitude: Workloads.fenceCenter.latitude, longitude: Workloads.fenceCenter.longitude)
        } catch {
            fatalError("fencelab-bench: replay: \(error)")
        }
        return {
            do { return Double(try DeviceReplay.run(log, center: center).divergences.divergences.count) } catch {
                fatalError("fencelab-bench: replay failed: \(error)")
            }
        }
    }

    /// `DeviceReplay.run` on the 10 000-flip log (rule hysteresis:80:120:30). Items = fixes.
    static let flips = Benchmark(
        "replay/flips-10000", group: "replay", itemsPerRun: flipCount, unit: "fix", target: "≥ 3e5 fixes/s",
        maxSamples: 21, instructions: .counted(calls: 1)
    ) { replay(flipLog()) }

    /// `DeviceReplay.run` on the week-long 1 Hz edge-loiter log. Items = fixes.
    static let edgeLoiterWeek = Benchmark(
        "replay/edge-loiter-7d-1Hz", group: "replay", itemsPerRun: weekFixes, unit: "fix", target: "≥ 5e6 fixes/s",
        maxSamples: 7, instructions: .counted(calls: 1)
    ) { replay(edgeLoiterLog()) }
}
