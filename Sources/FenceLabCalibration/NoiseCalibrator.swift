import Foundation
import GSLKit
import ReportKit

/// Residuals of a recording against its best-known true path, ready for calibration.
package struct CalibrationInput: Sendable {
    /// Fix times in seconds, strictly increasing.
    package var times_s: [Double]
    /// East/north residual of each fix in metres (stationary: from the mean position;
    /// moving: from the RTS-smoothed path).
    package var residuals_m: [SIMD2<Double>]
    /// Reported horizontal accuracy of each fix in metres (valid values only).
    package var reportedAccuracy_m: [Double]

    package init(times_s: [Double], residuals_m: [SIMD2<Double>], reportedAccuracy_m: [Double]) {
        self.times_s = times_s
        self.residuals_m = residuals_m
        self.reportedAccuracy_m = reportedAccuracy_m
    }
}

/// Why a recording cannot be calibrated.
package enum CalibrationError: Error, Sendable, Hashable, CustomStringConvertible {
    case tooFewFixes(got: Int, needed: Int)
    case timesNotIncreasing(index: Int)
    case lengthMismatch(times: Int, residuals: Int)
    case noValidAccuracy
    /// A `CalibrationOptions` count outside its range.
    case invalidOption(name: String, value: Int, range: ClosedRange<Int>)
    /// The seeded GSL generator could not be created.
    case random(reason: String)
    /// The Kalman filter / RTS smoother for `--track` residuals could not be set up.
    case smoother(reason: String)

    package var description: String {
        switch self {
        case .tooFewFixes(let got, let needed): return "calibration needs at least \(needed) valid fixes, got \(got)"
        case .timesNotIncreasing(let i): return "fix \(i): timestamps must increase strictly"
        case .lengthMismatch(let t, let r): return "\(t) times but \(r) residuals"
        case .noValidAccuracy: return "every fix needs a finite horizontal accuracy > 0"
        case .invalidOption(let name, let value, let range):
            return "\(name) must be within \(range.lowerBound)...\(range.upperBound), got \(value)"
        case .random(let reason): return "random source: \(reason)"
        case .smoother(let reason): return "track smoother: \(reason)"
        }
    }
}

/// A noise model fitted to a recording: the parameters DriveSim's noise block takes.
package struct NoiseEstimate: Sendable, Hashable {
    package var samples: Int
    package var duration_s: Double
    /// Median time between fixes, seconds.
    package var interval_s: Double
    /// Standard deviation of the residuals along east and north, metres.
    package var sigmaEast_m: Double
    package var sigmaNorth_m: Double
    /// Correlation of east and north residuals.
    package var correlation: Double
    /// Principal axes of the scatter (major ≥ minor), metres, and the major axis' bearing (degrees from north, 0…180).
    package var sigmaMajor_m: Double
    package var sigmaMinor_m: Double
    package var majorAxisBearing_deg: Double
    /// Both noise models fitted by maximum likelihood, with intervals, and which one the block uses.
    package var models: NoiseModelFit
    /// Per-axis σ of the white part and of the Gauss–Markov bias (0 when the white model is selected), metres.
    package var whiteSigma_m: Double
    package var biasSigma_m: Double
    /// Correlation time of the Gauss–Markov bias in seconds; nil when the white model is selected.
    package var tau_s: Double?
    /// Excess kurtosis of the white part (0 for Gaussian) and the Student-t ν it implies (nil: Gaussian).
    package var whiteExcessKurtosis: Double
    package var studentNu: Double?
    /// Fraction of residuals beyond 4 robust σ, above what a Gaussian gives.
    package var outlierFraction: Double
    /// Measured DRMS (√(σ_e² + σ_n²)) in metres and the median reported accuracy.
    package var measuredDRMS_m: Double
    package var reportedMedian_m: Double
    /// reported median / measured DRMS: 1 when the device's accuracy means DRMS (iOS semantics).
    package var accuracyFactor: Double
    /// Standard deviation of ln(reported accuracy): the log-normal mis-reporting spread (0 when
    /// every fix reports the same accuracy).
    package var reportedLogSigma: Double
    /// Why the mis-reporting spread cannot be estimated, when it cannot (every used fix reports the
    /// same accuracy: an assumed or rounded value); its interval is then NaN, not a degenerate [0, 0].
    package var misreportNotIdentifiable: String?
    /// Fraction of fixes whose residual radius is within the reported accuracy
    /// (Gaussian noise with honest DRMS: 1 − e⁻¹ ≈ 63.2 %).
    package var coverage: Double
    /// 95 % block-bootstrap intervals of the moment figures.
    package var intervals: MomentIntervals
    /// `--track`: factor applied to σ_w and σ_b so that drives generated from the block, put
    /// through the same smoother, show the recording's residual σ (1 for stationary recordings).
    package var smootherScale: Double = 1

    /// The noise scaled by `factor` (σ_w, σ_b and their intervals; the accuracy factor relative
    /// to the scaled DRMS). Residual-based figures (σ per axis, coverage, ACF) are unchanged.
    func scaled(by factor: Double) -> NoiseEstimate {
        func scale(_ v: FittedValue?) -> FittedValue? {
            v.map {
                FittedValue(
                    value: $0.value * factor, lower: $0.lower * factor, upper: $0.upper * factor, method: $0.method)
            }
        }
        var e = self
        e.whiteSigma_m *= factor
        e.biasSigma_m *= factor
        e.models.whiteSigma_m = scale(models.whiteSigma_m)!
        e.models.gmWhiteSigma_m = scale(models.gmWhiteSigma_m)
        e.models.gmBiasSigma_m = scale(models.gmBiasSigma_m)
        e.accuracyFactor /= factor
        e.intervals.accuracyFactor = FittedValue(
            value: intervals.accuracyFactor.value / factor, lower: intervals.accuracyFactor.lower / factor,
            upper: intervals.accuracyFactor.upper / factor, method: intervals.accuracyFactor.method)
        e.smootherScale = smootherScale * factor
        return e
    }
}

/// Block-bootstrap 95 % intervals of the figures that are not maximum-likelihood fits.
package struct MomentIntervals: Sendable, Hashable {
    /// Per-axis σ √((σe² + σn²)/2), metres.
    package var perAxisSigma_m: FittedValue
    /// Excess kurtosis of the white part; Student-t ν follows as 4 + 6/κ (∞ for κ ≤ 0).
    package var whiteExcessKurtosis: FittedValue
    package var accuracyFactor: FittedValue
    package var reportedLogSigma: FittedValue
    package var reportedMedian_m: FittedValue
    package var coverage: FittedValue
    /// Replicates and block length used.
    package var replicates: Int
    package var blockLength_s: Double
}

/// Fits the noise parameters of a recording (method in docs/calibration.md): covariance → σ per
/// axis and anisotropy; `GaussMarkovFit` → white and white + Gauss–Markov (σ_w, σ_b, τ) with QML
/// intervals; excess kurtosis of the white share → Student-t ν = 4 + 6/κ; reported vs measured
/// DRMS and coverage, with moving-block bootstrap intervals (Künsch 1989) drawn from a seeded
/// GSL generator.
package enum NoiseCalibrator {
    package static let minimumFixes = 100
    /// Below this excess kurtosis of the white part a t-distribution cannot be told from a Gaussian
    /// at these sample sizes: no `tails` is written (nor when the kurtosis interval includes 0).
    package static let kurtosisThreshold = 0.2

    /// - Parameters:
    ///   - seed: seeds the block bootstrap (GSL mt19937); same input and seed give the same intervals.
    ///   - replicates: bootstrap replicates, 20…100 000.
    package static func estimate(
        _ input: CalibrationInput, seed: UInt64 = 1, replicates: Int = 200
    ) throws(CalibrationError) -> NoiseEstimate {
        let n = input.residuals_m.count
        guard input.times_s.count == n else { throw .lengthMismatch(times: input.times_s.count, residuals: n) }
        guard n >= minimumFixes else { throw .tooFewFixes(got: n, needed: minimumFixes) }
        for i in 1..<n where !(input.times_s[i] > input.times_s[i - 1]) { throw .timesNotIncreasing(index: i) }
        guard input.reportedAccuracy_m.count == n else {
            throw .lengthMismatch(times: n, residuals: input.reportedAccuracy_m.count)
        }
        guard input.reportedAccuracy_m.allSatisfy({ $0.isFinite && $0 > 0 }) else { throw .noValidAccuracy }

        let series = ResidualSeries(times_s: input.times_s, residuals_m: input.residuals_m)
        let centred = series.residuals_m
        var see = 0.0
        var snn = 0.0
        var sen = 0.0
        for r in centred {
            see += r.x * r.x
            snn += r.y * r.y
            sen += r.x * r.y
        }
        see /= Double(n - 1)
        snn /= Double(n - 1)
        sen /= Double(n - 1)
        let axes = principalAxes(see: see, snn: snn, sen: sen)

        let models = GaussMarkovFit.fit(series)
        let gm = models.selected == .whiteGaussMarkov
        let white = gm ? models.gmWhiteSigma_m!.value : models.whiteSigma_m.value
        let bias = gm ? models.gmBiasSigma_m!.value : 0
        let moments = Moments(
            centred, accuracy: input.reportedAccuracy_m, whiteShare: white * white / (white * white + bias * bias))
        var intervals = try bootstrap(
            series, accuracy: input.reportedAccuracy_m, whiteShare: moments.whiteShare,
            tau_s: gm ? models.gmTau_s!.value : nil, seed: seed, replicates: replicates, point: moments)
        // Tails only when the kurtosis is above the threshold and its interval excludes a Gaussian.
        let heavy = moments.whiteKurtosis > kurtosisThreshold && intervals.whiteExcessKurtosis.lower > 0
        let nu: Double? = heavy ? 4 + 6 / moments.whiteKurtosis : nil
        var logSigma = moments.logSigma
        var misreport: String?
        let lowest = input.reportedAccuracy_m.min()!
        let highest = input.reportedAccuracy_m.max()!
        if highest - lowest <= constantAccuracyTolerance * highest {
            // No spread to measure: a number with a [0, 0] interval would claim a measurement.
            misreport = "every used fix reports the same accuracy (\(ReportText.short(highest)) m)"
            logSigma = 0
            intervals.reportedLogSigma = FittedValue(
                value: .nan, lower: .nan, upper: .nan, method: "not identifiable: " + misreport!)
        }
        var estimate = NoiseEstimate(
            samples: n, duration_s: input.times_s[n - 1] - input.times_s[0], interval_s: series.medianInterval_s,
            sigmaEast_m: see.squareRoot(), sigmaNorth_m: snn.squareRoot(),
            correlation: sen / (see * snn).squareRoot(),
            sigmaMajor_m: axes.major, sigmaMinor_m: axes.minor, majorAxisBearing_deg: axes.bearing_deg,
            models: models, whiteSigma_m: white, biasSigma_m: bias, tau_s: gm ? models.gmTau_s!.value : nil,
            whiteExcessKurtosis: moments.whiteKurtosis, studentNu: nu,
            outlierFraction: outlierFraction(centred),
            measuredDRMS_m: moments.drms_m, reportedMedian_m: moments.reportedMedian_m,
            accuracyFactor: moments.reportedMedian_m / moments.drms_m,
            reportedLogSigma: logSigma, coverage: moments.coverage, intervals: intervals)
        estimate.misreportNotIdentifiable = misreport
        return estimate
    }

    /// Reported accuracies whose range is within this fraction of the largest are one constant value
    /// (10⁻⁹: float round-off of a value written once, far below any real accuracy step of 0.1 m).
    package static let constantAccuracyTolerance = 1e-9

    /// Moment figures of (a resample of) the residuals and reported accuracies.
    struct Moments {
        var perAxisSigma_m: Double, whiteShare: Double, whiteKurtosis: Double
        var drms_m: Double, reportedMedian_m: Double, logSigma: Double, coverage: Double

        init(_ centred: [SIMD2<Double>], accuracy: [Double], whiteShare: Double) {
            let n = Double(centred.count)
            let mean = centred.reduce(SIMD2<Double>.zero, +) / n
            var m2 = 0.0
            var m4 = 0.0
            var covered = 0
            for (r, a) in zip(centred, accuracy) {
                let d = r - mean
                let q = d * d
                m2 += q.sum()
                m4 += (q * q).sum()
                if (r * r).sum() <= a * a { covered += 1 }
            }
            let v = m2 / (2 * n)
            let kurtosis = v > 0 ? m4 / (2 * n) / (v * v) - 3 : 0
            // Fourth cumulants add for independent parts and the Gauss–Markov part is Gaussian:
            // κ_total·σ⁴ = κ_white·σ_w⁴.
            self.whiteShare = whiteShare
            // Below a 5 % variance share the white part's kurtosis is not identifiable (NaN: no tails).
            whiteKurtosis = whiteShare > 0.05 ? kurtosis / (whiteShare * whiteShare) : .nan
            perAxisSigma_m = v.squareRoot()
            drms_m = (2 * v).squareRoot()
            reportedMedian_m = NoiseCalibrator.median(accuracy)
            let logs = accuracy.map { Foundation.log($0) }
            let logMean = logs.reduce(0, +) / n
            logSigma = (logs.reduce(0) { $0 + ($1 - logMean) * ($1 - logMean) } / max(1, n - 1)).squareRoot()
            coverage = Double(covered) / n
        }
    }

    /// Moving-block bootstrap (Künsch 1989) of the moment figures: ⌈n/L⌉ blocks of L consecutive
    /// fixes, starts uniform (GSL mt19937 seeded by `seed`); L covers ten correlation times (at least
    /// 30 fixes, at most n/10). Percentile intervals 2.5 %…97.5 %.
    static func bootstrap(
        _ s: ResidualSeries, accuracy: [Double], whiteShare: Double, tau_s: Double?, seed: UInt64,
        replicates: Int, point: Moments
    ) throws(CalibrationError) -> MomentIntervals {
        let n = s.count
        let dt = s.medianInterval_s > 0 ? s.medianInterval_s : 1
        let length = max(1, min(n / 10, max(30, Int(((tau_s ?? 0) * 10 / dt).rounded(.up)))))
        let rng: RandomSource
        do { rng = try RandomSource(seed: SeedDerivation.streamSeed(replicateSeed: seed, stream: 0xB007)) } catch {
            throw .random(reason: "\(error)")
        }
        var samples = [[Double]](repeating: [], count: 6)
        var residuals: [SIMD2<Double>] = []
        var reported: [Double] = []
        residuals.reserveCapacity(n + length)
        reported.reserveCapacity(n + length)
        for _ in 0..<replicates {
            residuals.removeAll(keepingCapacity: true)
            reported.removeAll(keepingCapacity: true)
            while residuals.count < n {
                let start = rng.uniformInt(below: n - length + 1)
                residuals.append(contentsOf: s.residuals_m[start..<start + length])
                reported.append(contentsOf: accuracy[start..<start + length])
            }
            let m = Moments(residuals, accuracy: reported, whiteShare: whiteShare)
            for (k, v) in [
                m.perAxisSigma_m, m.whiteKurtosis, m.reportedMedian_m / m.drms_m, m.logSigma, m.reportedMedian_m,
                m.coverage,
            ].enumerated() {
                samples[k].append(v)
            }
        }
        func interval(_ k: Int, _ value: Double) -> FittedValue {
            let finite = samples[k].filter(\.isFinite)
            let q = (try? Statistics.quantiles(finite, probabilities: [0.025, 0.975])) ?? [.nan, .nan]
            return FittedValue(value: value, lower: q[0], upper: q[1], method: "block bootstrap")
        }
        return MomentIntervals(
            perAxisSigma_m: interval(0, point.perAxisSigma_m), whiteExcessKurtosis: interval(1, point.whiteKurtosis),
            accuracyFactor: interval(2, point.reportedMedian_m / point.drms_m),
            reportedLogSigma: interval(3, point.logSigma),
            reportedMedian_m: interval(4, point.reportedMedian_m), coverage: interval(5, point.coverage),
            replicates: replicates, blockLength_s: Double(length) * dt)
    }

    /// Eigen-decomposition of the 2×2 covariance: σ along the principal axes and the bearing of the major one.
    static func principalAxes(
        see: Double, snn: Double, sen: Double
    ) -> (major: Double, minor: Double, bearing_deg: Double) {
        let mid = (see + snn) / 2
        let radius = (((see - snn) / 2) * ((see - snn) / 2) + sen * sen).squareRoot()
        let angleFromEast = 0.5 * atan2(2 * sen, see - snn)
        var bearing = 90 - angleFromEast * 180 / Double.pi
        bearing = bearing.truncatingRemainder(dividingBy: 180)
        if bearing < 0 { bearing += 180 }
        return ((mid + radius).squareRoot(), max(0, mid - radius).squareRoot(), bearing)
    }

    /// Share of axis residuals beyond 4 robust σ (MAD × 1.4826) minus the Gaussian share (6.33e-5).
    /// One array of the 2n components, sorted in place for the median and then turned into the
    /// absolute deviations in place (for the MAD and the count beyond 4 robust σ).
    static func outlierFraction(_ r: [SIMD2<Double>]) -> Double {
        var values: [Double] = []
        values.reserveCapacity(2 * r.count)
        for v in r {
            values.append(v.x)
            values.append(v.y)
        }
        let med = median(reordering: &values)
        for i in values.indices { values[i] = abs(values[i] - med) }
        let mad = median(reordering: &values) * 1.482_602_218_505_602
        guard mad > 0 else { return 0 }
        let beyond = values.filter { $0 > 4 * mad }.count
        return max(0, Double(beyond) / Double(values.count) - 6.334e-5)
    }

    static func median(_ values: [Double]) -> Double {
        var s = values
        return median(reordering: &s)
    }

    /// The median of `values`, which are sorted in place.
    static func median(reordering values: inout [Double]) -> Double {
        values.sort()
        guard !values.isEmpty else { return .nan }
        let n = values.count
        return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2
    }
}
