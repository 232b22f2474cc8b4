import CReference

/// How long and how often to sample.
struct RunConfiguration: Codable, Sendable, Hashable {
    /// Timed samples per benchmark (each sample runs the body `runsPerSample` times).
    var samples: Int
    /// Wanted duration of one sample, in nanoseconds (sets `runsPerSample`). Short on
    /// purpose: measured here on 2 shared vCPUs, speed changes by ~1.7× over tens of
    /// milliseconds (a busy SMT sibling) and preemptions add 0.3–1 ms, so samples of
    /// ~0.1 ms keep both sides of a pair in the same state and make spikes rare.
    var sampleTarget_ns: UInt64
    /// Untimed warm-up per benchmark, in nanoseconds.
    var warmup_ns: UInt64
    /// `FENCELAB_BENCH_SLOWDOWN`: Swift bodies do this many times their work (1 = off; see `Slowdown`).
    var slowdown: Double

    static func standard(slowdown: Double) -> RunConfiguration {
        RunConfiguration(samples: 201, sampleTarget_ns: 100_000, warmup_ns: 50_000_000, slowdown: slowdown)
    }

    /// `--quick`: the CI smoke pass; same table, fewer and shorter samples.
    static func quick(slowdown: Double) -> RunConfiguration {
        RunConfiguration(samples: 51, sampleTarget_ns: 100_000, warmup_ns: 5_000_000, slowdown: slowdown)
    }
}

/// The result of one benchmark in one run.
struct Measurement: Codable, Sendable, Hashable {
    var name: String
    var group: String
    var unit: String
    var polarity: Polarity
    var reference: String?
    /// True for a C reference kernel.
    var isReference: Bool
    /// False when `--compare` only shows this benchmark (kernels, demonstrations).
    var gated: Bool
    var target: String?
    /// The benchmark's declared run-to-run spread (see `Benchmark.noise`); nil in old baselines.
    var noise: Double?
    var itemsPerRun: Int
    var runsPerSample: Int
    var samples: Int
    /// Median and 90th percentile of the time of one body call, in nanoseconds.
    var medianRun_ns: Double
    var p90Run_ns: Double
    /// Items per second at the median time.
    var itemsPerSecond: Double
    /// The reference kernel's items/s at its median time, measured interleaved in this run.
    var referenceItemsPerSecond: Double?
    /// Median over interleaved (ABBA) sample pairs of (items/s of this body) / (items/s of the kernel).
    var ratio: Double?
    /// Allocation calls (malloc, calloc, realloc, aligned) per item in one body call;
    /// nil where the counter is not active (non-glibc platforms).
    var allocationsPerItem: Double?

    /// The figure `--compare` gates on: the ratio to the kernel where there is one, else items/s.
    var score: Double { ratio ?? itemsPerSecond }
    var scoreKind: String { ratio != nil ? "ratio" : "items/s" }
}

/// Times benchmarks: warm-up, calibration, interleaved samples, allocation count.
struct Runner {
    let configuration: RunConfiguration
    let registry: Registry
    let allocationCounterActive = fl_alloc_counter_active() != 0

    func measure(_ benchmark: Benchmark) -> Measurement {
        let body = makeBody(benchmark)
        let kernel = benchmark.reference.flatMap(registry.named)
        let kernelBody = kernel.map(makeBody)

        warmUp(body)
        if let kernelBody { warmUp(kernelBody) }
        let runs = calibrate(body)
        let kernelRuns = kernelBody.map(calibrate) ?? 0
        // Heavy bodies (0.1–1 s per call): at most `maxSamples`.
        let samples = min(configuration.samples, benchmark.maxSamples ?? .max)

        var times: [Double] = []
        var kernelTimes: [Double] = []
        for sample in 0..<samples {
            guard kernel != nil, let kernelBody else {
                times.append(time(body, runs: runs))
                continue
            }
            // ABBA order: a load change during the pair biases neither side on average.
            let t: Double
            let tk: Double
            if sample % 2 == 0 {
                t = time(body, runs: runs)
                tk = time(kernelBody, runs: kernelRuns)
            } else {
                tk = time(kernelBody, runs: kernelRuns)
                t = time(body, runs: runs)
            }
            times.append(t)
            kernelTimes.append(tk)
        }
        let median = SampleStatistics.median(times)
        // Each pair (ABBA order) is taken within a few hundred microseconds, so both sides
        // see the same machine state; a preemption hits one side of a pair, pushing the
        // pair's ratio up or down with equal odds, and the median ignores it.
        let ratio: Double? = kernel.map { k in
            SampleStatistics.median(
                zip(times, kernelTimes).map { t, tk in
                    (Double(benchmark.itemsPerRun) / t) / (Double(k.itemsPerRun) / tk)
                })
        }
        return Measurement(
            name: benchmark.name, group: benchmark.group, unit: benchmark.unit,
            polarity: benchmark.polarity, reference: benchmark.reference,
            isReference: benchmark.isReference, gated: benchmark.gated, target: benchmark.target,
            noise: benchmark.noise,
            itemsPerRun: benchmark.itemsPerRun, runsPerSample: runs, samples: times.count,
            medianRun_ns: median, p90Run_ns: SampleStatistics.p90(times),
            itemsPerSecond: Double(benchmark.itemsPerRun) / median * 1e9,
            referenceItemsPerSecond: kernel.map { Double($0.itemsPerRun) / SampleStatistics.median(kernelTimes) * 1e9 },
            ratio: ratio,
            allocationsPerItem: countAllocations(body, items: benchmark.itemsPerRun))
    }

    /// The body, slowed by `FENCELAB_BENCH_SLOWDOWN` for Swift benchmarks (never for C kernels);
    /// a fractional part is sized by time here.
    private func makeBody(_ benchmark: Benchmark) -> () -> Double {
        let body = benchmark.setup()
        guard !benchmark.isReference else { return body }
        return Slowdown(factor: configuration.slowdown).apply(to: body) { call in
            blackHole(call())
            blackHole(call())
            return SampleStatistics.median((0..<5).map { _ in time(call, runs: 1) })
        }
    }

    private func warmUp(_ body: () -> Double) {
        let start = monotonicNanoseconds()
        repeat { blackHole(body()) } while monotonicNanoseconds() - start < configuration.warmup_ns
    }

    /// Runs per sample so that a sample lasts about `sampleTarget_ns`.
    private func calibrate(_ body: () -> Double) -> Int {
        var runs = 1
        while true {
            let t = time(body, runs: runs) * Double(runs)
            let target = Double(configuration.sampleTarget_ns)
            if t >= target * 0.5 || runs >= 1 << 24 { return runs }
            let factor = t > 0 ? min(100, max(2, (target / t).rounded(.up))) : 100
            runs *= Int(factor)
        }
    }

    /// Mean time of one call over `runs` calls, in nanoseconds.
    private func time(_ body: () -> Double, runs: Int) -> Double {
        var sum = 0.0
        let start = monotonicNanoseconds()
        for _ in 0..<runs { sum += body() }
        let end = monotonicNanoseconds()
        blackHole(sum)
        return Double(end - start) / Double(runs)
    }

    private func countAllocations(_ body: () -> Double, items: Int) -> Double? {
        guard allocationCounterActive else { return nil }
        fl_alloc_count_start()
        let x = body()
        let n = fl_alloc_count_stop()
        blackHole(x)
        return Double(n) / Double(items)
    }
}
