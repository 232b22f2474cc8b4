import DriveSim
import FenceLab
import FenceLabSweep
import Foundation

/// The marginal cost of a sweep grid point: one rule evaluated on an already generated
/// 1 Hz, one-hour drive (edge-loiter-100m, replicate 0): fence decisions over the delivered
/// fixes and over the truth, plus the transition and visit matching. Target: < 20 µs per point
/// (distances once per drive, one scan per point).
enum SweepBenchmarks {
    static let all: [Benchmark] = [extraPoint, scan]

    /// The scan's grid: 4 enter × 2 exit radii × confirmation 1 and 3, accuracy gate 30 m.
    static let scanPoints: [SweepPoint] = [70.0, 75, 80, 85].flatMap { e in
        [115.0, 125].flatMap { x in
            [1, 3].map { SweepPoint(kind: .hysteresis, enter_m: e, exit_m: x, maxAccuracy_m: 30, confirm_n: $0) }
        }
    }

    /// The sweep's inner loop, grid points × fixes on one precomputed drive, against the
    /// C kernel of the same work on the same arrays, one point at a time (`reference/c-sweep-scan`).
    static let scan = Benchmark(
        "sweep/scan/16-points-1h-1Hz", group: "sweep", itemsPerRun: scanItems, unit: "point×fix",
        reference: ReferenceKernels.sweepScan.name, target: "≥ 1.5× C"
    ) {
        guard let drive = loiterDrive() else { return { 0 } }
        var scratch = SweepScratch()
        let maxAge_s = EvaluationSettings().maxFixAge_s
        return { Double(drive.observedChanges(scanPoints, maxAge_s: maxAge_s, scratch: &scratch)) }
    }

    /// Grid points × delivered fixes of one `scan` call.
    static let scanItems = scanPoints.count * (loiterDrive()?.fixCount ?? 1)

    /// edge-loiter-100m, replicate 0 (1 h at 1 Hz), or nil with a message.
    static func loiterDrive() -> SweepDrive? {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let path = root.appendingPathComponent("scenarios/edge-loiter-100m.json").path
        guard let spec = try? ScenarioSpec.load(path: path), let drive = try? SweepDrive(spec: spec, replicate: 0)
        else {
            printError("fencelab-bench: sweep: cannot load \(path)")
            return nil
        }
        return drive
    }

    static let extraPoint = Benchmark(
        "sweep/extra-grid-point/1h-1Hz", group: "sweep", itemsPerRun: 4, unit: "point",
        target: "≥ 5e4 points/s (< 20 µs)",
        noise: 0.12,  // items/s spread measured before the scan rewrite (16 runs 2026-11-30, load 12–20)
        instructions: .counted(calls: 1)  // four points per call
    ) {
        guard let drive = loiterDrive() else { return { 0 } }
        var scratch = SweepScratch()
        let points = [70.0, 75, 80, 85].map {
            SweepPoint(kind: .hysteresis, enter_m: $0, exit_m: 200 - $0, maxAccuracy_m: 30, confirm_n: 1)
        }
        let settings = EvaluationSettings()
        // All four points per call: every call does the same work, so the allocation count of
        // the one counted call does not depend on how many calls calibration made before it.
        return {
            var s = 0.0
            for (k, p) in points.enumerated() {
                s += Double((try? drive.evaluate(p, item: k, settings: settings, scratch: &scratch))?.spurious ?? -1)
            }
            return s
        }
    }
}
