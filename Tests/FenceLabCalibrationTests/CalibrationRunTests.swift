import DeviceLogKit
import DriveSim
import FenceLab
import FenceLabCalibration
import Foundation
import GeoPolicy
import Testing
import _TestSupport

/// `CalibrationRun` end to end: DriveSim generates 2 h at 1 Hz with known noise, the export is
/// imported as a device log, calibrated, and the known parameters come back.
@Suite struct CalibrationRunTests {
    static let white_m = 5.0, bias_m = 2.5, tau_s = 45.0

    static func scenarioJSON(
        noise: String, accuracy: String, seed: Int, route: String, duration_s: Int = 7200
    ) -> String {
        """
        {"name": "calibration-test", "description": "known noise for calibration", "rulesVersion": "hysteresis-80-120-acc30", "seed": \(seed), "replicates": 1,
         "fence": {"center": [-33.86, 151.21], "rule": {"kind": "hysteresis", "enter_m": 80, "exit_m": 120, "maxAccuracy_m": 30}},
         "route": \(route),
         "sampling": {"rate_hz": 1, "duration_s": \(duration_s)},
         "noise": \(noise), "accuracy": \(accuracy)}
        """
    }

    static func log(_ json: String) throws -> DeviceLog {
        let spec = try ScenarioSpec.decode(Array(json.utf8), file: "calibration-test.json")
        let csv = try ScenarioExport.render(spec: spec, format: "csv", replicate: 0).text
        return try DeviceLogImporter.parse(bytes: Array(csv.utf8), file: "calibration-test.csv", format: .csv)
    }

    /// Fewer bootstrap replicates and null drives than the CLI default: the tests check values, and
    /// debug builds are slow.
    static let quick = CalibrationOptions(seed: 3, replicates: 40, nullDrives: 99)

    static let stationary = #"{"kind": "stationary", "distance_m": 300, "bearing_deg": 200}"#

    @Test func stationaryRecoversSigmaAndTau() throws {
        let noise = #"{"model": "gaussian", "sigma_m": 5, "bias": {"sigma_m": 2.5, "tau_s": 45}}"#
        let log = try Self.log(
            Self.scenarioJSON(
                noise: noise, accuracy: #"{"model": "drms", "misreportSigma": 0.3}"#,
                seed: 77, route: Self.stationary))
        let r = try CalibrationRun.run(log, mode: .stationary, options: Self.quick)
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
        let log = try Self.log(
            Self.scenarioJSON(
                noise: noise, accuracy: #"{"model": "fixed", "value_m": 20}"#,
                seed: 5, route: Self.stationary))
        let r = try CalibrationRun.run(log, mode: .stationary, options: Self.quick)
        guard case .object(let pairs) = r.scenarioBlock else {
            Issue.record("not an object")
            return
        }
        let noiseText = try #require(pairs.first { $0.0 == "noise" }?.1.serialized())
        let accuracyText = try #require(pairs.first { $0.0 == "accuracy" }?.1.serialized())
        let spec = try ScenarioSpec.decode(
            Array(
                Self.scenarioJSON(
                    noise: noiseText, accuracy: accuracyText, seed: 1,
                    route: Self.stationary
                ).utf8), file: "pasted.json")
        #expect(spec.noise.bias?.tau_s == r.estimate.tau_s)
        // 20 m reported against a ~5 m DRMS: not DRMS semantics, so a fixed accuracy at the reported median.
        #expect(spec.accuracy.model == .fixed(value_m: r.estimate.reportedMedian_m))
        #expect(!r.notes.isEmpty)
    }

    /// A moving recording: residuals against the RTS-smoothed path. The smoother (default
    /// acceleration density 1 m²/s³) follows part of the noise, so the residual σ is biased low:
    /// measured 4.47 m for 5 m (−11 %), checked within −15 %…0 %. The block's σ is scaled back
    /// (`undoSmootherShrinkage`) and must be within 5 % of 5 m.
    @Test func trackModeOnAMovingDrive() throws {
        let route =
            #"{"kind": "waypoints", "points": [[-33.86, 151.20], [-33.86, 151.30], [-33.80, 151.30]], "speed": {"profile": "constant", "speed_kmh": 36}}"#
        let json = Self.scenarioJSON(
            noise: #"{"model": "gaussian", "sigma_m": 5}"#, accuracy: #"{"model": "drms"}"#,
            seed: 9, route: route)
        let log = try Self.log(json)
        let r = try CalibrationRun.run(log, mode: .track, options: Self.quick)
        let perAxis_m =
            ((r.estimate.sigmaEast_m * r.estimate.sigmaEast_m + r.estimate.sigmaNorth_m * r.estimate.sigmaNorth_m) / 2)
            .squareRoot()
        #expect(perAxis_m > 0.85 * 5 && perAxis_m <= 5, "per-axis σ \(perAxis_m)")
        // The block's σ undoes that shrinkage: synthetic drives through the same smoother match.
        print(
            "track: residual σ \(perAxis_m) m, block white σ \(r.estimate.whiteSigma_m) m (scale \(r.estimate.smootherScale))"
        )
        #expect(isClose(r.estimate.whiteSigma_m, 5, relativeTolerance: 0.05), "white σ \(r.estimate.whiteSigma_m)")
        #expect(r.goodness.matches, "\(r.goodness.verdict)")
    }

    @Test func tooFewFixesIsAnError() throws {
        let log = DeviceLog(
            file: "short.csv", format: .csv,
            fixes: (0..<10).map {
                DeviceLogFix(
                    fix: Fix(timestamp_s: Double($0), latitude: 1, longitude: 1, horizontalAccuracy_m: 5), line: $0 + 2)
            }, events: [])
        #expect(throws: CalibrationError.tooFewFixes(got: 10, needed: NoiseCalibrator.minimumFixes)) {
            try CalibrationRun.run(log, mode: .stationary)
        }
    }

    static let anchor = try! Coordinate(latitude: 48.1374, longitude: 11.5755)

    /// Moving average over the fixes `before` earlier to `after` later (fewer at the ends).
    static func average(_ x: [SIMD2<Double>], before: Int, after: Int) -> [SIMD2<Double>] {
        x.indices.map { i in
            let lo = max(0, i - before)
            let hi = min(x.count - 1, i + after)
            return x[lo...hi].reduce(SIMD2<Double>.zero, +) / Double(hi - lo + 1)
        }
    }

    /// Generated noise (white + Gauss–Markov, 1 Hz), passed through `filter`, calibrated as a stationary log.
    static func calibrateFiltered(
        seconds: Int, white_m: Double, bias_m: Double, tau_s: Double, seed: UInt64,
        _ filter: ([SIMD2<Double>]) -> [SIMD2<Double>]
    ) throws -> CalibrationResult {
        let times = (0..<seconds).map(Double.init)
        let raw = try NoiseCalibratorTests.recording(
            times_s: times, white_m: white_m, bias_m: bias_m, tau_s: tau_s, seed: seed)
        return try CalibrationRun.run(
            log(times: times, offsets: filter(raw.residuals_m), accuracy: raw.reportedAccuracy_m),
            mode: .stationary, options: quick)
    }

    /// A device log whose fixes lie at `offsets` (east/north metres) from `anchor`.
    static func log(times: [Double], offsets: [SIMD2<Double>], accuracy: [Double]) -> DeviceLog {
        let frame = LocalFrame(anchor: anchor)
        let fixes = times.indices.map { i -> DeviceLogFix in
            let c = frame.coordinate(offsets[i])
            return DeviceLogFix(
                fix: Fix(
                    timestamp_s: times[i], latitude: c.latitude, longitude: c.longitude,
                    horizontalAccuracy_m: accuracy[i]), line: i + 2)
        }
        return DeviceLog(file: "generated.csv", format: .csv, fixes: fixes, events: [])
    }

    /// Irregular 0.5–5 s sampling with gaps, plus re-delivered fixes (same time), one out-of-order
    /// fix and invalid accuracies: those are dropped and counted, the gaps bridged, and the known
    /// parameters come back within the issue's tolerances.
    @Test func irregularLogWithGapsDuplicatesAndInvalidFixes() throws {
        let times = try NoiseCalibratorTests.irregularTimes(duration_s: 8 * 3600, seed: 7)
        let clean = try NoiseCalibratorTests.recording(times_s: times, white_m: 4, bias_m: 3, tau_s: 30, seed: 8)
        var t = clean.times_s
        var o = clean.residuals_m
        var a = clean.reportedAccuracy_m
        // Every 100th fix re-delivered (same time, same place) → duplicateTimestamp.
        var k = t.count - 1
        while k > 0 {
            if k % 100 == 0 {
                t.insert(t[k], at: k + 1)
                o.insert(o[k], at: k + 1)
                a.insert(a[k], at: k + 1)
            }
            k -= 1
        }
        // One fix back in time → outOfOrder; three invalid accuracies (−1, NaN, 0) → invalidAccuracy.
        t.insert(t[500] - 0.25, at: 501)
        o.insert(o[500], at: 501)
        a.insert(a[500], at: 501)
        a[1000] = -1
        a[2000] = .nan
        a[3000] = 0
        let r = try CalibrationRun.run(
            Self.log(times: t, offsets: o, accuracy: a), mode: .stationary, options: Self.quick)
        let acc = r.accounting
        let duplicates = (1...(clean.times_s.count - 1)).filter { $0 % 100 == 0 }.count
        #expect(acc.read == t.count)
        #expect(acc.duplicateTimestamp == duplicates, "\(acc)")
        #expect(acc.outOfOrder == 1)
        #expect(acc.invalidAccuracy == 3)
        #expect(acc.used == clean.times_s.count - 3)
        #expect(acc.gaps >= 10, "gaps \(acc.gaps)")
        #expect(acc.longestGap_s > 60)
        let e = r.estimate
        let tau = try #require(e.tau_s)
        print("irregular log: \(acc.summary); white \(e.whiteSigma_m) m, bias \(e.biasSigma_m) m, tau \(tau) s")
        #expect(
            isClose(e.whiteSigma_m, 4, relativeTolerance: NoiseCalibratorTests.whiteTolerance),
            "white σ \(e.whiteSigma_m)")
        #expect(
            isClose(e.biasSigma_m, 3, relativeTolerance: NoiseCalibratorTests.biasTolerance), "bias σ \(e.biasSigma_m)")
        #expect(isClose(tau, 30, relativeTolerance: NoiseCalibratorTests.tauTolerance), "τ \(tau)")
        #expect(!r.filtered.detected, "\(r.filtered)")
        #expect(r.goodness.matches, "\(r.goodness.verdict)")
        // Sampled every 0.5–5 s (median ≈ 2.8 s): coarser than 1 Hz, so the one warning is that one.
        #expect(r.warnings.count == 1 && r.warnings[0].hasPrefix("sampled every "), "\(r.warnings)")
        let summary = CalibrationReport.summaryLines(r).joined(separator: "\n")
        #expect(
            summary.contains("\(duplicates) duplicateTimestamp") && summary.contains("1 outOfOrder")
                && summary.contains("3 invalidAccuracy"))
    }

    /// White + Gauss–Markov noise passed through a 5-fix moving average (what a provider's smoothing
    /// does): the tool must say the residuals look filtered — in the warnings, the JSON and the HTML —
    /// and the two-sample test must not call it a match.
    @Test func movingAverageSmoothedInputIsReportedAsFiltered() throws {
        let r = try Self.calibrateFiltered(seconds: 7200, white_m: 4, bias_m: 2, tau_s: 20, seed: 51) {
            Self.average($0, before: 4, after: 0)
        }
        print(
            "moving average: lag-1 ρ \(r.filtered.lag1Rho), convexity excess \(r.filtered.convexityExcess) at \(r.filtered.convexityLag_s) s; \(r.goodness.verdict)"
        )
        #expect(r.filtered.detected)
        let warning = try #require(r.filtered.warning)
        #expect(warning.contains("smoothed/filtered upstream"))
        #expect(r.warnings.contains(warning))
        #expect(CalibrationReport.summaryLines(r).contains("WARNING: " + warning))
        let json = CalibrationReport.json(r).serialized()
        #expect(json.contains("smoothed/filtered upstream"))
        #expect(CalibrationHTML.render(r).contains("smoothed/filtered upstream"))
        #expect(!r.goodness.matches, "\(r.goodness.verdict)")
    }

    /// A slow bias dominating, smoothed by a 5-fix moving average (the shipped 2 h example
    /// smoothed): the ACF barely bends, but no white part is left, and the tool says so.
    @Test func smoothedBiasDominatedInputIsReportedAsFiltered() throws {
        let r = try Self.calibrateFiltered(seconds: 3600, white_m: 4, bias_m: 3, tau_s: 30, seed: 53) {
            Self.average($0, before: 4, after: 0)
        }
        print(
            "smoothed bias: white fraction \(r.filtered.whiteFraction), lag-1 ρ \(r.filtered.lag1Rho); \(r.goodness.verdict)"
        )
        #expect(r.filtered.noWhiteFlag)
        #expect(r.filtered.warning?.contains("no independent (white) part left") == true)
    }

    /// An ACF that dips negative (a provider's Kalman filter seen against a smoothed path, as in
    /// the issue's road-test trace): a 3-fix average minus its 15-fix centred average.
    @Test func negativeAutocorrelationIsReportedAsFiltered() throws {
        // Low-pass (3-fix average) then high-pass (minus the 15-fix average): lag-1 high, then negative.
        let r = try Self.calibrateFiltered(seconds: 7200, white_m: 4, bias_m: 0.001, tau_s: 1, seed: 52) { residuals in
            let low = Self.average(residuals, before: 1, after: 1)
            return zip(low, Self.average(low, before: 7, after: 7)).map { $0 - $1 }
        }
        print(
            "band-pass: lag-1 ρ \(r.filtered.lag1Rho), minimum ρ \(r.filtered.minimumRho) at \(r.filtered.minimumRhoLag_s) s"
        )
        #expect(r.filtered.negativeFlag)
        #expect(r.filtered.warning?.contains("negative at") == true)
    }

    /// The issue's case: a car trace whose provider smoothed the fixes (here a centred 5-fix
    /// average of the coordinates), calibrated with --track: the residuals against our smoothed path
    /// go negative at a few seconds, and the tool says so instead of printing a plain block.
    @Test func providerSmoothedCarTraceIsReportedAsFiltered() throws {
        let route =
            #"{"kind": "waypoints", "points": [[-33.86, 151.20], [-33.86, 151.30]], "speed": {"profile": "constant", "speed_kmh": 50}}"#
        let json = Self.scenarioJSON(
            noise: #"{"model": "gaussian", "sigma_m": 5, "bias": {"sigma_m": 3, "tau_s": 60}}"#,
            accuracy: #"{"model": "drms"}"#, seed: 10, route: route, duration_s: 1800)
        let log = try Self.log(json)
        let frame = LocalFrame(
            anchor: try Coordinate(latitude: log.fixes[0].fix.latitude, longitude: log.fixes[0].fix.longitude))
        let offsets = log.fixes.map {
            frame.offset_m(try! Coordinate(latitude: $0.fix.latitude, longitude: $0.fix.longitude))
        }
        let smoothed = Self.average(offsets, before: 2, after: 2)
        var provider = log
        for i in provider.fixes.indices {
            let c = frame.coordinate(smoothed[i])
            provider.fixes[i].fix.latitude = c.latitude
            provider.fixes[i].fix.longitude = c.longitude
        }
        let r = try CalibrationRun.run(provider, mode: .track, options: Self.quick)
        print(
            "provider-smoothed car trace: ρ \(r.filtered.lag1Rho) at 1 s, minimum \(r.filtered.minimumRho) at \(r.filtered.minimumRhoLag_s) s; \(r.goodness.verdict)"
        )
        #expect(r.filtered.detected)
        #expect(r.filtered.warning?.contains("smoothed/filtered upstream") == true)
        // The unsmoothed trace through the same pipeline raises no such warning.
        #expect(!(try CalibrationRun.run(log, mode: .track, options: Self.quick)).filtered.detected)
    }

    /// `CalibrationRun.load` screens fixes while reading (out-of-order days, re-delivered and invalid
    /// rows counted, not stored) and gives the same result as calibrating the whole imported log:
    /// the same calibration.json in both modes and the same accounting.
    @Test func loadScreensWhileReadingWithTheSameResult() throws {
        let input = try NoiseCalibratorTests.recording(seconds: 900, white_m: 3, bias_m: 2, tau_s: 15, seed: 62)
        let frame = LocalFrame(anchor: Self.anchor)
        var csv = "timestamp,latitude,longitude,horizontal_accuracy,event\n"
        // The recording, then a second copy of it (every row earlier than the last kept: out of
        // order), a re-delivered row, an invalid accuracy, a latitude of 91 and an event-only row.
        for copy in 0..<2 {
            for i in input.times_s.indices {
                let c = frame.coordinate(input.residuals_m[i])
                csv += "\(input.times_s[i]),\(c.latitude),\(c.longitude),\(input.reportedAccuracy_m[i]),\n"
                if copy == 0 && i == 10 { csv += "\(input.times_s[i]),\(c.latitude),\(c.longitude),3,\n" }
                if copy == 0 && i == 20 { csv += "\(input.times_s[i] + 0.5),\(c.latitude),\(c.longitude),-1,\n" }
                if copy == 0 && i == 30 { csv += "\(input.times_s[i] + 0.5),91,\(c.longitude),4,enter\n" }
            }
        }
        csv += "\(input.times_s.last! + 1),,,,exit\n"
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "calibration-load-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("log.csv").path
        try Data(csv.utf8).write(to: URL(fileURLWithPath: path))

        let screened = try CalibrationRun.load(path: path)
        let n = input.times_s.count
        #expect(screened.fixes.count == n && screened.points.count == n, "only the usable fixes are held")
        #expect(screened.accounting.read == 2 * n + 3)
        // Copy 2's last row has the last kept time: a duplicate; the rest of copy 2 is out of order.
        #expect(screened.accounting.outOfOrder == n - 1 && screened.accounting.duplicateTimestamp == 2)
        #expect(screened.accounting.invalidAccuracy == 1 && screened.accounting.invalidCoordinate == 1)
        let whole = try DeviceLogImporter.load(path: path)
        #expect(whole.fixes.count == 2 * n + 3)
        let options = CalibrationOptions(seed: 4, replicates: 30, nullDrives: 99)
        for mode in CalibrationMode.allCases {
            let a = try CalibrationRun.run(screened, mode: mode, options: options)
            let b = try CalibrationRun.run(whole, mode: mode, options: options)
            #expect(a.accounting == b.accounting, "\(mode)")
            #expect(CalibrationReport.json(a).serialized() == CalibrationReport.json(b).serialized(), "\(mode)")
        }
    }

    /// Same log and seed → byte-identical calibration.json, without coordinates.
    @Test func sameSeedSameReport() throws {
        let input = try NoiseCalibratorTests.recording(seconds: 1500, white_m: 3, bias_m: 2, tau_s: 15, seed: 61)
        let log = Self.log(times: input.times_s, offsets: input.residuals_m, accuracy: input.reportedAccuracy_m)
        let options = CalibrationOptions(seed: 9, replicates: 30, nullDrives: 99)
        let a = CalibrationReport.json(try CalibrationRun.run(log, mode: .stationary, options: options)).serialized()
        let b = CalibrationReport.json(try CalibrationRun.run(log, mode: .stationary, options: options)).serialized()
        #expect(a == b)
        #expect(!a.contains("48.137") && !a.contains("11.575"), "no coordinates in calibration.json")
        // Every key of calibration.json (top level and one level down) is named in its contract.
        let page = try String(contentsOfFile: "docs/report-format.md", encoding: .utf8)
        let section = try #require(page.range(of: "## `calibration.json`").map { String(page[$0.upperBound...]) })
        let json = try #require(JSONSerialization.jsonObject(with: Data(a.utf8)) as? [String: Any])
        var keys = Array(json.keys)
        for case (let key, let inner as [String: Any]) in json where key != "scenario" { keys += inner.keys }
        let missing = Set(keys).filter { !section.contains("`\($0)`") }
        #expect(missing.isEmpty, "calibration.json keys not in docs/report-format.md: \(missing.sorted())")
    }
}
