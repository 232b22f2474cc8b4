import FenceLab
import Foundation

/// `fencelab export SCENARIO --format gpx|csv|jsonl [--replicate N] [--out FILE]`
enum ExportCommand: Command {
    static let name = "export"
    static let summary = "Write one replicate of a scenario as GPX, CSV or JSON Lines for device playback."
    static let help = """
        USAGE: fencelab export SCENARIO --format gpx|csv|jsonl [--replicate N] [--out FILE]

        Generates replicate N (default 0) of the scenario file and writes the delivered
        fixes, in delivery order, with the scenario's faults (gaps leave no row).
          gpx    GPX 1.1: <wpt> points (Xcode location simulation) and a <trk> of <trkpt>,
                 each with an ISO-8601 <time>; fixes with invalid coordinates are skipped.
          csv    timestamp,latitude,longitude,horizontal_accuracy,speed,course,event
                 (the device-log columns; invalid values written as they are, e.g. NaN, -1).
          jsonl  one JSON object per line with the same fields (non-finite as null).
        Speed (m/s) and course (degrees, -1 when still) are the simulated truth.
        Without --out the text goes to stdout; with --out the file is written atomically.
        The output contains coordinates: that is what an export is for.

        EXIT: 0 written, 2 bad scenario file or unwritable output, 64 usage error.
        """

    static func run(_ arguments: inout Arguments) throws -> ExitCode {
        guard let format = try arguments.option("--format") else {
            throw CLIError.usage("export: --format gpx|csv|jsonl is required")
        }
        guard ScenarioExport.formats.contains(format) else {
            throw CLIError.usage("export: --format must be gpx, csv or jsonl, got '\(format)'")
        }
        let replicate = try arguments.intOption("--replicate", in: 0...1_000_000) ?? 0
        let out = try arguments.option("--out")
        let paths = try arguments.positionals()
        guard paths.count == 1 else {
            throw CLIError.usage("export: expected one SCENARIO file, got \(paths.count)")
        }
        let result = try ScenarioExport.export(scenarioPath: paths[0], format: format, replicate: replicate, outPath: out)
        if let text = result.text {
            do { try StandardOutput.write(text) } catch { throw CLIError.badInput("cannot write to standard output: \(error.reason)") }
        } else {
            let s = result.summary
            var line = "export: wrote \(s.points) points of \(s.scenario) replicate \(s.replicate) as \(s.format) to \(out ?? "")"
            if s.skippedInvalid > 0 { line += " (\(s.skippedInvalid) fixes with invalid coordinates skipped)" }
            printError(line)
        }
        return .success
    }
}
