// fencelab-bench: performance-regression suite with in-run C reference kernels
// and deterministic instruction counts under callgrind.
import FenceLab
import Foundation
import _FenceLabSupport

/// Runs the suite; returns the exit code.
func benchMain(_ argv: [String]) -> Int32 {
    if argv == ["--engine-serve"] { return engineServeMain() }
    do {
        let options = try Options.parse(argv)
        if options.help {
            print(Options.usage)
            return 0
        }
        let problems = Registry.validate()
        guard problems.isEmpty else {
            for problem in problems { printError("fencelab-bench: registry: \(problem)") }
            return 1
        }
        let slowdown = try Slowdown.parse(ProcessInfo.processInfo.environment)
        if let name = options.instructionsChild, let dumps = options.callgrindDumps {
            print(
                try InstructionChild.main(name: name, calls: options.runs ?? 1, dumpBase: dumps, slowdown: slowdown)
                    .line)
            return 0
        }
        let selected = Registry.all.filter { b in
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
        printError("fencelab-bench: \(error)")
        return error.exitCode
    } catch {
        printError("fencelab-bench: \(error)")
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
    let baseline = try options.compare.map { name throws(BenchError) in try store.load(name, as: BenchReport.self) }

    let runner = Runner(configuration: configuration)
    var results: [Measurement] = []
    for b in selected {
        if Syscalls.isTerminal(2) { printError("  \(b.name) ...") }
        results.append(runner.measure(b))
    }
    let machine = MachineInfo.current()
    var report = BenchReport(machine: machine, configuration: configuration, results: results)
    if let baseline, let name = options.compare {
        report.comparison = Comparison.compare(
            current: results, baseline: baseline,
            baselineName: name, threshold: options.effectiveThreshold)
    }

    switch options.format {
    case .json:
        print(String(decoding: try BenchJSON.encode(report), as: UTF8.self))
    case .text, .markdown:
        print(
            TableWriter.results(
                results, machine: machine, configuration: configuration,
                format: options.format))
        if let c = report.comparison { print(TableWriter.comparison(c, format: options.format)) }
    }
    if !runner.allocationCounterActive {
        printError("fencelab-bench: allocation counter inactive on this platform (allocs/item n/a)")
    }
    if let name = options.saveBaseline {
        var stored = report
        if !options.filters.isEmpty, store.exists(name, metric: .time) {
            let old = try store.load(name, as: BenchReport.self)
            let measured = Set(results.map(\.name))
            stored.results = Registry.all.compactMap { b in
                measured.contains(b.name)
                    ? results.first { $0.name == b.name } : old.results.first { $0.name == b.name }
            }
            printError(
                "fencelab-bench: baseline \(name): \(results.count) rows measured now, \(stored.results.count - results.count) kept from the file"
            )
        }
        let url = try store.save(stored, name: name)
        printError("fencelab-bench: baseline saved to \(url.path)")
    }
    return report.comparison?.hasRegression == true ? 2 : 0
}

/// `--metric instructions`: each benchmark counted in its own callgrind process.
func instructionsMain(_ options: Options, selected: [Benchmark], slowdown: Slowdown) throws -> Int32 {
    let store = BaselineStore.standard()
    let baseline = try options.compare.map { name throws(BenchError) in try store.load(name, as: InstructionReport.self)
    }
    let runner = try InstructionRunner.prepare(
        slowdown: slowdown, callsOverride: options.runs,
        keepProfiles: options.callgrindOut.map { URL(fileURLWithPath: $0) })
    defer { runner.cleanUp() }
    let machine = MachineInfo.current(valgrindVersion: runner.valgrindVersion)
    if let baseline, let name = options.compare {
        for warning in machine.versionWarnings(against: baseline.machine, baselineName: name) {
            printError("fencelab-bench: \(warning)")
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
    if let baseline, let name = options.compare {
        report.comparison = Comparison.compare(
            current: counted, baseline: baseline, baselineName: name,
            threshold: options.effectiveThreshold)
    }

    switch options.format {
    case .json:
        print(String(decoding: try BenchJSON.encode(report), as: UTF8.self))
    case .text, .markdown:
        print(TableWriter.instructionResults(report, order: selected.map(\.name), format: options.format))
        if let c = report.comparison { print(TableWriter.comparison(c, format: options.format)) }
    }
    if let c = report.comparison, case let new = c.rows.filter({ $0.verdict == .new && $0.gated }), !new.isEmpty {
        printError(
            "fencelab-bench: \(new.count) benchmark(s) not in baseline '\(c.baselineName)' (not gated): add them with --metric instructions --filter NAME --save-baseline \(c.baselineName)"
        )
    }
    if let name = options.saveBaseline {
        var stored = report
        if !options.filters.isEmpty, store.exists(name, metric: .instructions) {
            // Adding or refreshing a few rows: only counts of one toolchain may share a file.
            let old = try store.load(name, as: InstructionReport.self)
            guard old.machine.toolchain == machine.toolchain else {
                throw BenchError.usage(
                    "baseline \(name) holds counts of \(old.machine.toolchain), this binary is \(machine.toolchain): save all rows (no --filter)"
                )
            }
            stored.results = old.results.merging(results) { _, now in now }
            stored.notCounted = old.notCounted.merging(notCounted) { _, now in now }
            printError(
                "fencelab-bench: baseline \(name): \(results.count) rows counted now, \(stored.results.count - results.count) kept from the file"
            )
        }
        let url = try store.save(stored, name: name)
        printError("fencelab-bench: baseline saved to \(url.path)")
    }
    return report.comparison?.hasRegression == true ? 2 : 0
}

/// Hidden `--engine-serve`: the same `EngineServer.serve` session as `fencelab engine-serve`,
/// for the external-engine benchmark when no `fencelab` binary sits next to this one.
func engineServeMain() -> Int32 {
    let out = FileHandle.standardOutput
    do {
        try EngineServer.serve(nextLine: { readLine(strippingNewline: true) }, write: { out.write(Data($0.utf8)) })
        return 0
    } catch {
        printError("fencelab-bench --engine-serve: \(error)")
        return 2
    }
}

func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

exit(benchMain(Array(CommandLine.arguments.dropFirst())))
