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

    static let usage = """
        USAGE: fencelab-bench [--quick] [--filter SUBSTR]... [--format text|markdown|json]
                              [--save-baseline NAME] [--compare NAME [--threshold 10%]]
                              [--samples N] [--list]
               fencelab-bench --callgrind NAME [--runs N]   (under valgrind, see docs/benchmarks.md)

        Times the FenceLab engine against C reference kernels measured in the same run and
        prints items/s, median and p90 time per call, the ratio to the kernel and allocations
        per item. Build with -c release for meaningful figures.

        OPTIONS:
          --quick               Fewer, shorter samples (the CI smoke pass; same table).
          --filter SUBSTR       Only benchmarks whose name contains SUBSTR (repeatable: any).
          --format FORMAT       text (default), markdown or json.
          --save-baseline NAME  Write Benchmarks/baselines/NAME.json (machine info included).
          --compare NAME        Compare with Benchmarks/baselines/NAME.json: on the ratio to the
                                kernel where there is one, else items/s; with each benchmark's polarity.
          --threshold T         Relative change that counts, e.g. 10% (default) or 25%.
          --samples N           Timed samples per benchmark (default 201, --quick 51).
          --list                List the benchmarks and exit.
          --callgrind NAME      Run benchmark NAME's body N times (default 10) inside the function
                                measuredRegion and print its items, for instruction counts with
                                valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*measuredRegion*'.

        ENVIRONMENT:
          FENCELAB_BENCH_SLOWDOWN=N    Swift bodies repeat their work N times (proves --compare fails).
          FENCELAB_BENCH_BASELINES=DIR Folder of baselines instead of Benchmarks/baselines.

        EXIT: 0 no regression, 1 a baseline could not be read or written, 2 regression,
              5 baseline missing, 64 usage error.
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
            case "--callgrind": o.callgrind = try v(arg)
            case "--runs":
                let s = try v(arg)
                guard let n = Int(s), (1...1_000_000).contains(n) else {
                    throw .usage("--runs must be an integer in 1...1000000, got '\(s)'")
                }
                o.callgrindRuns = n
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
