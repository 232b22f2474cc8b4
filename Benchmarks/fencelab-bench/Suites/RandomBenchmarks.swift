import CReference
import FenceLabBench
import GSLKit

/// GSLKit against raw GSL in C: noise draws, and report quantiles (selection vs `gsl_sort`).
enum RandomBenchmarks {
    static let all: [Benchmark] = [ziggurat, quantiles]

    static let ziggurat = Benchmark(
        "rng/gaussianZiggurat", group: "rng", itemsPerRun: ReferenceKernels.drawsPerRun, unit: "draw",
        reference: ReferenceKernels.ziggurat.name, target: "≥ 0.8× C",
        noise: 0.25  // ratio 0.835–1.01 (2026-11-29 and 11-30 runs, load 1–19): 21 %
    ) {
        let rng = Workloads.source(seed: 11)
        return {
            var s = 0.0
            for _ in 0..<ReferenceKernels.drawsPerRun { s += rng.gaussianZiggurat(sigma: 1) }
            return s
        }
    }

    /// `Statistics.quantiles` (median, p95, max as `ErrorSummary` asks) of 4096 errors by
    /// selection, against `gsl_sort` + `gsl_stats_quantile_from_sorted_data`; set-up checks equality.
    static let quantiles = Benchmark(
        "stats/report-quantiles", group: "stats", itemsPerRun: ReferenceKernels.QuantileData.count, unit: "value",
        reference: ReferenceKernels.sortQuantiles.name, target: "≥ 1× gsl_sort"
    ) {
        let d = ReferenceKernels.QuantileData()
        let body = {
            do { return try Statistics.quantiles(d.values, probabilities: d.probabilities).reduce(0, +) } catch {
                return .nan
            }
        }
        var work = [Double](repeating: 0, count: d.values.count)
        var out = [Double](repeating: 0, count: 3)
        let c = fl_ref_gsl_sort_quantiles(d.values, d.values.count, d.probabilities, 3, &work, &out)
        if body() != c {
            printError("fencelab-bench: stats/report-quantiles disagrees with gsl_sort: \(body()) vs \(c)")
        }
        return body
    }
}
