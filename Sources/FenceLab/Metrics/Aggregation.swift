import GSLKit

/// A figure over replicates: mean and 95 % Student-t confidence interval.
/// JSON form (contract): `{"mean": x, "ci95": [lo, hi], "n": k}`.
public struct Estimate: Sendable, Hashable {
    /// The mean over replicates, in the metric's unit.
    public var mean: Double
    /// Lower end of the 95 % interval (equal to `mean` when n = 1: no spread can be estimated).
    public var lower: Double
    /// Upper end of the 95 % interval (equal to `mean` when n = 1).
    public var upper: Double
    /// Number of replicates that produced the figure.
    public var n: Int

    package init(mean: Double, lower: Double, upper: Double, n: Int) {
        self.mean = mean
        self.lower = lower
        self.upper = upper
        self.n = n
    }

    /// The estimate of `values` (non-empty, finite) via `Statistics.meanWithConfidence(level: 0.95)`.
    /// When every value is ≥ 0 (counts, metres, seconds, rates: every FenceLab metric) the
    /// symmetric Student-t interval is intersected with [0, ∞), so a count never shows a
    /// negative lower end; the mean is untouched.
    package static func of(_ values: [Double], key: String) throws(MetricsError) -> Estimate {
        // Called directly rather than through `gsl(_:)`: a 1-replicate sweep asks for one
        // estimate per figure and grid point, and the generic closure cost more than the
        // one-value interval itself.
        let interval: ConfidenceInterval?
        do { interval = try Statistics.meanWithConfidence(values, level: 0.95) } catch { throw .gsl(error) }
        guard let ci = interval else {
            throw .invalidValue(key: key, value: "[]", reason: "no values to aggregate")
        }
        return Estimate(ci, nonNegative: values.allSatisfy { $0 >= 0 })
    }

    /// The estimate of a 95 % interval, cut at 0 below when every value was ≥ 0 (see `of`).
    init(_ ci: ConfidenceInterval, nonNegative: Bool) {
        self.init(mean: ci.mean, lower: nonNegative ? max(0, ci.lower) : ci.lower, upper: ci.upper, n: ci.n)
    }
}

/// Every figure of a scenario aggregated over its replicates, keyed by metric path.
package struct MetricAggregate: Sendable, Hashable {
    /// path → estimate.
    package var estimates: [String: Estimate]
    /// Number of replicates aggregated.
    package var replicates: Int

    package init(estimates: [String: Estimate], replicates: Int) {
        self.estimates = estimates
        self.replicates = replicates
    }

    /// Aggregates replicates path by path, in replicate order (`MetricAccumulator` over all of them).
    /// A path takes the replicates that reported it, except count paths (`rejections.*`,
    /// `faults.*`) where a replicate without the key counts as 0. Non-finite figures are
    /// refused, naming replicate and path.
    package static func aggregate(_ replicates: [ReplicateMetrics]) throws(MetricsError) -> MetricAggregate {
        var accumulator = MetricAccumulator()
        for r in replicates { try accumulator.add(r) }
        return try accumulator.aggregate()
    }

    /// The estimate for `path`: measured, or 0 for an unmeasured count path, or nil.
    package func estimate(_ path: String) -> Estimate? {
        if let e = estimates[path] { return e }
        if MetricCatalog.absentMeansZero(path), replicates > 0 {
            return Estimate(mean: 0, lower: 0, upper: 0, n: replicates)
        }
        return nil
    }
}

/// The figures of a scenario's replicates aggregated as they come, in replicate order, without
/// keeping them: per metric path a `RunningConfidence` (a few scalars), so the memory of
/// `fencelab run --replicates N` does not grow with N. Also tracks the worst replicate by one
/// path (the one whose plots a report draws).
///
/// The means have the bits `Estimate.of` gives the same values (GSL's running mean); the interval
/// ends come from Welford's running variance and may differ from the two-pass ones in their last
/// bits (docs/metrics.md, "Aggregation").
package struct MetricAccumulator: Sendable {
    private struct Column: Sendable {
        var running = RunningConfidence()
        var nonNegative = true
    }

    private var columns: [String: Column] = [:]
    /// Count paths (`absentMeansZero`) seen so far: they take a 0 from a replicate without them.
    private var countPaths: [String] = []
    /// Number of replicates added.
    package private(set) var replicates = 0
    private let worstPath: String
    /// The replicate with the largest value at `worstPath` (lowest index on ties), and the value.
    package private(set) var worst: (replicate: Int, value: Double)?

    /// - Parameter worstPath: the path `worst` ranks replicates by.
    package init(worstBy worstPath: String = "flutter.spurious") {
        self.worstPath = worstPath
    }

    /// Adds the next replicate (call in replicate order: the interval ends depend on it).
    /// - Throws: `MetricsError.invalidValue` for a non-finite figure, naming replicate and path.
    package mutating func add(_ replicate: ReplicateMetrics) throws(MetricsError) {
        let i = replicates
        let figures = replicate.flattened()
        for (path, v) in figures {
            guard v.isFinite else {
                throw .invalidValue(key: "replicate[\(i)].\(path)", value: "\(v)", reason: "must be finite")
            }
        }
        for (path, v) in figures {
            if columns[path] == nil {
                var column = Column()
                if MetricCatalog.absentMeansZero(path) {
                    // The replicates before this one did not report it: each counts as 0.
                    for _ in 0..<i { try Self.add(0, to: &column, path: path) }
                    countPaths.append(path)
                }
                columns[path] = column
            }
            try Self.add(v, to: &columns[path]!, path: path)
        }
        for path in countPaths where figures[path] == nil {
            try Self.add(0, to: &columns[path]!, path: path)
        }
        if let v = figures[worstPath], worst == nil || v > worst!.value { worst = (i, v) }
        replicates += 1
    }

    private static func add(_ v: Double, to column: inout Column, path: String) throws(MetricsError) {
        do { try column.running.add(v) } catch {
            throw .invalidValue(key: path, value: "\(v)", reason: error.description)
        }
        if v < 0 { column.nonNegative = false }
    }

    /// The estimates of every path reported so far.
    package func aggregate() throws(MetricsError) -> MetricAggregate {
        var estimates: [String: Estimate] = [:]
        for (path, column) in columns {
            guard let ci = try gsl({ () throws(GSLError) in try column.running.interval(level: 0.95) }) else {
                throw .invalidValue(key: path, value: "[]", reason: "no values to aggregate")
            }
            estimates[path] = Estimate(ci, nonNegative: column.nonNegative)
        }
        return MetricAggregate(estimates: estimates, replicates: replicates)
    }
}
