import DeviceLogKit
import Foundation
import GSLKit
import GeoPolicy
import Testing
import _TestSupport

@testable import FenceLabCalibration

/// A calibration never contradicts itself: the nested fit never ends below the white fit it
/// contains, a figure the data cannot identify says so instead of showing a number with a
/// degenerate interval, the model choice names its condition, fractions stay within [0, 1], and
/// a recording sampled more coarsely than 1 Hz is warned about.
@Suite struct CalibrationConsistencyTests {
    /// White Gaussian residuals σ per axis at 1 Hz (seeded GSL stream).
    static func whiteSeries(seconds: Int, sigma_m: Double, seed: UInt64) throws -> ResidualSeries {
        let rng = try RandomSource(seed: seed)
        let residuals = (0..<seconds).map { _ in SIMD2(rng.gaussian(sigma: sigma_m), rng.gaussian(sigma: sigma_m)) }
        return ResidualSeries(times_s: (0..<seconds).map(Double.init), residuals_m: residuals)
    }

    /// A stationary device log: white noise σ per axis in metres around one point, one fix every
    /// `interval_s`, reported accuracy `accuracy(k)`.
    static func stationaryLog(
        fixes: Int, interval_s: Double, sigma_m: Double, seed: UInt64, accuracy: (Int) -> Double
    ) throws -> DeviceLog {
        let rng = try RandomSource(seed: seed)
        let metresPerDegree = 111_195.0
        let latitude = 52.5
        let fixesLogged = (0..<fixes).map { k in
            let north = rng.gaussian(sigma: sigma_m)
            let east = rng.gaussian(sigma: sigma_m)
            return DeviceLogFix(
                fix: Fix(
                    timestamp_s: 1_772_366_400 + Double(k) * interval_s, latitude: latitude + north / metresPerDegree,
                    longitude: 13.4 + east / (metresPerDegree * cos(latitude * .pi / 180)),
                    horizontalAccuracy_m: accuracy(k)),
                line: k + 1)
        }
        return DeviceLog(file: "generated.csv", format: .csv, fixes: fixesLogged, events: [])
    }

    static let quick = CalibrationOptions(seed: 5, replicates: 40, nullDrives: 99)

    /// A start far from the optimum (σ_w 1 cm, σ_b 30 m, τ 3000 s) and 5 iterations: Nelder–Mead
    /// alone stops far below the white fit; the fit still never reports less than the white model.
    @Test(arguments: [UInt64(1), 2, 3])
    func nestedFitStartedBadlyNeverEndsBelowTheWhiteFit(seed: UInt64) throws {
        let s = try Self.whiteSeries(seconds: 600, sigma_m: 3, seed: seed)
        let bad = SIMD3(log(0.01), log(30.0), log(3000.0))
        let fit = GaussMarkovFit.fit(s, start: bad, iterations: 5)
        let bounds = (tauMin: 0.2 * s.medianInterval_s, tauMax: 10 * s.span_s)
        let (_, alone) = NelderMead.maximise(start: bad, step: SIMD3(0.2, 0.2, 0.4), iterations: 5) {
            GaussMarkovFit.logLikelihood(s, theta: $0, bounds: bounds)
        }
        // The check can fail: without the white fit among the starts the optimiser ends below it.
        #expect(alone < fit.whiteLogLikelihood - 10, "Nelder–Mead alone: \(alone) vs white \(fit.whiteLogLikelihood)")
        #expect(fit.gmLogLikelihood >= fit.whiteLogLikelihood)
        #expect(fit.likelihoodRatio >= 0)
        #expect(fit.selected == .white)
        #expect(fit.selectedBecause.hasPrefix("likelihood ratio ") || fit.selectedBecause.contains("not identifiable"))
        // The default fit on the same data: never below either.
        let plain = GaussMarkovFit.fit(s)
        #expect(plain.gmLogLikelihood >= plain.whiteLogLikelihood && plain.likelihoodRatio >= 0)
        if let w = plain.gmWhiteSigma_m { #expect(w.lower <= w.value && w.value <= w.upper) }
    }

    @Test func constantReportedAccuracyMakesTheMisreportSpreadNotIdentifiable() throws {
        let constant = try Self.stationaryLog(fixes: 600, interval_s: 1, sigma_m: 3, seed: 7) { _ in 4 }
        let r = try CalibrationRun.run(constant, mode: .stationary, options: Self.quick)
        let e = r.estimate
        #expect(e.misreportNotIdentifiable == "every used fix reports the same accuracy (4 m)")
        #expect(e.intervals.reportedLogSigma.value.isNaN && e.intervals.reportedLogSigma.lower.isNaN)
        #expect(e.reportedLogSigma == 0)
        let lines = CalibrationReport.summaryLines(r)
        #expect(lines.contains("  mis-report σ      not identifiable: every used fix reports the same accuracy (4 m)"))
        // With a spread the figure is estimated, and it lies within its own interval.
        let varying = try Self.stationaryLog(fixes: 600, interval_s: 1, sigma_m: 3, seed: 7) { 3 + Double($0 % 5) }
        let v = try CalibrationRun.run(varying, mode: .stationary, options: Self.quick).estimate
        #expect(v.misreportNotIdentifiable == nil)
        let i = v.intervals.reportedLogSigma
        #expect(i.lower <= i.value && i.value <= i.upper, "\(i)")
    }

    /// 300 fixes 70 s apart: warned about; the model choice names its condition; the white fraction
    /// stays a fraction. 1 Hz: no sampling warning.
    @Test func coarseSamplingIsWarnedAboutAndTheChoiceNamesItsCondition() throws {
        let coarse = try Self.stationaryLog(fixes: 300, interval_s: 70, sigma_m: 3, seed: 9) { 3 + Double($0 % 4) }
        let r = try CalibrationRun.run(coarse, mode: .stationary, options: Self.quick)
        #expect(
            r.warnings.contains {
                $0.hasPrefix("sampled every 70 s (median interval), more coarsely than 1 Hz: ")
                    && $0.contains("cannot describe 1 Hz noise")
            }, "\(r.warnings)")
        let model = try #require(CalibrationReport.summaryLines(r).first { $0.hasPrefix("model: ") })
        #expect(model.contains(r.estimate.models.selectedBecause) && !r.estimate.models.selectedBecause.isEmpty)
        #expect((0...1).contains(r.filtered.whiteFraction))
        let fine = try Self.stationaryLog(fixes: 600, interval_s: 1, sigma_m: 3, seed: 9) { 3 + Double($0 % 4) }
        let f = try CalibrationRun.run(fine, mode: .stationary, options: Self.quick)
        #expect(!f.warnings.contains { $0.hasPrefix("sampled every") })
        #expect((0...1).contains(f.filtered.whiteFraction))
    }
}
