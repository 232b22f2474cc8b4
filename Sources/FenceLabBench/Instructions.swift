import CReference
import Foundation

/// Which figure a run measures and a baseline holds.
enum Metric: String, Codable, Sendable, Hashable, CaseIterable {
    /// Wall-clock samples against in-run C kernels (ratios, items/s).
    case time
    /// Instructions per item counted by callgrind (deterministic; the CI gate).
    case instructions

    /// Default relative threshold of `--compare`.
    var defaultThreshold: Double {
        switch self {
        case .time: return 0.10
        // Counts repeat exactly run to run, the harness row to within 1e-6 (docs/benchmarks.md), so 2 % is all compiler
        // and code change, and a 10 % slowdown is five times the gate.
        case .instructions: return 0.02
        }
    }
}

/// One benchmark counted under callgrind.
struct InstructionMeasurement: Codable, Sendable, Hashable {
    var name: String
    var group: String
    var unit: String
    var reference: String?
    var isReference: Bool
    /// False when `--compare` only shows this benchmark (C kernels, demonstrations).
    var gated: Bool
    var itemsPerRun: Int
    /// Body calls inside the counted region (after one uncounted warm call).
    var calls: Int
    /// calls × itemsPerRun.
    var items: Int
    /// Instructions (callgrind `Ir`) executed by the calling thread inside the counted region.
    var instructions: Double
    /// instructions ÷ items: the figure `--compare` gates on (lower is better).
    var instructionsPerItem: Double
}

/// Everything one `--metric instructions` run produced (`--format json`, `--save-baseline`).
/// Results are keyed by benchmark name, so baselines diff and merge row by row in git.
struct InstructionReport: StoredReport, Sendable {
    var schemaVersion: Int = BenchReport.currentSchemaVersion
    static let metric = Metric.instructions
    var metric: Metric = .instructions
    var machine: MachineInfo
    /// `FENCELAB_BENCH_SLOWDOWN` of the run (1 = off).
    var slowdown: Double
    /// The valgrind command line before the benchmark binary.
    var valgrindArguments: [String]
    var results: [String: InstructionMeasurement]
    /// Benchmarks of the run that are not counted, with the reason.
    var notCounted: [String: String]
    var comparison: Comparison?
}

/// `--metric instructions`: runs each selected benchmark in its own
/// `valgrind --tool=callgrind` process (a copy of this binary without DWARF, which valgrind
/// 3.19 cannot read), where the hidden `--instructions-child` mode counts the body calls only.
package struct InstructionRunner {
    let valgrind: URL
    let valgrindVersion: String
    /// Folder holding the stripped copy and the callgrind output; removed by `cleanUp`.
    let workDirectory: URL
    let strippedBinary: URL
    let slowdown: Slowdown
    /// `--runs N` for every benchmark instead of its own `InstructionPlan`.
    let callsOverride: Int?
    /// `--callgrind-out DIR`: keep each benchmark's measured profile for `callgrind_annotate`.
    let keepProfiles: URL?

    /// Nothing is instrumented until the child's first count (set-up runs ≈ 20 % faster), and
    /// nothing is collected outside its counted regions.
    package static let valgrindArguments = ["--tool=callgrind", "--instr-atstart=no", "--collect-atstart=no"]

    /// The fixed environment of the measured process. Instruction counts depend on it: Swift
    /// seeds `Hasher` per process unless `SWIFT_DETERMINISTIC_HASHING` is set (Set and
    /// Dictionary probing then differs run to run: ±4e-4 on the harness row, measured), and the
    /// size of the environment moves the initial stack. Nothing is inherited.
    static func childEnvironment(slowdown: Slowdown) -> [String: String] {
        var env = ["SWIFT_DETERMINISTIC_HASHING": "1", "LC_ALL": "C"]
        if slowdown != .off { env["FENCELAB_BENCH_SLOWDOWN"] = String(slowdown.factor) }
        return env
    }

    /// Finds valgrind and objcopy, checks that this binary can bracket its region, and makes
    /// the stripped copy. Throws a one-line `.toolMissing` naming the Debian package.
    static func prepare(
        tool: String, slowdown: Slowdown, callsOverride: Int?, keepProfiles: URL?
    ) throws(BenchError) -> InstructionRunner {
        guard let valgrind = findExecutable("valgrind") else {
            throw .toolMissing(
                "--metric instructions needs valgrind, not found on PATH: install the Debian package valgrind (apt-get install valgrind)"
            )
        }
        guard fl_callgrind_requests_compiled() != 0 else {
            throw .toolMissing(
                "this \(tool) was built without <valgrind/callgrind.h> (Debian package valgrind): install it, then rebuild (swift package clean && swift build -c release)"
            )
        }
        guard let objcopy = findExecutable("objcopy") ?? findExecutable("llvm-objcopy") else {
            throw .toolMissing(
                "--metric instructions needs objcopy to strip DWARF for valgrind, not found on PATH: install the Debian package binutils"
            )
        }
        let version =
            (try? runTool(valgrind, ["--version"]).stdout)?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard !version.isEmpty else { throw .measurementFailed("\(valgrind.path) --version printed nothing") }

        let dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(tool)-callgrind-\(ProcessInfo.processInfo.processIdentifier)")
        let stripped = dir.appendingPathComponent(tool)
        do {
            try? FileManager.default.removeItem(at: dir)
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        } catch {
            throw .measurementFailed("cannot create \(dir.path): \(error)")
        }
        // Valgrind 3.19 stops reading a binary's debug info at DWARF 5 ("unhandled dwarf2 abbrev
        // form code 0x25"), which Swift emits; the symbol table stays, which is all callgrind needs.
        let own = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let strip: ToolResult
        do { strip = try runTool(objcopy, ["--strip-debug", own.path, stripped.path]) } catch {
            throw .measurementFailed("\(objcopy.path): \(error)")
        }
        guard strip.status == 0 else {
            throw .measurementFailed(
                "\(objcopy.path) --strip-debug \(own.path) failed: \(strip.stderr.split(separator: "\n").first ?? "")")
        }
        return InstructionRunner(
            valgrind: valgrind, valgrindVersion: version, workDirectory: dir,
            strippedBinary: stripped, slowdown: slowdown,
            callsOverride: callsOverride, keepProfiles: keepProfiles)
    }

    func cleanUp() { try? FileManager.default.removeItem(at: workDirectory) }

    /// Counts one benchmark in a fresh callgrind process.
    func measure(_ benchmark: Benchmark, index: Int) throws(BenchError) -> InstructionMeasurement {
        guard case .counted(let planned) = benchmark.instructions else {
            preconditionFailure("\(benchmark.name) is not counted")
        }
        let calls = callsOverride ?? planned
        let base = workDirectory.appendingPathComponent("callgrind-\(index).out")
        let arguments =
            Self.valgrindArguments + [
                "--callgrind-out-file=\(base.path)", strippedBinary.path,
                "--instructions-child", benchmark.name,
                "--runs", String(calls), "--callgrind-dumps", base.path,
            ]
        let result: ToolResult
        do {
            result = try runTool(valgrind, arguments, environment: Self.childEnvironment(slowdown: slowdown))
        } catch {
            throw .measurementFailed("\(benchmark.name): cannot run valgrind: \(error)")
        }
        guard result.status == 0,
            let line = result.stdout.split(separator: "\n").last(where: { $0.hasPrefix(ChildProtocol.prefix) }),
            let report = ChildProtocol.parse(String(line))
        else {
            let why =
                result.stderr.split(separator: "\n").last(where: { !$0.isEmpty })
                ?? "exit \(result.status), no count printed"
            throw .measurementFailed("\(benchmark.name) under callgrind: \(why)")
        }
        if let keepProfiles {
            let file = keepProfiles.appendingPathComponent(
                benchmark.name.replacingOccurrences(of: "/", with: "_") + ".callgrind")
            do {
                try FileManager.default.createDirectory(at: keepProfiles, withIntermediateDirectories: true)
                try? FileManager.default.removeItem(at: file)
                try FileManager.default.copyItem(at: URL(fileURLWithPath: "\(base.path).\(report.dump)"), to: file)
            } catch {
                throw .cannotWrite(path: file.path, reason: "\(error)")
            }
        }
        let items = report.calls * benchmark.itemsPerRun
        return InstructionMeasurement(
            name: benchmark.name, group: benchmark.group, unit: benchmark.unit, reference: benchmark.reference,
            isReference: benchmark.isReference, gated: benchmark.gated, itemsPerRun: benchmark.itemsPerRun,
            calls: report.calls, items: items, instructions: report.instructions,
            instructionsPerItem: report.instructions / Double(items))
    }

    package static func findExecutable(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") where !dir.isEmpty {
            let candidate = URL(fileURLWithPath: String(dir)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }
}

/// The line `--instructions-child` prints for its parent.
struct ChildProtocol: Hashable {
    static let prefix = "fencelab-bench-instructions "
    var calls: Int
    var instructions: Double
    /// Number of the callgrind dump file (`BASE.N`) holding the measured region.
    var dump: Int

    var line: String { "\(Self.prefix)calls=\(calls) instructions=\(UInt64(instructions)) dump=\(dump)" }

    static func parse(_ line: String) -> ChildProtocol? {
        guard line.hasPrefix(prefix) else { return nil }
        var fields: [String: String] = [:]
        for pair in line.dropFirst(prefix.count).split(separator: " ") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            if kv.count == 2 { fields[String(kv[0])] = String(kv[1]) }
        }
        guard let calls = fields["calls"].flatMap({ Int($0) }), let ir = fields["instructions"].flatMap({ UInt64($0) }),
            let dump = fields["dump"].flatMap({ Int($0) })
        else { return nil }
        return ChildProtocol(calls: calls, instructions: Double(ir), dump: dump)
    }
}

/// The hidden `--instructions-child NAME --runs N --callgrind-dumps BASE` mode, run by
/// `InstructionRunner` under `valgrind --tool=callgrind --instr-atstart=no --collect-atstart=no
/// --callgrind-out-file=BASE`: set-up, a warm call and a calibration call uncounted (the
/// latter counted only to size a fractional slowdown), then instrumentation and counting on
/// (client requests) for exactly N body calls, dumped to `BASE.k` and read back.
struct InstructionChild {
    let dumpBase: String
    private(set) var dumps = 0

    /// Counts the instructions of `work` (this thread only) and returns them with the dump number.
    mutating func count(_ reason: String, _ work: () -> Double) throws(BenchError) -> (instructions: Double, dump: Int)
    {
        fl_callgrind_start_instrumentation()
        fl_callgrind_zero_stats()
        fl_callgrind_toggle_collect()
        let x = work()
        fl_callgrind_toggle_collect()
        blackHole(x)
        fl_callgrind_dump_stats_at(reason)
        dumps += 1
        let path = "\(dumpBase).\(dumps)"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw .measurementFailed("callgrind wrote no dump \(path)")
        }
        for line in text.split(separator: "\n") where line.hasPrefix("summary:") || line.hasPrefix("totals:") {
            if let ir = line.split(separator: " ").last.flatMap({ UInt64($0) }) { return (Double(ir), dumps) }
        }
        throw .measurementFailed("\(path): no summary line")
    }

    static func main(
        name: String, registry: Registry, calls: Int, dumpBase: String, slowdown: Slowdown
    ) throws(BenchError) -> ChildProtocol {
        guard fl_running_on_valgrind() != 0 else {
            throw .usage("--instructions-child runs only under callgrind; use --metric instructions")
        }
        guard let benchmark = registry.named(name) else {
            throw .usage("--instructions-child: no benchmark named '\(name)'")
        }
        var child = InstructionChild(dumpBase: dumpBase)
        let raw = benchmark.setup()
        blackHole(raw())  // warm call: lazy initialisation and first-touch costs stay uncounted
        // The second call sizes the filler of a fractional slowdown (counted); without one the
        // same call is made uncounted. Either way the measured calls are calls 3…N+2, so a
        // stateful body (the generators move along their route, the RNG's draws differ by ±1 %
        // per call) is measured on the same calls slowed or not.
        let body: () -> Double
        if benchmark.isReference || slowdown.fraction == 0 {
            blackHole(raw())
            body = benchmark.isReference ? raw : slowdown.apply(to: raw) { _ in .nan }
        } else {
            var failure: BenchError?
            body = slowdown.apply(to: raw) { call in
                do throws(BenchError) { return try child.count("calibration", call).instructions } catch {
                    failure = error
                    return .nan
                }
            }
            if let failure { throw failure }
        }
        let measured = try child.count("measured \(name)") {
            var s = 0.0
            for _ in 0..<calls { s += body() }
            return s
        }
        return ChildProtocol(calls: calls, instructions: measured.instructions, dump: measured.dump)
    }
}

struct ToolResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs a tool to completion with its output in temporary files (no pipe can fill up).
/// `environment` nil inherits this process's environment.
func runTool(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil) throws -> ToolResult {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-bench-tool-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let out = dir.appendingPathComponent("stdout")
    let err = dir.appendingPathComponent("stderr")
    guard FileManager.default.createFile(atPath: out.path, contents: nil),
        FileManager.default.createFile(atPath: err.path, contents: nil)
    else {
        throw BenchError.measurementFailed("cannot create files in \(dir.path)")
    }
    let p = Process()
    p.executableURL = executable
    p.arguments = arguments
    if let environment { p.environment = environment }
    let outHandle = try FileHandle(forWritingTo: out)
    let errHandle = try FileHandle(forWritingTo: err)
    p.standardOutput = outHandle
    p.standardError = errHandle
    p.standardInput = FileHandle.nullDevice
    try p.run()
    p.waitUntilExit()
    try? outHandle.close()
    try? errHandle.close()
    return ToolResult(
        status: p.terminationStatus,
        stdout: String(decoding: (try? Data(contentsOf: out)) ?? Data(), as: UTF8.self),
        stderr: String(decoding: (try? Data(contentsOf: err)) ?? Data(), as: UTF8.self))
}
