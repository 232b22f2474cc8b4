import DeviceLogKit
import FenceLab
import Foundation
import GeoPolicy
import _CommandLineKit
import _FenceLabSupport

/// `fencelab replay LOG (--fence LAT,LON | --places FILE [--monitoring SPEC]) [--rule SPEC] [--max-age S] [--out DIR] [--fixes-csv FILE]` and
/// the import options (`--format`, `--assume-accuracy`, `--date`, `--columns`, `--strict`)
enum ReplayCommand: Command {
    static let name = "replay"
    static let summary = "Replay a device log through the engine and classify divergences from the system's events."
    static let arguments = "LOG"
    static let options =
        [
            OptionDeclaration(
                "--fence", .text("LAT,LON"),
                help: "Fence centre in degrees, e.g. --fence=52.52,13.405 (this or --places).")
        ] + PlaceOptions.declarations + [

            OptionDeclaration(
                "--rule", .text("SPEC"),
                help: """
                    hysteresis:ENTER:EXIT:MAXACC (default hysteresis:80:120:30),
                    threshold:R, conservative:R (optionally +confirmN / +confirmTs, and
                    +kalman / +imm, optionally :Q in m²/s³, to decide on the filter's estimate).
                    """),
            OptionDeclaration(
                "--max-age", .number("S", .nonNegative),
                default: OptionDeclaration.defaultText(DeviceReplay.defaultMaxAge_s),
                help: "Fixes older than S seconds relative to `now` are stale"),
            RunCommand.out("reports/replay"),
            OptionDeclaration(
                "--fixes-csv", .text("FILE"),
                help: """
                    Also write the fixes as imported to FILE, in log order, full precision:
                    line,timestamp,latitude,longitude,horizontal_accuracy,speed,course,provider.
                    FILE holds raw coordinates (the reports never do): opt-in only.
                    """),
        ] + DeviceLogOptions.declarations
    static let discussion = """
        Imports LOG (csv, gpx, jsonl, nmea, gnsslogger, owntracks, google-records or
        geojson: --format, else the extension, else the content; docs/device-logs.md), runs its fixes
        through FenceMonitor and compares the engine's decisions with the log's enter/exit
        events. `now` for each fix is its own timestamp, or the newest timestamp logged before
        it when the log goes backwards (a late-delivered fix is judged when it arrived, so it
        can be stale). Every divergence is classified: ruleFlutter, unsupportedSystemEvent,
        lateSystemEvent, duplicateSystemEvent, staleFix, missingSystemEvent.
        What the import skipped (per reason: no-fix sentence, untimed waypoint, bad checksum,
        ...) and assumed (--assume-accuracy, --date, HDOP x 5 m) is printed on an `Import:`
        line and kept in the report; `N fixes` counts fixes only.
        With --places FILE every place has its own monitor (the rule with the place's
        radii), fed the fixes while the app has it registered (--monitoring), and each
        event is classified against the decisions of the place its `place` column
        (JSON Lines key, OwnTracks `desc`) names; counts are reported per place and
        summed, the worst places listed.
        Prints counts per class and one line per divergence (time offset from the first
        entry, log line; never coordinates) and writes DIR/report.json, report.md, junit.xml
        and index.html (device level only). With --fixes-csv FILE it also writes the fixes
        it read, with their raw coordinates, to FILE (to check an import against another
        parser; never written otherwise).
        """
    static let footer = """
        EXIT: 0 the log passed (no divergence of a failing class), 1 it failed, 2 bad input
        (log file with file:line, --fence, --places file, --rule, an event naming an
        unknown place, unwritable output), 64 usage error (neither or both of --fence
        and --places, --monitoring without --places).
        """

    static func run(_ arguments: Arguments) throws -> ExitCode {
        let rule = try ArgumentValue.fenceSetup(arguments.option("--rule"))
        let maxAge = arguments.number("--max-age")!
        let out = arguments.option("--out")!
        let paths = arguments.positionals
        guard paths.count == 1 else { throw CLIError.usage("replay: expected one LOG file, got \(paths.count)") }
        let target = try PlaceOptions.target(arguments, command: "replay")
        let (format, readOptions) = try DeviceLogOptions.parse(arguments)
        do { try ReportWriter.preflight(destination: out) } catch { throw CLIError.badInput("\(error)") }
        let fixesCSV = arguments.option("--fixes-csv")
        if let fixesCSV {
            do { try FileSystem.checkFileDestination(fixesCSV) } catch {
                throw CLIError.badInput("--fixes-csv: \(error)")
            }
        }
        let log: DeviceLog
        do { log = try DeviceLogImporter.load(path: paths[0], format: format, options: readOptions) } catch {
            throw CLIError.badInput(error.description)
        }
        let result: DeviceReplayResult
        switch target {
        case .fence(let fence):
            do { try DeviceReplay.checkOneFence(log) } catch { throw CLIError.badInput(error.description) }
            do {
                result = try DeviceReplay.run(log, center: fence, rule: rule.rule, input: rule.input, maxAge_s: maxAge)
            } catch {
                throw CLIError.badInput("replay: \(error)")
            }
        case .places(let path, let monitoring):
            let places = try PlaceOptions.load(path, monitoring: monitoring, rule: rule.rule)
            do {
                result = try DeviceReplay.run(
                    log, places: places, rule: rule.rule, input: rule.input, maxAge_s: maxAge)
            } catch { throw CLIError.badInput(error.description) }
        }
        do { try ReportWriter.write(RunReport.replay(result, logPath: paths[0]), to: out) } catch {
            throw CLIError.badInput("\(error)")
        }
        if let fixesCSV {
            do { try DeviceLogFixesCSV.write(log, to: fixesCSV) } catch {
                throw CLIError.badInput("--fixes-csv: \(error)")
            }
        }
        for line in result.summaryLines { print(line) }
        print("Report: \(out)/index.html")
        return result.status == .passed ? .success : .checkFailed
    }
}
