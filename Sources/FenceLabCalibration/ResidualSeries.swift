import Foundation

/// Centred east/north residuals at strictly increasing times, split into independent segments
/// (a recording is one segment; a block-bootstrap sample is one segment per block).
package struct ResidualSeries: Sendable {
    package var times_s: [Double]
    /// Residuals minus their mean, metres.
    package var residuals_m: [SIMD2<Double>]
    /// true where a segment starts: no lag pair or Gauss–Markov step crosses into it.
    package var segmentStart: [Bool]
    /// Median time between consecutive fixes within segments, seconds.
    package var medianInterval_s: Double
    /// Sum of segment durations, seconds.
    package var span_s: Double

    package var count: Int { times_s.count }

    /// One segment from residuals (centred here). `times_s` must increase strictly.
    package init(times_s: [Double], residuals_m: [SIMD2<Double>]) {
        self.init(
            times_s: times_s, residuals_m: residuals_m, segmentStart: times_s.indices.map { $0 == 0 }, centre: true)
    }

    init(times_s: [Double], residuals_m: [SIMD2<Double>], segmentStart: [Bool], centre: Bool) {
        self.times_s = times_s
        let mean = centre ? residuals_m.reduce(SIMD2<Double>.zero, +) / Double(max(1, residuals_m.count)) : .zero
        self.residuals_m = residuals_m.map { $0 - mean }
        self.segmentStart = segmentStart
        var intervals: [Double] = []
        var span = 0.0
        for i in times_s.indices.dropFirst() where !segmentStart[i] {
            intervals.append(times_s[i] - times_s[i - 1])
            span += times_s[i] - times_s[i - 1]
        }
        medianInterval_s = NoiseCalibrator.median(intervals)
        span_s = span
    }

    /// Residuals at the same times as `other` (a synthetic drive at a recording's timestamps),
    /// centred in place: shares `other`'s times and segments instead of copying them, and gives
    /// what `init(times_s:residuals_m:)` would (the same arithmetic).
    init(centring residuals: consuming [SIMD2<Double>], atTimesOf other: borrowing ResidualSeries) {
        precondition(
            residuals.count == other.count, "ResidualSeries: \(residuals.count) residuals for \(other.count) times")
        var r = residuals
        let mean = r.reduce(SIMD2<Double>.zero, +) / Double(max(1, r.count))
        for i in r.indices { r[i] = r[i] - mean }
        times_s = other.times_s
        residuals_m = r
        segmentStart = other.segmentStart
        medianInterval_s = other.medianInterval_s
        span_s = other.span_s
    }

    /// Pooled per-axis variance Σ|r|²/(2n), m².
    package var perAxisVariance_m2: Double {
        residuals_m.reduce(0) { $0 + ($1 * $1).sum() } / Double(2 * max(1, count))
    }
}

/// Sample autocorrelation of the residuals against time lag, both axes pooled, with a 95 % band.
///
/// Irregular sampling: pairs (i, j) within a segment are binned by t_j − t_i into bins of width
/// `binWidth_s` (the median sampling interval), bin k covering [(k − ½)w, (k + ½)w); ρ(k) =
/// Σ r_i·r_j / (pairs · Σ|r|²/n). Band: Bartlett's (1946) large-lag standard error
/// se(k)² = (1 + 2Σ_{j<k} ρ(j)²) / (2·pairs_k) (two independent axes), ±1.96·se.
package struct ResidualACF: Sendable, Hashable {
    package var binWidth_s: Double
    /// Bin centres k·w, k = 1…K, seconds.
    package var lags_s: [Double]
    /// NaN where a bin holds no pair.
    package var rho: [Double]
    package var pairs: [Int]
    package var band95: [Double]

    package init(_ s: ResidualSeries, binWidth_s: Double, maxLag_s: Double) {
        self.binWidth_s = binWidth_s
        let bins = max(1, Int((maxLag_s / binWidth_s).rounded()))
        var sums = [Double](repeating: 0, count: bins + 1)
        var counts = [Int](repeating: 0, count: bins + 1)
        let limit = (Double(bins) + 0.5) * binWidth_s
        var segmentEnd = s.count
        for i in stride(from: s.count - 1, through: 0, by: -1) {
            var j = i + 1
            while j < segmentEnd, s.times_s[j] - s.times_s[i] < limit {
                let k = Int(((s.times_s[j] - s.times_s[i]) / binWidth_s).rounded())
                if k >= 1 && k <= bins {
                    sums[k] += (s.residuals_m[i] * s.residuals_m[j]).sum()
                    counts[k] += 1
                }
                j += 1
            }
            if s.segmentStart[i] { segmentEnd = i }
        }
        let meanSquare = s.residuals_m.reduce(0) { $0 + ($1 * $1).sum() } / Double(max(1, s.count))
        lags_s = (1...bins).map { Double($0) * binWidth_s }
        rho = (1...bins).map { counts[$0] > 0 && meanSquare > 0 ? sums[$0] / Double(counts[$0]) / meanSquare : .nan }
        pairs = Array(counts[1...])
        var cumulative = 1.0
        band95 = []
        for k in 0..<bins {
            band95.append(pairs[k] > 0 ? 1.96 * (cumulative / Double(2 * pairs[k])).squareRoot() : .nan)
            if rho[k].isFinite { cumulative += 2 * rho[k] * rho[k] }
        }
    }

    /// ρ at the bin nearest `lag_s` (NaN outside the range).
    package func rho(atLag lag_s: Double) -> Double {
        let k = Int((lag_s / binWidth_s).rounded()) - 1
        return k >= 0 && k < rho.count ? rho[k] : .nan
    }
}
