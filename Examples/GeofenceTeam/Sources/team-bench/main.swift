// team-bench: the team's own benchmark rows, declared with FenceLab's benchmark kit. The kit
// brings the command line, the timing loop, callgrind counting, baselines and the gate:
//   swift run -c release team-bench --metric instructions --save-baseline main
//   swift run -c release team-bench --metric instructions --compare main
import FenceLabBench
import Foundation
import GeoPolicy
import TeamGeofence

/// FenceLab's scenario catalogue (this file is `<FenceLab>/Examples/GeofenceTeam/Sources/team-bench/main.swift`).
/// A team with a URL dependency keeps its own copy of the scenarios it benchmarks on.
let catalog = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("scenarios")

/// The drive every row runs over: replicate 0 of FenceLab's edge-loitering scenario (seeded,
/// the same fixes on every run and machine), generated once at start-up, outside timing.
let drive: BenchDrive = {
    do { return try BenchDrive(scenario: catalog.appendingPathComponent("edge-loiter-100m.json").path) } catch {
        fatalError("team-bench: \(error)")
    }
}()

let shipped = DwellRule.shipped

/// The C kernel of the same hysteresis (75/125 m, accuracy ≤ 20 m, no dwell): the yardstick.
let kernel = Benchmark.cFenceKernel(
    "reference/c-fence-75-125", drive: drive, enter_m: shipped.enter_m, exit_m: shipped.exit_m,
    maxAccuracy_m: shipped.maxAccuracy_m)

/// The app's hot path per fix: GeoPolicy's `FenceMonitor` (haversine, staleness and order checks)
/// deciding with `DwellRule` and its 10 s dwell, logging off; a fresh monitor per call.
let monitor = Benchmark(
    "dwell/monitor", group: "dwell", itemsPerRun: drive.count, unit: "fix", reference: kernel.name
) {
    let start: FenceMonitor<DwellRule, Haversine>
    do {
        start = try FenceMonitor(
            center: drive.center, evaluator: try shipped.evaluator(), distanceModel: Haversine(), maxAge_s: 30,
            logging: .off)
    } catch {
        fatalError("team-bench: \(error)")
    }
    return {
        var m = start
        var inside = 0
        for i in 0..<drive.count where m.process(drive.fixes[i], now_s: drive.now_s[i]).newState == .inside {
            inside += 1
        }
        return Double(inside)
    }
}

BenchTool(
    name: "team-bench",
    summary: "team-bench measures DwellRule per fix against a C kernel of the same hysteresis.",
    rows: [kernel, monitor]
).run()
