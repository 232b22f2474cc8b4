import DeviceLogKit
import DriveSim
import FenceLab
import Foundation
import GeoPolicy
import _TestSupport

/// Generates the two synthetic example device logs in scenarios/device-logs/ from catalog
/// scenarios: `fencelab export` (replicate 0, CSV) plus system `event` rows with injected faults.
/// Regenerate with `FENCELAB_WRITE_DEVICE_LOGS=1 swift test --filter DeviceReplayTests`.
enum SyntheticDeviceLogs {
    /// One generated log, the fence it was recorded against and the divergences it must show.
    struct Log {
        var name: String
        var fence: Coordinate
        var csv: String
        /// (class, 1-based line) of every injected fault.
        var expected: [(DivergenceClass, Int)]
        /// Lines of the injected events that must match an engine transition.
        var matchedEventLines: [Int]
    }

    /// An extra row after data row `afterRow` (0-based), optionally expected under a class.
    struct Injection {
        var afterRow: Int
        var text: String
        var expected: DivergenceClass?
        var matched = false
    }

    static let folder = "scenarios/device-logs"

    static func exportRows(
        _ scenario: String, limit_s: Double? = nil
    ) throws -> (header: String, rows: [String], fixes: [DeviceLogFix]) {
        let spec = try ScenarioSpec.load(
            path: TestPaths.packageRoot.appendingPathComponent("scenarios/\(scenario).json").path)
        let text = try ScenarioExport.render(spec: spec, format: "csv", replicate: 0).text
        var lines = text.split(separator: "\n").map(String.init)
        let header = lines.removeFirst()
        let log = try DeviceLogImporter.parse(bytes: Array(text.utf8), file: scenario, format: .csv)
        guard let limit = limit_s, let t0 = log.fixes.first?.fix.timestamp_s else { return (header, lines, log.fixes) }
        let keep = log.fixes.prefix { $0.fix.timestamp_s - t0 < limit }.count
        return (header, Array(lines.prefix(keep)), Array(log.fixes.prefix(keep)))
    }

    /// Engine crossings (fix index, new state) of the clean rows.
    static func crossings(_ fixes: [DeviceLogFix], fence: Coordinate) throws -> [(Int, FenceState)] {
        let log = DeviceLog(file: "clean", format: .csv, fixes: fixes, events: [])
        let r = try DeviceReplay.run(log, center: fence)
        return r.decisions.filter {
            $0.isAccepted && $0.oldState != .unknown && $0.newState != $0.oldState && $0.newState != .unknown
        }
        .map { ($0.index, $0.newState) }
    }

    /// The timestamp text of a row (first field).
    static func time(_ row: String) -> String { String(row.split(separator: ",", omittingEmptySubsequences: false)[0]) }

    static func event(_ kind: String, at row: String) -> String { "\(time(row)),,,,,,\(kind)" }

    static func assemble(
        _ name: String, fence: Coordinate, header: String, rows: [String], injections: [Injection],
        flutterRows: [Int] = []
    ) -> Log {
        var out = [header]
        var rowLine: [Int] = []
        var expected: [(DivergenceClass, Int)] = []
        var matched: [Int] = []
        for (i, row) in rows.enumerated() {
            out.append(row)
            rowLine.append(out.count)
            for inj in injections where inj.afterRow == i {
                out.append(inj.text)
                if let c = inj.expected { expected.append((c, out.count)) }
                if inj.matched { matched.append(out.count) }
            }
        }
        expected += flutterRows.map { (.ruleFlutter, rowLine[$0]) }
        return Log(
            name: name, fence: fence, csv: out.joined(separator: "\n") + "\n", expected: expected,
            matchedEventLines: matched)
    }

    /// A drive through the Fiji fence on the antimeridian (dateline-fiji): the enter is
    /// delivered three times (two duplicates), an enter arrives while the fixes put the device
    /// far outside (unsupported), the exit arrives 90 s late, and a fix 40 s old is delivered
    /// right after the enter (stale).
    static func drive() throws -> Log {
        let fence = try Coordinate(latitude: -16.8075, longitude: 180.0)
        let (header, rows, fixes) = try exportRows("dateline-fiji")
        let cross = try crossings(fixes, fence: fence)
        guard let enter = cross.first(where: { $0.1 == .inside })?.0,
            let exit = cross.first(where: { $0.1 == .outside && $0.0 > enter })?.0
        else { throw GenerationError.noCrossing }
        let injections = [
            Injection(afterRow: 200, text: event("enter", at: rows[200]), expected: .unsupportedSystemEvent),
            Injection(afterRow: enter + 3, text: event("enter", at: rows[enter + 3]), expected: nil, matched: true),
            Injection(afterRow: enter + 5, text: rows[enter + 5 - 40], expected: .staleFix),
            Injection(afterRow: enter + 6, text: event("enter", at: rows[enter + 6]), expected: .duplicateSystemEvent),
            Injection(afterRow: enter + 9, text: event("enter", at: rows[enter + 9]), expected: .duplicateSystemEvent),
            Injection(afterRow: exit + 90, text: event("exit", at: rows[exit + 90]), expected: .lateSystemEvent),
        ]
        return assemble("synthetic-drive-fiji.csv", fence: fence, header: header, rows: rows, injections: injections)
    }

    /// 20 minutes lingering at the edge of a Berlin fence (edge-loiter-100m): the isolated
    /// enter and exit are reported by the system (the exit three times), the engine's
    /// in-and-out within seconds is not: rule flutter.
    static func loiter() throws -> Log {
        let fence = try Coordinate(latitude: 52.52, longitude: 13.405)
        let (header, rows, fixes) = try exportRows("edge-loiter-100m", limit_s: 1200)
        let cross = try crossings(fixes, fence: fence)
        let time = { (i: Int) in fixes[i].fix.timestamp_s }
        var isolated: [(Int, FenceState)] = []
        var flutter: [Int] = []
        for (k, c) in cross.enumerated() {
            let paired = cross.enumerated().contains { j, o in j != k && o.1 != c.1 && abs(time(o.0) - time(c.0)) <= 60
            }
            if paired { flutter.append(c.0) } else { isolated.append(c) }
        }
        guard let firstExit = isolated.first(where: { $0.1 == .outside })?.0, !flutter.isEmpty else {
            throw GenerationError.noCrossing
        }
        var injections: [Injection] = []
        for (row, state) in isolated where row + 16 < rows.count {
            let kind = state == .inside ? "enter" : "exit"
            injections.append(
                Injection(afterRow: row + 4, text: event(kind, at: rows[row + 4]), expected: nil, matched: true))
            if row == firstExit {
                injections.append(
                    Injection(
                        afterRow: row + 10, text: event(kind, at: rows[row + 10]), expected: .duplicateSystemEvent))
                injections.append(
                    Injection(
                        afterRow: row + 16, text: event(kind, at: rows[row + 16]), expected: .duplicateSystemEvent))
            }
        }
        return assemble(
            "synthetic-loiter-berlin.csv", fence: fence, header: header, rows: rows, injections: injections,
            flutterRows: flutter)
    }

    enum GenerationError: Error { case noCrossing }
}
