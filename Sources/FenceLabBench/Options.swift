import Foundation
import _CommandLineKit

/// Parsed command line of a benchmark tool built with the kit (`fencelab-bench`, a team's own).
struct Options: Sendable {
    var quick = false
    var filters: [String] = []
    var format: OutputFormat = .text
    var saveBaseline: String?
    var compare: String?
    /// `--metric`: time (default) or instructions.
    var metric: Metric = .time
    /// Relative, 0.1 = 10 %; nil = the metric's default (time 10 %, instructions 2 %).
    var threshold: Double?
    var list = false
    var help = false
    var samples: Int?
    /// `--runs N`: body calls counted per benchmark by `--metric instructions` (default: the benchmark's).
    var runs: Int?
    /// `--callgrind-out DIR`: keep each benchmark's callgrind profile.
    var callgrindOut: String?
    /// Hidden `--instructions-child NAME --callgrind-dumps BASE`: the process callgrind runs.
    var instructionsChild: String?
    var callgrindDumps: String?

    /// Every option, declared once: parsing, the OPTIONS section of `--help` and suggestions derive from it.
    static let declarations = [
        OptionDeclaration(
            "--metric", .choice(Metric.allCases.map(\.rawValue)), default: Metric.time.rawValue,
            help: "What to measure: time, or instructions (needs valgrind, Debian package valgrind)"),
        OptionDeclaration("--quick", .flag, help: "Fewer, shorter samples (the CI smoke pass; same table). Time only."),
        OptionDeclaration(
            "--filter", .text("SUBSTR"), repetition: .each,
            help: "Only benchmarks whose name contains SUBSTR (repeatable: any)."),
        OptionDeclaration(
            "--format", .choice(OutputFormat.allCases.map(\.rawValue)), default: OutputFormat.text.rawValue,
            help: "Output format"),
        OptionDeclaration(
            "--save-baseline", .text("NAME"),
            help: """
                Write Benchmarks/baselines/NAME.json (time) or NAME-instructions.json
                (machine info included). With --filter and an existing baseline of
                the same toolchain, the measured rows replace theirs and the others stay.
                """),
        OptionDeclaration(
            "--compare", .text("NAME"),
            help: """
                Compare with that baseline: time on the ratio to the kernel where there
                is one (rows with a wide measured spread are tracked-only), else items/s;
                instructions on instructions per item (lower is better).
                """),
        OptionDeclaration(
            "--threshold", .text("T"), requires: "--compare",
            help:
                "With --compare: the relative change that counts, e.g. 10% (time default)\nor 2% (instructions default)."
        ),
        OptionDeclaration(
            "--samples", .integer("N", 1...1000),
            help: "Timed samples per benchmark (default 201, --quick 51). Time only."),
        OptionDeclaration(
            "--runs", .integer("N", 1...1000),
            help: "Body calls counted per benchmark (default: the benchmark's, 1-3). Instructions only."),
        OptionDeclaration(
            "--callgrind-out", .text("DIR"),
            help: "Keep each benchmark's callgrind profile in DIR (for callgrind_annotate)."),
        OptionDeclaration("--list", .flag, help: "List the benchmarks and exit."),
        OptionDeclaration("--help", .flag, help: "Show this help (also -h)."),
        // The process callgrind runs (`--metric instructions` passes them); not for users.
        OptionDeclaration("--instructions-child", .text("NAME"), hidden: true, help: ""),
        OptionDeclaration("--callgrind-dumps", .text("BASE"), hidden: true, help: ""),
    ]

    /// The whole `--help` text: synopsis and OPTIONS derived from `declarations`, like `fencelab`'s commands.
    /// `summary` is the tool's own paragraph (what its rows measure).
    static func usage(tool: String, summary: String) -> String {
        """
        \(OptionDeclaration.synopsis(tool: tool, arguments: "", options: declarations))

        \(summary)

        --metric time (default) prints items/s, median and p90 time per call, the ratio to the
        reference kernel and allocations per item. --metric instructions counts instructions per
        item with valgrind's callgrind, deterministically (the CI gate). Build with -c release for
        meaningful figures.

        OPTIONS:
        \(OptionDeclaration.helpSection(declarations))

        ENVIRONMENT:
          FENCELAB_BENCH_SLOWDOWN=F    Swift bodies do F times their work, F in 1...1000, e.g. 1.1 or 3
                                       (proves --compare fails).
          FENCELAB_BENCH_BASELINES=DIR Folder of baselines instead of Benchmarks/baselines.

        EXIT: 0 no regression, 1 a baseline could not be read or written or instructions could not be
              counted (valgrind missing), 2 regression, 5 baseline missing, 64 usage error.
        """
    }

    static func parse(_ argv: [String], tool: String) throws(BenchError) -> Options {
        let parsed: ParsedOptions
        do {
            parsed = try ParsedOptions(
                argv.map { $0 == "-h" ? "--help" : $0 }, declarations: declarations, context: "",
                helpHint: "\(tool) --help")
        } catch {
            throw .usage(error.description)
        }
        if let stray = parsed.positionals.first {
            throw .usage("unknown argument '\(stray)'; see \(tool) --help")
        }
        var o = Options()
        o.quick = parsed.flag("--quick")
        o.list = parsed.flag("--list")
        o.help = parsed.flag("--help")
        o.filters = parsed.options("--filter")
        o.format = OutputFormat(rawValue: parsed.option("--format")!)!
        o.metric = Metric(rawValue: parsed.option("--metric")!)!
        o.saveBaseline = parsed.option("--save-baseline")
        o.compare = parsed.option("--compare")
        try o.saveBaseline.map { name throws(BenchError) in try BaselineStore.validate(name: name) }
        try o.compare.map { name throws(BenchError) in try BaselineStore.validate(name: name) }
        o.threshold = try parsed.option("--threshold").map { text throws(BenchError) in try parseThreshold(text) }
        o.samples = parsed.integer("--samples")
        o.runs = parsed.integer("--runs")
        o.callgrindOut = parsed.option("--callgrind-out")
        o.instructionsChild = parsed.option("--instructions-child")
        o.callgrindDumps = parsed.option("--callgrind-dumps")
        if o.metric == .instructions {
            if o.quick { throw .usage("--quick applies to --metric time (instruction counts need no repeats)") }
            if o.samples != nil {
                throw .usage("--samples applies to --metric time; use --runs N with --metric instructions")
            }
        } else if o.instructionsChild == nil {
            if o.runs != nil { throw .usage("--runs applies to --metric instructions") }
            if o.callgrindOut != nil { throw .usage("--callgrind-out applies to --metric instructions") }
        }
        if (o.instructionsChild == nil) != (o.callgrindDumps == nil) {
            throw .usage(
                "--instructions-child and --callgrind-dumps go together (\(tool) --metric instructions passes them)"
            )
        }
        return o
    }

    /// `--threshold`, else the metric's default.
    var effectiveThreshold: Double { threshold ?? metric.defaultThreshold }

    /// "10%" or "10" → 0.10; must be within 0 < t ≤ 1000 %.
    static func parseThreshold(_ text: String) throws(BenchError) -> Double {
        let digits = text.hasSuffix("%") ? String(text.dropLast()) : text
        guard let p = Double(digits), p.isFinite, p > 0, p <= 1000 else {
            throw .usage("--threshold must be a percentage in (0, 1000], e.g. 10%, got '\(text)'")
        }
        return p / 100
    }
}
