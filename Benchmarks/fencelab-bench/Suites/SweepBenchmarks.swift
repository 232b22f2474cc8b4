import DriveSim
import FenceLab
import Foundation

/// The marginal cost of a sweep grid point: one rule evaluated on an already generated
/// 1 Hz, one-hour drive (edge-loiter-100m, replicate 0): fence decisions over the delivered
/// fixes and over the truth, plus the transition and visit matching. Issue 7 target: < 1 ms per point.
enum SweepBenchmarks {
    static let all: [Benchmark] = [extraPoint]

    static let extraPoint = Benchmark(
        "sweep/extra-grid-point/1h-1Hz", group: "sweep", itemsPerRun: 4, unit: "point",
        target: "≥ 1000 points/s (< 1 ms)",
        noise: 0.12,  // items/s, 16 runs 2026-11-30 (load 12–20)
        instructions: .counted(calls: 1)  // ≈ 1.3e7 instructions per call (four points)
    ) {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let path = root.appendingPathComponent("scenarios/edge-loiter-100m.json").path
        guard let spec = try? ScenarioSpec.load(path: path), let drive = try? SweepDrive(spec: spec, replicate: 0) else {
            printError("fencelab-bench: sweep: cannot load \(path)")
            return { 0 }
        }
        let points = [70.0, 75, 80, 85].map {
            SweepPoint(kind: .hysteresis, enter_m: $0, exit_m: 200 - $0, maxAccuracy_m: 30, confirm_n: 1)
        }
        let settings = EvaluationSettings()
        // All four points per call: every call does the same work, so the allocation count of
        // the one counted call does not depend on how many calls calibration made before it.
        return {
            var s = 0.0
            for (k, p) in points.enumerated() {
                s += Double((try? drive.evaluate(p, item: k, settings: settings))?.spurious ?? -1)
            }
            return s
        }
    }
}
