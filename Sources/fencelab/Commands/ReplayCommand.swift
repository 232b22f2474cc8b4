import FenceLab
import Foundation
import GeoPolicy

/// `fencelab replay LOG --fence LAT,LON [--rule SPEC] [--max-age S] [--out DIR]`
enum ReplayCommand: Command {
    static let name = "replay"
    static let summary = "Replay a device log through the engine and classify divergences from the system's events."
    static let help = """
        USAGE: fencelab replay LOG --fence LAT,LON [--rule SPEC] [--max-age S] [--out DIR]

        Imports LOG (CSV, GPX or JSON Lines by extension; docs/device-logs.md), runs its fixes
        through FenceMonitor and compares the engine's decisions with the log's enter/exit
        events. `now` for each fix is its own timestamp, or the newest timestamp logged before
        it when the log goes backwards (a late-delivered fix is judged when it arrived, so it
        can be stale). Every divergence is classified: ruleFlutter, unsupportedSystemEvent,
        lateSystemEvent, duplicateSystemEvent, staleFix, missingSystemEvent.
        Prints counts per class and one line per divergence (time offset from the first
        entry, log line; never coordinates) and writes DIR/report.json, report.md, junit.xml
        and index.html (device level only).

        OPTIONS:
          --fence LAT,LON   Fence centre in degrees (required), e.g. --fence=52.52,13.405.
          --rule SPEC       hysteresis:ENTER:EXIT:MAXACC (default hysteresis:80:120:30),
                            threshold:R, conservative:R (optionally +confirmN / +confirmTs, and
                            +kalman / +imm, optionally :Q in m²/s³, to decide on the filter's estimate).
          --max-age S       Fixes older than S seconds relative to `now` are stale (default 30).
          --out DIR         Output folder (default reports/replay).

        EXIT: 0 the log passed (no divergence of a failing class), 1 it failed, 2 bad input
        (log file with file:line, --fence, --rule, unwritable output), 64 usage error.
        """

    static func run(_ arguments: inout Arguments) throws -> ExitCode {
        guard let fenceText = try arguments.option("--fence") else {
            throw CLIError.usage("replay: --fence LAT,LON is required")
        }
        let rule = try parseRule(try arguments.option("--rule"))
        let maxAge = try parseMaxAge(try arguments.option("--max-age"))
        let out = try arguments.option("--out") ?? "reports/replay"
        let paths = try arguments.positionals()
        guard paths.count == 1 else { throw CLIError.usage("replay: expected one LOG file, got \(paths.count)") }
        let fence = try parseFence(fenceText)
        do { try ReportFolder.preflight(destination: out) } catch { throw CLIError.badInput("\(error)") }
        let log: DeviceLog
        do { log = try DeviceLogImporter.load(path: paths[0]) } catch { throw CLIError.badInput(error.description) }
        let result: DeviceReplayResult
        do { result = try DeviceReplay.run(log, center: fence, rule: rule.rule, input: rule.input, maxAge_s: maxAge) } catch {
            throw CLIError.badInput("replay: \(error)")
        }
        let report = RunReport.deviceOnly(
            run: RunEnvironment.collect(generator: "none", seeds: [], rulesVersions: [result.rulesVersion]),
            device: DeviceAcceptance(replays: [result]))
        var withFile = report
        withFile.run.inputFiles = [InputFile(kind: "device-log", path: paths[0], sha256: AcceptanceRun.fileSHA256(path: paths[0]))]
        do { try ReportWriter.write(withFile, to: out) } catch { throw CLIError.badInput("\(error)") }
        result.summaryLines.forEach { print($0) }
        print("Report: \(out)/index.html")
        return result.status == .passed ? .success : .checkFailed
    }
}

/// Parses `LAT,LON` (degrees, latitude first); the error names `--fence` and the value.
func parseFence(_ text: String) throws -> Coordinate {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false)
    guard parts.count == 2 else {
        throw CLIError.badInput("--fence: expected LAT,LON (two numbers), got '\(text.prefix(60))'")
    }
    let lat = try parseDouble(parts[0].trimmingCharacters(in: .whitespaces), name: "--fence latitude")
    let lon = try parseDouble(parts[1].trimmingCharacters(in: .whitespaces), name: "--fence longitude")
    do { return try Coordinate(latitude: lat, longitude: lon) } catch {
        throw CLIError.badInput("--fence: \(error) ('\(text.prefix(60))')")
    }
}

/// Parses `--rule SPEC[+INPUT]` (default seed 000's rule on raw fixes); the error names `--rule`.
func parseRule(_ text: String?) throws -> FenceSetup {
    guard let text else { return FenceSetup(rule: .default) }
    do { return try FenceSetup.parse(text) } catch { throw CLIError.badInput("--rule: \(error)") }
}

/// Parses `--max-age S` (≥ 0, default 30 s).
func parseMaxAge(_ text: String?) throws -> Double {
    guard let text else { return DeviceReplay.defaultMaxAge_s }
    let v = try parseDouble(text, name: "--max-age")
    guard v >= 0 else { throw CLIError.badInput("--max-age: must be >= 0, got \(text)") }
    return v
}
