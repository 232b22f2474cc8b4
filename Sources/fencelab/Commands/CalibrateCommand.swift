import FenceLab
import Foundation

/// `fencelab calibrate DEVICE_LOG [--stationary | --track] [--out DIR]`
enum CalibrateCommand: Command {
    static let name = "calibrate"
    static let summary = "Fit a scenario noise + accuracy block to a device recording (stationary or moving)."
    static let arguments = "DEVICE_LOG"
    static let options = [
        OptionDeclaration("--stationary", .flag, help: "The device did not move (default)."),
        OptionDeclaration("--track", .flag, help: """
            The device moved; residuals against the smoothed path (the
            smoother absorbs part of a slow bias: τ is then a lower bound).
            """),
        RunCommand.out("reports/calibration"),
    ]
    static let discussion = """
        Imports DEVICE_LOG (CSV, GPX, JSON Lines), computes residuals of its valid fixes
        against the mean position (--stationary, default) or the RTS-smoothed path (--track),
        and fits σ per axis and anisotropy, the Gauss–Markov bias (σ, τ) from the
        autocorrelation, heavy tails (Student-t ν) and how the reported accuracy relates to
        the measured DRMS. Prints a JSON object with `noise` and `accuracy` in the scenario
        file schema (ready to paste), remarks on stderr, and writes DIR/calibration.html
        (histogram of residual radius vs the fitted Rayleigh density, autocorrelation vs
        the fitted exponential) and DIR/calibration.json (every fitted figure).
        """
    static let footer = "EXIT: 0 written, 2 bad log (file:line) or too few valid fixes, 64 usage error."

    static func run(_ arguments: Arguments) throws -> ExitCode {
        let stationary = arguments.flag("--stationary"), track = arguments.flag("--track")
        guard !(stationary && track) else { throw CLIError.usage("calibrate: --stationary and --track exclude each other") }
        let out = arguments.option("--out")!
        let paths = arguments.positionals
        guard paths.count == 1 else { throw CLIError.usage("calibrate: expected one DEVICE_LOG, got \(paths.count)") }
        let log: DeviceLog
        do { log = try DeviceLogImporter.load(path: paths[0]) } catch { throw CLIError.badInput(error.description) }
        let result: CalibrationResult
        do { result = try CalibrationRun.run(log, mode: track ? .track : .stationary) } catch {
            throw CLIError.badInput("\(paths[0]): \(error)")
        }
        let json = JSONValue.object([("file", .string(paths[0])), ("mode", .string(result.mode.rawValue)),
                                     ("estimate", CalibrationRun.estimateJSON(result.estimate)),
                                     ("scenario", result.scenarioBlock)])
        do {
            try ReportFolder.write(files: [("calibration.html", Array(CalibrationHTML.render(result).utf8)),
                                           ("calibration.json", Array((json.serialized() + "\n").utf8))], to: out)
        } catch { throw CLIError.badInput("\(error)") }
        print(result.scenarioBlock.serialized())
        result.notes.forEach { printError("note: " + $0) }
        printError("calibrate: \(result.estimate.samples) fixes (\(result.skipped) skipped); plots: \(out)/calibration.html")
        return .success
    }
}
