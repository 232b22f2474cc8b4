import FenceLab
import Foundation

/// Parsed command line of `fencelab-bench`.
struct Options: Sendable {
    var quick = false
    var filters: [String] = []
    var format: OutputFormat = .text
    var saveBaseline: String?
    var compare: String?
    /// Relative, 0.1 = 10 %.
    var threshold = 0.10
    var list = false
    var help = false
    var samples: Int?
    /// `--callgrind NAME`: run one benchmark `callgrindRuns` times inside `measuredRegion`, untimed.
    var callgrind: String?
    var callgrindRuns = 10

    /// Every option, declared once: parsing, the OPTIONS section of `--help` and suggestions derive from it.
    static let declarations = [
        OptionDeclaration("--quick", .flag, help: "Fewer, shorter samples (the CI smoke pass; same table)."),
        OptionDeclaration("--filter", .text("SUBSTR"), repetition: .each,
                          help: "Only benchmarks whose name contains SUBSTR (repeatable: any)."),
        OptionDeclaration("--format", .choice(OutputFormat.allCases.map(\.rawValue)), default: OutputFormat.text.rawValue,
                          help: "Output format"),
        OptionDeclaration("--save-baseline", .text("NAME"), help: "Write Benchmarks/baselines/NAME.json (machine info included)."),
        OptionDeclaration("--compare", .text("NAME"), help: """
            Compare with Benchmarks/baselines/NAME.json: on the ratio to the
            kernel where there is one, else items/s; with each benchmark's polarity.
            """),
        OptionDeclaration("--threshold", .text("T"), default: "10%", requires: "--compare",
                          help: "Relative change that counts, e.g. 10% or 25%"),
        OptionDeclaration("--samples", .integer("N", 1...1000), help: "Timed samples per benchmark (default 201, --quick 51)."),
        OptionDeclaration("--list", .flag, help: "List the benchmarks and exit."),
        OptionDeclaration("--callgrind", .text("NAME"), help: """
            Run benchmark NAME's body N times (see --runs) inside the function
            measuredRegion and print its items, for instruction counts with
            valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*measuredRegion*'.
            """),
        OptionDeclaration("--runs", .integer("N", 1...1_000_000), default: "10", help: "Runs of --callgrind"),
        OptionDeclaration("--help", .flag, help: "Show this help (also -h)."),
    ]

    static let usage = """
        USAGE: fencelab-bench [--quick] [--filter SUBSTR]... [--format text|markdown|json]
                              [--save-baseline NAME] [--compare NAME [--threshold 10%]]
                              [--samples N] [--list]
               fencelab-bench --callgrind NAME [--runs N]   (under valgrind, see docs/benchmarks.md)

        Times the FenceLab engine against C reference kernels measured in the same run and
        prints items/s, median and p90 time per call, the ratio to the kernel and allocations
        per item. Build with -c release for meaningful figures.

        OPTIONS:
        \(OptionDeclaration.helpSection(declarations))

        ENVIRONMENT:
          FENCELAB_BENCH_SLOWDOWN=N    Swift bodies repeat their work N times (proves --compare fails).
          FENCELAB_BENCH_BASELINES=DIR Folder of baselines instead of Benchmarks/baselines.

        EXIT: 0 no regression, 1 a baseline could not be read or written, 2 regression,
              5 baseline missing, 64 usage error.
        """

    static func parse(_ argv: [String]) throws(BenchError) -> Options {
        let parsed: ParsedOptions
        do {
            parsed = try ParsedOptions(argv.map { $0 == "-h" ? "--help" : $0 }, declarations: declarations, context: "",
                                       helpHint: "fencelab-bench --help")
        } catch {
            throw .usage(error.description)
        }
        if let stray = parsed.positionals.first { throw .usage("unknown argument '\(stray)'; see fencelab-bench --help") }
        var o = Options()
        o.quick = parsed.flag("--quick")
        o.list = parsed.flag("--list")
        o.help = parsed.flag("--help")
        o.filters = parsed.options("--filter")
        o.format = OutputFormat(rawValue: parsed.option("--format")!)!
        o.saveBaseline = parsed.option("--save-baseline")
        o.compare = parsed.option("--compare")
        try o.saveBaseline.map { name throws(BenchError) in try BaselineStore.validate(name: name) }
        try o.compare.map { name throws(BenchError) in try BaselineStore.validate(name: name) }
        o.threshold = try parseThreshold(parsed.option("--threshold")!)
        o.callgrind = parsed.option("--callgrind")
        o.callgrindRuns = parsed.integer("--runs")!
        o.samples = parsed.integer("--samples")
        return o
    }

    /// "10%" or "10" → 0.10; must be within 0 < t ≤ 1000 %.
    static func parseThreshold(_ text: String) throws(BenchError) -> Double {
        let digits = text.hasSuffix("%") ? String(text.dropLast()) : text
        guard let p = Double(digits), p.isFinite, p > 0, p <= 1000 else {
            throw .usage("--threshold must be a percentage in (0, 1000], e.g. 10%, got '\(text)'")
        }
        return p / 100
    }

    /// `FENCELAB_BENCH_SLOWDOWN`: unset or empty → 1; else an integer 1...1000.
    static func slowdown(_ environment: [String: String]) throws(BenchError) -> Int {
        guard let text = environment["FENCELAB_BENCH_SLOWDOWN"], !text.isEmpty else { return 1 }
        guard let k = Int(text), (1...1000).contains(k) else {
            throw .usage("FENCELAB_BENCH_SLOWDOWN must be an integer in 1...1000, got '\(text)'")
        }
        return k
    }
}
