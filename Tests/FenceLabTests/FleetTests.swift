import DeviceLogKit
import Foundation
import GSLKit
import GeoPolicy
import Testing

@testable import FenceLab

/// Fleet figures, intervals, comparison and gate (docs/fleet.md).
@Suite struct FleetTests {
    static let centerLatitude = 52.52
    static let centerLongitude = 13.405
    static let metresPerDegreeLon = 111_320.0 * cos(52.52 * .pi / 180)

    /// A straight drive west to east through the centre at 10 m/s, one fix a second from
    /// x = −305 m (t = 0) to x = +295 m (t = 60), accuracy 5 m: the engine (80/120 m) enters at
    /// t = 23 s (x = −75 m) and exits at t = 43 s (x = 125 m).
    static func log(_ name: String, enterDelay_s: Double, exitDelay_s: Double?, duplicateEnter: Bool) -> DeviceLog {
        var fixes: [DeviceLogFix] = []
        for t in 0...60 {
            let x = -305.0 + 10 * Double(t)
            let fix = Fix(
                timestamp_s: Double(t), latitude: centerLatitude, longitude: centerLongitude + x / metresPerDegreeLon,
                horizontalAccuracy_m: 5)
            fixes.append(DeviceLogFix(fix: fix, line: t + 2))
        }
        var events = [SystemEvent(kind: .enter, timestamp_s: 23 + enterDelay_s, line: 100)]
        if duplicateEnter { events.append(SystemEvent(kind: .enter, timestamp_s: 28 + enterDelay_s, line: 101)) }
        if let exitDelay_s { events.append(SystemEvent(kind: .exit, timestamp_s: 43 + exitDelay_s, line: 102)) }
        return DeviceLog(file: name, format: .csv, fixes: fixes, events: events)
    }

    static func summary(_ index: Int, _ device: String, _ log: DeviceLog) throws -> FleetLogSummary {
        let replay = try DeviceReplay.run(
            log, center: try Coordinate(latitude: centerLatitude, longitude: centerLongitude))
        return FleetLogSummary(
            index: index, name: log.file, values: [device], replay: replay, events: log.events,
            band: FlutterBand(inner_m: 80, outer_m: 120))
    }

    static func figure(_ a: FleetAnalysis, _ values: [String], _ name: String) throws -> FleetInterval {
        let cohort = try #require(a.cohorts.first { $0.values == values })
        let i = try #require(FleetFigure.all.firstIndex { $0.name == name })
        return cohort.figures[i]
    }

    @Test func handBuiltCohortsGiveTheirKnownFigures() throws {
        var s: [FleetLogSummary] = []
        for i in 0..<3 {
            s.append(
                try Self.summary(
                    s.count, "a", Self.log("a\(i)", enterDelay_s: 10, exitDelay_s: 10, duplicateEnter: false)))
        }
        for i in 0..<3 {
            s.append(
                try Self.summary(
                    s.count, "b", Self.log("b\(i)", enterDelay_s: 20, exitDelay_s: 20, duplicateEnter: true)))
        }
        for i in 0..<2 {
            s.append(
                try Self.summary(
                    s.count, "c", Self.log("c\(i)", enterDelay_s: 10, exitDelay_s: nil, duplicateEnter: false)))
        }
        let a = FleetAnalysis.analyse(
            keys: ["device"], summaries: s,
            comparison: FleetComparisonSpec(key: "device", baseline: "a", candidate: "b"),
            gates: [FleetGate(figure: "delay_median_s", limit: 5)], seed: 7)
        // Every log: 2 engine crossings over 60 s of fixes.
        #expect(s.allSatisfy { $0.crossings == 2 && abs($0.hours - 60.0 / 3600) < 1e-12 })
        #expect(abs(try Self.figure(a, ["a"], "delay_median_s").estimate - 10) < 1e-9)
        #expect(abs(try Self.figure(a, ["b"], "delay_median_s").estimate - 20) < 1e-9)
        // Exit event at t = 53 s (a): last fix x = 225 m, 105 m past the 120 m exit radius; enter at
        // t = 33 s: x = 25 m, 55 m short of the 80 m enter radius. 2 m: the test's flat-earth
        // metres per degree against the engine's geodesic distance.
        #expect(abs(try Self.figure(a, ["a"], "exit_past_radius_median_m").estimate - 105) < 2)
        #expect(abs(try Self.figure(a, ["a"], "entry_before_radius_median_m").estimate - 55) < 2)
        // b: one duplicate per log: 3 over 3 minutes = 60 per hour, 3 over 6 crossings = 0.5 each.
        #expect(abs(try Self.figure(a, ["b"], "duplicate_per_h").estimate - 60) < 1e-9)
        #expect(abs(try Self.figure(a, ["b"], "duplicate_per_crossing").estimate - 0.5) < 1e-12)
        #expect(try Self.figure(a, ["a"], "duplicate_per_h").estimate == 0)
        // c: the exit is never reported: one missing event per log.
        #expect(abs(try Self.figure(a, ["c"], "missing_per_h").estimate - 60) < 1e-9)
        #expect(abs(try Self.figure(a, ["c"], "missing_per_crossing").estimate - 0.5) < 1e-12)
        #expect(abs(try Self.figure(a, ["c"], "failed_log_fraction").estimate - 1) < 1e-12)
        #expect(try Self.figure(a, ["a"], "missing_per_h").estimate == 0)
        // Sampling: 1 s intervals, no gap.
        #expect(abs(try Self.figure(a, ["a"], "interval_p95_s").estimate - 1) < 1e-9)
        #expect(try Self.figure(a, ["a"], "gaps_per_h").estimate == 0)
        // b − a: delay +10 s exactly (every log equal), beyond the 5 s gate: Mann–Whitney with the
        // candidate shifted by −5 s, U = 9 of 9, tie-corrected variance 4.05, continuity 0.5:
        // z = 4/√4.05, one-sided p = 0.02343, one gated row so Holm changes nothing: it fails.
        let row = try #require(a.rows.first { $0.figure == "delay_median_s" && $0.stratum == "all" })
        #expect(abs(row.difference.estimate - 10) < 1e-9)
        #expect(abs(row.difference.lower - 10) < 1e-9 && abs(row.difference.upper - 10) < 1e-9)
        #expect(row.limit == 5)
        #expect(abs(row.p - 0.023427) < 1e-5 && row.pHolm == row.p && row.failed)
        #expect(!a.gatePassed)
    }

    @Test func rejectionReasonsAndNISGiveTheirKnownFigures() throws {
        // NIS of hand-made innovations: ν = (3, 4) m with S = I m² gives 25, ν = (1, 1) with
        // S = diag(2, 2) gives 1, ν = (2, 0) with S = [[2, 1], [1, 2]] gives 4·2/3 = 8/3; a singular
        // S is not counted. χ²(2) at 95 %: −2 ln 0.05 = 5.991465.
        #expect(abs(InnovationSummary.upper95 - 5.991_464_547_107_979) < 1e-9)
        var nis = InnovationSummary()
        nis.record(Innovation(residual_m: SIMD2(3, 4), s00: 1, s01: 0, s11: 1))
        nis.record(Innovation(residual_m: SIMD2(1, 1), s00: 2, s01: 0, s11: 2))
        nis.record(Innovation(residual_m: SIMD2(2, 0), s00: 2, s01: 1, s11: 2))
        nis.record(Innovation(residual_m: SIMD2(1, 0), s00: 1, s01: 1, s11: 1))
        #expect(nis.count == 3 && nis.above95 == 1)
        #expect(abs(nis.sum - (25 + 1 + 8.0 / 3)) < 1e-12 && abs(nis.fractionAbove95 - 1.0 / 3) < 1e-15)

        // Per log: fractions 0, 0.1, 0.25 (cohort f) and no filter (cohort r).
        func log(_ i: Int, _ cohort: String, filter: Bool, innovations: Int, above: Int) -> FleetLogSummary {
            var s = FleetLogSummary(index: i, name: "l\(i)", values: [cohort], hours: 0.5, delayMedian_s: 10)
            s.hasFilter = filter
            s.innovations = innovations
            s.innovationsAbove95 = above
            // Rejections: log i has i+1 inaccurate fixes and, in cohort f, one out of order.
            s.rejectedByReason[try! #require(RejectionReason.allCases.firstIndex(of: .inaccurate))] = i + 1
            if cohort == "f" { s.rejectedByReason[RejectionReason.allCases.firstIndex(of: .outOfOrder)!] = 1 }
            return s
        }
        let logs = [
            log(0, "f", filter: true, innovations: 40, above: 0), log(1, "f", filter: true, innovations: 50, above: 5),
            log(2, "f", filter: true, innovations: 20, above: 5), log(3, "r", filter: false, innovations: 0, above: 0),
        ]
        let a = FleetAnalysis.analyse(keys: ["input"], summaries: logs, comparison: nil, gates: [])
        let f = try Self.figure(a, ["f"], FleetFigure.nisFigureName)
        #expect(abs(f.estimate - 0.1) < 1e-15 && f.lower == 0 && abs(f.upper - 0.25) < 1e-15)
        let r = try Self.figure(a, ["r"], FleetFigure.nisFigureName)
        #expect(r.estimate.isNaN && r.lower.isNaN && r.upper.isNaN)
        // Inaccurate: 1 + 2 + 3 over 1.5 h = 4 per hour (f); 4 over 0.5 h = 8 per hour (r).
        #expect(abs(try Self.figure(a, ["f"], "rejected_inaccurate_per_h").estimate - 4) < 1e-12)
        #expect(abs(try Self.figure(a, ["r"], "rejected_inaccurate_per_h").estimate - 8) < 1e-12)
        #expect(abs(try Self.figure(a, ["f"], "rejected_out_of_order_per_h").estimate - 2) < 1e-12)
        #expect(try Self.figure(a, ["r"], "rejected_out_of_order_per_h").estimate == 0)
        // Exact Poisson, 3 events in 1.5 h: [0.6187, 8.767] / 1.5 (Garwood).
        let ooo = try Self.figure(a, ["f"], "rejected_out_of_order_per_h")
        #expect(abs(ooo.lower - 0.6187 / 1.5) < 1e-3 && abs(ooo.upper - 8.767 / 1.5) < 1e-3)
        #expect(FleetFigure.named("rejected_stale_per_h") == nil && FleetFigure.named("stale_fixes_per_h") != nil)
        #expect(
            FleetFigure.all.map(\.name).filter { $0.hasPrefix("rejected_") && $0 != "rejected_fixes_per_h" } == [
                "rejected_invalid_timestamp_per_h", "rejected_invalid_coordinate_per_h",
                "rejected_invalid_accuracy_per_h", "rejected_inaccurate_per_h", "rejected_out_of_order_per_h",
                "rejected_duplicate_per_h",
            ])
    }

    @Test func replayCountsTheFilterInnovationsAndTheReasons() throws {
        // The straight drive of `log`, a fix repeated (duplicate) and one 100 s old (stale).
        var drive = Self.log("k", enterDelay_s: 5, exitDelay_s: 5, duplicateEnter: false)
        drive.fixes.insert(drive.fixes[10], at: 11)
        var old = drive.fixes[30]
        old.fix.timestamp_s -= 100
        drive.fixes.insert(old, at: 31)
        let center = try Coordinate(latitude: Self.centerLatitude, longitude: Self.centerLongitude)
        let raw = try DeviceReplay.run(drive, center: center)
        #expect(raw.innovation == nil)
        let kalman = try DeviceReplay.run(drive, center: center, input: try FenceInput(.kalman))
        let summary = try #require(kalman.innovation)
        // 63 fixes, 2 refused before the filter, the first has no innovation: 60.
        #expect(summary.count == 60)
        // The same NIS from a KalmanFilter fed the 61 fixes the monitor let through.
        var filter = try KalmanFilter()
        var reference = InnovationSummary()
        for (i, logged) in drive.fixes.enumerated() where i != 11 && i != 31 {
            var step = KalmanStep()
            try filter.update(logged.fix, recording: &step)
            guard !step.isFirst else { continue }
            let sigma = filter.convention.sigmaPerAxis_m(accuracy_m: logged.fix.horizontalAccuracy_m)
            let z = step.frame.offset_m(try logged.fix.coordinate())
            let x = step.predictedState
            let p = step.predictedCovariance
            reference.record(
                Innovation(
                    residual_m: z - SIMD2(x[0], x[1]), s00: p.p00 + sigma * sigma, s01: p.p01,
                    s11: p.p11 + sigma * sigma))
        }
        #expect(reference.count == summary.count && reference.above95 == summary.above95)
        #expect(abs(reference.sum - summary.sum) < 1e-6 * reference.sum)
        // The innovation path decides exactly as the plain one.
        let monitor = try FilteredFenceMonitor(
            monitor: FenceMonitor(center: center, evaluator: RuleSpec.default.evaluator(), maxAge_s: 30, logging: .off),
            input: FenceInput(.kalman))
        var plain = monitor
        var recording = monitor
        var frontier_s = -Double.infinity
        for logged in drive.fixes {
            frontier_s = max(frontier_s, logged.fix.timestamp_s)
            var nu: Innovation?
            let d = recording.process(logged.fix, now_s: frontier_s, innovation: &nu)
            #expect(d == plain.process(logged.fix, now_s: frontier_s))
        }
        let s = FleetLogSummary(
            index: 0, name: "k", values: ["x"], replay: kalman, events: drive.events,
            band: FlutterBand(inner_m: 80, outer_m: 120))
        #expect(s.hasFilter && s.innovations == 60)
        #expect(s.rejectedByReason[RejectionReason.allCases.firstIndex(of: .duplicate)!] == 1)
        #expect(s.rejectedByReason[RejectionReason.allCases.firstIndex(of: .stale)!] == 1 && s.stale == 1)
        #expect(s.rejected == 2)
    }

    /// Memory per log: a summary stays a few hundred bytes inline (the fleet keeps one per log), and
    /// the logs of a cohort share their values (`FleetRun`).
    @Test func aSummaryStaysSmall() {
        #expect(MemoryLayout<FleetLogSummary>.stride <= 256, "\(MemoryLayout<FleetLogSummary>.stride) bytes")
    }

    @Test func intervalsMatchPublishedValues() {
        // Wilson 0/10: upper 0.2775 (Newcombe 1998, table I); exact Poisson k = 0: upper 3.689,
        // k = 10: 4.795…18.39 (Garwood 1936 as tabulated by Ulm 1990).
        let w = FleetStatistics.wilson(0, 10)
        #expect(w.lower == 0 && abs(w.upper - 0.2775) < 5e-5)
        let p0 = FleetStatistics.poissonRate(0, exposure: 1)
        #expect(p0.lower == 0 && abs(p0.upper - 3.689) < 5e-4)
        let p10 = FleetStatistics.poissonRate(10, exposure: 2)
        #expect(abs(p10.estimate - 5) < 1e-12)
        #expect(abs(p10.lower - 4.795 / 2) < 5e-4 && abs(p10.upper - 18.39 / 2) < 5e-3)
        let holm = FleetStatistics.holm([0.01, 0.04, 0.03])
        #expect(abs(holm[0] - 0.03) < 1e-15 && abs(holm[1] - 0.06) < 1e-15 && abs(holm[2] - 0.06) < 1e-15)
        // Median of 1…100 with its order-statistic interval: ranks 40 and 61 (Conover's table, n = 100).
        let m = FleetStatistics.median((1...100).map(Double.init))
        #expect(m.estimate == 50.5 && m.lower == 40 && m.upper == 61)
    }

    /// Simulated at the per-log level: per-log median delays log-normal (median 30 s, σ 1.0 of the log),
    /// 200 logs per build, the candidate shifted by `shift_s`; the gate `delay_median_s:0`. With
    /// `throughAnalysis` every fleet goes through `FleetAnalysis.analyse` (every figure, every row);
    /// without, through the gate's own decision for this fleet (one key, one gated figure: one gated
    /// row in the stratum `all`, which Holm leaves as it is), checked against `analyse` on the
    /// first `crossChecked` fleets.
    static func gateFailureRate(
        shift_s: Double, fleets: Int, seed: UInt64, throughAnalysis: Bool, crossChecked: Int = 5
    ) throws -> (failures: Int, fleets: Int) {
        let rng = try RandomSource(seed: seed)
        let gate = FleetGate(figure: "delay_median_s", limit: 0)
        let figure = try #require(FleetFigure.named(gate.figure))
        var failures = 0
        for fleet in 0..<fleets {
            var s: [FleetLogSummary] = []
            for app in ["2.3.0", "2.3.1"] {
                for _ in 0..<200 {
                    let d = rng.logNormal(zeta: Foundation.log(30), sigma: 1.0) + (app == "2.3.1" ? shift_s : 0)
                    s.append(FleetLogSummary(index: s.count, name: "", values: [app], hours: 1, delayMedian_s: d))
                }
            }
            func analysed() -> Bool {
                !FleetAnalysis.analyse(
                    keys: ["app"], summaries: s,
                    comparison: FleetComparisonSpec(key: "app", baseline: "2.3.0", candidate: "2.3.1"),
                    gates: [gate], bootstrap: false
                ).gatePassed
            }
            let failed: Bool
            if throughAnalysis {
                failed = analysed()
            } else {
                let p = figure.compare(
                    baseline: s.filter { $0.values == ["2.3.0"] }, candidate: s.filter { $0.values == ["2.3.1"] },
                    limit: gate.limit, seed: 1, bootstrap: false
                ).p
                failed = p.isFinite && p < 1 - FleetStatistics.level
                if fleet < crossChecked { #expect(failed == analysed(), "fleet \(fleet): gate decision ≠ analyse") }
            }
            if failed { failures += 1 }
        }
        return (failures, fleets)
    }

    /// Power and size of the delay gate (docs/fleet.md, "Comparison and gate"). By default a quick
    /// check (60 fleets with the shift, 150 without, through the gate's decision); with
    /// `FENCELAB_SLOW_CHECKS=1` the documented one (200 and 400 fleets through `analyse`). Prints
    /// the observed rates with their Wilson intervals.
    @Test func powerAndSizeOfTheDelayGate() throws {
        let slow = ProcessInfo.processInfo.environment["FENCELAB_SLOW_CHECKS"] == "1"
        let power = try Self.gateFailureRate(
            shift_s: 30, fleets: slow ? 200 : 60, seed: 3301, throughAnalysis: slow)
        let size = try Self.gateFailureRate(shift_s: 0, fleets: slow ? 400 : 150, seed: 3302, throughAnalysis: slow)
        let pw = FleetStatistics.wilson(power.failures, power.fleets)
        let sz = FleetStatistics.wilson(size.failures, size.fleets)
        let mode = slow ? "full (FENCELAB_SLOW_CHECKS=1)" : "quick"
        print(
            "powerAndSizeOfTheDelayGate \(mode): detection \(power.failures)/\(power.fleets) = \(pw.estimate), 95 % Wilson \(pw.lower)…\(pw.upper); "
                + "false alarms \(size.failures)/\(size.fleets) = \(sz.estimate), 95 % Wilson \(sz.lower)…\(sz.upper)")
        // Detected in ≥ 90 % of fleets: the whole 95 % Wilson interval lies above 0.9 (quick: at most
        // one miss in 60).
        #expect(pw.lower >= 0.9, "power \(power.failures)/\(power.fleets), interval \(pw.lower)…\(pw.upper)")
        // False failures ≤ 5 %: the interval reaches down to 5 % or below, and is not far above it
        // (quick: 150 fleets, an interval about 1.3 times as wide as with 400).
        let upperBound = slow ? 0.1 : 0.12
        #expect(
            sz.lower <= 0.05 && sz.upper <= upperBound,
            "size \(size.failures)/\(size.fleets), interval \(sz.lower)…\(sz.upper)")
    }

    @Test func manifestProblemsNameTheLine() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data("x".utf8).write(to: dir.appendingPathComponent("a.csv"))
        let m = dir.appendingPathComponent("m.csv").path
        try Data("file,device,os,app,place\na.csv,p7,a14,2.3.0,home\nb.csv,p7,a14,2.3.0,home\n".utf8).write(
            to: URL(fileURLWithPath: m))
        expectFleetError("\(m):3: file b.csv does not exist") { _ = try FleetManifest.load(m) }
        try Data("file,device,os,app\na.csv,p7,a14,2.3.0\na.csv,p7,a14,2.3.1\n".utf8).write(to: URL(fileURLWithPath: m))
        expectFleetError("\(m):3: duplicate file a.csv (first listed at \(m):2)") { _ = try FleetManifest.load(m) }
        try Data("x".utf8).write(to: dir.appendingPathComponent("b.csv"))
        try Data("file,device,os,app,place\na.csv,p7,a14,2.3.0,home\nb.csv,p7,a14,2.3.1,\n".utf8).write(
            to: URL(fileURLWithPath: m))
        expectFleetError("\(m):3: cohort key place absent from some logs") { _ = try FleetManifest.load(m) }
        try Data("file,device,os,app,place\na.csv,p7,a14,2.3.0,home\nb.csv,p7,a14,2.3.1,work\n".utf8).write(
            to: URL(fileURLWithPath: m))
        let entries = try FleetManifest.load(m)
        #expect(entries.map(\.name) == ["a.csv", "b.csv"])
        #expect(entries[1].value("place") == "work" && entries[1].value("app") == "2.3.1")
        #expect(entries[0].path == dir.appendingPathComponent("a.csv").path)
    }
}

/// Records an issue unless `body` throws a `FleetError` whose text is `message`.
func expectFleetError(_ message: String, _ body: () throws -> Void) {
    do {
        try body()
        Issue.record("no error; expected \(message)")
    } catch {
        #expect((error as? FleetError)?.description == message)
    }
}
