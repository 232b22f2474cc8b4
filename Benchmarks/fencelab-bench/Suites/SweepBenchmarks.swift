import DriveSim
import FenceLab
import FenceLabBench
import FenceLabSweep
import Foundation
import _FenceLabSupport

/// The marginal cost of a sweep grid point: one rule evaluated on an already generated
/// 1 Hz, one-hour drive (edge-loiter-100m, replicate 0): fence decisions over the delivered
/// fixes and over the truth, plus the transition and visit matching. Target: < 20 µs per point
/// (distances once per drive, one scan per point).
enum SweepBenchmarks {
    static let all: [Benchmark] = [extraPoint, scan, lanes14200, lanes100k, recordWrite, recordRead, recordChecksum]

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

    /// A hysteresis grid of `enter.count × exit.count × 2 gates (20, 30 m) × confirmations` points
    /// on the loiter drive, gate-major as the sweep groups them for the lane kernel.
    static func laneGrid(enter: [Double], exit: [Double], confirm: [Int]) -> [SweepPoint] {
        [20.0, 30].flatMap { a in
            enter.flatMap { e in
                exit.flatMap { x in
                    confirm.map {
                        SweepPoint(kind: .hysteresis, enter_m: e, exit_m: x, maxAccuracy_m: a, confirm_n: $0)
                    }
                }
            }
        }
    }

    /// 14 200 points: enter 50…85 m by 0.5 (71) × exit 110…159 m by 1 (50) × 2 gates × confirm 1, 3.
    static let grid14200 = laneGrid(
        enter: (0..<71).map { 50 + 0.5 * Double($0) }, exit: (0..<50).map { 110 + Double($0) }, confirm: [1, 3])
    /// 10⁵ points: enter 50…99.6 m by 0.4 (125) × exit 110…159.5 m by 0.5 (100) × 2 gates × confirm 1…4.
    static let grid100k = laneGrid(
        enter: (0..<125).map { 50 + 0.4 * Double($0) }, exit: (0..<100).map { 110 + 0.5 * Double($0) },
        confirm: [1, 2, 3, 4])

    /// Delivered fixes of the loiter drive each grid point scans (its gate's accepted fixes), summed.
    static func laneItems(_ grid: [SweepPoint]) -> Int {
        guard let drive = sharedLoiterDrive else { return 1 }
        var n: [Double: Int] = [:]
        for a in Set(grid.map(\.maxAccuracy_m)) {
            n[a] = drive.accepted(maxAccuracy_m: a, maxAge_s: EvaluationSettings().maxFixAge_s).distance_m.count
        }
        return max(1, grid.reduce(0) { $0 + n[$1.maxAccuracy_m, default: 0] })
    }
    static let lanes14200Items = laneItems(grid14200)
    static let lanes100kItems = laneItems(grid100k)

    /// The sweep's scan of a whole grid (`SweepDrive.observedChanges`: eight points per pass over
    /// each gate's accepted fixes, `SweepScan.lanes`), against the AVX2 C kernel of the same
    /// decisions over the same streams (`reference/c-sweep-lanes/…`). Item: grid point × accepted fix.
    static let lanes14200 = Benchmark(
        "sweep/scan-lanes/14200-points", group: "sweep", itemsPerRun: lanes14200Items, unit: "point×fix",
        reference: ReferenceKernels.sweepLanes14200.name, target: "≥ 0.5× C (≤ 2× its cost)", maxSamples: 9,
        instructions: .counted(calls: 1)
    ) { laneBody(grid14200) }

    static let lanes100k = Benchmark(
        "sweep/scan-lanes/100000-points", group: "sweep", itemsPerRun: lanes100kItems, unit: "point×fix",
        reference: ReferenceKernels.sweepLanes100k.name, target: "≥ 0.5× C (≤ 2× its cost)", maxSamples: 5,
        instructions: .counted(calls: 1)
    ) { laneBody(grid100k) }

    static func laneBody(_ grid: [SweepPoint]) -> () -> Double {
        guard let drive = loiterDrive() else { return { 0 } }
        var scratch = SweepScratch()
        let maxAge_s = EvaluationSettings().maxFixAge_s
        return { Double(drive.observedChanges(grid, maxAge_s: maxAge_s, scratch: &scratch)) }
    }

    /// Grid points × delivered fixes of one `scan` call.
    static let scanItems = scanPoints.count * (sharedLoiterDrive?.fixCount ?? 1)

    /// The loiter drive the item counts are taken from, generated once when the registry is built.
    static let sharedLoiterDrive = loiterDrive()

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

    /// 1024 records with varied counts and latencies (finite, null, long shortest forms), as a
    /// sweep writes them to its resume file and a shard's items.jsonl.
    static let records: [SweepRecord] = (0..<1024).map { i in
        let x = Double(i)
        var r = SweepRecord(
            item: i * 7, spurious: i % 13, missed: i % 3, flaps: i % 5, transitions: i % 17, truthTransitions: 2,
            latencyMedian_s: i % 4 == 0 ? nil : 10 + x / 3, latencyP95_s: i % 4 == 0 ? nil : 40 + x / 7)
        r.trueVisits = 12
        r.matchedVisits = i % 12
        r.falseVisits = i % 2
        r.fragments = i % 9
        r.earlyEntries = i % 2
        r.entryLatencyP95_s = 100 + x * 0.1
        r.lateEntryP95_s = 100 + x * 0.1
        r.exitLatencyP95_s = i % 3 == 0 ? nil : -350 + x / 11
        r.filterRMSE_m = i % 2 == 0 ? nil : 3 + x / 1000
        return r
    }

    /// Record → line (with its checksum) into a reused buffer: the sweep's per-item write.
    static let recordWrite = Benchmark(
        "sweep/record-line/write", group: "sweep", itemsPerRun: records.count, unit: "record", target: "tracked"
    ) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(512 * records.count)
        return {
            bytes.removeAll(keepingCapacity: true)
            for r in records {
                r.appendJSONLine(to: &bytes)
                bytes.append(UInt8(ascii: "\n"))
            }
            return Double(bytes.count)
        }
    }

    /// Line → record with its checksum verified: what `--resume` and `merge` do per item.
    static let recordRead = Benchmark(
        "sweep/record-line/read", group: "sweep", itemsPerRun: records.count, unit: "record", target: "tracked"
    ) {
        let lines = records.map { Substring($0.jsonLine) }
        return {
            var s = 0
            for (k, line) in lines.enumerated() {
                s &+= (try? SweepRecord(parsing: line, file: "bench", line: k + 1))?.transitions ?? -1
            }
            return Double(s)
        }
    }

    /// The checksum alone (CRC-32C of a record line's bytes before `,"sum"`).
    static let recordChecksum = Benchmark(
        "sweep/record-line/checksum", group: "sweep", itemsPerRun: records.count, unit: "record", target: "tracked"
    ) {
        let lines = records.map { r -> [UInt8] in
            let line = Array(r.jsonLine.utf8)
            return Array(line[..<(line.count - 18)])
        }
        return {
            var s: UInt64 = 0
            for line in lines { s ^= UInt64(line.withUnsafeBufferPointer { CRC32C.checksum($0) }) }
            return Double(s & 0xffff)
        }
    }
}
