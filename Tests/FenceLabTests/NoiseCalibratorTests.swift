import Testing
import Foundation
import FenceLab
import GSLKit
import _TestSupport

@Suite struct NoiseCalibratorTests {
    /// Synthetic stationary recording: Gauss–Markov bias (σ_b, τ) plus white noise σ_w per axis, 1 Hz.
    static func recording(seconds: Int, white_m: Double, bias_m: Double, tau_s: Double, seed: UInt64) throws -> CalibrationInput {
        let rng = try RandomSource(seed: seed)
        let phi = exp(-1 / tau_s)
        let drive = bias_m * (1 - phi * phi).squareRoot()
        var bias = SIMD2(rng.gaussian(sigma: bias_m), rng.gaussian(sigma: bias_m))
        var residuals: [SIMD2<Double>] = []
        for _ in 0..<seconds {
            bias = bias * phi + SIMD2(rng.gaussian(sigma: drive), rng.gaussian(sigma: drive))
            residuals.append(bias + SIMD2(rng.gaussian(sigma: white_m), rng.gaussian(sigma: white_m)))
        }
        let drms = (2 * (white_m * white_m + bias_m * bias_m)).squareRoot()
        return CalibrationInput(times_s: (0..<seconds).map(Double.init), residuals_m: residuals,
                                reportedAccuracy_m: Array(repeating: drms, count: seconds))
    }

    @Test func recoversWhiteSigmaBiasAndTauOnTwoHoursAt1Hz() throws {
        let input = try Self.recording(seconds: 7200, white_m: 4, bias_m: 3, tau_s: 20, seed: 11)
        let e = try NoiseCalibrator.estimate(input)
        let total_m = (16.0 + 9).squareRoot()
        #expect(isClose((e.sigmaEast_m + e.sigmaNorth_m) / 2, total_m, relativeTolerance: 0.05))
        #expect(isClose(e.whiteSigma_m, 4, relativeTolerance: 0.05), "white σ \(e.whiteSigma_m)")
        let tau = try #require(e.tau_s)
        #expect(isClose(tau, 20, relativeTolerance: 0.15), "τ \(tau)")
        #expect(isClose(e.accuracyFactor, 1, relativeTolerance: 0.05))
        #expect(e.studentNu == nil)
    }

    @Test func whiteNoiseHasNoCorrelationTime() throws {
        let input = try Self.recording(seconds: 7200, white_m: 5, bias_m: 0, tau_s: 1, seed: 3)
        let e = try NoiseCalibrator.estimate(input)
        #expect(e.tau_s == nil)
        #expect(isClose(e.whiteSigma_m, 5, relativeTolerance: 0.03))
    }

    @Test func anisotropyAndBearingAreRecovered() throws {
        let rng = try RandomSource(seed: 5)
        // 8 m along a street bearing 30°, 2 m across it.
        let b = 30.0 * Double.pi / 180
        let along = SIMD2(sin(b), cos(b)), across = SIMD2(cos(b), -sin(b))
        let residuals = (0..<20_000).map { _ in along * rng.gaussian(sigma: 8) + across * rng.gaussian(sigma: 2) }
        let e = try NoiseCalibrator.estimate(CalibrationInput(
            times_s: (0..<20_000).map(Double.init), residuals_m: residuals,
            reportedAccuracy_m: Array(repeating: 10, count: 20_000)))
        #expect(isClose(e.sigmaMajor_m, 8, relativeTolerance: 0.03))
        #expect(isClose(e.sigmaMinor_m, 2, relativeTolerance: 0.03))
        #expect(isClose(e.majorAxisBearing_deg, 30, absoluteTolerance: 1.5))
    }

    @Test func refusesShortOrUnorderedRecordings() {
        #expect(throws: CalibrationError.tooFewFixes(got: 3, needed: 100)) {
            try NoiseCalibrator.estimate(CalibrationInput(times_s: [0, 1, 2], residuals_m: [.zero, .zero, .zero], reportedAccuracy_m: [5, 5, 5]))
        }
        var t = (0..<200).map(Double.init)
        t[50] = 49
        #expect(throws: CalibrationError.timesNotIncreasing(index: 50)) {
            try NoiseCalibrator.estimate(CalibrationInput(times_s: t, residuals_m: Array(repeating: .zero, count: 200), reportedAccuracy_m: [5]))
        }
    }
}
