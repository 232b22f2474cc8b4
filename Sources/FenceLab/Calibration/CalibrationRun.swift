import Foundation
import GeoPolicy

/// How the true path of a calibration recording is estimated.
public enum CalibrationMode: String, Sendable, Hashable, CaseIterable {
    /// The device did not move: the truth is the mean position (residuals in a `LocalFrame` at it).
    case stationary
    /// The device moved: the truth is the RTS-smoothed path (`RTSSmoother.run`).
    case track
}

/// The result of calibrating one device log.
public struct CalibrationResult: Sendable {
    public var file: String
    public var mode: CalibrationMode
    /// Residuals and reported accuracies that went into the fit.
    public var input: CalibrationInput
    /// Fixes left out: invalid coordinate/accuracy/time, not newer than the previous fix, or
    /// (track) rejected by the Kalman filter.
    public var skipped: Int
    public var estimate: NoiseEstimate

    /// `{"noise": {...}, "accuracy": {...}}` in the scenario-file schema (docs/scenario-format.md).
    public var scenarioBlock: JSONValue { CalibrationRun.scenarioBlock(estimate) }

    /// Remarks the JSON block cannot carry (anisotropy, accuracy factor, outliers), one per line.
    public var notes: [String] { CalibrationRun.notes(estimate) }
}

/// `fencelab calibrate`: residuals from a device log, `NoiseCalibrator`, a paste-ready noise block.
public enum CalibrationRun {
    /// Accuracy factors within 1 ± this are written as `model: drms` (the device means DRMS).
    public static let drmsFactorTolerance = 0.15

    /// Residuals of the log's valid fixes against the mean position or the smoothed path.
    /// - Throws: `CalibrationError` when fewer than `NoiseCalibrator.minimumFixes` fixes remain.
    public static func input(_ log: DeviceLog, mode: CalibrationMode) throws(CalibrationError) -> (CalibrationInput, skipped: Int) {
        var fixes: [Fix] = [], points: [Coordinate] = []
        var last = -Double.infinity
        for logged in log.fixes {
            let f = logged.fix
            guard f.timestamp_s.isFinite, f.timestamp_s > last, f.horizontalAccuracy_m.isFinite, f.horizontalAccuracy_m > 0,
                  let c = try? Coordinate(latitude: f.latitude, longitude: f.longitude) else { continue }
            last = f.timestamp_s
            fixes.append(f)
            points.append(c)
        }
        guard fixes.count >= NoiseCalibrator.minimumFixes else {
            throw .tooFewFixes(got: fixes.count, needed: NoiseCalibrator.minimumFixes)
        }
        var times: [Double] = [], residuals: [SIMD2<Double>] = [], accuracy: [Double] = []
        switch mode {
        case .stationary:
            let frame = LocalFrame(anchor: points[0])
            let offsets = points.map { frame.offset_m($0) }
            let mean = offsets.reduce(SIMD2<Double>.zero, +) / Double(offsets.count)
            let centre = LocalFrame(anchor: frame.coordinate(mean))
            for (f, c) in zip(fixes, points) {
                times.append(f.timestamp_s)
                residuals.append(centre.offset_m(c))
                accuracy.append(f.horizontalAccuracy_m)
            }
        case .track:
            let filter: KalmanFilter
            do { filter = try KalmanFilter() } catch { throw .smoother(reason: "\(error)") }
            let smoothed = RTSSmoother.run(fixes, filter: filter)
            for (k, i) in smoothed.acceptedIndices.enumerated() where k < smoothed.smoothed.count {
                let f = fixes[i]
                let frame = LocalFrame(anchor: smoothed.smoothed[k].position)
                times.append(f.timestamp_s)
                residuals.append(frame.offset_m(points[i]))
                accuracy.append(f.horizontalAccuracy_m)
            }
        }
        return (CalibrationInput(times_s: times, residuals_m: residuals, reportedAccuracy_m: accuracy),
                log.fixes.count - times.count)
    }

    /// Residuals, then `NoiseCalibrator.estimate`.
    public static func run(_ log: DeviceLog, mode: CalibrationMode) throws(CalibrationError) -> CalibrationResult {
        let (input, skipped) = try input(log, mode: mode)
        let estimate = try NoiseCalibrator.estimate(input)
        return CalibrationResult(file: log.file, mode: mode, input: input, skipped: skipped, estimate: estimate)
    }

    /// The scenario-file `noise` and `accuracy` objects for an estimate.
    ///
    /// noise: `gaussian` with the white σ per axis; `tails` student-t when a ν was fitted;
    /// `bias` {sigma_m, tau_s} when a correlation time was fitted. accuracy: `drms` when the
    /// reported median is within ±15 % of the measured DRMS, else `fixed` at the reported
    /// median; `misreportSigma` = σ of ln(reported accuracy).
    public static func scenarioBlock(_ e: NoiseEstimate) -> JSONValue {
        var noise: [(String, JSONValue)] = [("model", .string("gaussian")), ("sigma_m", .number(e.whiteSigma_m))]
        if let nu = e.studentNu { noise.append(("tails", .object([("kind", .string("student-t")), ("nu", .number(nu))]))) }
        if let tau = e.tau_s, e.biasSigma_m > 0 {
            noise.append(("bias", .object([("sigma_m", .number(e.biasSigma_m)), ("tau_s", .number(tau))])))
        }
        var accuracy: [(String, JSONValue)]
        if abs(e.accuracyFactor - 1) <= drmsFactorTolerance {
            accuracy = [("model", .string("drms"))]
        } else {
            accuracy = [("model", .string("fixed")), ("value_m", .number(e.reportedMedian_m))]
        }
        accuracy.append(("misreportSigma", .number(e.reportedLogSigma)))
        return .object([("noise", .object(noise)), ("accuracy", .object(accuracy))])
    }

    /// What the block cannot express, for the user to judge.
    public static func notes(_ e: NoiseEstimate) -> [String] {
        var out: [String] = []
        let ratio = e.sigmaMinor_m > 0 ? e.sigmaMajor_m / e.sigmaMinor_m : .infinity
        if ratio > 1.1 {
            out.append("anisotropic scatter: major/minor σ = \(e.sigmaMajor_m)/\(e.sigmaMinor_m) m (ratio \(ratio)), major axis bearing \(e.majorAxisBearing_deg)°; the block uses the isotropic per-axis σ")
        }
        if abs(e.accuracyFactor - 1) > drmsFactorTolerance {
            out.append("reported accuracy median / measured DRMS = \(e.accuracyFactor): the device does not report DRMS, so the block uses a fixed accuracy")
        }
        if e.outlierFraction > 0.001 && e.studentNu == nil {
            out.append("outlier fraction beyond 4 robust σ: \(e.outlierFraction) (no Student-t fitted; consider tails.kind mixture)")
        }
        return out
    }

    /// Every figure of the estimate as JSON (for report.json-style output).
    public static func estimateJSON(_ e: NoiseEstimate) -> JSONValue {
        func opt(_ v: Double?) -> JSONValue { v.map(JSONValue.number) ?? .null }
        return .object([
            ("samples", .integer(e.samples)), ("duration_s", .number(e.duration_s)), ("interval_s", .number(e.interval_s)),
            ("sigmaEast_m", .number(e.sigmaEast_m)), ("sigmaNorth_m", .number(e.sigmaNorth_m)), ("correlation", .number(e.correlation)),
            ("sigmaMajor_m", .number(e.sigmaMajor_m)), ("sigmaMinor_m", .number(e.sigmaMinor_m)),
            ("majorAxisBearing_deg", .number(e.majorAxisBearing_deg)),
            ("whiteSigma_m", .number(e.whiteSigma_m)), ("biasSigma_m", .number(e.biasSigma_m)), ("tau_s", opt(e.tau_s)),
            ("whiteExcessKurtosis", .number(e.whiteExcessKurtosis)), ("studentNu", opt(e.studentNu)),
            ("outlierFraction", .number(e.outlierFraction)), ("measuredDRMS_m", .number(e.measuredDRMS_m)),
            ("reportedMedian_m", .number(e.reportedMedian_m)), ("accuracyFactor", .number(e.accuracyFactor)),
            ("reportedLogSigma", .number(e.reportedLogSigma)),
        ])
    }
}
