import FenceLab
import Foundation
import GeoPolicy
import _CommandLineKit
import _FenceLabSupport

/// `fencelab engine-serve [--max-age SECONDS] [--flush]`
enum EngineServeCommand: Command {
    static let name = "engine-serve"
    static let summary = "Serve the built-in engine over the external-engine protocol (stdin/stdout)."
    static let arguments = ""
    static let options = [
        OptionDeclaration(
            "--max-age", .number("SECONDS", .nonNegative),
            help: "Reject fixes older than this relative to `now` (default: no limit)."),
        OptionDeclaration(
            "--flush", .flag,
            help: "Write each answer at once (for bench-engine); default: in ~60 kB pieces."),
    ]
    static let discussion = """
        Speaks docs/engine-protocol.md on stdin/stdout with FenceLab's own engine
        (FenceMonitor + haversine): the reference for engine authors and the yardstick
        for the protocol's overhead, e.g.
          fencelab engine-check 'fencelab engine-serve'
        """
    static let footer = "EXIT: 0 served, 2 malformed input (the line is named on stderr), 64 usage error."

    static func run(_ arguments: Arguments) throws -> ExitCode {
        let maxAge = arguments.number("--max-age") ?? .infinity
        let rest = arguments.positionals
        guard rest.isEmpty else { throw CLIError.usage("engine-serve: unexpected argument '\(rest[0])'") }
        // A failed write (> /dev/full) is remembered and ends the session with exit 2, not a trap.
        var outputError: OutputError?
        do {
            try EngineServer.serve(
                maxAge_s: maxAge, flushEach: arguments.flag("--flush"),
                nextLine: { outputError == nil ? readLine(strippingNewline: true) : nil },
                write: { text in
                    guard outputError == nil else { return }
                    do throws(OutputError) { try StandardOutput.write(text) } catch { outputError = error }
                })
        } catch {
            throw CLIError.badInput("engine-serve: \(error)")
        }
        if let outputError {
            throw CLIError.badInput("engine-serve: cannot write to standard output: \(outputError.reason)")
        }
        return .success
    }
}
