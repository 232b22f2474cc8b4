import CReference
import FenceLab
import FenceLabBench
import FenceLabSweep
import GeoPolicy

/// The C reference kernels (Benchmarks/CReference, -O2), registered as benchmarks of
/// group `reference` so they appear in the table and can be named by `reference:`.
enum ReferenceKernels {
    static let fixesPerRun = 4096
    static let drawsPerRun = 4096
    static let updatesPerRun = 4096

    static let all: [Benchmark] = [
        fenceScalar, kalmanCV, kalmanGeo, imm, seedKalman, ziggurat, cspline, sortQuantiles, sweepScan,
        sweepLanes14200, sweepLanes100k,
    ]

    static let fenceScalar = Benchmark(
        "reference/c-fence-scalar", group: "reference", itemsPerRun: fixesPerRun, unit: "fix",
        isReference: true, target: "≈ 4e7/s"
    ) {
        let w = Workloads.FenceFixes(count: fixesPerRun, seed: 8)
        let c = Workloads.fenceCenter
        return {
            var state: Int32 = 0
            let changes = fl_ref_fence_scalar(
                w.latitude, w.longitude, w.accuracy_m, w.count,
                c.latitude, c.longitude, 80, 120, 30, &state)
            return Double(changes)
        }
    }

    /// The sweep's inner loop in C: the 16 points of `sweep/scan` one at a time on the same
    /// precomputed arrays of the same drive.
    static let sweepScan = Benchmark(
        "reference/c-sweep-scan", group: "reference", itemsPerRun: SweepBenchmarks.scanItems, unit: "point×fix",
        isReference: true
    ) {
        guard let drive = SweepBenchmarks.loiterDrive() else { return { 0 } }
        let x = drive.fixArrays
        let maxAge_s = EvaluationSettings().maxFixAge_s
        var time = [Double](repeating: 0, count: x.count)
        var inside = [UInt8](repeating: 0, count: x.count)
        return {
            var total = 0
            for p in SweepBenchmarks.scanPoints {
                total += fl_ref_sweep_scan(
                    x.now_s, x.timestamp_s, x.distance_m, x.gateAccuracy_m, x.count,
                    p.enter_m, p.exit_m, p.maxAccuracy_m, maxAge_s, Int32(p.confirm_n),
                    &time, &inside)
            }
            return Double(total)
        }
    }

    /// The grid's scan in AVX2 C (`fl_ref_sweep_lanes`: one lane per grid point, eight per pass)
    /// over each gate's accepted fixes of the loiter drive, computed once here.
    static let sweepLanes14200 = Benchmark(
        "reference/c-sweep-lanes/14200-points", group: "reference",
        itemsPerRun: SweepBenchmarks.lanes14200Items, unit: "point×fix", isReference: true, maxSamples: 9,
        instructions: .counted(calls: 1)
    ) { sweepLanesBody(SweepBenchmarks.grid14200) }

    static let sweepLanes100k = Benchmark(
        "reference/c-sweep-lanes/100000-points", group: "reference",
        itemsPerRun: SweepBenchmarks.lanes100kItems, unit: "point×fix", isReference: true, maxSamples: 5,
        instructions: .counted(calls: 1)
    ) { sweepLanesBody(SweepBenchmarks.grid100k) }

    static func sweepLanesBody(_ grid: [SweepPoint]) -> () -> Double {
        guard let drive = SweepBenchmarks.loiterDrive() else { return { 0 } }
        guard fl_ref_sweep_lanes_available() != 0 else {
            printError("fencelab-bench: reference/c-sweep-lanes: this CPU has no AVX2")
            return { 0 }
        }
        let maxAge_s = EvaluationSettings().maxFixAge_s
        // Per gate: its accepted fixes and its points' rules (the grid is gate-major).
        var streams: [(time: [Double], distance: [Double], enter: [Double], exit: [Double], confirm: [Int32])] = []
        for a in Set(grid.map(\.maxAccuracy_m)).sorted() {
            let accepted = drive.accepted(maxAccuracy_m: a, maxAge_s: maxAge_s)
            let points = grid.filter { $0.maxAccuracy_m == a }
            streams.append(
                (
                    accepted.now_s, accepted.distance_m, points.map(\.enter_m), points.map(\.exit_m),
                    points.map { Int32($0.confirm_n) }
                ))
        }
        let capacity = 1 << 16
        var time = [Double](repeating: 0, count: capacity)
        var point = [Int32](repeating: 0, count: capacity)
        var inside = [UInt8](repeating: 0, count: capacity)
        return {
            var total = 0
            for s in streams {
                total += fl_ref_sweep_lanes(
                    s.time, s.distance, s.time.count, s.enter, s.exit, s.confirm, s.enter.count, &time, &point,
                    &inside, capacity)
            }
            return Double(total)
        }
    }

    static let kalmanCV = Benchmark(
        "reference/c-kalman-cv", group: "reference", itemsPerRun: updatesPerRun - 1, unit: "update",
        isReference: true, target: "≈ 1e7/s"
    ) {
        let w = Workloads.TrackInPlane(count: updatesPerRun, seed: 9)
        return { fl_ref_kalman_cv(w.time_s, w.east_m, w.north_m, w.accuracy_m, w.count, 0.5) }
    }

    /// The engine's filter with its validation, projection and re-anchoring, transcribed.
    static let kalmanGeo = Benchmark(
        "reference/c-kalman-geo", group: "reference", itemsPerRun: updatesPerRun - 1, unit: "update",
        isReference: true
    ) {
        let w = Workloads.TrackInPlane(count: updatesPerRun, seed: 9)
        return { fl_ref_kalman_geo(w.time_s, w.latitude, w.longitude, w.accuracy_m, w.count, 0.5, 10, 2_000) }
    }

    static let imm = Benchmark(
        "reference/c-imm", group: "reference", itemsPerRun: updatesPerRun - 1, unit: "update",
        isReference: true
    ) {
        let w = Workloads.TrackInPlane(count: updatesPerRun, seed: 9)
        let tau = IMMFilter.defaultMeanSojourn_s
        return {
            fl_ref_imm(
                w.time_s, w.east_m, w.north_m, w.accuracy_m, w.count, 0.5, IMMFilter.defaultPositionDensity_m2ps,
                tau[0], tau[1], 100, nil)
        }
    }

    static let seedKalman = Benchmark(
        "reference/c-seed004-kalman", group: "reference", itemsPerRun: updatesPerRun - 1, unit: "update",
        isReference: true
    ) {
        let w = Workloads.TrackInPlane(count: updatesPerRun, seed: 9)
        return { fl_ref_seed_kalman(w.time_s, w.latitude, w.longitude, w.accuracy_m, w.count, 1e-10) }
    }

    static let ziggurat = Benchmark(
        "reference/c-gsl-ziggurat", group: "reference", itemsPerRun: drawsPerRun, unit: "draw",
        isReference: true
    ) {
        let rng = CGenerator(seed: 11)
        return { fl_ref_ziggurat_sum_rng(rng.handle, drawsPerRun, 1) }
    }

    /// Natural cubic spline: build on 100 knots, 1000 evaluations; one item = one evaluation.
    static let cspline = Benchmark(
        "reference/c-gsl-cspline", group: "reference", itemsPerRun: 1000, unit: "eval",
        isReference: true
    ) {
        let d = SplineData()
        return { fl_ref_cspline(d.x, d.y, 100, d.xEval, 1000) }
    }

    /// Report quantiles (median, p95, max) of 4096 per-fix errors by `gsl_sort` on a copy.
    static let sortQuantiles = Benchmark(
        "reference/c-gsl-sort-quantiles", group: "reference", itemsPerRun: QuantileData.count, unit: "value",
        isReference: true
    ) {
        let d = QuantileData()
        var work = [Double](repeating: 0, count: QuantileData.count)
        var out = [Double](repeating: 0, count: 3)
        return { fl_ref_gsl_sort_quantiles(d.values, d.values.count, d.probabilities, 3, &work, &out) }
    }

    /// 4096 horizontal errors (Rayleigh, σ 5 m: |two Gaussians|) and the report's probabilities.
    struct QuantileData {
        static let count = 4096
        let values: [Double]
        let probabilities = [0.5, 0.95, 1]
        init() {
            let rng = Workloads.source(seed: 13)
            values = (0..<QuantileData.count).map { _ in
                let e = rng.gaussianZiggurat(sigma: 5)
                let n = rng.gaussianZiggurat(sigma: 5)
                return (e * e + n * n).squareRoot()
            }
        }
    }

    /// 100 knots at x = 0…99 with Gaussian ordinates (σ 10), 1000 sorted evaluation points.
    struct SplineData {
        let x: [Double], y: [Double], xEval: [Double]
        init() {
            let rng = Workloads.source(seed: 12)
            x = (0..<100).map { Double($0) }
            y = x.map { _ in rng.gaussianZiggurat(sigma: 10) }
            xEval = (0..<1000).map { Double($0) * 99 / 999 }
        }
    }
}

/// Owns a C-side mt19937 generator of the reference kernels.
final class CGenerator {
    let handle: OpaquePointer
    init(seed: UInt) {
        guard let h = fl_ref_rng_new(seed) else { fatalError("fencelab-bench: fl_ref_rng_new failed") }
        handle = h
    }
    deinit { fl_ref_rng_free(handle) }
}
