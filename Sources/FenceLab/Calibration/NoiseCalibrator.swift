import Foundation

/// Residuals of a recording against its best-known true path, ready for calibration.
public struct CalibrationInput: Sendable {
    /// Fix times in seconds, strictly increasing.
    public var times_s: [Double]
    /// East/north residual of each fix in metres (stationary: from the mean position;
    /// moving: from the RTS-smoothed path).
    public var residuals_m: [SIMD2<Double>]
    /// Reported horizontal accuracy of each fix in metres (valid values only).
    public var reportedAccuracy_m: [Double]

    public init(times_s: [Double], residuals_m: [SIMD2<Double>], reportedAccuracy_m: [Double]) {
        self.times_s = times_s
        self.residuals_m = residuals_m
        self.reportedAccuracy_m = reportedAccuracy_m
    }
}

/// Why a recording cannot be calibrated.
public enum CalibrationError: Error, Sendable, Hashable, CustomStringConvertible {
    case tooFewFixes(got: Int, needed: Int)
    case timesNotIncreasing(index: Int)
    case lengthMismatch(times: Int, residuals: Int)
    case noValidAccuracy
    /// The Kalman filter / RTS smoother for `--track` residuals could not be set up.
    case smoother(reason: String)

    public var description: String {
        switch self {
        case let .tooFewFixes(got, needed): return "calibration needs at least \(needed) valid fixes, got \(got)"
        case let .timesNotIncreasing(i): return "fix \(i): timestamps must increase strictly"
        case let .lengthMismatch(t, r): return "\(t) times but \(r) residuals"
        case .noValidAccuracy: return "no fix reports a valid horizontal accuracy"
        case let .smoother(reason): return "track smoother: \(reason)"
        }
    }
}

/// A noise model fitted to a recording: the parameters DriveSim's noise block takes.
public struct NoiseEstimate: Sendable, Hashable {
    public var samples: Int
    public var duration_s: Double
    public var interval_s: Double
    /// Standard deviation of the residuals along east and north, metres.
    public var sigmaEast_m: Double
    public var sigmaNorth_m: Double
    /// Correlation of east and north residuals.
    public var correlation: Double
    /// Principal axes of the scatter (major ≥ minor), metres, and the major axis' bearing (degrees from north, 0…180).
    public var sigmaMajor_m: Double
    public var sigmaMinor_m: Double
    public var majorAxisBearing_deg: Double
    /// Per-axis σ of the uncorrelated (white) part and of the Gauss–Markov bias, metres.
    public var whiteSigma_m: Double
    public var biasSigma_m: Double
    /// Correlation time of the Gauss–Markov bias in seconds; nil when the residuals are white.
    public var tau_s: Double?
    /// Excess kurtosis of the white part (0 for Gaussian) and the Student-t ν it implies (nil: Gaussian).
    public var whiteExcessKurtosis: Double
    public var studentNu: Double?
    /// Fraction of residuals beyond 4 robust σ, above what a Gaussian gives.
    public var outlierFraction: Double
    /// Measured DRMS (√(σ_e² + σ_n²)) in metres and the median reported accuracy.
    public var measuredDRMS_m: Double
    public var reportedMedian_m: Double
    /// reported median / measured DRMS: 1 when the device's accuracy means DRMS (iOS semantics).
    public var accuracyFactor: Double
    /// Standard deviation of ln(reported accuracy): the log-normal mis-reporting spread.
    public var reportedLogSigma: Double
}

/// Fits the noise parameters of a recording (method in docs/calibration.md):
/// covariance → σ per axis and anisotropy; autocorrelation ρ(k) = A·e^(−kΔt/τ)
/// fitted by least squares on ln ρ over lags with ρ > 0.1 → τ and the bias share A;
/// excess kurtosis of the white share → Student-t ν = 4 + 6/κ; reported vs measured DRMS.
public enum NoiseCalibrator {
    public static let minimumFixes = 100

    public static func estimate(_ input: CalibrationInput) throws(CalibrationError) -> NoiseEstimate {
        let n = input.residuals_m.count
        guard input.times_s.count == n else { throw .lengthMismatch(times: input.times_s.count, residuals: n) }
        guard n >= minimumFixes else { throw .tooFewFixes(got: n, needed: minimumFixes) }
        for i in 1..<n where !(input.times_s[i] > input.times_s[i - 1]) { throw .timesNotIncreasing(index: i) }
        let valid = input.reportedAccuracy_m.filter { $0.isFinite && $0 > 0 }
        guard !valid.isEmpty else { throw .noValidAccuracy }

        let mean = input.residuals_m.reduce(SIMD2<Double>.zero, +) / Double(n)
        let centred = input.residuals_m.map { $0 - mean }
        var see = 0.0, snn = 0.0, sen = 0.0
        for r in centred { see += r.x * r.x; snn += r.y * r.y; sen += r.x * r.y }
        see /= Double(n - 1); snn /= Double(n - 1); sen /= Double(n - 1)
        let axes = principalAxes(see: see, snn: snn, sen: sen)

        let interval = median(zip(input.times_s.dropFirst(), input.times_s).map { $0 - $1 })
        let (biasShare, tau) = fitAutocorrelation(centred, variance: see + snn, interval_s: interval)
        let perAxisVariance = (see + snn) / 2
        let whiteVariance = perAxisVariance * (1 - biasShare)
        let kurtosis = excessKurtosis(centred, perAxisVariance: perAxisVariance)
        let whiteKurtosis = whiteVariance > 0 ? kurtosis * (perAxisVariance * perAxisVariance) / (whiteVariance * whiteVariance) : 0
        // Below ~0.2 the kurtosis estimate cannot tell a t-distribution from a Gaussian at these sample sizes.
        let nu: Double? = whiteKurtosis > 0.2 ? 4 + 6 / whiteKurtosis : nil

        let drms = (see + snn).squareRoot()
        let reported = median(valid)
        let logs = valid.map { Foundation.log($0) }
        let logMean = logs.reduce(0, +) / Double(logs.count)
        let logSigma = (logs.map { ($0 - logMean) * ($0 - logMean) }.reduce(0, +) / Double(max(1, logs.count - 1))).squareRoot()

        return NoiseEstimate(
            samples: n, duration_s: input.times_s[n - 1] - input.times_s[0], interval_s: interval,
            sigmaEast_m: see.squareRoot(), sigmaNorth_m: snn.squareRoot(),
            correlation: sen / (see * snn).squareRoot(),
            sigmaMajor_m: axes.major, sigmaMinor_m: axes.minor, majorAxisBearing_deg: axes.bearing_deg,
            whiteSigma_m: whiteVariance.squareRoot(), biasSigma_m: (perAxisVariance * biasShare).squareRoot(),
            tau_s: tau, whiteExcessKurtosis: whiteKurtosis, studentNu: nu,
            outlierFraction: outlierFraction(centred),
            measuredDRMS_m: drms, reportedMedian_m: reported, accuracyFactor: reported / drms,
            reportedLogSigma: logSigma)
    }

    /// Eigen-decomposition of the 2×2 covariance: σ along the principal axes and the bearing of the major one.
    static func principalAxes(see: Double, snn: Double, sen: Double) -> (major: Double, minor: Double, bearing_deg: Double) {
        let mid = (see + snn) / 2
        let radius = (((see - snn) / 2) * ((see - snn) / 2) + sen * sen).squareRoot()
        let angleFromEast = 0.5 * atan2(2 * sen, see - snn)
        var bearing = 90 - angleFromEast * 180 / Double.pi
        bearing = bearing.truncatingRemainder(dividingBy: 180)
        if bearing < 0 { bearing += 180 }
        return ((mid + radius).squareRoot(), max(0, mid - radius).squareRoot(), bearing)
    }

    /// Fits ρ(k) = A·exp(−kΔt/τ) to the sample autocorrelation (both axes pooled).
    /// Returns the bias share A (0…1) and τ, or (0, nil) when lag 1 shows no correlation.
    static func fitAutocorrelation(_ r: [SIMD2<Double>], variance: Double, interval_s: Double) -> (Double, Double?) {
        let n = r.count
        guard variance > 0 else { return (0, nil) }
        var lags: [Double] = [], logs: [Double] = []
        for k in 1..<min(n / 4, 2000) {
            var s = 0.0
            for i in k..<n { s += (r[i] * r[i - k]).sum() }
            let rho = s / Double(n - k) / variance
            if rho < 0.1 { break }
            lags.append(Double(k))
            logs.append(Foundation.log(rho))
        }
        guard lags.count >= 3 else { return (0, nil) }
        let mx = lags.reduce(0, +) / Double(lags.count), my = logs.reduce(0, +) / Double(logs.count)
        var sxy = 0.0, sxx = 0.0
        for (x, y) in zip(lags, logs) { sxy += (x - mx) * (y - my); sxx += (x - mx) * (x - mx) }
        let slope = sxy / sxx
        guard slope < 0 else { return (0, nil) }
        let share = min(1, Foundation.exp(my - slope * mx))
        return (share, -interval_s / slope)
    }

    static func excessKurtosis(_ r: [SIMD2<Double>], perAxisVariance: Double) -> Double {
        var m4 = 0.0
        for v in r { m4 += v.x * v.x * v.x * v.x + v.y * v.y * v.y * v.y }
        m4 /= Double(2 * r.count)
        return m4 / (perAxisVariance * perAxisVariance) - 3
    }

    /// Share of axis residuals beyond 4 robust σ (MAD × 1.4826) minus the Gaussian share (6.33e-5).
    static func outlierFraction(_ r: [SIMD2<Double>]) -> Double {
        let values = r.flatMap { [$0.x, $0.y] }
        let med = median(values)
        let mad = median(values.map { abs($0 - med) }) * 1.482_602_218_505_602
        guard mad > 0 else { return 0 }
        let beyond = values.filter { abs($0 - med) > 4 * mad }.count
        return max(0, Double(beyond) / Double(values.count) - 6.334e-5)
    }

    static func median(_ values: [Double]) -> Double {
        let s = values.sorted()
        guard !s.isEmpty else { return .nan }
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
}
