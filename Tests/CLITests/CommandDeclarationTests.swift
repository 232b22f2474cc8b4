import FenceLab
import Foundation
import Testing
import _CommandLineKit
import _TestSupport

@testable import FenceLabCLI

/// Every command's help and parser come from one declaration: walk them all and check they agree.
@Suite struct CommandDeclarationTests {
    /// A value the option's declaration admits.
    static func sample(_ d: OptionDeclaration) -> [String] {
        switch d.value {
        case .flag: return [d.name]
        case .text: return [d.name, "x"]
        case .integer(_, let range): return [d.name, String(range.lowerBound)]
        case .number(_, .within(let range)): return [d.name, "\(range.lowerBound)"]
        case .number: return [d.name, "1.5"]
        case .choice(let words): return [d.name, words[words.count - 1]]
        }
    }

    /// `d` with its companion and the command's required options, so the line is complete.
    static func line(_ d: OptionDeclaration, of c: any Command.Type) -> [String] {
        var argv = sample(d)
        for other in c.options where other.name != d.name && (other.isRequired || other.name == d.requires) {
            argv += sample(other)
        }
        return argv
    }

    static let allNames = Set(
        CLI.commands.flatMap { $0.options.map(\.name) } + ["--undeclared", "--verbose", "--out-dir"])

    @Test(arguments: CLI.commands.map { $0.name })
    func helpListsAndParserAcceptsEveryDeclaredOption(command: String) throws {
        let c = try #require(CLI.commands.first { $0.name == command })
        let help = c.help
        let optionsSection = try #require(help.range(of: "\nOPTIONS:\n")).upperBound
        #expect(Set(c.options.map(\.name)).count == c.options.count, "\(command): an option is declared twice")
        for d in c.options {
            #expect(
                d.isHidden != help[optionsSection...].contains("  " + d.signature),
                "\(command) --help and \(d.signature)")
            #expect(d.isHidden != c.synopsis.contains(d.name), "\(command) synopsis and \(d.name)")
            let parsed = try c.parse(Self.line(d, of: c))
            #expect(parsed.isGiven(d.name) && parsed.positionals.isEmpty, "\(command) \(d.name)")
            if d.value != .flag {
                let inline = Self.sample(d)
                let rest = Self.line(d, of: c).dropFirst(2)
                #expect(
                    try c.parse(["\(inline[0])=\(inline[1])"] + rest).option(d.name) == inline[1],
                    "\(command) \(d.name)=")
                let missing = #expect(throws: OptionError.self) { try c.parse([d.name]) }
                #expect(missing?.description.contains(d.name) == true, "\(command) \(d.name) without a value")
            }
        }
        // Every option named in the synopsis or the OPTIONS section is declared.
        let declared = Set(c.options.map(\.name))
        let listed = (c.synopsis + "\n" + help[optionsSection...]).split { !($0.isLetter || $0 == "-") }
            .filter { $0.hasPrefix("--") }.map(String.init)
        for name in listed where !declared.contains(name) {
            Issue.record("\(command) --help lists \(name), which \(command) does not declare")
        }
    }

    @Test(arguments: CLI.commands.map { $0.name })
    func parserRefusesEveryUndeclaredOption(command: String) throws {
        let c = try #require(CLI.commands.first { $0.name == command })
        let declared = Set(c.options.map(\.name))
        let required = c.options.filter(\.isRequired).flatMap(Self.sample)
        for name in Self.allNames.subtracting(declared).sorted() {
            let error = #expect(throws: OptionError.self, "\(command) accepted \(name)") {
                try c.parse(required + [name, "1"])
            }
            guard case .usage(let message) = error else {
                Issue.record("\(command) \(name): \(String(describing: error))")
                continue
            }
            let refused = c.refused[name] != nil
            #expect(message.contains(refused ? "\(name) is not supported" : "unknown option '\(name)'"), "\(message)")
        }
    }

    @Test func misspeltOptionsGetASuggestion() throws {
        for c in CLI.commands {
            for d in c.options where d.name.count > 5 {
                let typo = String(d.name.dropLast())  // --replicate for --replicates
                guard !c.options.contains(where: { $0.name == typo }) else { continue }
                let error = #expect(throws: OptionError.self) { try c.parse([typo]) }
                #expect(
                    error?.description.contains("did you mean --") == true,
                    "\(c.name) \(typo): \(String(describing: error))")
            }
        }
    }

    /// Help and parser agree through the binary: messages, exit codes.
    @Test func engineCompanionsNameTheirDependency() throws {
        for (option, value) in [("--engine-timeout", "3"), ("--engine-startup", "1")] {
            for command in ["run", "accept"] {
                let r = try runFencelab([command, option, value])
                #expect(r.status == 64, "\(command) \(option): \(r.stderr)")
                #expect(r.stderr == "fencelab: \(command): \(option) needs --engine 'COMMAND'\n", "\(r.stderr)")
            }
        }
        let sweep = try runFencelab(["sweep", "--enter", "80:80:1", "--exit", "120:120:1", "--engine", "x"])
        #expect(sweep.status == 64 && sweep.stderr.contains("--engine is not supported"), "\(sweep.stderr)")
        let typo = try runFencelab(["run", "--replicats", "2"])
        #expect(typo.status == 64 && typo.stderr.contains("did you mean --replicates?"), "\(typo.stderr)")
        let bound = try runFencelab(["run", "--engine", "x", "--engine-timeout", "0"])
        #expect(
            bound.status == 2 && bound.stderr == "fencelab: --engine-timeout: must be > 0, got 0\n", "\(bound.stderr)")
    }

    @Test func formerlyUndocumentedOptionsAreListed() throws {
        let sweep = try runFencelab(["sweep", "--help"])
        for name in ["--include-coordinates", "--window", "--max-age"] {
            #expect(sweep.stdout.contains("  \(name)"), "\(name)")
        }
        let merge = try runFencelab(["merge", "--help"])
        let usage = "USAGE: fencelab merge SHARD_DIR|PARENT... [--out DIR] [--csv-gzip]\n"
        #expect(merge.stdout.hasPrefix(usage), "\(merge.stdout)")
    }
}
