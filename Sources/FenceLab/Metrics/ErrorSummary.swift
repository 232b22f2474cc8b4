import GSLKit

/// Horizontal error statistics of one track against truth (docs/metrics.md, `kalman`).
package struct ErrorSummary: Sendable, Hashable {
    /// Number of errors summarized, ≥ 1.
    package var count: Int
    /// Root mean square error, metres.
    package var rmse_m: Double
    /// Median error (type 7 quantile), metres.
    package var p50_m: Double
    /// 95th percentile error (type 7), metres.
    package var p95_m: Double
    /// Largest error, metres.
    package var max_m: Double

    package init(count: Int, rmse_m: Double, p50_m: Double, p95_m: Double, max_m: Double) {
        self.count = count
        self.rmse_m = rmse_m
        self.p50_m = p50_m
        self.p95_m = p95_m
        self.max_m = max_m
    }

    /// Summarizes per-fix horizontal errors (finite, ≥ 0, metres). Empty input gives nil.
    /// `key` names the input in errors (e.g. `kalman.filtered`).
    package static func of(_ errors_m: [Double], key: String = "errors_m") throws(MetricsError) -> ErrorSummary? {
        if errors_m.isEmpty { return nil }
        var sumSquares = 0.0
        for (i, e) in errors_m.enumerated() {
            guard e.isFinite, e >= 0 else {
                throw .invalidValue(
                    key: "\(key)[\(i)]", value: "\(e)", reason: "an error must be finite and ≥ 0 metres")
            }
            sumSquares += e * e
        }
        let q = try gsl { () throws(GSLError) in try Statistics.quantiles(errors_m, probabilities: [0.5, 0.95, 1]) }
        return ErrorSummary(
            count: errors_m.count, rmse_m: (sumSquares / Double(errors_m.count)).squareRoot(),
            p50_m: q[0], p95_m: q[1], max_m: q[2])
    }
}

/// The tracks whose errors the harness compares, in report order (key names of docs/metrics.md).
package enum KalmanTrack: String, Sendable, Hashable, CaseIterable {
    case raw, filtered, smoothed, seedBaseline
    /// The stop-and-go `IMMFilter` (near-constant position + constant velocity).
    case imm
}
