/// How a benchmark moved against a baseline.
package enum Verdict: String, Codable, Sendable, Hashable {
    case improved, unchanged, regressed
    /// In this run, not in the baseline: reported, never a regression.
    case new
    /// `--metric time` row whose measured run-to-run spread is too wide to gate (items/s
    /// without an in-run kernel, or a ratio spreading more than `Comparison.maximumGatedSpread`):
    /// shown with its change and spread, never `unchanged`, never a failure (the instruction
    /// count gates it). More allocations per item still regress.
    case tracked
}

/// One row of `--compare`.
struct ComparisonRow: Codable, Sendable, Hashable {
    var name: String
    /// `ratio` (to the reference kernel, both runs), `items/s` (no kernel, or a run without one)
    /// or `instr/item` (`--metric instructions`).
    var metric: String
    var polarity: Polarity
    var baseline: Double?
    var current: Double
    /// (current − baseline) / baseline.
    var change: Double?
    var baselineAllocationsPerItem: Double?
    var currentAllocationsPerItem: Double?
    /// True when allocations per item grew by more than `allocationTolerance`.
    var allocationsRegressed: Bool
    var verdict: Verdict
    /// The relative change this row tolerates: max(threshold, the benchmark's noise).
    var tolerance: Double?
    /// Measured run-to-run spread of a tracked-only time row (shown in the `gate` column).
    var spread: Double?
    /// False for C reference kernels (the yardstick: their items/s drift with the
    /// machine) and demonstrations: their verdict is shown but never fails the comparison.
    var gated: Bool
}

/// The whole comparison of a run with a baseline.
package struct Comparison: Codable, Sendable, Hashable {
    var baselineName: String
    var baselineMachine: MachineInfo
    /// Relative threshold (0.1 = 10 %).
    var threshold: Double
    var rows: [ComparisonRow]

    var hasRegression: Bool { rows.contains { $0.gated && $0.verdict == .regressed } }

    /// Default noise of an items/s score (no kernel in the same run): absolute speed moves by
    /// up to ±40 % on the shared build machine, so such rows gate at ±50 %; a 3×
    /// slowdown (−67 %) still fails.
    static let itemsPerSecondNoise = 0.5

    /// Widest measured spread s a time row may have and still gate. A 2× slowdown halves the
    /// score; two runs of one build differ by up to s, so the slowed run reads at most
    /// 0.5·(1 + s) − 1 below the baseline, beyond the gate −s only while s < 1/3. Rows spreading
    /// more are tracked-only, so that no gated row can show a 2× slowdown as `unchanged`.
    static let maximumGatedSpread = 0.30

    /// Allocations are counted, not timed: growth beyond this many per item is a regression.
    static let allocationTolerance = 0.01

    /// `--metric time`: compares each current result with the baseline entry of the same name,
    /// on the ratio to the kernel where both runs have one, else on items/s, with the
    /// benchmark's polarity. A ratio row whose spread is at most `maximumGatedSpread` regresses
    /// beyond max(`threshold`, spread) in the bad direction; other rows are `tracked`. More
    /// allocations per item is a regression on every row.
    static func compare(
        current: [Measurement], baseline: BenchReport, baselineName: String,
        threshold: Double
    ) -> Comparison {
        var rows: [ComparisonRow] = []
        for m in current {
            guard let b = baseline.results.first(where: { $0.name == m.name }) else {
                rows.append(
                    ComparisonRow(
                        name: m.name, metric: m.scoreKind, polarity: m.polarity, baseline: nil,
                        current: m.score, change: nil, baselineAllocationsPerItem: nil,
                        currentAllocationsPerItem: m.allocationsPerItem, allocationsRegressed: false,
                        verdict: .new, tolerance: nil, spread: nil, gated: m.gated))
                continue
            }
            let useRatio = m.ratio != nil && b.ratio != nil
            let base = useRatio ? b.ratio! : b.itemsPerSecond
            let now = useRatio ? m.ratio! : m.itemsPerSecond
            let change = (now - base) / base
            let spread = m.noise ?? (useRatio ? 0 : itemsPerSecondNoise)
            let scoreGated = useRatio && spread <= maximumGatedSpread
            let tolerance = max(threshold, spread)
            let allocRegressed: Bool = {
                guard let a = m.allocationsPerItem, let ba = b.allocationsPerItem else { return false }
                return a > ba + allocationTolerance
            }()
            let scoreVerdict = verdict(
                change: change, polarity: m.polarity, threshold: tolerance,
                allocationsRegressed: allocRegressed)
            rows.append(
                ComparisonRow(
                    name: m.name, metric: useRatio ? "ratio" : "items/s", polarity: m.polarity,
                    baseline: base, current: now, change: change,
                    baselineAllocationsPerItem: b.allocationsPerItem,
                    currentAllocationsPerItem: m.allocationsPerItem,
                    allocationsRegressed: allocRegressed,
                    verdict: scoreGated || allocRegressed ? scoreVerdict : .tracked,
                    tolerance: scoreGated ? tolerance : nil, spread: scoreGated ? nil : spread, gated: m.gated))
        }
        return Comparison(
            baselineName: baselineName, baselineMachine: baseline.machine,
            threshold: threshold, rows: rows)
    }

    /// `--metric instructions`: instructions per item, lower is better, gated at `threshold`
    /// (counts are deterministic: no noise allowance). Rows in `order` (the registry's).
    static func compare(
        current: [InstructionMeasurement], baseline: InstructionReport, baselineName: String,
        threshold: Double
    ) -> Comparison {
        let rows = current.map { m -> ComparisonRow in
            guard let b = baseline.results[m.name] else {
                return ComparisonRow(
                    name: m.name, metric: "instr/item", polarity: .lowerIsBetter, baseline: nil,
                    current: m.instructionsPerItem, change: nil, baselineAllocationsPerItem: nil,
                    currentAllocationsPerItem: nil, allocationsRegressed: false, verdict: .new,
                    tolerance: nil, spread: nil, gated: m.gated)
            }
            let change = (m.instructionsPerItem - b.instructionsPerItem) / b.instructionsPerItem
            return ComparisonRow(
                name: m.name, metric: "instr/item", polarity: .lowerIsBetter, baseline: b.instructionsPerItem,
                current: m.instructionsPerItem, change: change, baselineAllocationsPerItem: nil,
                currentAllocationsPerItem: nil, allocationsRegressed: false,
                verdict: verdict(
                    change: change, polarity: .lowerIsBetter, threshold: threshold, allocationsRegressed: false),
                tolerance: threshold, spread: nil, gated: m.gated)
        }
        return Comparison(
            baselineName: baselineName, baselineMachine: baseline.machine,
            threshold: threshold, rows: rows)
    }

    package static func verdict(
        change: Double, polarity: Polarity, threshold: Double,
        allocationsRegressed: Bool
    ) -> Verdict {
        if allocationsRegressed { return .regressed }
        let better = polarity == .higherIsBetter ? change : -change
        if !better.isFinite { return .regressed }
        if better < -threshold { return .regressed }
        if better > threshold { return .improved }
        return .unchanged
    }
}
