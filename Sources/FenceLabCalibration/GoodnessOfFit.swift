import Foundation
import GSLKit
import GeoPolicy
import ReportKit

/// Drives generated from the fitted block at the recording's own timestamps, put through the same
/// residual pipeline, and a two-sample test against the recording.
///
/// Statistics: the Kolmogorov–Smirnov distance D between the residual radii |r| of the recording
/// and of synthetic drive 0, and the largest |ρ_rec(h) − ρ_syn(h)| over lags 1…30 s. Fixes are
/// autocorrelated, so the textbook KS p-value does not apply: both p-values are Monte Carlo
/// (Davison & Hinkley 1997, §4.2), p = (1 + #{null ≥ observed}) / (M + 1), with the null
/// statistics between drive i and drive 0 for M further drives from the same block.
package struct GoodnessOfFit: Sendable {
    /// Residual ACF of synthetic drive 0 and the pointwise 2.5…97.5 % envelope of the envelope drives.
    package var syntheticACF: ResidualACF
    package var syntheticLow: [Double]
    package var syntheticHigh: [Double]
    /// ACFs of the envelope drives (the null for `FilteredResidualCheck`'s negative ρ).
    package var nullACFs: [ResidualACF]
    /// Convexity excess ρ(h)² − ρ(2h) of every null drive (`FilteredResidualCheck`).
    package var convexityNull: [Double]
    package var ksDistance: Double
    package var ksP: Double
    package var acfDifference: Double
    package var acfDifferenceLag_s: Double
    package var acfP: Double
    package var drives: Int
    /// Coverage of the reported accuracy in synthetic drive 0.
    package var syntheticCoverage: Double
    /// QQ points (model quantile, recording quantile) of the per-axis residual components, metres;
    /// model quantiles from the pooled envelope drives.
    package var qq: [SIMD2<Double>]
    /// Reported accuracies of synthetic drive 0 (the recording's are in `CalibrationInput`).
    package var syntheticAccuracy_m: [Double]
    /// |r| / reported accuracy of each fix of synthetic drive 0.
    package var syntheticCoverageRatios: [Double]
    /// Lags compared by the ACF test.
    package static let acfTestLags_s = 1.0...30.0
    /// Significance level of each statistic.
    package static let alpha = 0.01
    /// Drives whose full ACF is kept for the envelope, the QQ model quantiles and the filter check.
    package static let envelopeDrives = 20

    package var matches: Bool { !(ksP <= Self.alpha) && !(acfP <= Self.alpha) }

    /// "synthetic noise matches the recording (…)" or which statistic does not.
    package var verdict: String {
        let f = ReportText.short
        let ks = "KS on residual radius D \(f(ksDistance)), p \(f(ksP))"
        let ac =
            acfDifference.isFinite
            ? "ACF 1–30 s max |Δρ| \(f(acfDifference)) at \(f(acfDifferenceLag_s)) s, p \(f(acfP))"
            : "ACF 1–30 s not testable (sampling interval > 30 s)"
        if matches { return "synthetic noise matches the recording (\(ks); \(ac); \(drives) null drives)" }
        var failed: [String] = []
        if ksP <= Self.alpha { failed.append("residual radius distribution differs (\(ks))") }
        if acfP <= Self.alpha { failed.append("autocorrelation at lags 1–30 s differs (\(ac))") }
        return "synthetic noise does not match the recording: " + failed.joined(separator: "; ")
    }

    /// Stride of the QQ model quantiles' `PooledQuantiles` for drives of `fixes` fixes. Its first
    /// pass keeps 16 bytes per `stride` of the 2 × fixes components of each of the 20 envelope
    /// drives (640·fixes/stride bytes), its second at most ≈ 2 × 20 × stride values (8 bytes) for
    /// each of the 199 quantiles (≈ 64 KB × stride): √(fixes/100) makes the two about equal
    /// (3.3 MB each at 270 000 fixes). Within 32…1024; the quantiles are exact for any stride.
    static func pooledStride(fixes: Int) -> Int {
        min(1024, max(32, Int((Double(fixes) / 100).squareRoot())))
    }

    /// Takes the recording's `series` for its times and segments; its residuals are released
    /// while the drives run and centred again from `r` for the two-sample statistics at the end.
    static func evaluate(
        recording r: CalibrationRun.Residuals, series: consuming ResidualSeries, acf: ResidualACF,
        estimate: NoiseEstimate,
        mode: CalibrationMode, options: CalibrationOptions, maxLag_s: Double
    ) throws(CalibrationError) -> GoodnessOfFit {
        series.residuals_m = []
        let block = CalibrationRun.BlockParameters(estimate)
        let binWidth = series.medianInterval_s
        let testLag = min(Self.acfTestLags_s.upperBound, maxLag_s)
        let shortLag = min(max(testLag, FilteredResidualCheck.convexityMaxLag_s), maxLag_s)
        // Of drive 0, what the null statistics compare with; what the report shows of it is taken
        // from drive 0 drawn again at the end.
        var syn0: (acf: ResidualACF, radii: [Double])?
        var nullACFs: [ResidualACF] = []
        let probabilities = (1...199).map { Double($0) / 200 }
        // The QQ model quantiles of the envelope drives' pooled east/north components, exact
        // without holding the pool: each drive is summarized here, and regenerated from its seed
        // for the second pass below.
        var pooled = PooledQuantiles(probabilities: probabilities, stride: Self.pooledStride(fixes: series.count))
        var ksNull: [Double] = []
        var acfNull: [Double] = []
        var convexityNull: [Double] = []
        func synthesize(_ index: Int, keepingAccuracy: Bool = false) throws(CalibrationError) -> SyntheticDrive {
            let rng: RandomSource
            do {
                rng = try RandomSource(
                    seed: SeedDerivation.streamSeed(replicateSeed: options.seed, stream: 0x5EED_0000 + UInt64(index)))
            } catch {
                throw .random(reason: "\(error)")
            }
            return try syntheticDrive(
                r, recordingSeries: series, block: block, mode: mode, rng: rng, keepingAccuracy: keepingAccuracy)
        }
        // One drive at a time: its residuals and sorted radii (and positions while it is built)
        // are the only per-fix arrays held beside the recording's and drive 0's radii.
        for drive in 0...options.nullDrives {
            var s = try synthesize(drive).series
            let envelope = drive <= Self.envelopeDrives
            let a = ResidualACF(s, binWidth_s: binWidth, maxLag_s: envelope ? maxLag_s : shortLag)
            var radii = s.residuals_m.map { ($0 * $0).sum().squareRoot() }
            radii.sort()
            if let base = syn0 {
                ksNull.append(ksDistance(radii, base.radii))
                acfNull.append(maxDifference(a, base.acf, upTo: testLag).value)
                convexityNull.append(FilteredResidualCheck.statistics(a).excess)
                if envelope {
                    nullACFs.append(a)
                    // The residuals are not needed any more: their east/north components, in
                    // place, are this drive's part of the pool (sorted there).
                    var components = s.residuals_m
                    s.residuals_m = []
                    components.withUnsafeMutableBufferPointer { pairs in
                        pairs.withMemoryRebound(to: Double.self) { pooled.summarize(sorting: $0) }
                    }
                }
            } else {
                syn0 = (a, radii)
            }
        }
        guard var base = syn0 else { throw .tooFewFixes(got: 0, needed: NoiseCalibrator.minimumFixes) }
        syn0 = nil
        let diff = maxDifference(acf, base.acf, upTo: testLag)
        func p(_ observed: Double, _ null: [Double]) -> Double {
            guard observed.isFinite else { return .nan }
            return Double(1 + null.filter { !($0 < observed) }.count) / Double(null.count + 1)
        }
        let (low, high) = envelope(nullACFs)
        for index in 1...min(Self.envelopeDrives, options.nullDrives) {
            for v in try synthesize(index).series.residuals_m {
                pooled.collect(v.x)
                pooled.collect(v.y)
            }
        }
        let model = (try? pooled.quantiles()) ?? []
        // The recording's centred residuals again (the same arithmetic as the series had).
        series = ResidualSeries(centring: r.input.residuals_m, atTimesOf: series)
        let d = ksDistance(series.residuals_m.map { ($0 * $0).sum().squareRoot() }.sorted(), base.radii)
        base.radii = []
        var recordComponents: [Double] = []
        recordComponents.reserveCapacity(2 * series.residuals_m.count)
        for v in series.residuals_m {
            recordComponents.append(v.x)
            recordComponents.append(v.y)
        }
        series.residuals_m = []
        let data = (try? Statistics.quantiles(reordering: &recordComponents, probabilities: probabilities)) ?? []
        recordComponents = []
        // Drive 0 again, with its accuracies: the coverage and what the report plots.
        let (zero, accuracy) = try synthesize(0, keepingAccuracy: true)
        let covered = zip(zero.residuals_m, accuracy).filter { ($0.0 * $0.0).sum() <= $0.1 * $0.1 }.count
        let ratios = zip(zero.residuals_m, accuracy).map { ($0 * $0).sum().squareRoot() / $1 }
        return GoodnessOfFit(
            syntheticACF: base.acf, syntheticLow: low, syntheticHigh: high, nullACFs: nullACFs,
            convexityNull: convexityNull,
            ksDistance: d, ksP: p(d, ksNull), acfDifference: diff.value, acfDifferenceLag_s: diff.lag_s,
            acfP: p(diff.value, acfNull),
            drives: options.nullDrives, syntheticCoverage: Double(covered) / Double(max(1, zero.count)),
            qq: zip(model, data).map { SIMD2($0, $1) }, syntheticAccuracy_m: accuracy,
            syntheticCoverageRatios: ratios)
    }

    /// A synthetic drive's residual series and the reported accuracy of each of its used fixes
    /// (empty unless kept).
    typealias SyntheticDrive = (series: ResidualSeries, accuracy_m: [Double])

    /// One synthetic drive: the block's noise at the recording's times around its truth, then the
    /// same residual pipeline (mean position, or the RTS smoother in track mode). Holds the drive's
    /// positions (16 bytes per fix) and accuracies (8) while the pipeline writes its residuals
    /// (16); the times and segments are the recording's unless the smoother dropped a fix. The
    /// accuracies are drawn in any case (the same stream) but held only when kept or when the
    /// smoother needs them (track).
    static func syntheticDrive(
        _ r: CalibrationRun.Residuals, recordingSeries: ResidualSeries, block: CalibrationRun.BlockParameters,
        mode: CalibrationMode, rng: RandomSource, keepingAccuracy: Bool
    ) throws(CalibrationError) -> SyntheticDrive {
        let times = r.input.times_s
        let n = times.count
        let holdAccuracy = keepingAccuracy || mode == .track
        var points: [Coordinate] = []
        var accuracy: [Double] = []
        points.reserveCapacity(n)
        if holdAccuracy { accuracy.reserveCapacity(n) }
        SyntheticNoise(block).draw(times_s: times, rng: rng) { i, offset_m, accuracy_m in
            points.append(LocalFrame(anchor: r.truth[i]).coordinate(offset_m))
            if holdAccuracy { accuracy.append(accuracy_m) }
        }
        var residuals: [SIMD2<Double>] = []
        var usedTimes: [Double] = []
        var usedAccuracy: [Double] = []
        var all = true
        _ = try CalibrationRun.residualPipeline(
            count: n, mode: mode,
            fix: {
                Fix(
                    timestamp_s: times[$0], latitude: points[$0].latitude, longitude: points[$0].longitude,
                    horizontalAccuracy_m: accuracy[$0])
            }, point: { points[$0] }
        ) { used in
            residuals = Array(repeating: .zero, count: used)
            all = used == n
            if !all {
                usedTimes = Array(repeating: 0, count: used)
                usedAccuracy = Array(repeating: 0, count: used)
            }
        } emit: { k, i, residual, _ in
            residuals[k] = residual
            if !all {
                usedTimes[k] = times[i]
                usedAccuracy[k] = accuracy[i]
            }
        }
        points = []
        if all {
            return (ResidualSeries(centring: residuals, atTimesOf: recordingSeries), keepingAccuracy ? accuracy : [])
        }
        return (ResidualSeries(times_s: usedTimes, residuals_m: residuals), usedAccuracy)
    }

    /// Two-sample Kolmogorov–Smirnov distance of sorted samples.
    static func ksDistance(_ a: [Double], _ b: [Double]) -> Double {
        var i = 0
        var j = 0
        var d = 0.0
        while i < a.count && j < b.count {
            let x = min(a[i], b[j])
            while i < a.count && a[i] <= x { i += 1 }
            while j < b.count && b[j] <= x { j += 1 }
            d = max(d, abs(Double(i) / Double(a.count) - Double(j) / Double(b.count)))
        }
        return d
    }

    /// Largest |ρ_a − ρ_b| over bins with lag in 1 s…`upTo`.
    static func maxDifference(_ a: ResidualACF, _ b: ResidualACF, upTo: Double) -> (value: Double, lag_s: Double) {
        var best = -Double.infinity
        var lag = Double.nan
        for k in 0..<min(a.rho.count, b.rho.count)
        where a.lags_s[k] >= Self.acfTestLags_s.lowerBound && a.lags_s[k] <= upTo {
            let d = abs(a.rho[k] - b.rho[k])
            if d.isFinite && d > best {
                best = d
                lag = a.lags_s[k]
            }
        }
        return (best.isFinite ? best : .nan, lag)
    }

    /// Pointwise 2.5 % and 97.5 % of the envelope drives' ρ.
    static func envelope(_ acfs: [ResidualACF]) -> ([Double], [Double]) {
        guard let bins = acfs.map(\.rho.count).min(), bins > 0 else { return ([], []) }
        var low: [Double] = []
        var high: [Double] = []
        for k in 0..<bins {
            let values = acfs.map { $0.rho[k] }.filter(\.isFinite)
            let q = (try? Statistics.quantiles(values, probabilities: [0.025, 0.975])) ?? [.nan, .nan]
            low.append(q[0])
            high.append(q[1])
        }
        return (low, high)
    }
}

/// Draws the noise and reported accuracy of the calibrated block at given times, with the models
/// of DriveSim's `NoiseProcess` / `AccuracyProcess`: isotropic Gaussian white noise (ziggurat),
/// Student-t tails as the white vector times √(ν/χ²_ν), a first-order Gauss–Markov bias per axis
/// discretised exactly by each Δt (φ = e^(−Δt/τ), innovation σ_b√(1 − φ²)) and started from its
/// stationary distribution, and the accuracy (DRMS of the block, or the fixed value) times a
/// log-normal mis-report.
struct SyntheticNoise {
    let block: CalibrationRun.BlockParameters
    init(_ block: CalibrationRun.BlockParameters) { self.block = block }

    /// Draws fix i's offset and reported accuracy, i = 0, 1, … in order, and hands each to `fix`.
    func draw(
        times_s: [Double], rng: RandomSource,
        fix: (_ index: Int, _ offset_m: SIMD2<Double>, _ accuracy_m: Double) -> Void
    ) {
        let base = block.drmsAccuracy ? block.drms_m : block.fixedAccuracy_m
        var bias = SIMD2<Double>.zero
        if block.tau_s != nil {
            bias = SIMD2(rng.gaussianZiggurat(sigma: block.biasSigma_m), rng.gaussianZiggurat(sigma: block.biasSigma_m))
        }
        for i in times_s.indices {
            var e = SIMD2(rng.gaussianZiggurat(sigma: block.sigma_m), rng.gaussianZiggurat(sigma: block.sigma_m))
            if let nu = block.nu { e *= (nu / rng.chiSquared(nu: nu)).squareRoot() }
            if let tau = block.tau_s, i > 0 {
                let phi = Foundation.exp(-(times_s[i] - times_s[i - 1]) / tau)
                let q = block.biasSigma_m * (1 - phi * phi).squareRoot()
                bias = bias * phi + SIMD2(rng.gaussianZiggurat(sigma: q), rng.gaussianZiggurat(sigma: q))
            }
            fix(
                i, e + bias,
                block.misreportSigma > 0 ? base * rng.logNormal(zeta: 0, sigma: block.misreportSigma) : base)
        }
    }
}
