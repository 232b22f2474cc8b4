import Foundation

/// Parsed command line of `fencelab-bench`.
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

    static let usage = """
        USAGE: fencelab-bench [--metric time|instructions] [--filter SUBSTR]... [--format text|markdown|json]
                              [--save-baseline NAME] [--compare NAME [--threshold T]] [--list]
                              time: [--quick] [--samples N]   instructions: [--runs N] [--callgrind-out DIR]

        --metric time (default) times the FenceLab engine against C reference kernels measured in
        the same run and prints items/s, median and p90 time per call, the ratio to the kernel and
        allocations per item. --metric instructions counts instructions per item with valgrind's
        callgrind, deterministically (the CI gate). Build with -c release for meaningful figures.

        OPTIONS:
          --metric M            time (default) or instructions (needs valgrind: Debian package valgrind).
          --quick               Fewer, shorter samples (the CI smoke pass; same table). Time only.
          --filter SUBSTR       Only benchmarks whose name contains SUBSTR (repeatable: any).
          --format FORMAT       text (default), markdown or json.
          --save-baseline NAME  Write Benchmarks/baselines/NAME.json (time) or NAME-instructions.json
                                (machine info included). With --filter and an existing baseline of
                                the same toolchain, the measured rows replace theirs and the others stay.
          --compare NAME        Compare with that baseline: time on the ratio to the kernel where there
                                is one (rows with a wide measured spread are tracked-only), else items/s;
                                instructions on instructions per item (lower is better).
          --threshold T         Relative change that counts, e.g. 10% (time default) or 2% (instructions default).
          --samples N           Timed samples per benchmark (default 201, --quick 51). Time only.
          --runs N              Body calls counted per benchmark (default: the benchmark's, 1-3). Instructions only.
          --callgrind-out DIR   Keep each benchmark's callgrind profile in DIR (for callgrind_annotate).
          --list                List the benchmarks and exit.

        ENVIRONMENT:
          FENCELAB_BENCH_SLOWDOWN=F    Swift bodies do F times their work, F in 1...1000, e.g. 1.1 or 3
                                       (proves --compare fails).
          FENCELAB_BENCH_BASELINES=DIR Folder of baselines instead of Benchmarks/baselines.

        EXIT: 0 no regression, 1 a baseline could not be read or written or instructions could not be
              counted (valgrind missing), 2 regression, 5 baseline missing, 64 usage error.
        """

    static func parse(_ argv: [String]) throws(BenchError) -> Options {
        var o = Options()
        var i = 0
        func value(_ name: String) throws(BenchError) -> String {
            guard i + 1 < argv.count, !argv[i + 1].hasPrefix("--") else { throw .usage("\(name) needs a value") }
            i += 1
            return argv[i]
        }
        while i < argv.count {
            var arg = argv[i]
            var inline: String?
            if arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") {
                inline = String(arg[arg.index(after: eq)...])
                arg = String(arg[..<eq])
            }
            func v(_ name: String) throws(BenchError) -> String {
                if let inline { return inline }
                return try value(name)
            }
            switch arg {
            case "--quick": o.quick = true
            case "--list": o.list = true
            case "--help", "-h": o.help = true
            case "--filter": o.filters.append(try v(arg))
            case "--format":
                let f = try v(arg)
                guard let format = OutputFormat(rawValue: f) else {
                    throw .usage("--format must be text, markdown or json, got '\(f)'")
                }
                o.format = format
            case "--save-baseline":
                let n = try v(arg)
                try BaselineStore.validate(name: n)
                o.saveBaseline = n
            case "--compare":
                let n = try v(arg)
                try BaselineStore.validate(name: n)
                o.compare = n
            case "--threshold": o.threshold = try parseThreshold(try v(arg))
            case "--metric":
                let m = try v(arg)
                guard let metric = Metric(rawValue: m) else {
                    throw .usage("--metric must be time or instructions, got '\(m)'")
                }
                o.metric = metric
            case "--runs":
                let s = try v(arg)
                guard let n = Int(s), (1...1000).contains(n) else {
                    throw .usage("--runs must be an integer in 1...1000, got '\(s)'")
                }
                o.runs = n
            case "--callgrind-out": o.callgrindOut = try v(arg)
            case "--instructions-child": o.instructionsChild = try v(arg)
            case "--callgrind-dumps": o.callgrindDumps = try v(arg)
            case "--samples":
                let s = try v(arg)
                guard let n = Int(s), (1...1000).contains(n) else {
                    throw .usage("--samples must be an integer in 1...1000, got '\(s)'")
                }
                o.samples = n
            default:
                throw .usage("unknown argument '\(argv[i])'; see fencelab-bench --help")
            }
            i += 1
        }
        if argv.contains(where: { $0 == "--threshold" || $0.hasPrefix("--threshold=") }), o.compare == nil {
            throw .usage("--threshold needs --compare NAME")
        }
        if o.metric == .instructions {
            if o.quick { throw .usage("--quick applies to --metric time (instruction counts need no repeats)") }
            if o.samples != nil { throw .usage("--samples applies to --metric time; use --runs N with --metric instructions") }
        } else if o.instructionsChild == nil {
            if o.runs != nil { throw .usage("--runs applies to --metric instructions") }
            if o.callgrindOut != nil { throw .usage("--callgrind-out applies to --metric instructions") }
        }
        if (o.instructionsChild == nil) != (o.callgrindDumps == nil) {
            throw .usage("--instructions-child and --callgrind-dumps go together (fencelab-bench --metric instructions passes them)")
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
