/// Which direction of a benchmark's score is better.
public enum Polarity: String, Codable, Sendable, Hashable {
    /// Throughput-like scores (items/s, ratio of items/s to a kernel): more is better.
    case higherIsBetter
    /// Cost-like scores (time or instructions per item): less is better.
    case lowerIsBetter
}

/// How `--metric instructions` treats a benchmark.
public enum InstructionPlan: Sendable, Hashable {
    /// Counted over this many body calls (after one uncounted warm call). The count per item is
    /// what is compared, so heavy bodies take fewer calls.
    case counted(calls: Int)
    /// Not counted, for the reason given (e.g. the body waits on another process: the
    /// instructions spent polling depend on timing).
    case notCounted(reason: String)

    /// Calls per benchmark unless it says otherwise: enough to average a stateful body (the
    /// generators move along their route between calls), cheap under callgrind (≈ 1–10 M
    /// instructions per call for most bodies).
    public static let standard = InstructionPlan.counted(calls: 3)
}

/// One benchmark: a named body that does `itemsPerRun` items of work per call.
///
/// `setup` runs once, outside timing, and returns the body; the body returns a
/// checksum that the runner keeps alive so the optimiser cannot drop the work.
/// A benchmark with a `reference` is timed interleaved with that kernel (another
/// registered benchmark, usually in group `reference`) and scored by the ratio
/// of its items/s to the kernel's, sample by sample.
public struct Benchmark: Sendable {
    /// Unique, stable name (`group/what`): baselines are keyed by it.
    public let name: String
    /// Group for display and `--filter` (`fence`, `rng`, `kalman`, `reference`, ...).
    public let group: String
    /// Items (fixes, draws, updates, ...) done by one call of the body, ≥ 1.
    public let itemsPerRun: Int
    /// What one item is, for the table (`fix`, `draw`, `update`).
    public let unit: String
    /// Direction of the score (items/s or ratio to the kernel).
    public let polarity: Polarity
    /// Name of the reference kernel timed alongside, if any.
    public let reference: String?
    /// True for C reference kernels: `FENCELAB_BENCH_SLOWDOWN` does not slow them.
    public let isReference: Bool
    /// Whether `--compare` may fail on this benchmark. False for C kernels (the
    /// yardstick) and for demonstrations; their verdicts are still shown.
    public let gated: Bool
    /// The target, shown in the table (e.g. "≥ 0.9× C").
    public let target: String?
    /// Run-to-run spread of the time score measured on the reference machine (0.35 = ±35 %:
    /// largest deviation from the median over repeated full runs), or nil for the default:
    /// none for a ratio to a kernel, `Comparison.itemsPerSecondNoise` for an items/s score.
    /// `--metric time --compare` gates a ratio row on max(threshold, noise) when the spread is at
    /// most `Comparison.maximumGatedSpread`; other rows are tracked-only (see docs/benchmarks.md).
    public let noise: Double?
    /// Cap on timed samples for heavy bodies (a process round trip, a whole harness run:
    /// one call takes 0.1–1 s); nil uses the run's sample count.
    public let maxSamples: Int?
    /// Calls counted by `--metric instructions`, or why the benchmark is not counted.
    public let instructions: InstructionPlan
    /// Builds the body (allocations and data set-up happen here, untimed).
    public let setup: @Sendable () -> () -> Double

    public init(
        _ name: String, group: String, itemsPerRun: Int, unit: String = "item",
        polarity: Polarity = .higherIsBetter, reference: String? = nil,
        isReference: Bool = false, gated: Bool? = nil, target: String? = nil,
        noise: Double? = nil, maxSamples: Int? = nil, instructions: InstructionPlan = .standard,
        setup: @escaping @Sendable () -> () -> Double
    ) {
        precondition(itemsPerRun >= 1, "\(name): itemsPerRun must be at least 1")
        self.name = name
        self.group = group
        self.itemsPerRun = itemsPerRun
        self.unit = unit
        self.polarity = polarity
        self.reference = reference
        self.isReference = isReference
        self.gated = gated ?? !isReference
        self.target = target
        self.noise = noise
        self.maxSamples = maxSamples
        if case .counted(let calls) = instructions {
            precondition(calls >= 1, "\(name): instruction calls must be at least 1")
        }
        self.instructions = instructions
        self.setup = setup
    }
}
