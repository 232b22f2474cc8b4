import Foundation
import ReportKit

/// Which fixes of a recording went into the calibration, why the others were dropped, and how
/// the kept ones are spaced in time.
package struct FixAccounting: Sendable, Hashable {
    package var read = 0
    package var used = 0
    /// Timestamp NaN or ±∞.
    package var nonFiniteTime = 0
    /// Latitude/longitude outside ±90/±180 or not finite.
    package var invalidCoordinate = 0
    /// Horizontal accuracy not finite or ≤ 0 (iOS writes −1 for "no fix").
    package var invalidAccuracy = 0
    /// Same timestamp as the previous kept fix (a re-delivered fix); the first one is kept.
    package var duplicateTimestamp = 0
    /// Earlier than the previous kept fix.
    package var outOfOrder = 0
    /// `--track`: rejected by the Kalman filter's gate before smoothing.
    package var rejectedByFilter = 0
    /// Time between kept fixes: median, 5th and 95th percentile, seconds.
    package var medianInterval_s = Double.nan
    package var interval5_s = Double.nan
    package var interval95_s = Double.nan
    /// Gaps: intervals longer than `gapThreshold_s`; the Gauss–Markov fit bridges them by Δt.
    package var gapThreshold_s = Double.nan
    package var gaps = 0
    package var longestGap_s = 0.0

    /// A gap is an interval longer than this many median intervals.
    package static let gapFactor = 3.0

    package var dropped: Int { read - used }

    /// Non-zero drop reasons as (key, count), in a fixed order.
    package var reasons: [(String, Int)] {
        [
            ("nonFiniteTime", nonFiniteTime), ("invalidCoordinate", invalidCoordinate),
            ("invalidAccuracy", invalidAccuracy),
            ("duplicateTimestamp", duplicateTimestamp), ("outOfOrder", outOfOrder),
            ("rejectedByFilter", rejectedByFilter),
        ]
        .filter { $0.1 > 0 }
    }

    /// Fills the interval figures from the kept times (strictly increasing).
    mutating func describeSampling(_ times_s: [Double]) {
        let intervals = zip(times_s.dropFirst(), times_s).map { $0 - $1 }
        guard !intervals.isEmpty else { return }
        let sorted = intervals.sorted()
        func q(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))] }
        medianInterval_s = NoiseCalibrator.median(intervals)
        interval5_s = q(0.05)
        interval95_s = q(0.95)
        gapThreshold_s = Self.gapFactor * medianInterval_s
        let long = intervals.filter { $0 > gapThreshold_s }
        gaps = long.count
        longestGap_s = long.max() ?? 0
    }

    /// "7188 of 7200 fixes used (12 dropped: 8 duplicateTimestamp, 4 invalidAccuracy); Δt median 1 s (5–95 %: 1–1 s); 2 gaps > 3 s, longest 240 s"
    package var summary: String {
        let f = ReportText.short
        var s = "\(used) of \(read) fixes used"
        s +=
            dropped == 0
            ? " (none dropped)"
            : " (\(dropped) dropped: " + reasons.map { "\($0.1) \($0.0)" }.joined(separator: ", ") + ")"
        s += "; Δt median \(f(medianInterval_s)) s (5–95 %: \(f(interval5_s))–\(f(interval95_s)) s)"
        s +=
            gaps == 0
            ? "; no gaps > \(f(gapThreshold_s)) s"
            : "; \(gaps) gaps > \(f(gapThreshold_s)) s, longest \(f(longestGap_s)) s"
        return s
    }
}
