import DriveSim
import FenceLab
import Foundation
import GeoPolicy
import Testing
import _TestSupport

/// `CalibrationRun` end to end: DriveSim generates 2 h at 1 Hz with known noise, the export is
/// imported as a device log, calibrated, and the known parameters come back.
@Suite struct CalibrationRunTests {
    static let white_m = 5.0, bias_m = 2.5, tau_s = 45.0

    static func scenarioJSON(noise: String, accuracy: String, seed: Int, route: String) -> String {
        """
        {"name": "calibration-test", "description": "known noise for calibration", "rulesVersion": "hysteresis-80-120-acc30", "seed": \(seed), "replicates": 1,
         "fence": {"center": [-33.86, 151.21], "rule": {"kind": "hysteresis", "enter_m": 80, "exit_m": 120, "maxAccuracy_m": 30}},
         "route": \(route),
         "sampling": {"rate_hz": 1, "duration_s": 7200},
         "noise": \(noise), "accuracy": \(accuracy)}
        """
    }

    static func log(_ json: String) throws -> DeviceLog {
        let spec = try ScenarioSpec.decode(Array(json.utf8), file: "calibration-test.json")
        let csv = try ScenarioExport.render(spec: spec, format: "csv", replicate: 0).text
        return try DeviceLogImporter.parse(bytes: Array(csv.utf8), file: "calibration-test.csv", format: .csv)
    }

    static let stationary = #"{"kind": "stationary", "distance_m": 300, "bearing_deg": 200}"#

    @Test func stationaryRecoversSigmaAndTau() throws {
        let noise = #"{"model": "gaussian", "sigma_m": 5, "bias": {"sigma_m": 2.5, "tau_s": 45}}"#
        let log = try Self.log(Self.scenarioJSON(noise: noise, accuracy: #"{"model": "drms", "misreportSigma": 0.3}"#,
                                                 seed: 77, route: Self.stationary))
        let r = try CalibrationRun.run(log, mode: .stationary)
        let e = r.estimate
        let total_m = (Self.white_m * Self.white_m + Self.bias_m * Self.bias_m).squareRoot()
        let perAxis_m = ((e.sigmaEast_m * e.sigmaEast_m + e.sigmaNorth_m * e.sigmaNorth_m) / 2).squareRoot()
        #expect(e.samples == 7200 && r.skipped == 0)
        #expect(isClose(e.whiteSigma_m, Self.white_m, relativeTolerance: 0.03), "white σ \(e.whiteSigma_m)")
        #expect(isClose(perAxis_m, total_m, relativeTolerance: 0.03), "per-axis σ \(perAxis_m) vs \(total_m)")
        let tau = try #require(e.tau_s)
        #expect(isClose(tau, Self.tau_s, relativeTolerance: 0.15), "τ \(tau)")
        #expect(isClose(e.reportedLogSigma, 0.3, relativeTolerance: 0.05), "misreport σ \(e.reportedLogSigma)")
        #expect(isClose(e.accuracyFactor, 1, absoluteTolerance: CalibrationRun.drmsFactorTolerance))
    }

    /// The printed block is a valid scenario noise/accuracy block: pasted into a scenario it decodes,
    /// and carries the fitted numbers.
    @Test func blockPastesIntoAScenario() throws {
        let noise = #"{"model": "gaussian", "sigma_m": 3, "bias": {"sigma_m": 2, "tau_s": 20}}"#
        let log = try Self.log(Self.scenarioJSON(noise: noise, accuracy: #"{"model": "fixed", "value_m": 20}"#,
                                                 seed: 5, route: Self.stationary))
        let r = try CalibrationRun.run(log, mode: .stationary)
        guard case let .object(pairs) = r.scenarioBlock else { Issue.record("not an object"); return }
        let noiseText = try #require(pairs.first { $0.0 == "noise" }?.1.serialized())
        let accuracyText = try #require(pairs.first { $0.0 == "accuracy" }?.1.serialized())
        let spec = try ScenarioSpec.decode(Array(Self.scenarioJSON(noise: noiseText, accuracy: accuracyText, seed: 1,
                                                                   route: Self.stationary).utf8), file: "pasted.json")
        #expect(spec.noise.bias?.tau_s == r.estimate.tau_s)
        // 20 m reported against a ~5 m DRMS: not DRMS semantics, so a fixed accuracy at the reported median.
        #expect(spec.accuracy.model == .fixed(value_m: r.estimate.reportedMedian_m))
        #expect(!r.notes.isEmpty)
    }

    /// A moving recording: residuals against the RTS-smoothed path. The smoother (default
    /// acceleration density 1 m²/s³) follows part of the noise, so the residual σ is biased low:
    /// documented as a limitation; measured 4.47 m for 5 m (−11 %). Checked: within −15 %…0 %.
    @Test func trackModeOnAMovingDrive() throws {
        let route = #"{"kind": "waypoints", "points": [[-33.86, 151.20], [-33.86, 151.30], [-33.80, 151.30]], "speed": {"profile": "constant", "speed_kmh": 36}}"#
        let json = Self.scenarioJSON(noise: #"{"model": "gaussian", "sigma_m": 5}"#, accuracy: #"{"model": "drms"}"#,
                                     seed: 9, route: route)
        let log = try Self.log(json)
        let r = try CalibrationRun.run(log, mode: .track)
        let perAxis_m = ((r.estimate.sigmaEast_m * r.estimate.sigmaEast_m + r.estimate.sigmaNorth_m * r.estimate.sigmaNorth_m) / 2).squareRoot()
        #expect(perAxis_m > 0.85 * 5 && perAxis_m <= 5, "per-axis σ \(perAxis_m)")
    }

    @Test func tooFewFixesIsAnError() throws {
        let log = DeviceLog(file: "short.csv", format: .csv, fixes: (0..<10).map {
            DeviceLogFix(fix: Fix(timestamp_s: Double($0), latitude: 1, longitude: 1, horizontalAccuracy_m: 5), line: $0 + 2)
        }, events: [])
        #expect(throws: CalibrationError.tooFewFixes(got: 10, needed: NoiseCalibrator.minimumFixes)) {
            try CalibrationRun.run(log, mode: .stationary)
        }
    }
}
