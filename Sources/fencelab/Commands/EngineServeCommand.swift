import FenceLab
import Foundation

/// `fencelab engine-serve [--max-age SECONDS]`
enum EngineServeCommand: Command {
    static let name = "engine-serve"
    static let summary = "Serve the built-in engine over the external-engine protocol (stdin/stdout)."
    static let help = """
        USAGE: fencelab engine-serve [--max-age SECONDS]

        Speaks docs/engine-protocol.md on stdin/stdout with FenceLab's own engine
        (FenceMonitor + haversine): the reference for engine authors and the yardstick
        for the protocol's overhead, e.g.
          fencelab engine-check 'fencelab engine-serve'

        OPTIONS:
          --max-age SECONDS   Reject fixes older than this relative to `now` (default: no limit).

        EXIT: 0 served, 2 malformed input (the line is named on stderr), 64 usage error.
        """

    static func run(_ arguments: inout Arguments) throws -> ExitCode {
        let maxAge = try arguments.option("--max-age").map { try parseDouble($0, name: "--max-age") } ?? .infinity
        guard maxAge >= 0 else { throw CLIError.badInput("--max-age: must be >= 0, got \(maxAge)") }
        let rest = try arguments.positionals()
        guard rest.isEmpty else { throw CLIError.usage("engine-serve: unexpected argument '\(rest[0])'") }
        // A failed write (> /dev/full) is remembered and ends the session with exit 2, not a trap.
        var outputError: OutputError?
        do {
            try EngineServer.serve(maxAge_s: maxAge, nextLine: { outputError == nil ? readLine(strippingNewline: true) : nil },
                                   write: { text in
                                       guard outputError == nil else { return }
                                       do throws(OutputError) { try StandardOutput.write(text) } catch { outputError = error }
                                   })
        } catch {
            throw CLIError.badInput("engine-serve: \(error)")
        }
        if let outputError { throw CLIError.badInput("engine-serve: cannot write to standard output: \(outputError.reason)") }
        return .success
    }
}
