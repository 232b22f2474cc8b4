import DeviceLogKit
import DriveSim
import FenceLab
import Foundation
import GeoPolicy
import Testing
import _TestSupport

@Suite struct DeviceReplayTests {
    static func path(_ name: String) -> String {
        TestPaths.packageRoot.appendingPathComponent("\(SyntheticDeviceLogs.folder)/\(name)").path
    }

    /// The committed logs are exactly what the generator produces (or are rewritten on request).
    @Test(arguments: ["drive", "loiter"]) func committedLogsAreRegenerated(_ which: String) throws {
        let log = which == "drive" ? try SyntheticDeviceLogs.drive() : try SyntheticDeviceLogs.loiter()
        let p = Self.path(log.name)
        if ProcessInfo.processInfo.environment["FENCELAB_WRITE_DEVICE_LOGS"] == "1" {
            try Data(log.csv.utf8).write(to: URL(fileURLWithPath: p))
        }
        let committed = try String(contentsOfFile: p, encoding: .utf8)
        #expect(
            committed == log.csv, "\(log.name) differs from the generator; regenerate with FENCELAB_WRITE_DEVICE_LOGS=1"
        )
    }

    /// Every injected fault is classified under its class at its line, nothing else fails
    /// except what was injected, and the injected matching events are matched.
    @Test(arguments: ["drive", "loiter"]) func replayClassifiesInjectedDivergences(_ which: String) throws {
        let log = which == "drive" ? try SyntheticDeviceLogs.drive() : try SyntheticDeviceLogs.loiter()
        let imported = try DeviceLogImporter.load(path: Self.path(log.name))
        let result = try DeviceReplay.run(imported, center: log.fence)
        let found = result.divergences.divergences.map { ($0.kind, result.line(of: $0) ?? -1) }
        for (kind, line) in log.expected {
            #expect(
                found.contains { $0 == kind && $1 == line },
                "\(log.name): expected \(kind) at line \(line); got \(result.divergenceLines)")
        }
        #expect(found.count == log.expected.count, "\(log.name): \(result.divergenceLines)")
        let matchedLines = result.divergences.matched.map { result.eventLines[$0.eventIndex] }
        #expect(matchedLines.sorted() == log.matchedEventLines.sorted())
        #expect(result.status == .failed)
        #expect(!log.expected.isEmpty)
    }

    @Test func driveLogShowsEveryFaultClass() throws {
        let log = try SyntheticDeviceLogs.drive()
        let classes = Set(log.expected.map(\.0))
        #expect(classes == [.unsupportedSystemEvent, .staleFix, .duplicateSystemEvent, .lateSystemEvent])
        #expect(log.expected.filter { $0.0 == .duplicateSystemEvent }.count == 2)
    }

    /// `now` is the newest timestamp so far: an in-order log is judged at each fix's own time,
    /// a fix older than maxAge behind the newest is stale.
    @Test func nowIsTheNewestTimestamp() throws {
        let c = try Coordinate(latitude: 0, longitude: 0)
        func fix(_ t: Double, _ line: Int) -> DeviceLogFix {
            DeviceLogFix(fix: Fix(timestamp_s: t, latitude: 0.01, longitude: 0, horizontalAccuracy_m: 5), line: line)
        }
        let log = DeviceLog(
            file: "t.csv", format: .csv, fixes: [fix(100, 2), fix(101, 3), fix(60, 4), fix(90, 5)], events: [])
        let r = try DeviceReplay.run(log, center: c, maxAge_s: 30)
        #expect(r.decisions.map(\.rejectionReason) == [nil, nil, "stale", "outOfOrder"])
        #expect(r.rejections == [ReasonCount(reason: "outOfOrder", count: 1), ReasonCount(reason: "stale", count: 1)])
        #expect(r.accepted == 2)
        #expect(r.notCovered.contains { $0.contains("background") })
    }

    @Test func summaryHasNoCoordinates() throws {
        let log = try SyntheticDeviceLogs.drive()
        let imported = try DeviceLogImporter.load(path: Self.path(log.name))
        let result = try DeviceReplay.run(imported, center: log.fence)
        let text = result.summaryLines.joined(separator: "\n")
        #expect(!text.contains("-16.8") && !text.contains("179.9"))
        #expect(text.contains("lateSystemEvent 1"))
    }
}
