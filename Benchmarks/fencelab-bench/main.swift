// fencelab-bench: performance-regression suite with in-run C reference kernels (issue 8).
import FenceLab
import Foundation

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
            problems.forEach { printError("fencelab-bench: registry: \($0)") }
            return 1
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

        let slowdown = try Options.slowdown(ProcessInfo.processInfo.environment)
        if let name = options.callgrind {
            guard let b = Registry.named(name) else {
                throw BenchError.usage("--callgrind: no benchmark named '\(name)'; see --list")
            }
            let runner = Runner(configuration: .quick(slowdown: slowdown))
            let checksum = runner.runForInstructionCount(b, runs: options.callgrindRuns)
            let items = b.itemsPerRun * options.callgrindRuns
            print("\(b.name): \(items) items (\(b.unit)) in measuredRegion (\(options.callgrindRuns) runs × \(b.itemsPerRun)); checksum \(checksum)")
            print("instructions per \(b.unit) = Ir of measuredRegion (inclusive) / \(items)")
            return 0
        }
        var configuration = options.quick ? RunConfiguration.quick(slowdown: slowdown)
            : RunConfiguration.standard(slowdown: slowdown)
        if let n = options.samples { configuration.samples = n }
        let store = BaselineStore.standard()
        // Load the baseline first: a missing one fails fast, before minutes of timing.
        let baseline = try options.compare.map { name throws(BenchError) in try store.load(name) }

        let runner = Runner(configuration: configuration)
        var results: [Measurement] = []
        for b in selected {
            if isatty(STDERR_FILENO) != 0 { printError("  \(b.name) ...") }
            results.append(runner.measure(b))
        }
        let machine = MachineInfo.current()
        var report = BenchReport(machine: machine, configuration: configuration, results: results)
        if let baseline, let name = options.compare {
            report.comparison = Comparison.compare(current: results, baseline: baseline,
                                                   baselineName: name, threshold: options.threshold)
        }

        switch options.format {
        case .json:
            print(String(decoding: try BenchJSON.encode(report), as: UTF8.self))
        case .text, .markdown:
            print(TableWriter.results(results, machine: machine, configuration: configuration,
                                      format: options.format))
            if let c = report.comparison { print(TableWriter.comparison(c, format: options.format)) }
        }
        if !runner.allocationCounterActive {
            printError("fencelab-bench: allocation counter inactive on this platform (allocs/item n/a)")
        }
        if let name = options.saveBaseline {
            let url = try store.save(report, name: name)
            printError("fencelab-bench: baseline saved to \(url.path)")
        }
        return report.comparison?.hasRegression == true ? 2 : 0
    } catch let error as BenchError {
        printError("fencelab-bench: \(error)")
        return error.exitCode
    } catch {
        printError("fencelab-bench: \(error)")
        return 1
    }
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
