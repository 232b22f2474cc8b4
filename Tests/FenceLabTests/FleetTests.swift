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
    /// 200 logs per build, the candidate shifted by `shift_s`; the gate `delay_median_s:0`.
    static func gateFailureRate(shift_s: Double, fleets: Int, seed: UInt64) throws -> (failures: Int, fleets: Int) {
        let rng = try RandomSource(seed: seed)
        var failures = 0
        for _ in 0..<fleets {
            var s: [FleetLogSummary] = []
            for app in ["2.3.0", "2.3.1"] {
                for _ in 0..<200 {
                    let d = rng.logNormal(zeta: Foundation.log(30), sigma: 1.0) + (app == "2.3.1" ? shift_s : 0)
                    s.append(FleetLogSummary(index: s.count, name: "", values: [app], hours: 1, delayMedian_s: d))
                }
            }
            let a = FleetAnalysis.analyse(
                keys: ["app"], summaries: s,
                comparison: FleetComparisonSpec(key: "app", baseline: "2.3.0", candidate: "2.3.1"),
                gates: [FleetGate(figure: "delay_median_s", limit: 0)], bootstrap: false)
            if !a.gatePassed { failures += 1 }
        }
        return (failures, fleets)
    }

    @Test func powerAndSizeOfTheDelayGate() throws {
        let power = try Self.gateFailureRate(shift_s: 30, fleets: 200, seed: 3301)
        let size = try Self.gateFailureRate(shift_s: 0, fleets: 400, seed: 3302)
        let pw = FleetStatistics.wilson(power.failures, power.fleets)
        let sz = FleetStatistics.wilson(size.failures, size.fleets)
        // Detected in ≥ 90 % of fleets: the whole 95 % Wilson interval lies above 0.9.
        #expect(pw.lower >= 0.9, "power \(power.failures)/\(power.fleets), interval \(pw.lower)…\(pw.upper)")
        // False failures ≤ 5 %: the interval reaches down to 5 % or below, and is not far above it.
        #expect(
            sz.lower <= 0.05 && sz.upper <= 0.1,
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
