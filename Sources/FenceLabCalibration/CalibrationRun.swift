import DeviceLogKit
import Foundation
import GSLKit
import GeoPolicy
import ReportKit

/// How the true path of a calibration recording is estimated.
package enum CalibrationMode: String, Sendable, Hashable, CaseIterable {
    /// The device did not move: the truth is the mean position (residuals in a `LocalFrame` at it).
    case stationary
    /// The device moved: the truth is the RTS-smoothed path (`RTSSmoother.run`).
    case track
}

/// Settings of a calibration run (all draws are seeded: same log and options → same output).
package struct CalibrationOptions: Sendable, Hashable {
    /// Seeds the block bootstrap and the synthetic drives (GSL mt19937 streams).
    package var seed: UInt64
    /// Block-bootstrap replicates for the moment intervals (20…100 000).
    package var replicates: Int
    /// Synthetic drives from the fitted block for the two-sample test's null distribution (19…9 999).
    package var nullDrives: Int
    /// Longest lag of the residual autocorrelation, seconds (capped at a quarter of the recording).
    package var maxLag_s: Double

    package static let replicateRange = 20...100_000
    /// At least 99 so that a Monte Carlo p-value can reach `GoodnessOfFit.alpha` = 0.01.
    package static let nullDriveRange = 99...9_999

    package init(seed: UInt64 = 1, replicates: Int = 200, nullDrives: Int = 199, maxLag_s: Double = 300) {
        self.seed = seed
        self.replicates = replicates
        self.nullDrives = nullDrives
        self.maxLag_s = maxLag_s
    }
}

/// The result of calibrating one device log.
package struct CalibrationResult: Sendable {
    package var file: String
    package var mode: CalibrationMode
    package var options: CalibrationOptions
    /// Residuals and reported accuracies that went into the fit.
    package var input: CalibrationInput
    /// Fixes used and why the others were dropped; sampling intervals and gaps.
    package var accounting: FixAccounting
    package var estimate: NoiseEstimate
    /// The recording's residual autocorrelation with its Bartlett band.
    package var acf: ResidualACF
    /// Whether the residuals look filtered upstream.
    package var filtered: FilteredResidualCheck
    /// Synthetic drives from the fitted block against the recording.
    package var goodness: GoodnessOfFit
    /// What the import skipped and assumed; an assumed accuracy makes the coverage figures say
    /// nothing about the device's own estimate (`accuracyVerdict`).
    package var ingest = DeviceLogIngest()

    /// The verdict's accuracy clause when the accuracy of any used fix rests on an assumption, else nil.
    package var accuracyVerdict: String? {
        let assumed = ingest.assumptions.filter(\.concernsAccuracy)
        guard !assumed.isEmpty else { return nil }
        return "accuracy assumed (\(assumed.map(\.description).joined(separator: "; "))): "
            + "the coverage figures say nothing about the device's own estimate"
    }

    /// Fixes left out (see `accounting`).
    package var skipped: Int { accounting.dropped }

    /// `{"noise": {...}, "accuracy": {...}}` in the scenario-file schema (docs/scenario-format.md).
    package var scenarioBlock: JSONValue { CalibrationRun.scenarioBlock(estimate) }

    /// Remarks the JSON block cannot carry (anisotropy, accuracy factor, outliers), one per line.
    package var notes: [String] { CalibrationRun.notes(estimate) }

    /// Warning lines: filtered residuals, a failed goodness-of-fit test, a recording sampled more
    /// coarsely than 1 Hz.
    package var warnings: [String] {
        var out: [String] = []
        if let w = filtered.warning { out.append(w) }
        if estimate.interval_s > CalibrationRun.oneHertzInterval_s {
            out.append(
                "sampled every \(ReportText.short(estimate.interval_s)) s (median interval), more coarsely than 1 Hz: the white σ describes the noise at that interval and cannot describe 1 Hz noise (noise correlated over less than the interval is folded into it)"
            )
        }
        if !goodness.matches { out.append(goodness.verdict) }
        if let tau = estimate.tau_s, tau > estimate.duration_s / 10 {
            out.append(
                "τ \(ReportText.short(tau)) s is more than a tenth of the recording (\(ReportText.short(estimate.duration_s)) s): record longer for a reliable bias"
            )
        }
        return out
    }
}

/// `fencelab calibrate`: residuals from a device log, `NoiseCalibrator`, a paste-ready noise block,
/// and a goodness-of-fit check against drives generated from that block.
package enum CalibrationRun {
    /// Accuracy factors within 1 ± this are written as `model: drms` (the device means DRMS).
    package static let drmsFactorTolerance = 0.15

    /// Median intervals above this many seconds are coarser than 1 Hz (1 s plus the jitter of a
    /// phone's 1 Hz delivery, which docs/calibration.md's example shows within 0.64–1.42 s).
    package static let oneHertzInterval_s = 1.5

    /// What the residuals of a recording are measured against (the synthetic drives are drawn around it).
    enum Truth {
        /// Stationary: the mean position, for every fix.
        case fixed(Coordinate)
        /// Track: the smoothed position of each used fix.
        case path([Coordinate])

        subscript(k: Int) -> Coordinate {
            switch self {
            case .fixed(let c): return c
            case .path(let p): return p[k]
            }
        }
    }

    /// The kept fixes and what the residuals are measured against (for synthetic drives).
    struct Residuals {
        var input: CalibrationInput
        var accounting: FixAccounting
        var truth: Truth
    }

    /// Residuals of the log's valid fixes against the mean position or the smoothed path.
    /// - Throws: `CalibrationError` when fewer than `NoiseCalibrator.minimumFixes` fixes remain.
    package static func input(
        _ log: DeviceLog, mode: CalibrationMode
    ) throws(CalibrationError) -> (CalibrationInput, accounting: FixAccounting) {
        let r = try residuals(ScreenedFixes(log), mode: mode)
        return (r.input, r.accounting)
    }

    /// Reads a device log keeping only the fixes a calibration can use (`ScreenedFixes`): the
    /// dropped rows are counted while reading, not stored (docs/device-logs.md, Memory).
    /// - Throws: `DeviceLogError` as `DeviceLogImporter.load` does.
    package static func load(
        path: String, format: DeviceLogFormat? = nil, options: DeviceLogReadOptions = .standard,
        limits: DeviceLogLimits = .standard
    ) throws(DeviceLogError) -> ScreenedFixes {
        var screened = ScreenedFixes(file: path)
        // Every fix is screened (and kept there) as it is read; the log itself keeps none.
        let log = try DeviceLogImporter.load(path: path, format: format, options: options, limits: limits) {
            screened.admit($0)
            return false
        }
        screened.ingest = log.ingest
        return screened
    }

    /// Consumes `screened`: its fixes and points are released once the residuals are taken.
    static func residuals(
        _ screened: consuming ScreenedFixes, mode: CalibrationMode
    ) throws(CalibrationError) -> Residuals {
        let kept = screened.count
        var accounting = screened.accounting
        guard kept >= NoiseCalibrator.minimumFixes else {
            throw .tooFewFixes(got: kept, needed: NoiseCalibrator.minimumFixes)
        }
        var r = try pipeline(count: kept, fix: screened.fix(at:), point: screened.point(at:), mode: mode)
        _ = consume screened
        accounting.rejectedByFilter = kept - r.input.times_s.count
        accounting.used = r.input.times_s.count
        accounting.describeSampling(r.input.times_s)
        r.accounting = accounting
        return r
    }

    /// The residuals of `count` fixes given by `fix(i)` and their positions `point(i)`, in arrays.
    static func pipeline(
        count: Int, fix: (Int) -> Fix, point: (Int) -> Coordinate, mode: CalibrationMode
    ) throws(CalibrationError) -> Residuals {
        var times: [Double] = []
        var residuals: [SIMD2<Double>] = []
        var accuracy: [Double] = []
        var path: [Coordinate] = []
        let truth = try residualPipeline(count: count, mode: mode, fix: fix, point: point) { used in
            times = Array(repeating: 0, count: used)
            residuals = Array(repeating: .zero, count: used)
            accuracy = Array(repeating: 0, count: used)
            if mode == .track { path = Array(repeating: point(0), count: used) }
        } emit: { k, i, residual, anchor in
            let f = fix(i)
            times[k] = f.timestamp_s
            residuals[k] = residual
            accuracy[k] = f.horizontalAccuracy_m
            if mode == .track { path[k] = anchor }
        }
        return Residuals(
            input: CalibrationInput(times_s: times, residuals_m: residuals, reportedAccuracy_m: accuracy),
            accounting: FixAccounting(), truth: truth ?? .path(path))
    }

    /// The residual pipeline shared by the recording and the synthetic drives, over `count` fixes
    /// given by `fix(i)` and their validated positions `point(i)` (asked for more than once, so
    /// nothing per fix is built here): calls `prepare(n)` with the number n of used fixes, then
    /// `emit(k, i, residual, truth)` once for each used fix k < n (fix i of the `count`).
    ///
    /// Stationary: every fix, in order, against the mean position (returned as `.fixed`).
    /// Track: the fixes the Kalman filter accepts, k descending, against the RTS-smoothed path
    /// (`RTSSmoother.smoothedPositions(count:…)`, memory independent of `count`); returns nil (the
    /// path is what `emit` was given).
    static func residualPipeline(
        count: Int, mode: CalibrationMode, fix: (Int) -> Fix, point: (Int) -> Coordinate,
        prepare: (Int) -> Void,
        emit: (_ k: Int, _ index: Int, _ residual: SIMD2<Double>, _ truth: Coordinate) -> Void
    ) throws(CalibrationError) -> Truth? {
        switch mode {
        case .stationary:
            let frame = LocalFrame(anchor: point(0))
            // A left fold from zero, as `reduce(.zero, +)` over the offsets adds them.
            var sum = SIMD2<Double>.zero
            for i in 0..<count { sum = sum + frame.offset_m(point(i)) }
            let centre = LocalFrame(anchor: frame.coordinate(sum / Double(count)))
            prepare(count)
            for i in 0..<count { emit(i, i, centre.offset_m(point(i)), centre.anchor) }
            return .fixed(centre.anchor)
        case .track:
            let filter: KalmanFilter
            do { filter = try KalmanFilter() } catch { throw .smoother(reason: "\(error)") }
            RTSSmoother.smoothedPositions(count: count, filter: filter, fix: fix, prepare: prepare) { k, i, position in
                let frame = LocalFrame(anchor: position)
                emit(k, i, frame.offset_m(point(i)), frame.anchor)
            }
            return nil
        }
    }

    /// Residuals, `NoiseCalibrator.estimate`, the autocorrelation checks and the goodness of fit.
    package static func run(
        _ log: DeviceLog, mode: CalibrationMode, options: CalibrationOptions = CalibrationOptions()
    ) throws(CalibrationError) -> CalibrationResult {
        try run(ScreenedFixes(log), mode: mode, options: options)
    }

    /// `run` on fixes already screened (`load`); pass them with `consume` so that they are
    /// released once the residuals are taken instead of being held through the goodness of fit.
    package static func run(
        _ screened: consuming ScreenedFixes, mode: CalibrationMode, options: CalibrationOptions = CalibrationOptions()
    ) throws(CalibrationError) -> CalibrationResult {
        guard CalibrationOptions.replicateRange.contains(options.replicates) else {
            throw .invalidOption(
                name: "replicates", value: options.replicates, range: CalibrationOptions.replicateRange)
        }
        guard CalibrationOptions.nullDriveRange.contains(options.nullDrives) else {
            throw .invalidOption(
                name: "nullDrives", value: options.nullDrives, range: CalibrationOptions.nullDriveRange)
        }
        let file = screened.file
        let ingest = screened.ingest
        let r = try residuals(consume screened, mode: mode)
        var estimate = try NoiseCalibrator.estimate(r.input, seed: options.seed, replicates: options.replicates)
        let series = ResidualSeries(times_s: r.input.times_s, residuals_m: r.input.residuals_m)
        if mode == .track {
            estimate = try undoSmootherShrinkage(estimate, recording: r, series: series, seed: options.seed)
        }
        let maxLag_s = min(options.maxLag_s, series.span_s / 4)
        let acf = ResidualACF(series, binWidth_s: series.medianInterval_s, maxLag_s: maxLag_s)
        let goodness = try GoodnessOfFit.evaluate(
            recording: r, series: consume series, acf: acf, estimate: estimate, mode: mode,
            options: options, maxLag_s: maxLag_s)
        let filtered = FilteredResidualCheck(
            acf, convexityNull: goodness.convexityNull, envelope: goodness.nullACFs,
            whiteFraction: estimate.whiteSigma_m
                / max(
                    1e-300,
                    (estimate.whiteSigma_m * estimate.whiteSigma_m + estimate.biasSigma_m * estimate.biasSigma_m)
                        .squareRoot()))
        return CalibrationResult(
            file: file, mode: mode, options: options, input: r.input, accounting: r.accounting,
            estimate: estimate, acf: acf, filtered: filtered, goodness: goodness, ingest: ingest)
    }

    /// `--track`: the RTS smoother follows part of the noise, so residuals against the smoothed path
    /// are smaller than the noise. Scales σ_w and σ_b until drives generated from the block and put
    /// through the same smoother have the recording's residual σ (fixed-point iteration, three
    /// rounds of two drives each; seeded streams). τ is not corrected.
    static func undoSmootherShrinkage(
        _ estimate: NoiseEstimate, recording r: Residuals, series: ResidualSeries,
        seed: UInt64
    ) throws(CalibrationError) -> NoiseEstimate {
        let target = estimate.intervals.perAxisSigma_m.value
        var e = estimate
        for round in 0..<3 {
            var sum = 0.0
            for drive in 0..<2 {
                let rng: RandomSource
                do {
                    rng = try RandomSource(
                        seed: SeedDerivation.streamSeed(
                            replicateSeed: seed, stream: 0x5CA1E_00 + UInt64(2 * round + drive)))
                } catch {
                    throw .random(reason: "\(error)")
                }
                let synthetic = try GoodnessOfFit.syntheticDrive(
                    r, recordingSeries: series, block: BlockParameters(e), mode: .track, rng: rng,
                    keepingAccuracy: false)
                sum += synthetic.series.perAxisVariance_m2.squareRoot()
            }
            let observed = sum / 2
            guard observed > 0, target > 0 else { break }
            e = e.scaled(by: target / observed)
        }
        return e
    }

    /// The block's parameters: white σ (the Student-t scale when ν is fitted, so that the white
    /// variance is σ²ν/(ν − 2) as DriveSim draws it), ν, bias, accuracy.
    struct BlockParameters {
        var sigma_m: Double, nu: Double?, biasSigma_m: Double, tau_s: Double?
        var drmsAccuracy: Bool, fixedAccuracy_m: Double, misreportSigma: Double

        init(_ e: NoiseEstimate) {
            nu = e.studentNu
            sigma_m = e.studentNu.map { e.whiteSigma_m * (($0 - 2) / $0).squareRoot() } ?? e.whiteSigma_m
            tau_s = e.biasSigma_m > 0 ? e.tau_s : nil
            biasSigma_m = tau_s == nil ? 0 : e.biasSigma_m
            drmsAccuracy = abs(e.accuracyFactor - 1) <= drmsFactorTolerance
            fixedAccuracy_m = e.reportedMedian_m
            misreportSigma = e.reportedLogSigma
        }

        /// DRMS of the noise the block generates: √(2σ_w² + 2σ_b²), with σ_w² = σ²ν/(ν − 2).
        var drms_m: Double {
            let white = sigma_m * sigma_m * (nu.map { $0 / ($0 - 2) } ?? 1)
            return (2 * white + 2 * biasSigma_m * biasSigma_m).squareRoot()
        }
    }

    /// The scenario-file `noise` and `accuracy` objects for an estimate.
    ///
    /// noise: `gaussian` with the white σ per axis (the t scale with tails); `tails` student-t when a ν was fitted;
    /// `bias` {sigma_m, tau_s} when a correlation time was fitted. accuracy: `drms` when the
    /// reported median is within ±15 % of the measured DRMS, else `fixed` at the reported
    /// median; `misreportSigma` = σ of ln(reported accuracy).
    package static func scenarioBlock(_ e: NoiseEstimate) -> JSONValue {
        let b = BlockParameters(e)
        var noise: [(String, JSONValue)] = [("model", .string("gaussian")), ("sigma_m", .number(b.sigma_m))]
        if let nu = b.nu { noise.append(("tails", .object([("kind", .string("student-t")), ("nu", .number(nu))]))) }
        if let tau = b.tau_s {
            noise.append(("bias", .object([("sigma_m", .number(b.biasSigma_m)), ("tau_s", .number(tau))])))
        }
        var accuracy: [(String, JSONValue)]
        if b.drmsAccuracy {
            accuracy = [("model", .string("drms"))]
        } else {
            accuracy = [("model", .string("fixed")), ("value_m", .number(b.fixedAccuracy_m))]
        }
        accuracy.append(("misreportSigma", .number(b.misreportSigma)))
        return .object([("noise", .object(noise)), ("accuracy", .object(accuracy))])
    }

    /// What the block cannot express, for the user to judge.
    package static func notes(_ e: NoiseEstimate) -> [String] {
        var out: [String] = []
        let f = ReportText.short
        let ratio = e.sigmaMinor_m > 0 ? e.sigmaMajor_m / e.sigmaMinor_m : .infinity
        if ratio > 1.1 {
            out.append(
                "anisotropic scatter: major/minor σ = \(f(e.sigmaMajor_m))/\(f(e.sigmaMinor_m)) m (ratio \(f(ratio))), major axis bearing \(f(e.majorAxisBearing_deg))°; the block uses the isotropic per-axis σ"
            )
        }
        if abs(e.accuracyFactor - 1) > drmsFactorTolerance {
            out.append(
                "reported accuracy median / measured DRMS = \(f(e.accuracyFactor)): the device does not report DRMS, so the block uses a fixed accuracy"
            )
        }
        if e.outlierFraction > 0.001 && e.studentNu == nil {
            out.append(
                "outlier fraction beyond 4 robust σ: \(f(e.outlierFraction)) (no Student-t fitted; consider tails.kind mixture)"
            )
        }
        return out
    }
}
