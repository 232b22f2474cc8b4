import FenceLab
import FenceLabEngineBench
import Foundation
import _CommandLineKit

/// `fencelab bench-engine 'COMMAND' [SCENARIO...]`
enum BenchEngineCommand: Command {
    static let name = "bench-engine"
    static let summary = "Measure an external engine's per-fix latency, CPU time and memory, with baselines."
    static let arguments = "'COMMAND' [SCENARIO...]"
    static let refusedValueIsUsage = true
    static let options = [
        OptionDeclaration(
            "--metric", .choice(EngineBenchMetric.allCases.map(\.rawValue)), default: EngineBenchMetric.time.rawValue,
            help:
                "time: round trips, CPU, RSS over --runs; instructions: the engine's\nprocess tree under callgrind (needs valgrind)"
        ),
        OptionDeclaration("--runs", .integer("N", 1...100), default: "5", help: "Repeated runs (--metric time)."),
        OptionDeclaration(
            "--fixes", .integer("N", 1...1_000_000), default: "1000",
            help: "Fixes sent per scenario (the first delivered fixes of replicate 0)."),
        OptionDeclaration(
            "--save-baseline", .text("NAME"),
            help: "Write DIR/NAME-engine.json (time) or NAME-engine-instructions.json."),
        OptionDeclaration(
            "--compare", .text("NAME"),
            help:
                "Compare with that baseline: the median round trip gated at\nmax(threshold, both runs' spread); instructions per fix at the threshold."
        ),
        OptionDeclaration(
            "--threshold", .text("T"), requires: "--compare",
            help: "The relative change that counts, e.g. 10% (time default) or 2%\n(instructions default)."),
        OptionDeclaration(
            "--baselines", .text("DIR"),
            help: "Folder of the baselines (default $FENCELAB_BENCH_BASELINES, else\nBenchmarks/baselines)."),
        OptionDeclaration(
            "--format", .choice(["text", "markdown", "json"]), default: "text", help: "Output format"),
        OptionDeclaration(
            "--engine-timeout", .number("S", .positive), default: "5",
            help: "Seconds allowed per answer (×10 under callgrind)"),
        OptionDeclaration(
            "--engine-startup", .number("S", .nonNegative),
            default: OptionDeclaration.defaultText(ExternalEngine.defaultStartupGrace_s),
            help: "Extra seconds for the ready line after the start (×50 under callgrind)"),
    ]
    static let discussion = """
        Starts COMMAND (through /bin/sh) once per scenario and run, sends the fence and then
        each fix of the scenario's generated drive (default \(EngineBench.defaultScenario)) only
        after the answer to the one before, and reports per fix the round trip (median, p90,
        p99, max), fixes per second, the engine's CPU time per fix (its process tree, from
        getrusage of the reaped children, start-up included), its peak RSS and its start-up
        time (spawn to the ready line), as min, median and max over the runs. The engine must
        flush every answer (python3 -u). --metric instructions runs the engine under
        valgrind --tool=callgrind --trace-children=yes once without fixes and once with them:
        instructions per fix, deterministic for a native engine. Time baselines are
        machine-specific; gate CI on instructions (docs/benchmarks.md).
        """
    static let footer = """
        EXAMPLE: fencelab bench-engine 'python3 -u Examples/engines/seed_rules.py' --save-baseline main

        EXIT: 0 no regression, 1 the engine failed the protocol, a scenario or baseline could not be
              read or is of another workload or metric, or valgrind is missing, 2 regression,
              5 baseline missing, 64 usage.
        """

    static func run(_ arguments: Arguments) throws -> ExitCode {
        let positionals = arguments.positionals
        guard let command = positionals.first else {
            throw CLIError.usage("bench-engine: expected 'COMMAND' (quote it) and optional SCENARIO files")
        }
        let metric = EngineBenchMetric(rawValue: arguments.option("--metric")!)!
        let runs = arguments.integer("--runs")!
        if metric == .instructions, arguments.isGiven("--runs") {
            throw CLIError.usage("bench-engine: --runs applies to --metric time (instruction counts need no repeats)")
        }
        let threshold = try arguments.option("--threshold").map(parseThreshold)
        let environment = ProcessInfo.processInfo.environment["FENCELAB_BENCH_BASELINES"] ?? ""
        let request = EngineBenchRequest(
            command: command, scenarioPaths: Array(positionals.dropFirst()),
            fixesPerScenario: arguments.integer("--fixes")!, runs: metric == .time ? runs : 1,
            metric: metric, perFixTimeout_s: arguments.number("--engine-timeout")!,
            startupGrace_s: arguments.number("--engine-startup")!, saveBaseline: arguments.option("--save-baseline"),
            compare: arguments.option("--compare"), threshold: threshold,
            baselineDirectory: arguments.option("--baselines")
                ?? (environment.isEmpty
                    ? "Benchmarks/baselines" : environment))
        let format = arguments.option("--format")!
        let outcome: EngineBenchOutcome
        do { outcome = try EngineBench.run(request) } catch {
            printError("fencelab: bench-engine: \(error.description)")
            switch error.exitCode {
            case 64: return .usage
            case 5: return .baselineMissing
            default: return .checkFailed
            }
        }
        print(
            format == "json"
                ? try EngineBench.json(outcome.report)
                : EngineBench.text(outcome.report, markdown: format == "markdown"))
        for note in outcome.notes { printError("fencelab: bench-engine: \(note)") }
        return outcome.exitCode == 2 ? .regression : .success
    }

    /// "10%" or "10" → 0.10, within 0 < t ≤ 1000 %.
    static func parseThreshold(_ text: String) throws -> Double {
        let digits = text.hasSuffix("%") ? String(text.dropLast()) : text
        guard let p = Double(digits), p.isFinite, p > 0, p <= 1000 else {
            throw CLIError.usage("bench-engine: --threshold must be a percentage in (0, 1000], e.g. 10%, got '\(text)'")
        }
        return p / 100
    }
}
