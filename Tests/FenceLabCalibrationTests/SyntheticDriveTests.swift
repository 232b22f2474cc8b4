import GSLKit
import GeoPolicy
import Testing

@testable import FenceLabCalibration

/// `GoodnessOfFit.syntheticDrive` builds a drive without arrays of fixes, with its residuals
/// centred in place at the recording's times: the same bits as drawing the offsets into arrays,
/// building the fixes, running `CalibrationRun.pipeline` on them and centring a new
/// `ResidualSeries` (how drives were built before, and what the method in docs/calibration.md says).
@Suite struct SyntheticDriveTests {
    @Test(arguments: CalibrationMode.allCases)
    func syntheticDriveIsThePipelineOnTheDrawnFixes(mode: CalibrationMode) throws {
        let input = try NoiseCalibratorTests.recording(seconds: 1200, white_m: 4, bias_m: 2, tau_s: 20, seed: 71)
        let log = CalibrationRunTests.log(
            times: input.times_s, offsets: input.residuals_m, accuracy: input.reportedAccuracy_m)
        let r = try CalibrationRun.residuals(ScreenedFixes(log), mode: mode)
        let series = ResidualSeries(times_s: r.input.times_s, residuals_m: r.input.residuals_m)
        let estimate = try NoiseCalibrator.estimate(r.input, seed: 5, replicates: 20)
        let block = CalibrationRun.BlockParameters(estimate)

        let drive = try GoodnessOfFit.syntheticDrive(
            r, recordingSeries: series, block: block, mode: mode, rng: try RandomSource(seed: 17),
            keepingAccuracy: true)

        // The direct construction from the same stream.
        var fixes: [Fix] = []
        var points: [Coordinate] = []
        SyntheticNoise(block).draw(times_s: r.input.times_s, rng: try RandomSource(seed: 17)) {
            i, offset_m, accuracy_m in
            let c = LocalFrame(anchor: r.truth[i]).coordinate(offset_m)
            fixes.append(
                Fix(
                    timestamp_s: r.input.times_s[i], latitude: c.latitude, longitude: c.longitude,
                    horizontalAccuracy_m: accuracy_m))
            points.append(c)
        }
        let direct = try CalibrationRun.pipeline(
            count: fixes.count, fix: { fixes[$0] }, point: { points[$0] }, mode: mode)
        let expected = ResidualSeries(times_s: direct.input.times_s, residuals_m: direct.input.residuals_m)

        #expect(drive.series.count == r.input.times_s.count, "every fix used")
        #expect(drive.series.times_s == expected.times_s && drive.series.segmentStart == expected.segmentStart)
        #expect(drive.series.medianInterval_s == expected.medianInterval_s && drive.series.span_s == expected.span_s)
        #expect(drive.series.residuals_m == expected.residuals_m, "residuals bit for bit")
        #expect(drive.accuracy_m == direct.input.reportedAccuracy_m)
        // Centred: the mean residual is 0 to rounding (metres).
        let mean = drive.series.residuals_m.reduce(SIMD2<Double>.zero, +) / Double(drive.series.count)
        #expect(abs(mean.x) < 1e-9 && abs(mean.y) < 1e-9, "mean \(mean) m")
    }

    /// The pooled-quantile stride balances the two passes and stays within its bounds.
    @Test func pooledStrideGrowsWithTheSquareRootOfTheFixes() {
        #expect(GoodnessOfFit.pooledStride(fixes: 100) == 32)
        #expect(GoodnessOfFit.pooledStride(fixes: 270_000) == 51)
        #expect(GoodnessOfFit.pooledStride(fixes: 5_000_000) == 223)
        #expect(GoodnessOfFit.pooledStride(fixes: 1_000_000_000) == 1024)
    }
}
