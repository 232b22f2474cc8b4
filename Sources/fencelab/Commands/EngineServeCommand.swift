import FenceLab
import Foundation

/// `fencelab engine-serve [--max-age SECONDS]`
enum EngineServeCommand: Command {
    static let name = "engine-serve"
    static let summary = "Serve the built-in engine over the external-engine protocol (stdin/stdout)."
    static let arguments = ""
    static let options = [
        OptionDeclaration("--max-age", .number("SECONDS", .nonNegative),
                          help: "Reject fixes older than this relative to `now` (default: no limit)."),
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
        let out = FileHandle.standardOutput
        do {
            try EngineServer.serve(maxAge_s: maxAge, nextLine: { readLine(strippingNewline: true) },
                                   write: { out.write(Data($0.utf8)) })
        } catch {
            throw CLIError.badInput("engine-serve: \(error)")
        }
        return .success
    }
}
