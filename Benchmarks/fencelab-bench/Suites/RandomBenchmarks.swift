import GSLKit

/// Noise draws through GSLKit against raw GSL in C.
enum RandomBenchmarks {
    static let all: [Benchmark] = [ziggurat]

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
}
