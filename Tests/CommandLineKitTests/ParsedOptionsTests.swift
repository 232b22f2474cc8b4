import Testing
import _CommandLineKit

/// The declaration-driven parser shared by `fencelab` and `fencelab-bench`.
@Suite struct ParsedOptionsTests {
    static let declarations = [
        OptionDeclaration("--out", .text("DIR"), default: "reports", help: "Output folder"),
        OptionDeclaration("--jobs", .integer("N", 1...8), help: "Threads."),
        OptionDeclaration("--window", .number("S", .positive), default: "60", help: "Window"),
        OptionDeclaration("--log", .text("FILE"), repetition: .greedy, help: "Logs."),
        OptionDeclaration("--fence", .text("LAT,LON"), repetition: .each, help: "Fences."),
        OptionDeclaration("--engine", .text("'COMMAND'"), help: "Engine."),
        OptionDeclaration("--engine-timeout", .number("S", .positive), requires: "--engine", help: "Timeout."),
        OptionDeclaration("--model", .choice(["sphere", "wgs84"]), default: "sphere", help: "Model"),
        OptionDeclaration("--progress", .flag, help: "Progress."),
    ]

    func parse(_ argv: [String]) throws(OptionError) -> ParsedOptions {
        try ParsedOptions(argv, declarations: Self.declarations, context: "cmd", helpHint: "`cmd --help`")
    }

    @Test func valuesDefaultsAndPositionals() throws {
        let p = try parse([
            "a", "--jobs", "3", "--window=2.5", "--fence=-16.8,180", "--fence", "-1,2", "-12.5",
            "--log", "x.csv", "y.csv", "--progress", "b",
        ])
        #expect(p.integer("--jobs") == 3)
        #expect(p.number("--window") == 2.5)
        #expect(p.options("--fence") == ["-16.8,180", "-1,2"])
        #expect(p.options("--log") == ["x.csv", "y.csv"])
        #expect(p.positionals == ["a", "-12.5", "b"])
        #expect(p.flag("--progress"))
        #expect(p.option("--out") == "reports" && !p.isGiven("--out"))
        #expect(p.option("--model") == "sphere" && p.option("--engine") == nil)
        let last = try parse(["--out", "a", "--out", "b"])
        #expect(last.option("--out") == "b")
    }

    @Test(
        arguments: [
            (["--jobs", "9"], OptionError.usage("cmd: --jobs must be an integer in 1...8, got '9'")),
            (["--jobs", "two"], .usage("cmd: --jobs must be an integer in 1...8, got 'two'")),
            (["--window", "0"], .badValue("--window: must be > 0, got 0")),
            (["--window", "nan"], .badValue("--window: must be finite, got nan")),
            (["--window", "x"], .badValue("--window: not a number: 'x'")),
            (["--model", "flat"], .usage("cmd: --model must be sphere or wgs84, got 'flat'")),
            (["--out"], .usage("cmd: --out needs a value")),
            (["--out", "--progress"], .usage("cmd: --out needs a value")),
            (["--progress=yes"], .usage("cmd: --progress takes no value, got '--progress=yes'")),
            (["--engine-timeout", "3"], .usage("cmd: --engine-timeout needs --engine 'COMMAND'")),
            (["--windw", "3"], .usage("cmd: unknown option '--windw' (did you mean --window?); see `cmd --help`")),
            (
                ["--engine-t", "3"],
                .usage("cmd: unknown option '--engine-t' (did you mean --engine-timeout?); see `cmd --help`")
            ),
            (["-x"], .usage("cmd: unknown option '-x'; see `cmd --help`")),
        ] as [([String], OptionError)])
    func refusals(argv: [String], expected: OptionError) {
        #expect(throws: expected) { try parse(argv) }
    }

    @Test func requiredAndRefused() {
        let required = [OptionDeclaration("--fence", .text("LAT,LON"), required: true, help: "Fence.")]
        #expect(throws: OptionError.usage("replay: --fence LAT,LON is required")) {
            try ParsedOptions(["log.csv"], declarations: required, context: "replay", helpHint: "h")
        }
        #expect(throws: OptionError.usage("sweep: --engine is not supported; built-in only")) {
            try ParsedOptions(
                ["--fence", "1,2", "--engine", "x"], declarations: required, context: "sweep", helpHint: "h",
                refused: ["--engine": "built-in only"])
        }
    }

    @Test func helpSectionAndSynopsisComeFromTheDeclarations() {
        let lines = OptionDeclaration.helpSection(Self.declarations).split(separator: "\n").map(String.init)
        #expect(lines.count == Self.declarations.count)
        // One column for the help text, after the longest signature ("--model sphere|wgs84", 20 characters) + 2.
        for (line, d) in zip(lines, Self.declarations) {
            #expect(line.hasPrefix("  " + d.signature + " "), "\(line)")
            #expect(
                line.dropFirst(2 + 22).first?.isWhitespace == false && line.dropFirst(2 + 21).first == " ", "\(line)")
        }
        #expect(lines[0].hasSuffix("Output folder (default reports)."))
        #expect(lines[3].hasPrefix("  --log FILE... "))
        #expect(lines[7].hasSuffix("Model (default sphere)."))
        let synopsis = OptionDeclaration.synopsis(tool: "cmd", arguments: "[PATH...]", options: Self.declarations)
        #expect(synopsis.hasPrefix("USAGE: cmd [PATH...] [--out DIR] [--jobs N]"))
        #expect(synopsis.split(separator: "\n").allSatisfy { $0.count <= 96 })
    }
}

extension ParsedOptionsTests {
    /// An option given but never read is named, so a command cannot accept and ignore it.
    @Test func unreadOptionsAreNamed() throws {
        let p = try parse(["--jobs", "2", "--progress", "--out", "x"])
        #expect(p.unread == ["--out", "--jobs", "--progress"])
        _ = p.integer("--jobs")
        _ = p.option("--window")  // not given: reading it changes nothing
        #expect(p.unread == ["--out", "--progress"])
        _ = p.flag("--progress")
        _ = p.option("--out")
        #expect(p.unread.isEmpty)
    }
}
