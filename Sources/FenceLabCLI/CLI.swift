import FenceLab
import Foundation
import GeoPolicy
import _CommandLineKit
import _FenceLabSupport

/// A failure the command line reports as one line on stderr.
enum CLIError: Error, CustomStringConvertible {
    /// Wrong usage: unknown command/option, missing argument. Exit 64.
    case usage(String)
    /// A value or file was refused. Exit 2.
    case badInput(String)

    var description: String {
        switch self {
        case .usage(let m), .badInput(let m): return m
        }
    }

    init(_ error: OptionError) {
        switch error {
        case .usage(let m): self = .usage(m)
        case .badValue(let m): self = .badInput(m)
        }
    }

    var exitCode: ExitCode {
        switch self {
        case .usage: return .usage
        case .badInput: return .badInput
        }
    }
}

/// One subcommand of `fencelab`. Each lives in its own file under `Commands/`.
///
/// A command declares its options once (`options`); parsing, the synopsis, the OPTIONS section
/// of `--help` and "did you mean" suggestions are derived from that declaration.
protocol Command: Sendable {
    /// The word after `fencelab` (`distance`, `run`, ...).
    static var name: String { get }
    /// One line for the command list in `fencelab --help`.
    static var summary: String { get }
    /// The positional arguments in the synopsis, e.g. `[PATH...]`.
    static var arguments: String { get }
    /// Every option the command accepts.
    static var options: [OptionDeclaration] { get }
    /// Options refused with a reason instead of "unknown option" (not listed in help).
    static var refused: [String: String] { get }
    /// The USAGE lines; derived from `arguments` and `options` unless a command has several forms.
    static var synopsis: String { get }
    /// What the command does (between USAGE and OPTIONS).
    static var discussion: String { get }
    /// After OPTIONS: notes, examples and the EXIT line.
    static var footer: String { get }
    /// Runs with the parsed command line.
    static func run(_ arguments: Arguments) throws -> ExitCode
    /// True when a refused option value exits 64 (usage) rather than 2: for `bench-engine`,
    /// whose 2 means a regression (as `fencelab-bench`'s).
    static var refusedValueIsUsage: Bool { get }
}

extension Command {
    static var refused: [String: String] { [:] }
    static var refusedValueIsUsage: Bool { false }

    static var synopsis: String {
        OptionDeclaration.synopsis(tool: "fencelab \(name)", arguments: arguments, options: options)
    }

    /// The full text of `fencelab NAME --help`.
    static var help: String {
        [synopsis, discussion, "OPTIONS:\n" + OptionDeclaration.helpSection(options), footer].joined(separator: "\n\n")
    }

    /// Parses `argv` (without the command word) against the declaration.
    static func parse(_ argv: [String]) throws(OptionError) -> Arguments {
        try Arguments(
            argv, declarations: options, context: name, helpHint: "`fencelab \(name) --help`", refused: refused)
    }
}

enum CLI {
    /// Every subcommand, in the order `--help` lists them.
    static let commands: [any Command.Type] = [
        RunCommand.self,
        AcceptCommand.self,
        FleetExampleCommand.self,
        SweepCommand.self,
        MergeCommand.self,
        ReplayCommand.self,
        ExportCommand.self,
        CalibrateCommand.self,
        FixturesCommand.self,
        DistanceCommand.self,
        GeohashCommand.self,
        EngineCheckCommand.self,
        EngineServeCommand.self,
        BenchEngineCommand.self,
    ]

    /// The command that `fencelab` with no arguments runs.
    static let defaultCommand: (any Command.Type)? = RunCommand.self

    static var overview: String {
        var lines = [
            "fencelab \(ToolVersion.string): test geofence and GPS-track logic against seeded, realistic GPS noise.",
            "",
            "USAGE: fencelab [COMMAND] [OPTIONS]",
            "",
            "COMMANDS:",
        ]
        for c in commands {
            lines.append("  " + c.name.padding(toLength: 14, withPad: " ", startingAt: 0) + c.summary)
        }
        lines += [
            "",
            "OPTIONS:",
            "  --help, -h    Show this help, or a command's help with `fencelab COMMAND --help`.",
            "  --version     Print the version.",
            "",
            "EXIT CODES: 0 success, 1 a check or expectation failed, 2 bad input (file, value), 64 usage error,",
            "  bench-engine: 2 regression, 5 baseline missing;",
            "  130 / 143 / 129 run, accept or sweep ended by SIGINT (Ctrl-C) / SIGTERM / SIGHUP (engines killed first).",
        ]
        return lines.joined(separator: "\n")
    }

    static func run(_ argv: [String]) -> ExitCode {
        var args = argv
        if args.isEmpty {
            guard let command = defaultCommand else {
                print(overview)
                return .success
            }
            return execute(command, [])
        }
        let first = args.removeFirst()
        switch first {
        case "--help", "-h", "help":
            if let name = args.first, let c = commands.first(where: { $0.name == name }) {
                print(c.help)
            } else {
                print(overview)
            }
            return .success
        case "--version":
            print("fencelab \(ToolVersion.string)")
            return .success
        default:
            if let c = commands.first(where: { $0.name == first }) {
                return execute(c, args)
            }
            if first.hasPrefix("-"), let command = defaultCommand {
                return execute(command, argv)
            }
            let hint = suggestion(for: first).map { " (did you mean \($0)?)" } ?? ""
            return fail(.usage("unknown command '\(first)'\(hint); see `fencelab --help`"))
        }
    }

    /// The command name closest to `typed` (at most two edits, or a prefix of four or more
    /// characters), for "did you mean", as options get one.
    static func suggestion(for typed: String) -> String? {
        let names = commands.map { $0.name } + ["help"]
        if typed.count >= 4, let prefixed = names.first(where: { $0.hasPrefix(typed) }) { return prefixed }
        return names.first { Spelling.isNearMiss($0, typed) }
    }

    static func execute(_ command: any Command.Type, _ argv: [String]) -> ExitCode {
        if argv.contains("--help") || argv.contains("-h") {
            print(command.help)
            return .success
        }
        do {
            let arguments = try command.parse(argv)
            let code = try command.run(arguments)
            // A declared option the command never read would be accepted and silently ignored.
            assert(arguments.unread.isEmpty, "fencelab \(command.name): declared but unread: \(arguments.unread)")
            return code
        } catch let error as CLIError {
            return fail(error)
        } catch let error as OptionError {
            if command.refusedValueIsUsage, case .badValue(let m) = error { return fail(.usage(m)) }
            return fail(CLIError(error))
        } catch {
            return fail(.badInput("\(error)"))
        }
    }

    /// `code`, unless standard output could not be written (`> /dev/full`, a closed pipe):
    /// then one line on stderr and exit 2 instead of a silent success.
    static func flushingStandardOutput(_ code: ExitCode) -> ExitCode {
        guard !Syscalls.flushAllStreams() else { return code }  // every stream; stderr is unbuffered
        let reason = Syscalls.lastErrorText()
        printError("fencelab: cannot write to standard output: \(reason)")
        return code == .success ? .badInput : code
    }

    static func fail(_ error: CLIError) -> ExitCode {
        // After a signal the failure is the signal's doing (its engine was killed): the handler says so.
        guard !InterruptNotice.isInterrupted else { return error.exitCode }
        printError("fencelab: \(error.description)")
        return error.exitCode
    }
}

/// One line to stderr, at most 2000 characters, control characters escaped (an engine's or a
/// file's text cannot drive the terminal). A longer line keeps its first 1000 and last 999
/// characters around a "…", so the reason at its end stays readable after a huge path.
func printError(_ line: String) {
    // Bounded whatever the input: a value echoed by a lower layer is already cut to ~80
    // characters; this cap covers anything else (a 5000-character --out, a megabyte argument).
    FileHandle.standardError.write(Data((boundedLine(line) + "\n").utf8))
}

/// `line` with controls escaped, cut in the middle to at most 2000 characters.
func boundedLine(_ line: String, limit: Int = 2000) -> String {
    let escaped = ShownText.escapingControls(line)
    guard escaped.count > limit else { return escaped }
    let head = limit / 2
    return String(escaped.prefix(head)) + "…" + String(escaped.suffix(limit - head - 1))
}

/// Standard output for every command: text from files, engines and arguments (scenario names,
/// paths, engine reasons) reaches the terminal with control characters escaped; line breaks stay.
/// Shadows `Swift.print` in this module, so no command can print raw bytes by accident.
func print(_ text: String) {
    Swift.print(ShownText.escapingControls(text, keepingLineBreaks: true))
}
