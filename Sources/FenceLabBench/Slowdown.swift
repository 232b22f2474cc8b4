/// `FENCELAB_BENCH_SLOWDOWN=F` (1 ≤ F ≤ 1000, fractional allowed): every Swift body does F
/// times its work, to prove that `--compare` fails on a slower build. The whole part repeats
/// the body; the fractional part appends a filler loop sized to that fraction of one body call,
/// measured in the unit of the run's metric (nanoseconds for `--metric time`, callgrind
/// instructions for `--metric instructions`). C reference kernels are never slowed.
struct Slowdown: Sendable, Hashable {
    /// The factor F.
    let factor: Double

    static let off = Slowdown(factor: 1)

    init(factor: Double) {
        precondition(factor.isFinite && factor >= 1, "slowdown factor must be finite and ≥ 1")
        self.factor = factor
    }

    /// Whole repeats of the body (⌊F⌋).
    var repeats: Int { Int(factor.rounded(.down)) }
    /// The fraction of one more body call added as filler work (F − ⌊F⌋).
    var fraction: Double { factor - factor.rounded(.down) }

    /// Reads `FENCELAB_BENCH_SLOWDOWN`: unset or empty → 1; else a decimal number in 1...1000.
    static func parse(_ environment: [String: String]) throws(BenchError) -> Slowdown {
        guard let text = environment["FENCELAB_BENCH_SLOWDOWN"], !text.isEmpty else { return .off }
        guard let f = Double(text), f.isFinite, (1...1000).contains(f) else {
            throw .usage("FENCELAB_BENCH_SLOWDOWN must be a number in 1...1000 (e.g. 1.1 or 3), got '\(text)'")
        }
        return Slowdown(factor: f)
    }

    /// Iterations of the filler per probe used to calibrate it (≈ 0.4 M instructions, ≈ 0.3 ms).
    static let calibrationIterations = 100_000

    /// The body slowed by this factor. `cost` measures one call of a closure in the metric's
    /// unit; it is used only when there is a fractional part (to size the filler).
    func apply(to body: @escaping () -> Double, cost: (() -> Double) -> Double) -> () -> Double {
        let repeats = self.repeats
        var fillerIterations = 0
        if fraction > 0 {
            let bodyCost = cost(body)
            let perIteration =
                cost { slowdownFiller(iterations: Slowdown.calibrationIterations, seed: 1) }
                / Double(Slowdown.calibrationIterations)
            if perIteration > 0, bodyCost.isFinite {
                fillerIterations = Int((fraction * bodyCost / perIteration).rounded())
            }
        }
        guard repeats > 1 || fillerIterations > 0 else { return body }
        return {
            var s = 0.0
            for _ in 0..<repeats { s += body() }
            if fillerIterations > 0 { s += slowdownFiller(iterations: fillerIterations, seed: s) }
            return s
        }
    }
}

/// The added work of a fractional slowdown: a dependent multiply-add chain (cannot be
/// vectorised or folded without fast-math), a fixed number of instructions per iteration.
@inline(never)
func slowdownFiller(iterations: Int, seed: Double) -> Double {
    var x = seed
    for _ in 0..<iterations { x = x * 0.999_999_9 + 1e-9 }
    return x
}
