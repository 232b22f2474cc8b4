import FenceLab
import Foundation
import _CommandLineKit
import _FenceLabSupport

/// `fencelab export SCENARIO --format FORMAT [--replicate N] [--start ISO8601] [--out FILE]`
enum ExportCommand: Command {
    static let name = "export"
    static let summary =
        "Write one replicate of a scenario for playback: GPX waypoints or track, CSV, JSON Lines, NMEA, KML."
    static let arguments = "SCENARIO"
    static let options = [
        OptionDeclaration(
            "--format", .choice(ScenarioExport.formats), required: true, help: "The file format (see above)."),
        OptionDeclaration(
            "--start", .text("ISO8601"),
            help: """
                Time of t = 0, e.g. 2026-03-01T12:00:00Z (zone required). Default:
                the scenario's sampling.start_unix_s when set, else now rounded
                down to the minute.
                """),
        OptionDeclaration("--replicate", .integer("N", 0...1_000_000), default: "0", help: "Replicate to export"),
        OptionDeclaration(
            "--out", .text("FILE"), help: "Write FILE atomically and print a summary on stderr (default: stdout)."),
    ]
    static let discussion = """
        Generates replicate N (default 0) of the scenario file and writes the delivered
        fixes, in delivery order, with the scenario's faults (gaps leave no row).
          gpx        GPX 1.1 <wpt> points: what Xcode's location simulation plays.
          gpx-track  GPX 1.1 <trk><trkseg><trkpt>: for track players and GNSS tools.
                     Both: ISO-8601 <time>, <hdop> = accuracy / 5 m (UERE), and in <extensions>
                     (namespace https://fencelab.invalid/gpx/1) fl:horizontal_accuracy (m),
                     fl:speed (m/s), fl:course (degrees), as `fencelab replay` reads them back.
          csv        timestamp,latitude,longitude,horizontal_accuracy,speed,course,event
                     (the device-log columns; invalid values written as they are, e.g. NaN, -1).
          jsonl      one JSON object per line with the same fields (non-finite as null).
          nmea       $GPGGA + $GPRMC per fix, checksummed, CRLF (adb emu geo nmea, gpsd):
                     HDOP = accuracy / 5 m, speed in knots, course in degrees.
          kml        KML 2.2 gx:Track (time and position per fix) for Google Earth.
        gpx, gpx-track, nmea and kml cannot hold invalid coordinates: those fixes are skipped
        and counted. Speed (m/s) and course (degrees, -1 when still) are the simulated truth.
        Non-increasing timestamps (injected duplicate, late or stale deliveries) are written
        as delivered, and the summary counts them.
        """
    static let footer = """
        The output contains coordinates: that is what an export is for.

        EXIT: 0 written, 2 bad scenario file, bad --start or unwritable output, 64 usage error.
        """

    static func run(_ arguments: Arguments) throws -> ExitCode {
        let format = arguments.option("--format")!
        let replicate = arguments.integer("--replicate")!
        let startText = arguments.option("--start")
        let out = arguments.option("--out")
        let paths = arguments.positionals
        guard paths.count == 1 else {
            throw CLIError.usage("export: expected one SCENARIO file, got \(paths.count)")
        }
        let start: Double?
        do { start = try startText.map(ScenarioExport.parseStart) } catch { throw CLIError.badInput(error.description) }
        let result = try ScenarioExport.export(
            scenarioPath: paths[0], format: format, replicate: replicate, outPath: out,
            start_unix_s: start)
        if let text = result.text {
            do { try StandardOutput.write(text) } catch {
                throw CLIError.badInput("cannot write to standard output: \(error.reason)")
            }
        } else {
            printError(result.summary.line(destination: out ?? ""))
        }
        return .success
    }
}
