import GSLKit

/// A figure over replicates: mean and 95 % Student-t confidence interval.
/// JSON form (contract): `{"mean": x, "ci95": [lo, hi], "n": k}`.
public struct Estimate: Sendable, Hashable {
    public var mean: Double
    /// Lower end of the 95 % interval (equal to `mean` when n = 1: no spread can be estimated).
    public var lower: Double
    /// Upper end of the 95 % interval (equal to `mean` when n = 1).
    public var upper: Double
    /// Number of replicates that produced the figure.
    public var n: Int

    public init(mean: Double, lower: Double, upper: Double, n: Int) {
        self.mean = mean; self.lower = lower; self.upper = upper; self.n = n
    }

    /// The estimate of `values` (non-empty, finite) via `Statistics.meanWithConfidence(level: 0.95)`.
    /// When every value is ≥ 0 (counts, metres, seconds, rates: every FenceLab metric) the
    /// symmetric Student-t interval is intersected with [0, ∞), so a count never shows a
    /// negative lower end; the mean is untouched.
    public static func of(_ values: [Double], key: String) throws(MetricsError) -> Estimate {
        guard let ci = try gsl({ () throws(GSLError) in try Statistics.meanWithConfidence(values, level: 0.95) }) else {
            throw .invalidValue(key: key, value: "[]", reason: "no values to aggregate")
        }
        let nonNegative = values.allSatisfy { $0 >= 0 }
        return Estimate(mean: ci.mean, lower: nonNegative ? max(0, ci.lower) : ci.lower, upper: ci.upper, n: ci.n)
    }
}

/// Every figure of a scenario aggregated over its replicates, keyed by metric path.
public struct MetricAggregate: Sendable, Hashable {
    /// path → estimate.
    public var estimates: [String: Estimate]
    /// Number of replicates aggregated.
    public var replicates: Int

    public init(estimates: [String: Estimate], replicates: Int) {
        self.estimates = estimates
        self.replicates = replicates
    }

    /// Aggregates replicates path by path. A path takes the replicates that reported it,
    /// except count paths (`rejections.*`, `faults.*`) where a replicate without the key
    /// counts as 0. Non-finite figures are refused, naming replicate and path.
    public static func aggregate(_ replicates: [ReplicateMetrics]) throws(MetricsError) -> MetricAggregate {
        // Column by column, flattening one replicate at a time: a flattened replicate is a
        // dictionary of ~70 string keys (≈ 6 kB), so flattening all replicates first made the
        // report's peak grow with `--replicates` (24 MB at 4 000). A column holds one Double per
        // replicate, NaN where the replicate did not report the path (reported figures are
        // finite, checked here), so the values and their order are those of the path-by-path
        // walk: the estimates are bit-identical.
        var columns: [String: [Double]] = [:]
        for (i, replicate) in replicates.enumerated() {
            for (path, v) in replicate.flattened() {
                guard v.isFinite else {
                    throw .invalidValue(key: "replicate[\(i)].\(path)", value: "\(v)", reason: "must be finite")
                }
                columns[path, default: [Double](repeating: .nan, count: replicates.count)][i] = v
            }
        }
        var estimates: [String: Estimate] = [:]
        for (path, column) in columns {
            let absentIsZero = MetricCatalog.absentMeansZero(path)
            let values = absentIsZero ? column.map { $0.isNaN ? 0 : $0 } : column.filter { !$0.isNaN }
            estimates[path] = try Estimate.of(values, key: path)
        }
        return MetricAggregate(estimates: estimates, replicates: replicates.count)
    }

    /// The estimate for `path`: measured, or 0 for an unmeasured count path, or nil.
    public func estimate(_ path: String) -> Estimate? {
        if let e = estimates[path] { return e }
        if MetricCatalog.absentMeansZero(path), replicates > 0 {
            return Estimate(mean: 0, lower: 0, upper: 0, n: replicates)
        }
        return nil
    }
}
