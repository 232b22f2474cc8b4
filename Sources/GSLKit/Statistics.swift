import CGSL

/// A sample mean with its two-sided Student-t confidence interval.
public struct ConfidenceInterval: Sendable, Hashable {
    /// Sample mean.
    public var mean: Double
    /// Lower end of the interval (equal to `mean` when `n == 1`).
    public var lower: Double
    /// Upper end of the interval (equal to `mean` when `n == 1`).
    public var upper: Double
    /// Number of values, ≥ 1.
    public var n: Int
    /// Confidence level in (0, 1), e.g. 0.95.
    public var level: Double

    public init(mean: Double, lower: Double, upper: Double, n: Int, level: Double) {
        self.mean = mean
        self.lower = lower
        self.upper = upper
        self.n = n
        self.level = level
    }
}

/// Descriptive statistics and distribution quantiles, computed by GSL
/// (`gsl_stats_*`, `gsl_cdf_*`). Every function checks its input and throws
/// a `GSLError.invalidArgument` naming the offending value; none returns NaN silently.
public enum Statistics {
    /// Arithmetic mean (`gsl_stats_mean`). `values` non-empty, all finite.
    public static func mean(_ values: [Double]) throws(GSLError) -> Double {
        try reduce(values, minimumCount: 1, routine: "mean", gsl_stats_mean)
    }

    /// Unbiased sample variance, divisor n − 1 (`gsl_stats_variance`). At least 2 finite values.
    public static func variance(_ values: [Double]) throws(GSLError) -> Double {
        try reduce(values, minimumCount: 2, routine: "variance", gsl_stats_variance)
    }

    /// Sample standard deviation, divisor n − 1 (`gsl_stats_sd`). At least 2 finite values.
    public static func standardDeviation(_ values: [Double]) throws(GSLError) -> Double {
        try reduce(values, minimumCount: 2, routine: "standardDeviation", gsl_stats_sd)
    }

    /// Largest value (`gsl_stats_max`). `values` non-empty, all finite.
    public static func maximum(_ values: [Double]) throws(GSLError) -> Double {
        try reduce(values, minimumCount: 1, routine: "maximum", gsl_stats_max)
    }

    /// Quantile of unsorted data: linear interpolation between order statistics, Hyndman–Fan
    /// type 7 (position (n − 1)·p), the definition of `gsl_stats_quantile_from_sorted_data`
    /// with its arithmetic. The order statistics come from selection in expected O(n)
    /// (`OrderStatistics`), not from sorting a copy: the same values as `gsl_sort` followed by
    /// GSL's function (tested against it). `probability` in [0, 1]; `values` non-empty, all finite.
    public static func quantile(_ values: [Double], probability: Double) throws(GSLError) -> Double {
        try quantiles(values, probabilities: [probability])[0]
    }

    /// Several quantiles of unsorted data with one selection pass per needed order statistic (see `quantile`).
    public static func quantiles(_ values: [Double], probabilities: [Double]) throws(GSLError) -> [Double] {
        var work = values  // the only heap copy
        return try quantiles(reordering: &work, probabilities: probabilities)
    }

    /// The same quantiles as `quantiles(_:probabilities:)`, selected in `values` itself: its order
    /// changes and no copy is made (a pool of millions of values is not held twice).
    public static func quantiles(
        reordering values: inout [Double], probabilities: [Double]
    ) throws(GSLError) -> [Double] {
        try check(values, minimumCount: 1, routine: "quantile")
        for p in probabilities where !(p >= 0 && p <= 1) {
            throw .invalidArgument("quantile probability must be within 0...1, got \(p)")
        }
        return OrderStatistics.quantiles(reordering: &values, probabilities: probabilities)
    }

    /// `quantiles(values, probabilities: [p, q])` (`p` ≤ `q`, both within 0...1) without a heap
    /// allocation for up to `pairStack_values` values: they are copied to a stack buffer, the
    /// order statistics selected there. The same values, bit for bit.
    public static func quantilePair(_ values: [Double], _ p: Double, _ q: Double) throws(GSLError) -> (Double, Double) {
        guard values.count <= pairStack_values else {
            var work = values
            return try work.withUnsafeMutableBufferPointer { (buffer) throws(GSLError) in
                try quantilePair(reordering: buffer, p, q)
            }
        }
        return try withUnsafeTemporaryAllocation(of: Double.self, capacity: values.count) {
            (buffer) throws(GSLError) -> (Double, Double) in
            _ = buffer.initialize(from: values)
            defer { buffer.deinitialize() }
            return try quantilePair(reordering: buffer, p, q)
        }
    }

    /// `quantilePair` selected in `values` itself: their order changes, nothing is copied (for a
    /// caller that fills a buffer of its own, e.g. on the stack, and needs no array).
    public static func quantilePair(
        reordering values: UnsafeMutableBufferPointer<Double>, _ p: Double, _ q: Double
    ) throws(GSLError) -> (Double, Double) {
        try check(values, minimumCount: 1, routine: "quantile")
        guard p >= 0, q <= 1, p <= q else {
            throw .invalidArgument("quantile probabilities must satisfy 0 ≤ p ≤ q ≤ 1, got \(p), \(q)")
        }
        return OrderStatistics.pair(in: values, p, q)
    }

    /// Values `quantilePair` copies to the stack (2 KiB); more are copied to the heap.
    static let pairStack_values = 256

    /// The same quantiles the GSL way: `gsl_sort` on a copy, then
    /// `gsl_stats_quantile_from_sorted_data`. O(n log n); kept as the oracle `quantiles` is tested
    /// against (same preconditions, unchecked).
    static func quantilesBySortingWithGSL(_ values: [Double], probabilities: [Double]) -> [Double] {
        _ = GSLRuntime.handlerOff
        var sorted = values
        sorted.withUnsafeMutableBufferPointer { gsl_sort($0.baseAddress, 1, $0.count) }
        return sorted.withUnsafeBufferPointer { buffer in
            probabilities.map { gsl_stats_quantile_from_sorted_data(buffer.baseAddress, 1, buffer.count, $0) }
        }
    }

    /// Lower-tail quantile of Student's t with `degreesOfFreedom` > 0 (`gsl_cdf_tdist_Pinv`).
    /// `probability` in (0, 1).
    public static func studentTQuantile(probability: Double, degreesOfFreedom: Double) throws(GSLError) -> Double {
        try checkOpenProbability(probability, routine: "studentTQuantile")
        try checkDegreesOfFreedom(degreesOfFreedom, routine: "studentTQuantile")
        _ = GSLRuntime.handlerOff
        return gsl_cdf_tdist_Pinv(probability, degreesOfFreedom)
    }

    /// Lower-tail quantile of the standard normal distribution (`gsl_cdf_ugaussian_Pinv`).
    /// `probability` in (0, 1).
    public static func normalQuantile(probability: Double) throws(GSLError) -> Double {
        try checkOpenProbability(probability, routine: "normalQuantile")
        _ = GSLRuntime.handlerOff
        return gsl_cdf_ugaussian_Pinv(probability)
    }

    /// Lower-tail quantile of chi-square with `degreesOfFreedom` > 0 (`gsl_cdf_chisq_Pinv`).
    /// `probability` in (0, 1).
    public static func chiSquareQuantile(probability: Double, degreesOfFreedom: Double) throws(GSLError) -> Double {
        try checkOpenProbability(probability, routine: "chiSquareQuantile")
        try checkDegreesOfFreedom(degreesOfFreedom, routine: "chiSquareQuantile")
        _ = GSLRuntime.handlerOff
        return gsl_cdf_chisq_Pinv(probability, degreesOfFreedom)
    }

    /// Mean with a two-sided Student-t confidence interval: mean ± t_{(1+level)/2, n−1}·s/√n.
    ///
    /// - `n == 0`: returns `nil` (no estimate exists).
    /// - `n == 1`: no spread can be estimated; the interval collapses to the mean
    ///   (`lower == upper == mean`). Callers that report it should show `n` next to it.
    /// - Parameters:
    ///   - values: finite values.
    ///   - level: confidence level in (0, 1), default 0.95.
    @inlinable
    public static func meanWithConfidence(
        _ values: [Double], level: Double = 0.95
    ) throws(GSLError) -> ConfidenceInterval? {
        if values.count == 1, values[0].isFinite, level > 0, level < 1 {
            // gsl_stats_mean of one value: 0 + (x − 0) / 1 in extended precision, which is x
            // (+0 for −0). Inlined into the caller without the check and the call: a
            // 1-replicate sweep asks for one interval per figure and grid point.
            let m = 0.0 + values[0]
            return ConfidenceInterval(mean: m, lower: m, upper: m, n: 1, level: level)
        }
        return try meanWithConfidenceOfValues(values, level: level)
    }

    /// `meanWithConfidence` beyond its one-value shortcut.
    @usableFromInline
    static func meanWithConfidenceOfValues(
        _ values: [Double], level: Double
    ) throws(GSLError) -> ConfidenceInterval? {
        guard level > 0, level < 1 else {
            throw .invalidArgument("confidence level must be within (0, 1), got \(level)")
        }
        if values.isEmpty { return nil }
        let m = try mean(values)
        if values.count == 1 { return ConfidenceInterval(mean: m, lower: m, upper: m, n: 1, level: level) }
        // gsl_stats_sd is gsl_stats_sd_m with gsl_stats_mean of the same data: the same bits,
        // without a second mean pass and a second check.
        let s = values.withUnsafeBufferPointer { gsl_stats_sd_m($0.baseAddress, 1, $0.count, m) }
        let t = try studentT(level: level, degreesOfFreedom: values.count - 1)
        let half = t * s / Double(values.count).squareRoot()
        return ConfidenceInterval(mean: m, lower: m - half, upper: m + half, n: values.count, level: level)
    }

    /// The two-sided Student-t factor t_{(1+level)/2, dof} of an interval at `level` (table for 95 %).
    static func studentT(level: Double, degreesOfFreedom dof: Int) throws(GSLError) -> Double {
        level == 0.95 && dof < t975.count
            ? t975[dof]
            : try studentTQuantile(probability: (1 + level) / 2, degreesOfFreedom: Double(dof))
    }

    /// `studentTQuantile(probability: (1 + 0.95) / 2, degreesOfFreedom: k)` for k = 1…64 (index k;
    /// 0 unused), computed once: the same values, without `gsl_cdf_tdist_Pinv`'s iterations on every
    /// 95 % interval (a sweep asks for one per figure, grid point and scenario, several times).
    static let t975: [Double] = {
        _ = GSLRuntime.handlerOff
        return [Double.nan] + (1...64).map { gsl_cdf_tdist_Pinv((1 + 0.95) / 2, Double($0)) }
    }()

    /// Checks `values`, then applies a `gsl_stats_*` reduction to them (data, stride 1, count).
    private static func reduce(
        _ values: [Double], minimumCount: Int, routine: String,
        _ gslReduction: (UnsafePointer<Double>?, Int, Int) -> Double
    ) throws(GSLError) -> Double {
        try check(values, minimumCount: minimumCount, routine: routine)
        _ = GSLRuntime.handlerOff
        return values.withUnsafeBufferPointer { gslReduction($0.baseAddress, 1, $0.count) }
    }

    private static func check<Values: RandomAccessCollection<Double>>(
        _ values: Values, minimumCount: Int, routine: String
    ) throws(GSLError) where Values.Index == Int {
        guard values.count >= minimumCount else {
            throw .invalidArgument("\(routine) needs at least \(minimumCount) value(s), got \(values.count)")
        }
        if let i = values.firstIndex(where: { !$0.isFinite }) {
            throw .invalidArgument("\(routine): value at index \(i) is not finite (\(values[i]))")
        }
    }

    private static func checkDegreesOfFreedom(_ nu: Double, routine: String) throws(GSLError) {
        guard nu > 0, nu.isFinite else {
            throw .invalidArgument("\(routine) degrees of freedom must be finite and > 0, got \(nu)")
        }
    }

    private static func checkOpenProbability(_ p: Double, routine: String) throws(GSLError) {
        guard p > 0, p < 1 else {
            throw .invalidArgument("\(routine) probability must be within (0, 1), got \(p)")
        }
    }
}
