/// `Statistics.meanWithConfidence` without holding the values: they are added one at a time
/// (Welford's recurrences) and the interval is asked for at the end. Memory is a few scalars
/// whatever the count, so figures over 10⁵ replicates cost what figures over 10 do.
///
/// - The mean is GSL's: `gsl_stats_mean` is itself the running recurrence
///   mean += (x − mean)/(i + 1) in `long double`, and on x86_64 this type runs it in `Float80`,
///   the same extended type, so the mean has the same bits as `Statistics.mean` of the values in
///   the order they were added (elsewhere it runs in `Double`, within a few ulps).
/// - The standard deviation cannot be GSL's two-pass `gsl_stats_sd_m` (it needs the final mean
///   before the first value). Welford's M2 = Σ (x − mean_old)(x − mean_new), also in the extended
///   type, gives s within a few ulps of it (tested); the interval ends differ from
///   `meanWithConfidence`'s in their last bits at most.
/// - Order matters for those last bits: add values in a fixed order (e.g. replicate order) to get
///   the same result on every run.
public struct RunningConfidence: Sendable, Hashable {
    #if arch(x86_64) && !os(Windows)
        @usableFromInline typealias Wide = Float80
    #else
        @usableFromInline typealias Wide = Double
    #endif

    /// Number of values added.
    public private(set) var count = 0
    @usableFromInline var mean: Wide = 0
    @usableFromInline var m2: Wide = 0

    public init() {}

    /// Adds one value.
    /// - Throws: `GSLError.invalidArgument` for a non-finite value (the count says which one).
    public mutating func add(_ value: Double) throws(GSLError) {
        guard value.isFinite else {
            throw .invalidArgument("running mean: value at index \(count) is not finite (\(value))")
        }
        count += 1
        let x = Wide(value)
        let delta = x - mean
        mean += delta / Wide(count)
        m2 += delta * (x - mean)
    }

    /// The mean and its two-sided Student-t interval at `level`, as `Statistics.meanWithConfidence`
    /// defines it (nil before the first value; a point at the mean for one value).
    /// - Throws: `GSLError.invalidArgument` for a level outside (0, 1).
    public func interval(level: Double = 0.95) throws(GSLError) -> ConfidenceInterval? {
        guard level > 0, level < 1 else {
            throw .invalidArgument("confidence level must be within (0, 1), got \(level)")
        }
        if count == 0 { return nil }
        let m = Double(mean)
        if count == 1 { return ConfidenceInterval(mean: m, lower: m, upper: m, n: 1, level: level) }
        // gsl_stats_sd_m: the variance with divisor n, rounded to double, then scaled by n/(n − 1).
        let variance = Double(m2 / Wide(count))
        let s = (variance * (Double(count) / Double(count - 1))).squareRoot()
        let t = try Statistics.studentT(level: level, degreesOfFreedom: count - 1)
        let half = t * s / Double(count).squareRoot()
        return ConfidenceInterval(mean: m, lower: m - half, upper: m + half, n: count, level: level)
    }
}
