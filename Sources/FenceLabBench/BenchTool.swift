import Foundation
import _FenceLabSupport

/// A benchmark executable: its rows, its name and the paragraph its `--help` shows. The
/// command line, the timing loop, the callgrind counting, the baselines, the output formats
/// and the exit codes are the kit's (docs/benchmarks.md); a tool only registers rows.
///
/// ```swift
/// import FenceLabBench
/// BenchTool(name: "team-bench", summary: "DwellRule per fix.", rows: [myRow]).run()
/// ```
public struct BenchTool: Sendable {
    /// The executable's name, as the user types it (`--help`, messages, table headings).
    public let name: String
    /// One paragraph for `--help`: what the rows measure.
    public let summary: String
    let registry: Registry

    public init(name: String, summary: String, rows: [Benchmark]) {
        self.name = name
        self.summary = summary
        self.registry = Registry(all: rows)
    }

    /// The rows, in display order.
    public var rows: [Benchmark] { registry.all }

    /// Runs the command line of this process and exits with its code.
    public func run() -> Never {
        exit(main(Array(CommandLine.arguments.dropFirst())))
    }

    /// Runs one command line (without the executable's name); returns the exit code:
    /// 0 no regression, 1 a baseline could not be read or written or a count could not be taken,
    /// 2 regression, 5 baseline missing, 64 usage error.
    public func main(_ argv: [String]) -> Int32 {
        do {
            let options = try Options.parse(argv, tool: name)
            if options.help {
                print(Options.usage(tool: name, summary: summary))
                return 0
            }
            let problems = registry.validate()
            guard problems.isEmpty else {
                for problem in problems { printError("\(name): registry: \(problem)") }
                return 1
            }
            let slowdown = try Slowdown.parse(ProcessInfo.processInfo.environment)
            if let child = options.instructionsChild, let dumps = options.callgrindDumps {
                print(
                    try InstructionChild.main(
                        name: child, registry: registry, calls: options.runs ?? 1, dumpBase: dumps,
                        slowdown: slowdown
                    ).line)
                return 0
            }
            let selected = registry.all.filter { b in
                options.filters.isEmpty || options.filters.contains { b.name.contains($0) }
            }
            if options.list {
                for b in selected {
                    print("\(b.name)\t\(b.itemsPerRun) \(b.unit)s/run\(b.reference.map { "\tvs \($0)" } ?? "")")
                }
                return 0
            }
            guard !selected.isEmpty else { throw BenchError.usage("--filter matches no benchmark; see --list") }
            switch options.metric {
            case .time: return try timeMain(options, selected: selected, slowdown: slowdown)
            case .instructions: return try instructionsMain(options, selected: selected, slowdown: slowdown)
            }
        } catch let error as BenchError {
            printError("\(name): \(error)")
            return error.exitCode
        } catch {
            printError("\(name): \(error)")
            return 1
        }
    }

    /// `--metric time`: interleaved samples against the C kernels.
    func timeMain(_ options: Options, selected: [Benchmark], slowdown: Slowdown) throws -> Int32 {
        var configuration =
            options.quick
            ? RunConfiguration.quick(slowdown: slowdown.factor)
            : RunConfiguration.standard(slowdown: slowdown.factor)
        if let n = options.samples { configuration.samples = n }
        let store = BaselineStore.standard()
        // Load the baseline first: a missing one fails fast, before minutes of timing.
        let baseline = try options.compare.map { name throws(BenchError) in
            try store.load(name, as: BenchReport.self)
        }
        if let baseline, let baselineName = options.compare {
            try checkRowSet(
                selected, baseline: Set(baseline.results.map(\.name)), path: store.path(baselineName, metric: .time))
        }

        let runner = Runner(configuration: configuration, registry: registry)
        var results: [Measurement] = []
        for b in selected {
            if Syscalls.isTerminal(2) { printError("  \(b.name) ...") }
            results.append(runner.measure(b))
        }
        let machine = MachineInfo.current()
        var report = BenchReport(machine: machine, configuration: configuration, results: results)
        if let baseline, let baselineName = options.compare {
            report.comparison = Comparison.compare(
                current: results, baseline: baseline,
                baselineName: baselineName, threshold: options.effectiveThreshold)
        }

        switch options.format {
        case .json:
            print(String(decoding: try BenchJSON.encode(report), as: UTF8.self))
        case .text, .markdown:
            print(
                TableWriter.results(
                    results, tool: name, machine: machine, configuration: configuration,
                    format: options.format))
            if let c = report.comparison { print(TableWriter.comparison(c, format: options.format)) }
        }
        if !runner.allocationCounterActive {
            printError("\(name): allocation counter inactive on this platform (allocs/item n/a)")
        }
        if let baselineName = options.saveBaseline {
            var stored = report
            if !options.filters.isEmpty, store.exists(baselineName, metric: .time) {
                let old = try store.load(baselineName, as: BenchReport.self)
                let measured = Set(results.map(\.name))
                stored.results = registry.all.compactMap { b in
                    measured.contains(b.name)
                        ? results.first { $0.name == b.name } : old.results.first { $0.name == b.name }
                }
                printError(
                    "\(name): baseline \(baselineName): \(results.count) rows measured now, \(stored.results.count - results.count) kept from the file"
                )
            }
            let url = try store.save(stored, name: baselineName)
            printError("\(name): baseline saved to \(url.path)")
        }
        return report.comparison?.hasRegression == true ? 2 : 0
    }

    /// `--metric instructions`: each benchmark counted in its own callgrind process.
    func instructionsMain(_ options: Options, selected: [Benchmark], slowdown: Slowdown) throws -> Int32 {
        let store = BaselineStore.standard()
        let baseline = try options.compare.map { name throws(BenchError) in
            try store.load(name, as: InstructionReport.self)
        }
        if let baseline, let baselineName = options.compare {
            try checkRowSet(
                selected.filter { if case .counted = $0.instructions { true } else { false } },
                baseline: Set(baseline.results.keys), path: store.path(baselineName, metric: .instructions))
        }
        let runner = try InstructionRunner.prepare(
            tool: name, slowdown: slowdown, callsOverride: options.runs,
            keepProfiles: options.callgrindOut.map { URL(fileURLWithPath: $0) })
        defer { runner.cleanUp() }
        let machine = MachineInfo.current(valgrindVersion: runner.valgrindVersion)
        if let baseline, let baselineName = options.compare {
            for warning in machine.versionWarnings(against: baseline.machine, baselineName: baselineName) {
                printError("\(name): \(warning)")
            }
        }

        var results: [String: InstructionMeasurement] = [:]
        var notCounted: [String: String] = [:]
        for (index, b) in selected.enumerated() {
            if case .notCounted(let reason) = b.instructions {
                notCounted[b.name] = reason
                continue
            }
            if Syscalls.isTerminal(2) { printError("  \(b.name) ...") }
            results[b.name] = try runner.measure(b, index: index)
        }
        var report = InstructionReport(
            machine: machine, slowdown: slowdown.factor,
            valgrindArguments: InstructionRunner.valgrindArguments,
            results: results, notCounted: notCounted)
        let counted = selected.compactMap { results[$0.name] }
        if let baseline, let baselineName = options.compare {
            report.comparison = Comparison.compare(
                current: counted, baseline: baseline, baselineName: baselineName,
                threshold: options.effectiveThreshold)
        }

        switch options.format {
        case .json:
            print(String(decoding: try BenchJSON.encode(report), as: UTF8.self))
        case .text, .markdown:
            print(
                TableWriter.instructionResults(
                    report, tool: name, order: selected.map(\.name), format: options.format))
            if let c = report.comparison { print(TableWriter.comparison(c, format: options.format)) }
        }
        if let c = report.comparison, case let new = c.rows.filter({ $0.verdict == .new && $0.gated }), !new.isEmpty {
            printError(
                "\(name): \(new.count) benchmark(s) not in baseline '\(c.baselineName)' (not gated): add them with --metric instructions --filter NAME --save-baseline \(c.baselineName)"
            )
        }
        if let baselineName = options.saveBaseline {
            var stored = report
            if !options.filters.isEmpty, store.exists(baselineName, metric: .instructions) {
                // Adding or refreshing a few rows: only counts of one toolchain may share a file.
                let old = try store.load(baselineName, as: InstructionReport.self)
                guard old.machine.toolchain == machine.toolchain else {
                    throw BenchError.usage(
                        "baseline \(baselineName) holds counts of \(old.machine.toolchain), this binary is \(machine.toolchain): save all rows (no --filter)"
                    )
                }
                stored.results = old.results.merging(results) { _, now in now }
                stored.notCounted = old.notCounted.merging(notCounted) { _, now in now }
                printError(
                    "\(name): baseline \(baselineName): \(results.count) rows counted now, \(stored.results.count - results.count) kept from the file"
                )
            }
            let url = try store.save(stored, name: baselineName)
            printError("\(name): baseline saved to \(url.path)")
        }
        return report.comparison?.hasRegression == true ? 2 : 0
    }
}

extension BenchTool {
    /// A baseline holding none of the gated rows of this run belongs to another tool or row set:
    /// comparing would report every row `new` and gate nothing.
    func checkRowSet(_ selected: [Benchmark], baseline: Set<String>, path: URL) throws(BenchError) {
        let gated = selected.filter(\.gated)
        guard !gated.isEmpty, !gated.contains(where: { baseline.contains($0.name) }) else { return }
        throw .baselineUnreadable(
            path: path.path,
            reason:
                "holds none of the \(gated.count) gated rows of this run (\(gated[0].name), …): a baseline of another tool or row set"
        )
    }
}

func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
