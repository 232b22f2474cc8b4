/// Order statistics of timing samples.
package enum SampleStatistics {
    /// The p-quantile (0 ≤ p ≤ 1) by linear interpolation between order
    /// statistics (Hyndman & Fan 1996, definition 7, the default of R and NumPy).
    /// Empty input gives NaN.
    package static func quantile(_ values: [Double], _ p: Double) -> Double {
        precondition((0...1).contains(p), "quantile p must be within 0...1, got \(p)")
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let h = Double(sorted.count - 1) * p
        let lo = Int(h.rounded(.down))
        let hi = min(lo + 1, sorted.count - 1)
        return sorted[lo] + (h - Double(lo)) * (sorted[hi] - sorted[lo])
    }

    package static func median(_ values: [Double]) -> Double { quantile(values, 0.5) }
    package static func p90(_ values: [Double]) -> Double { quantile(values, 0.9) }
}
