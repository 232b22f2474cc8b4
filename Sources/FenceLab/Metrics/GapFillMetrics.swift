/// Gap-length buckets of the gap-fill report (names: docs/metrics.md, contract).
package enum GapBucket: String, Sendable, Hashable, CaseIterable {
    /// duration ≤ 10 s.
    case upTo10s = "<=10s"
    /// 10 s < duration ≤ 30 s.
    case from10To30s = "10-30s"
    /// 30 s < duration ≤ 60 s.
    case from30To60s = "30-60s"
    /// duration > 60 s.
    case over60s = ">60s"

    /// The bucket of a gap; upper bounds are inclusive (a 30 s gap is `10-30s`).
    /// `duration_s` finite and ≥ 0.
    package static func of(duration_s: Double) throws(MetricsError) -> GapBucket {
        guard duration_s.isFinite, duration_s >= 0 else {
            throw .invalidValue(
                key: "duration_s", value: "\(duration_s)", reason: "a gap duration must be finite and ≥ 0 s")
        }
        if duration_s <= 10 { return .upTo10s }
        if duration_s <= 30 { return .from10To30s }
        if duration_s <= 60 { return .from30To60s }
        return .over60s
    }
}

/// The gap-fill methods of docs/metrics.md, in report order.
package enum GapFillMethodName {
    package static let all = ["linear", "cubicSpline", "hermite"]
}

/// One gap filled by one method: its length and the errors of the filled points against truth.
package struct FilledGap: Sendable, Hashable {
    /// Method name, e.g. `linear`, `cubicSpline`, `hermite`.
    package var method: String
    /// Gap length (time between the fixes around it), seconds.
    package var duration_s: Double
    /// Horizontal error of each filled point, metres (finite, ≥ 0; may be empty).
    package var errors_m: [Double]

    package init(method: String, duration_s: Double, errors_m: [Double]) {
        self.method = method
        self.duration_s = duration_s
        self.errors_m = errors_m
    }
}

/// Figures of one method in one bucket.
package struct GapBucketSummary: Sendable, Hashable {
    /// Number of gaps in the bucket.
    package var gaps: Int
    /// RMSE over all filled points of those gaps, metres; nil when no point was filled.
    package var rmse_m: Double?
    /// Largest error of a filled point, metres; nil when no point was filled.
    package var max_m: Double?

    package init(gaps: Int, rmse_m: Double?, max_m: Double?) {
        self.gaps = gaps
        self.rmse_m = rmse_m
        self.max_m = max_m
    }
}

/// Gap-fill figures of one replicate, per method and bucket.
package struct GapFillMetrics: Sendable, Hashable {
    /// method → bucket → summary. Every method present has all four buckets (zero gaps allowed).
    package var byMethod: [String: [GapBucket: GapBucketSummary]]

    package init(byMethod: [String: [GapBucket: GapBucketSummary]]) { self.byMethod = byMethod }

    /// Groups filled gaps by method and bucket. Methods listed in `methods` appear even without gaps.
    package static func measure(_ gaps: [FilledGap], methods: [String] = []) throws(MetricsError) -> GapFillMetrics {
        var points: [String: [GapBucket: (gaps: Int, sumSquares: Double, points: Int, max: Double)]] = [:]
        for m in methods { points[m] = [:] }
        for (i, gap) in gaps.enumerated() {
            let bucket: GapBucket
            do { bucket = try GapBucket.of(duration_s: gap.duration_s) } catch {
                throw .invalidValue(
                    key: "gaps[\(i)].duration_s", value: "\(gap.duration_s)", reason: "must be finite and ≥ 0 s")
            }
            var entry = points[gap.method, default: [:]][bucket] ?? (0, 0, 0, 0)
            entry.gaps += 1
            for (k, e) in gap.errors_m.enumerated() {
                guard e.isFinite, e >= 0 else {
                    throw .invalidValue(
                        key: "gaps[\(i)].errors_m[\(k)]", value: "\(e)", reason: "must be finite and ≥ 0 metres")
                }
                entry.sumSquares += e * e
                entry.points += 1
                entry.max = max(entry.max, e)
            }
            points[gap.method, default: [:]][bucket] = entry
        }
        var result: [String: [GapBucket: GapBucketSummary]] = [:]
        for (method, buckets) in points {
            var row: [GapBucket: GapBucketSummary] = [:]
            for bucket in GapBucket.allCases {
                let e = buckets[bucket] ?? (0, 0, 0, 0)
                row[bucket] =
                    e.points == 0
                    ? GapBucketSummary(gaps: e.gaps, rmse_m: nil, max_m: nil)
                    : GapBucketSummary(
                        gaps: e.gaps, rmse_m: (e.sumSquares / Double(e.points)).squareRoot(), max_m: e.max)
            }
            result[method] = row
        }
        return GapFillMetrics(byMethod: result)
    }
}
