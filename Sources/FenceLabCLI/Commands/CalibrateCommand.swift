import DeviceLogKit
import FenceLab
import FenceLabCalibration
import Foundation
import _CommandLineKit

/// `fencelab calibrate DEVICE_LOG [--stationary | --track] [--out DIR] [--seed N] [--replicates N] [--drives N]`
enum CalibrateCommand: Command {
    static let name = "calibrate"
    static let summary = "Fit a scenario noise + accuracy block to a device recording (stationary or moving)."
    static let arguments = "DEVICE_LOG"
    static let options =
        [
            OptionDeclaration("--stationary", .flag, help: "The device did not move (default)."),
            OptionDeclaration(
                "--track", .flag,
                help: """
                    The device moved; residuals against the smoothed path (the
                    smoother absorbs part of a slow bias: τ is then a lower bound).
                    """),
            RunCommand.out("reports/calibration"),
            OptionDeclaration(
                "--seed", .integer("N", 1...Int(UInt32.max)), default: "\(CalibrationOptions().seed)",
                help: "Seed of the bootstrap and the synthetic drives"),
            OptionDeclaration(
                "--replicates", .integer("N", CalibrationOptions.replicateRange),
                default: "\(CalibrationOptions().replicates)",
                help: "Block-bootstrap replicates"),
            OptionDeclaration(
                "--drives", .integer("N", CalibrationOptions.nullDriveRange),
                default: "\(CalibrationOptions().nullDrives)",
                help: "Synthetic drives for the goodness-of-fit null"),
        ] + DeviceLogOptions.declarations
    static let discussion = """
        Imports DEVICE_LOG (any format of --format: else the extension, else the content;
        docs/device-logs.md), computes residuals of its valid fixes
        against the mean position (--stationary, default) or the RTS-smoothed path (--track),
        and fits white and white + Gauss–Markov noise (σ_w, σ_b, τ) by maximum likelihood
        with the exact discretisation by each Δt (irregular sampling and gaps), heavy tails
        (Student-t ν) and how the reported accuracy relates to the measured DRMS, each with a
        95 % interval. Checks the residual autocorrelation for shapes no white + Gauss–Markov
        noise produces (residuals smoothed/filtered upstream) and tests drives generated from
        the fitted block at the recording's timestamps against the recording.

        Prints to stdout: which fixes were used and why others were dropped, what the import
        skipped and assumed (an `import:` line; with an assumed accuracy the verdict says the
        coverage figures say nothing about the device's own estimate), the fitted
        figures with intervals, the coverage of the reported accuracy, the goodness-of-fit
        verdict, WARNING lines, and as the LAST line the `noise` + `accuracy` block in the
        scenario file schema (ready to paste: `fencelab calibrate LOG | tail -n 1`).
        Writes DIR/calibration.html (residual ACF of the recording and of a synthetic drive
        with bands, QQ plot, reported accuracy, coverage) and DIR/calibration.json (every
        figure; schema in docs/calibration.md). No coordinates are written.
        """
    static let footer = "EXIT: 0 written, 2 bad log (file:line) or too few valid fixes, 64 usage error."

    static func run(_ arguments: Arguments) throws -> ExitCode {
        let stationary = arguments.flag("--stationary")
        let track = arguments.flag("--track")
        guard !(stationary && track) else {
            throw CLIError.usage("calibrate: --stationary and --track exclude each other")
        }
        let out = arguments.option("--out")!
        var options = CalibrationOptions()
        options.seed = UInt64(arguments.integer("--seed")!)
        options.replicates = arguments.integer("--replicates")!
        options.nullDrives = arguments.integer("--drives")!
        let paths = arguments.positionals
        guard paths.count == 1 else { throw CLIError.usage("calibrate: expected one DEVICE_LOG, got \(paths.count)") }
        let (format, readOptions) = try DeviceLogOptions.parse(arguments)
        do { try CalibrationReport.preflight(out) } catch { throw CLIError.badInput(error.description) }
        let log: ScreenedFixes
        do { log = try CalibrationRun.load(path: paths[0], format: format, options: readOptions) } catch {
            throw CLIError.badInput(error.description)
        }
        let result: CalibrationResult
        do { result = try CalibrationRun.run(consume log, mode: track ? .track : .stationary, options: options) } catch
        {
            throw CLIError.badInput("\(paths[0]): \(error)")
        }
        do { try CalibrationReport.write(result, to: out) } catch { throw CLIError.badInput(error.description) }
        for line in CalibrationReport.summaryLines(result) { print(line) }
        for note in result.notes { print("note: " + note) }
        print("report: \(out)/calibration.html, \(out)/calibration.json")
        print(CalibrationReport.compact(result.scenarioBlock))
        return .success
    }
}
