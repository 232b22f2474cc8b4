import DriveSim
import FenceLab
import FenceLabBench
import Foundation
import GeoPolicy
import _FenceLabSupport

/// What `fencelab bench-engine` measures.
package enum EngineBenchMetric: String, Codable, Sendable, Hashable, CaseIterable {
    /// Wall-clock round trips, CPU time and peak RSS of the engine process, over repeated runs.
    case time
    /// Instructions of the engine process tree under `valgrind --tool=callgrind --trace-children=yes`.
    case instructions

    /// Default relative threshold of `--compare` (before the spread allowance of time runs).
    package var defaultThreshold: Double {
        switch self {
        case .time: return 0.10
        case .instructions: return 0.02
        }
    }
}

/// A `fencelab bench-engine` command line, parsed.
package struct EngineBenchRequest: Sendable {
    package var command: String
    package var scenarioPaths: [String]
    /// Fixes sent per scenario (the first delivered fixes of replicate 0).
    package var fixesPerScenario: Int
    /// Repeated runs (`--metric time`); each run starts the engine once per scenario.
    package var runs: Int
    package var metric: EngineBenchMetric
    package var perFixTimeout_s: Double
    package var startupGrace_s: Double
    package var saveBaseline: String?
    package var compare: String?
    /// Relative, 0.1 = 10 %; nil = the metric's default.
    package var threshold: Double?
    /// Folder of the baselines (`NAME-engine.json`, `NAME-engine-instructions.json`).
    package var baselineDirectory: String

    package init(
        command: String, scenarioPaths: [String], fixesPerScenario: Int, runs: Int, metric: EngineBenchMetric,
        perFixTimeout_s: Double, startupGrace_s: Double, saveBaseline: String?, compare: String?,
        threshold: Double?, baselineDirectory: String
    ) {
        self.command = command
        self.scenarioPaths = scenarioPaths
        self.fixesPerScenario = fixesPerScenario
        self.runs = runs
        self.metric = metric
        self.perFixTimeout_s = perFixTimeout_s
        self.startupGrace_s = startupGrace_s
        self.saveBaseline = saveBaseline
        self.compare = compare
        self.threshold = threshold
        self.baselineDirectory = baselineDirectory
    }

    package var effectiveThreshold: Double { threshold ?? metric.defaultThreshold }
}

/// Why `bench-engine` could not measure or compare; each is one line, with its exit code.
package enum EngineBenchError: Error, Sendable, CustomStringConvertible {
    case usage(String)
    /// A scenario could not be read or generated.
    case scenario(String)
    /// The engine failed the protocol (could not start, timed out, wrong answer, exited non-zero).
    case engine(scenario: String, run: Int, reason: String)
    case baselineMissing(path: String)
    /// Unreadable, of the other metric, or of another workload (scenarios, fix counts, rules).
    case baselineIncompatible(path: String, reason: String)
    case cannotWrite(path: String, reason: String)
    /// valgrind not found, or a count not taken.
    case instructions(String)

    package var description: String {
        switch self {
        case .usage(let m), .scenario(let m), .instructions(let m): return m
        case .engine(let scenario, let run, let reason): return "\(scenario), run \(run): \(reason)"
        case .baselineMissing(let path): return "baseline not found: \(path) (create it with --save-baseline)"
        case .baselineIncompatible(let path, let reason): return "\(path): \(reason)"
        case .cannotWrite(let path, let reason): return "\(path): cannot write: \(reason)"
        }
    }

    /// 64 usage, 5 baseline missing, 1 anything else that stopped the measurement (2 is a regression).
    package var exitCode: Int32 {
        switch self {
        case .usage: return 64
        case .baselineMissing: return 5
        case .scenario, .engine, .baselineIncompatible, .cannotWrite, .instructions: return 1
        }
    }
}

/// One scenario of the workload: what is sent to the engine.
package struct EngineWorkloadEntry: Codable, Sendable, Hashable {
    package var scenario: String
    /// SHA-256 of the scenario file's bytes.
    package var sha256: String
    package var rulesVersion: String
    package var fixes: Int
}

/// Order statistics of one figure over the runs.
package struct Spread: Codable, Sendable, Hashable {
    package var min: Double
    package var median: Double
    package var max: Double
    /// (max − min) / median: the run-to-run spread the time gate allows for (0 for one run).
    package var relativeSpread: Double {
        median > 0 && median.isFinite ? (max - min) / median : 0
    }

    init(_ values: [Double]) {
        let sorted = values.sorted()
        min = sorted.first ?? .nan
        max = sorted.last ?? .nan
        median = SampleStatistics.median(sorted)
    }
}

/// The figures of one run (`--metric time`): every scenario's session, pooled.
package struct EngineRunFigures: Codable, Sendable, Hashable {
    package var fixes: Int
    /// Round trip per fix (write the fix line → read its answer), microseconds.
    package var roundTripMedian_us: Double
    package var roundTripP90_us: Double
    package var roundTripP99_us: Double
    package var roundTripMax_us: Double
    /// Fixes ÷ seconds from the first fix written to the last answer read, summed over sessions.
    package var fixesPerSecond: Double
    /// Engine CPU (user + system, start-up included) ÷ fixes, microseconds.
    package var cpuPerFix_us: Double
    /// Median over the sessions of spawn → `ready` line, milliseconds.
    package var startup_ms: Double
    /// Peak resident set of the engine processes, kibibytes (largest reaped child so far).
    package var peakResident_kB: Double
}

/// The figures of an instruction run (`--metric instructions`).
package struct EngineInstructionFigures: Codable, Sendable, Hashable {
    /// (I(all fixes) − scenarios × I(no fix)) ÷ fixes: the engine's cost of one fix.
    package var instructionsPerFix: Double
    /// I(no fix): start, fence, ready, exit.
    package var startupInstructions: Double
    /// Instructions of every session with fixes, summed.
    package var totalInstructions: Double
    package var fixes: Int
}

/// Everything one `bench-engine` run produced: what `--format json` prints and `--save-baseline` stores.
package struct EngineBenchReport: Codable, Sendable {
    package var schemaVersion = EngineBenchReport.currentSchemaVersion
    package static let currentSchemaVersion = 1
    /// Always `fencelab-bench-engine`: tells these files from `fencelab-bench` baselines.
    package var kind = EngineBenchReport.kindName
    package static let kindName = "fencelab-bench-engine"
    package var metric: EngineBenchMetric
    package var machine: MachineInfo
    package var command: String
    package var workload: [EngineWorkloadEntry]
    /// `--metric time`: one entry per run.
    package var runs: [EngineRunFigures]?
    /// `--metric instructions`.
    package var instructions: EngineInstructionFigures?
    /// The valgrind command line before `/bin/sh -c COMMAND` (`--metric instructions`).
    package var valgrindArguments: [String]?
    package var comparison: EngineComparison?
}

/// One figure against the baseline.
package struct EngineComparisonRow: Codable, Sendable, Hashable {
    package var figure: String
    package var unit: String
    package var baseline: Double
    package var current: Double
    package var change: Double
    /// The relative rise this row tolerates: max(threshold, spread of the baseline's runs +
    /// spread of this run's) for time, the threshold for instructions; nil for tracked-only rows.
    package var tolerance: Double?
    package var gated: Bool
    /// `improved`, `unchanged`, `regressed`, or `tracked` (shown, never a failure).
    package var verdict: String
}

package struct EngineComparison: Codable, Sendable, Hashable {
    package var baselineName: String
    package var baselineMachine: MachineInfo
    package var threshold: Double
    package var rows: [EngineComparisonRow]
    package var hasRegression: Bool { rows.contains { $0.gated && $0.verdict == "regressed" } }
}

/// The result of `EngineBench.run`: the report, the lines for stderr, the exit code.
package struct EngineBenchOutcome: Sendable {
    package var report: EngineBenchReport
    /// Warnings and the saved path, one line each, for stderr.
    package var notes: [String]
    /// 0, or 2 when a gated figure regressed.
    package var exitCode: Int32 { report.comparison?.hasRegression == true ? 2 : 0 }
}

/// `fencelab bench-engine`: an external engine's per-fix latency, CPU time, peak RSS and
/// start-up over the engine protocol, one fix at a time, with baselines and a gate.
package enum EngineBench {
    /// The scenario used when none is given.
    package static let defaultScenario = "scenarios/highway-seed004.json"

    /// Measures, compares, saves. Nothing is written before the measurement succeeded.
    package static func run(_ request: EngineBenchRequest) throws(EngineBenchError) -> EngineBenchOutcome {
        if let name = request.saveBaseline { try validate(name: name) }
        if let name = request.compare { try validate(name: name) }
        let workload = try loadWorkload(request)
        // Load the baseline first: a missing or incompatible one fails before minutes of measuring.
        let baseline = try request.compare.map { name throws(EngineBenchError) in
            try loadBaseline(name, request: request, workload: workload.entries)
        }
        var notes: [String] = []
        var report: EngineBenchReport
        switch request.metric {
        case .time:
            var runs: [EngineRunFigures] = []
            for run in 1...request.runs { runs.append(try timeRun(request, workload: workload, run: run)) }
            report = EngineBenchReport(
                metric: .time, machine: MachineInfo.current(), command: request.command,
                workload: workload.entries, runs: runs)
            if let baseline, baseline.machine.cpuModel != report.machine.cpuModel {
                notes.append(
                    "warning: baseline '\(request.compare!)' was timed on \(baseline.machine.cpuModel), this machine is \(report.machine.cpuModel): time baselines are machine-specific"
                )
            }
        case .instructions:
            let counted = try instructionRun(request, workload: workload)
            report = EngineBenchReport(
                metric: .instructions, machine: MachineInfo.current(valgrindVersion: counted.valgrindVersion),
                command: request.command, workload: workload.entries, instructions: counted.figures,
                valgrindArguments: valgrindArguments)
            if let baseline, let name = request.compare {
                notes += report.machine.versionWarnings(against: baseline.machine, baselineName: name)
            }
        }
        if let baseline, let name = request.compare {
            report.comparison = compare(report, baseline: baseline, name: name, threshold: request.effectiveThreshold)
        }
        if let name = request.saveBaseline {
            let url = path(name, request: request)
            var stored = report
            stored.comparison = nil
            do {
                try FileManager.default.createDirectory(
                    atPath: request.baselineDirectory, withIntermediateDirectories: true)
                try BenchJSON.encode(stored).write(to: url, options: .atomic)
            } catch {
                throw .cannotWrite(path: url.path, reason: "\(error)")
            }
            notes.append("baseline saved to \(url.path)")
        }
        return EngineBenchOutcome(report: report, notes: notes)
    }

    // MARK: workload

    struct Workload {
        var entries: [EngineWorkloadEntry]
        var sessions: [(name: String, fence: EngineFence, fixes: [Fix], now_s: [Double])]
    }

    static func loadWorkload(_ request: EngineBenchRequest) throws(EngineBenchError) -> Workload {
        let loaded: [LoadedScenario]
        do {
            loaded = try ScenarioSpec.loadAll(
                paths: request.scenarioPaths.isEmpty ? [defaultScenario] : request.scenarioPaths)
        } catch {
            throw .scenario(error.description)
        }
        guard !loaded.isEmpty else { throw .scenario("no scenario files in \(request.scenarioPaths)") }
        var workload = Workload(entries: [], sessions: [])
        for scenario in loaded {
            let spec = scenario.spec
            let generated: GeneratedReplicate
            do { generated = try ScenarioGenerator.generate(spec: spec, replicate: 0) } catch {
                throw .scenario("\(scenario.path): \(error.description)")
            }
            var fixes: [Fix] = []
            var now: [Double] = []
            for sample in generated.samples where fixes.count < request.fixesPerScenario {
                guard let fix = sample.fix else { continue }
                fixes.append(fix)
                now.append(sample.time_s)
            }
            let ruleSpec = spec.fence.rule.ruleSpec
            let fence: EngineFence
            do { fence = try EngineFence(center: spec.fence.center, spec: ruleSpec) } catch {
                throw .scenario("\(scenario.path): fence.rule: \(error)")
            }
            workload.entries.append(
                EngineWorkloadEntry(
                    scenario: spec.name, sha256: scenario.sha256, rulesVersion: fence.rulesVersion, fixes: fixes.count))
            workload.sessions.append((spec.name, fence, fixes, now))
        }
        return workload
    }

    // MARK: time

    static func timeRun(
        _ request: EngineBenchRequest, workload: Workload, run: Int
    ) throws(EngineBenchError) -> EngineRunFigures {
        var roundTrips: [Double] = []
        var fixes_s = 0.0
        var cpu_s = 0.0
        var startups: [Double] = []
        var peak_kB = 0
        for session in workload.sessions {
            let timing: EngineSessionTiming
            do {
                timing = try EngineLockstep.run(
                    command: request.command, fence: session.fence, fixes: session.fixes, now_s: session.now_s,
                    perFixTimeout_s: request.perFixTimeout_s, startupGrace_s: request.startupGrace_s)
            } catch {
                throw .engine(scenario: session.name, run: run, reason: explain(error))
            }
            roundTrips += timing.roundTrip_s
            fixes_s += timing.fixes_s
            cpu_s += timing.cpu_s
            startups.append(timing.startup_s)
            peak_kB = max(peak_kB, timing.maxResident_kB)
        }
        let n = roundTrips.count
        return EngineRunFigures(
            fixes: n,
            roundTripMedian_us: SampleStatistics.quantile(roundTrips, 0.5) * 1e6,
            roundTripP90_us: SampleStatistics.quantile(roundTrips, 0.9) * 1e6,
            roundTripP99_us: SampleStatistics.quantile(roundTrips, 0.99) * 1e6,
            roundTripMax_us: (roundTrips.max() ?? .nan) * 1e6,
            fixesPerSecond: fixes_s > 0 ? Double(n) / fixes_s : .nan,
            cpuPerFix_us: n > 0 ? cpu_s / Double(n) * 1e6 : .nan,
            startup_ms: SampleStatistics.median(startups) * 1e3,
            peakResident_kB: Double(peak_kB))
    }

    /// The engine's error, with the one hint a lockstep bench needs: answers must not be buffered.
    static func explain(_ error: ExternalEngineError) -> String {
        let hint =
            " (bench-engine sends each message after the answer to the one before: the engine must flush every answer, e.g. python3 -u)"
        switch error {
        case .timeout(_, 0, _), .readyTimeout: return error.description + hint
        default: return error.description
        }
    }

    // MARK: instructions

    /// Before `/bin/sh -c COMMAND`: every process of the engine counted whole.
    static let valgrindArguments = ["--tool=callgrind", "--trace-children=yes"]

    /// Under callgrind an engine runs ≈ 50× slower, its start-up more: the per-answer timeout
    /// grows by `callgrindAnswerFactor`, the start-up grace by `callgrindStartupFactor`.
    static let callgrindAnswerFactor = 10.0
    static let callgrindStartupFactor = 50.0

    /// The environment the counted engine gets, and nothing else (PATH to find it): Swift's and
    /// Python's per-process hash seeds fixed, the C locale, so counts repeat run to run.
    static func countedEnvironment() -> [String] {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return ["PATH=\(path)", "SWIFT_DETERMINISTIC_HASHING=1", "PYTHONHASHSEED=0", "LC_ALL=C"]
    }

    static func instructionRun(
        _ request: EngineBenchRequest, workload: Workload
    ) throws(EngineBenchError) -> (figures: EngineInstructionFigures, valgrindVersion: String) {
        guard let valgrind = InstructionRunner.findExecutable("valgrind") else {
            throw .instructions(
                "--metric instructions needs valgrind, not found on PATH: install the Debian package valgrind (apt-get install valgrind)"
            )
        }
        let version = valgrindVersion(valgrind)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fencelab-bench-engine-\(ProcessInfo.processInfo.processIdentifier)")
        do {
            try? FileManager.default.removeItem(at: dir)
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        } catch {
            throw .instructions("cannot create \(dir.path): \(error)")
        }
        defer { try? FileManager.default.removeItem(at: dir) }
        let counted =
            (["env", "-i"] + countedEnvironment()).map(shellQuoted).joined(separator: " ") + " "
            + ([valgrind.path] + valgrindArguments + [
                "--callgrind-out-file=\(dir.path)/callgrind.%p", "--log-file=\(dir.path)/valgrind.%p.log", "/bin/sh",
                "-c", request.command,
            ]).map(shellQuoted).joined(separator: " ")
        let perFix = request.perFixTimeout_s * callgrindAnswerFactor
        let grace = request.startupGrace_s * callgrindStartupFactor

        func count(
            _ name: String, fence: EngineFence, fixes: [Fix], now_s: [Double]
        ) throws(EngineBenchError)
            -> Double
        {
            do {
                _ = try EngineLockstep.run(
                    command: counted, fence: fence, fixes: fixes, now_s: now_s, perFixTimeout_s: perFix,
                    startupGrace_s: grace)
            } catch {
                throw .engine(scenario: name, run: 1, reason: "under callgrind: \(explain(error))")
            }
            let files: [String]
            do { files = try FileManager.default.contentsOfDirectory(atPath: dir.path) } catch {
                throw .instructions("cannot list \(dir.path): \(error)")
            }
            var total = 0.0
            var profiles = 0
            for file in files.sorted() {
                let url = dir.appendingPathComponent(file)
                defer { try? FileManager.default.removeItem(at: url) }
                guard file.hasPrefix("callgrind.") else { continue }
                guard let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
                for line in text.split(separator: "\n") where line.hasPrefix("summary:") || line.hasPrefix("totals:") {
                    if let ir = line.split(separator: " ").last.flatMap({ Double($0) }) {
                        total += ir
                        profiles += 1
                        break
                    }
                }
            }
            guard profiles > 0 else { throw .instructions("\(name): callgrind wrote no profile in \(dir.path)") }
            return total
        }

        let first = workload.sessions[0]
        let idle = try count(first.name, fence: first.fence, fixes: [], now_s: [])
        var total = 0.0
        var fixes = 0
        for session in workload.sessions {
            total += try count(session.name, fence: session.fence, fixes: session.fixes, now_s: session.now_s)
            fixes += session.fixes.count
        }
        let perFixCount = fixes > 0 ? (total - Double(workload.sessions.count) * idle) / Double(fixes) : .nan
        return (
            EngineInstructionFigures(
                instructionsPerFix: perFixCount, startupInstructions: idle, totalInstructions: total, fixes: fixes),
            version
        )
    }

    static func valgrindVersion(_ valgrind: URL) -> String {
        let p = Process()
        p.executableURL = valgrind
        p.arguments = ["--version"]
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return "unknown" }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func shellQuoted(_ s: String) -> String {
        "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    // MARK: baselines

    static func validate(name: String) throws(EngineBenchError) {
        do { try BaselineStore.validate(name: name) } catch { throw .usage(error.description) }
    }

    static func path(_ name: String, request: EngineBenchRequest) -> URL {
        let suffix = request.metric == .time ? "-engine.json" : "-engine-instructions.json"
        return URL(fileURLWithPath: request.baselineDirectory).appendingPathComponent(name + suffix)
    }

    static func loadBaseline(
        _ name: String, request: EngineBenchRequest, workload: [EngineWorkloadEntry]
    ) throws(EngineBenchError) -> EngineBenchReport {
        let url = path(name, request: request)
        guard FileManager.default.fileExists(atPath: url.path) else { throw .baselineMissing(path: url.path) }
        let report: EngineBenchReport
        do {
            let decoder = JSONDecoder()
            decoder.nonConformingFloatDecodingStrategy = .convertFromString(
                positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
            report = try decoder.decode(EngineBenchReport.self, from: Data(contentsOf: url))
        } catch {
            throw .baselineIncompatible(path: url.path, reason: "not a bench-engine baseline: \(error)")
        }
        guard report.kind == EngineBenchReport.kindName, report.schemaVersion == EngineBenchReport.currentSchemaVersion
        else {
            throw .baselineIncompatible(
                path: url.path,
                reason: "not a bench-engine baseline of schemaVersion \(EngineBenchReport.currentSchemaVersion)")
        }
        guard report.metric == request.metric else {
            throw .baselineIncompatible(
                path: url.path,
                reason:
                    "it holds --metric \(report.metric.rawValue) figures, this run is --metric \(request.metric.rawValue)"
            )
        }
        guard report.workload == workload else {
            func describe(_ w: [EngineWorkloadEntry]) -> String {
                w.map { "\($0.scenario) × \($0.fixes) fixes (\($0.rulesVersion), \($0.sha256.prefix(12)))" }
                    .joined(separator: ", ")
            }
            throw .baselineIncompatible(
                path: url.path,
                reason:
                    "measured on another workload: \(describe(report.workload)); this run sends \(describe(workload))")
        }
        return report
    }

    // MARK: compare

    static func compare(
        _ current: EngineBenchReport, baseline: EngineBenchReport, name: String, threshold: Double
    ) -> EngineComparison {
        var rows: [EngineComparisonRow] = []
        func row(_ figure: String, _ unit: String, _ b: Double, _ c: Double, tolerance: Double?, higherIsBetter: Bool) {
            let change = (c - b) / b
            let better = higherIsBetter ? change : -change
            let verdict: String
            if let tolerance {
                verdict =
                    !better.isFinite || better < -tolerance
                    ? "regressed" : better > tolerance ? "improved" : "unchanged"
            } else {
                verdict = "tracked"
            }
            rows.append(
                EngineComparisonRow(
                    figure: figure, unit: unit, baseline: b, current: c, change: change, tolerance: tolerance,
                    gated: tolerance != nil, verdict: verdict))
        }
        if let now = current.runs, let then = baseline.runs, !now.isEmpty, !then.isEmpty {
            func pair(_ key: (EngineRunFigures) -> Double) -> (Spread, Spread) {
                (Spread(then.map(key)), Spread(now.map(key)))
            }
            // Gated: the median round trip, on the median over runs, allowing for both sides' spread.
            let (b, c) = pair(\.roundTripMedian_us)
            row(
                "round trip p50", "µs", b.median, c.median,
                tolerance: max(threshold, b.relativeSpread + c.relativeSpread), higherIsBetter: false)
            let tracked: [(String, String, (EngineRunFigures) -> Double, Bool)] = [
                ("round trip p90", "µs", \.roundTripP90_us, false), ("round trip p99", "µs", \.roundTripP99_us, false),
                ("round trip max", "µs", \.roundTripMax_us, false), ("fixes/s", "1/s", \.fixesPerSecond, true),
                ("CPU per fix", "µs", \.cpuPerFix_us, false), ("start-up", "ms", \.startup_ms, false),
                ("peak RSS", "KiB", \.peakResident_kB, false),
            ]
            for (figure, unit, key, higher) in tracked {
                let (b, c) = pair(key)
                row(figure, unit, b.median, c.median, tolerance: nil, higherIsBetter: higher)
            }
        }
        if let now = current.instructions, let then = baseline.instructions {
            row(
                "instructions per fix", "instr", then.instructionsPerFix, now.instructionsPerFix, tolerance: threshold,
                higherIsBetter: false)
            row(
                "start-up instructions", "instr", then.startupInstructions, now.startupInstructions, tolerance: nil,
                higherIsBetter: false)
        }
        return EngineComparison(
            baselineName: name, baselineMachine: baseline.machine, threshold: threshold, rows: rows)
    }

    // MARK: output

    /// The tables of `--format text` / `markdown`.
    package static func text(_ report: EngineBenchReport, markdown: Bool) -> String {
        let format: OutputFormatChoice = markdown ? .markdown : .text
        let fixes = report.workload.reduce(0) { $0 + $1.fixes }
        var lines = [
            "fencelab bench-engine --metric \(report.metric.rawValue): '\(ShownText.escapingControls(report.command))'",
            "\(report.workload.count) scenario(s), \(fixes) fixes per run (\(report.workload.map(\.scenario).joined(separator: ", "))); \(report.machine.summary)",
            "",
        ]
        if let runs = report.runs {
            lines[1] += "; \(runs.count) run(s), each fix sent after the answer to the one before"
            let figures: [(String, (EngineRunFigures) -> Double, String)] = [
                ("round trip p50 (µs)", \.roundTripMedian_us, "%.1f"),
                ("round trip p90 (µs)", \.roundTripP90_us, "%.1f"),
                ("round trip p99 (µs)", \.roundTripP99_us, "%.1f"), ("round trip max (µs)", \.roundTripMax_us, "%.1f"),
                ("fixes/s", \.fixesPerSecond, "%.0f"), ("CPU per fix (µs)", \.cpuPerFix_us, "%.1f"),
                ("start-up (ms)", \.startup_ms, "%.1f"), ("peak RSS (KiB)", \.peakResident_kB, "%.0f"),
            ]
            let rows = figures.map { name, key, pattern -> [String] in
                let s = Spread(runs.map(key))
                return [
                    name, String(format: pattern, s.min), String(format: pattern, s.median),
                    String(format: pattern, s.max), String(format: "±%.0f%%", s.relativeSpread * 50),
                ]
            }
            lines += table(["figure", "min", "median", "max", "spread"], rows, format)
        }
        if let i = report.instructions {
            lines += table(
                ["figure", "value"],
                [
                    ["instructions per fix", String(format: "%.1f", i.instructionsPerFix)],
                    ["start-up instructions", String(format: "%.0f", i.startupInstructions)],
                    ["total instructions", String(format: "%.0f", i.totalInstructions)],
                    ["fixes", "\(i.fixes)"],
                ], format)
        }
        if let c = report.comparison {
            lines += [
                "",
                "compare with baseline '\(c.baselineName)' (\(c.baselineMachine.summary)), threshold \(String(format: "%g", c.threshold * 100))%",
                "",
            ]
            let rows = c.rows.map { r -> [String] in
                let pattern = r.unit == "instr" ? "%.1f" : "%.4g"
                return [
                    "\(r.figure) (\(r.unit))", String(format: pattern, r.baseline), String(format: pattern, r.current),
                    String(format: "%+.1f%%", r.change * 100),
                    r.tolerance.map { String(format: "±%.0f%%", $0 * 100) } ?? "tracked-only", r.verdict,
                ]
            }
            lines += table(["figure", "baseline", "current", "change", "gate", "verdict"], rows, format)
            let gated = c.rows.filter(\.gated)
            let regressed = gated.filter { $0.verdict == "regressed" }.count
            lines += [
                "", "\(regressed) regressed of \(gated.count) gated figure(s)\(regressed > 0 ? ": REGRESSION" : "")",
            ]
        }
        return lines.joined(separator: "\n")
    }

    package enum OutputFormatChoice { case text, markdown }

    static func table(_ header: [String], _ rows: [[String]], _ format: OutputFormatChoice) -> [String] {
        TableWriter.table(header: header, rows: rows, format: format == .markdown ? .markdown : .text)
    }

    /// `--format json`: the report, comparison included.
    package static func json(_ report: EngineBenchReport) throws -> String {
        String(decoding: try BenchJSON.encode(report), as: UTF8.self)
    }
}
