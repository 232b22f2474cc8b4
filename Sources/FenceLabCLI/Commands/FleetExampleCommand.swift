import FenceLab
import Foundation
import _CommandLineKit
import _FenceLabSupport

/// `fencelab fleet-example [--out DIR] [--seed N] [--logs-per-cohort N]`
enum FleetExampleCommand: Command {
    static let name = "fleet-example"
    static let summary = "Write the synthetic device-log fleet of scenarios/fleet (no phone recorded it)."
    static let arguments = ""
    static let options = [
        OptionDeclaration("--out", .text("DIR"), default: "scenarios/fleet", help: "Folder to write (must not exist)."),
        OptionDeclaration("--seed", .integer("N", 1...Int(UInt32.max)), default: "33", help: "Seed of the fleet."),
        OptionDeclaration(
            "--logs-per-cohort", .integer("N", 1...100_000), default: "10",
            help: "Logs per device × OS × app (8 of them); 10 is scenarios/fleet, more for a large fleet."),
    ]
    static let discussion = """
        Writes DIR/logs/*.csv (CSV device logs), DIR/manifest.csv and DIR/manifest-no-regression.csv:
        4 cohorts (device × OS) × 2 builds (app 2.3.0, 2.3.1) × N logs (default 10), with injected system-event
        behaviour: exits 90 s late on os=ios-17, duplicates on device=galaxy-s23, and in manifest.csv
        a regression of build 2.3.1 on device=pixel-7 (every event 40 s later), absent from
        manifest-no-regression.csv. Same seed, same bytes. docs/fleet.md.
        """
    static let footer = "EXIT: 0 written, 2 DIR exists or cannot be written, 64 usage error."

    static func run(_ arguments: Arguments) throws -> ExitCode {
        guard arguments.positionals.isEmpty else { throw CLIError.usage("fleet-example: takes no PATH") }
        let out = arguments.option("--out")!
        let seed = UInt64(arguments.integer("--seed")!)
        let perCohort = arguments.integer("--logs-per-cohort")!
        guard !FileManager.default.fileExists(atPath: out) else {
            throw CLIError.badInput("fleet-example: --out \(out) exists; nothing is overwritten, name a new folder")
        }
        let files: [(path: String, text: String)]
        do { files = try FleetSynth.files(seed: seed, logsPerCohort: perCohort) } catch {
            throw CLIError.badInput("fleet-example: \(error)")
        }
        let scratch = out + ".partial-\(ProcessInfo.processInfo.processIdentifier)"
        do {
            try FileManager.default.createDirectory(
                atPath: scratch + "/logs", withIntermediateDirectories: true)
            for f in files {
                try Data(f.text.utf8).write(to: URL(fileURLWithPath: scratch + "/" + f.path))
            }
            try FileManager.default.moveItem(atPath: scratch, toPath: out)
        } catch {
            try? FileManager.default.removeItem(atPath: scratch)
            throw CLIError.badInput("fleet-example: --out \(out): \(error.localizedDescription)")
        }
        print("Wrote \(files.count - 2) synthetic logs and 2 manifests to \(out)")
        return .success
    }
}
