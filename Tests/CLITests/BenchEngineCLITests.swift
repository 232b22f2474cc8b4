import Foundation
import Testing
import _TestSupport

/// `fencelab bench-engine` against the sample Python engine, a copy slowed by a sleep per fix,
/// engines that break the protocol, and bad baselines and flags.
@Suite(.serialized) struct BenchEngineCLITests {
    /// The sample engine, flushing every answer (bench-engine waits for each one).
    static let sample = "python3 -u Examples/engines/seed_rules.py"
    /// The same engine, sleeping 20 ms before each message it reads.
    static let slowed =
        "python3 -u -c \"import sys, time; sys.path.insert(0, 'Examples/engines'); import seed_rules; "
        + "seed_rules.serve(stdin=(time.sleep(0.02) or line for line in sys.stdin))\""
    static let scenario = "scenarios/highway-seed004.json"
    static let pythonAvailable = ProcessInfo.processInfo.environment["PATH", default: "/usr/bin:/bin"]
        .split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/python3") }
    static let valgrindAvailable = ProcessInfo.processInfo.environment["PATH", default: "/usr/bin:/bin"]
        .split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/valgrind") }

    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bench-engine-test-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func bench(_ engine: String, _ arguments: [String], baselines: URL) throws -> ProcessResult {
        try runFencelab(
            ["bench-engine", engine, scenario] + arguments + ["--baselines", baselines.path], deadline_s: 300)
    }

    static func json(_ r: ProcessResult) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stderr)")
    }

    /// The verdicts of the comparison, by figure.
    static func verdicts(_ r: ProcessResult) throws -> [String: String] {
        let comparison = try #require(try json(r)["comparison"] as? [String: Any], "\(r.stderr)")
        let rows = try #require(comparison["rows"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: rows.map { ($0["figure"] as! String, $0["verdict"] as! String) })
    }

    @Test(.enabled(if: pythonAvailable)) func sampleEngineFiguresAreConsistent() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try Self.bench(Self.sample, ["--fixes", "200", "--runs", "2", "--format", "json"], baselines: dir)
        #expect(r.status == 0, "\(r.stderr)")
        let report = try Self.json(r)
        let runs = try #require(report["runs"] as? [[String: Any]])
        #expect(runs.count == 2)
        for run in runs {
            let p50 = try #require(run["roundTripMedian_us"] as? Double)
            let p90 = try #require(run["roundTripP90_us"] as? Double)
            let p99 = try #require(run["roundTripP99_us"] as? Double)
            let max = try #require(run["roundTripMax_us"] as? Double)
            // Ordered quantiles; a pipe round trip through Python is more than 1 µs and less than 1 s.
            #expect(p50 > 1 && p50 <= p90 && p90 <= p99 && p99 <= max && max < 1e6, "\(run)")
            #expect(run["fixes"] as? Int == 200)
            // One answer at a time: fixes/s cannot exceed 1 / p50 by more than the spread of the
            // round trips (≤ 1e6 / p50 × 2 when half the fixes are faster than p50).
            let rate = try #require(run["fixesPerSecond"] as? Double)
            #expect(rate > 0 && rate <= 2e6 / p50, "fixes/s \(rate), p50 \(p50) µs")
            // Python spends CPU on each fix and on its start-up (≥ 10 ms ÷ 200 fixes = 50 µs).
            let cpu = try #require(run["cpuPerFix_us"] as? Double)
            #expect(cpu > 1 && cpu < 1e5, "CPU per fix \(cpu) µs")
            let startup = try #require(run["startup_ms"] as? Double)
            #expect(startup > 1 && startup < 10_000, "start-up \(startup) ms")
            // A Python interpreter's resident set: more than 4 MiB, less than 1 GiB.
            let rss = try #require(run["peakResident_kB"] as? Double)
            #expect(rss > 4096 && rss < 1_048_576, "peak RSS \(rss) KiB")
        }
        let workload = try #require(report["workload"] as? [[String: Any]])
        #expect(workload.count == 1 && workload[0]["fixes"] as? Int == 200)
        // The scenario's own rule, as the fence message told the engine.
        #expect(workload[0]["rulesVersion"] as? String == "threshold-500")
    }

    /// The gate: the unchanged engine compared with its own baseline three times is never
    /// regressed; the copy sleeping 20 ms per fix regresses on the median round trip (exit 2).
    /// The unchanged runs allow a 10× rise (`--threshold 1000%`): `swift test` shares the cores
    /// with builds, and a Python round trip of ~100 µs can triple under load, while the slowed
    /// copy (≥ 20 000 µs) is ~200× its baseline and is judged at the default threshold.
    @Test(.enabled(if: pythonAvailable)) func slowedEngineRegressesAndUnchangedNeverDoes() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let args = ["--fixes", "100", "--runs", "3"]
        let save = try Self.bench(Self.sample, args + ["--save-baseline", "base"], baselines: dir)
        #expect(save.status == 0, "\(save.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("base-engine.json").path))
        for attempt in 1...3 {
            let same = try Self.bench(
                Self.sample, args + ["--compare", "base", "--threshold", "1000%", "--format", "json"], baselines: dir)
            #expect(same.status == 0, "attempt \(attempt): \(same.stdout)\n\(same.stderr)")
            let verdicts = try Self.verdicts(same)
            #expect(verdicts["round trip p50"] != nil && verdicts["round trip p50"] != "regressed", "\(verdicts)")
        }
        let slow = try Self.bench(Self.slowed, args + ["--compare", "base", "--format", "json"], baselines: dir)
        #expect(slow.status == 2, "\(slow.stderr)")
        let verdicts = try Self.verdicts(slow)
        #expect(verdicts["round trip p50"] == "regressed", "\(verdicts)")
        // Tracked figures never fail the comparison.
        #expect(verdicts["fixes/s"] == "tracked")
        let rows = try #require((try Self.json(slow)["comparison"] as? [String: Any])?["rows"] as? [[String: Any]])
        let p50 = try #require(rows.first { $0["figure"] as? String == "round trip p50" })
        // 20 ms of sleep per fix: the slowed median is at least 20 000 µs.
        #expect((p50["current"] as? Double ?? 0) >= 20_000, "\(p50)")
    }

    /// Bad engines, baselines and flags: one line on stderr, the documented exit code, no hang.
    @Test(.enabled(if: pythonAvailable)) func badInputIsOneLineWithItsExitCode() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        func expectOneLine(_ r: ProcessResult, _ status: Int32, _ needle: String, _ what: String) {
            #expect(r.status == status, "\(what): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(what): \(r.stderr)")
            #expect(r.stderr.contains(needle), "\(what): \(r.stderr)")
        }
        let quick = ["--fixes", "5", "--runs", "1", "--engine-timeout", "1", "--engine-startup", "2"]
        expectOneLine(
            try Self.bench("echo garbage", quick, baselines: dir), 1, "expected the ready message", "garbage engine")
        expectOneLine(try Self.bench("exit 3", quick, baselines: dir), 1, "status 3", "engine exiting")
        // Without -u, Python buffers its answers: the line says why the bench cannot wait.
        expectOneLine(
            try Self.bench("env -u PYTHONUNBUFFERED python3 Examples/engines/seed_rules.py", quick, baselines: dir), 1,
            "flush",
            "buffered engine")
        expectOneLine(
            try Self.bench(Self.sample, quick + ["--compare", "nothing"], baselines: dir), 5, "baseline not found",
            "missing baseline")

        #expect(try Self.bench(Self.sample, quick + ["--save-baseline", "five"], baselines: dir).status == 0)
        expectOneLine(
            try Self.bench(Self.sample, ["--fixes", "6", "--compare", "five"], baselines: dir), 1, "another workload",
            "other workload")
        try FileManager.default.copyItem(
            at: dir.appendingPathComponent("five-engine.json"),
            to: dir.appendingPathComponent("five-engine-instructions.json"))
        expectOneLine(
            try Self.bench(
                Self.sample, ["--fixes", "5", "--metric", "instructions", "--compare", "five"], baselines: dir),
            1, "--metric time", "other metric")
        try Data("{\"results\":{}}".utf8).write(to: dir.appendingPathComponent("bench-engine.json"))
        expectOneLine(
            try Self.bench(Self.sample, quick + ["--compare", "bench"], baselines: dir), 1,
            "not a bench-engine baseline",
            "a fencelab-bench file")

        for bad in [
            ["--runs", "0"], ["--fixes", "x"], ["--metric", "speed"], ["--threshold", "5%"],
            ["--compare", "a/b"], ["--compare", "x", "--threshold", "0"], ["--metric", "instructions", "--runs", "2"],
        ] {
            let r = try Self.bench(Self.sample, bad, baselines: dir)
            #expect(r.status == 64, "\(bad): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(bad): \(r.stderr)")
            #expect(r.stdout.isEmpty, "\(bad)")
        }
        let noCommand = try runFencelab(["bench-engine"])
        #expect(noCommand.status == 64 && noCommand.stderr.split(separator: "\n").count == 1, "\(noCommand.stderr)")
        // Nothing was saved by a failed run.
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("nothing-engine.json").path))
    }

    static let objcopyAvailable = ProcessInfo.processInfo.environment["PATH", default: "/usr/bin:/bin"]
        .split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/objcopy") }

    /// A native engine (`fencelab engine-serve --flush`, a copy without DWARF, which valgrind
    /// 3.19 cannot read) under callgrind: the same count twice, and the count compares unchanged
    /// with its own baseline.
    @Test(.enabled(if: valgrindAvailable && objcopyAvailable)) func nativeEngineInstructionsAreDeterministic() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stripped = dir.appendingPathComponent("fencelab")
        let strip = try runProcess(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["objcopy", "--strip-debug", TestPaths.product("fencelab").path, stripped.path])
        #expect(strip.status == 0, "\(strip.stderr)")
        let engine = "'\(stripped.path)' engine-serve --flush"
        let args = ["--fixes", "50", "--metric", "instructions"]
        let first = try Self.bench(engine, args + ["--save-baseline", "native", "--format", "json"], baselines: dir)
        #expect(first.status == 0, "\(first.stderr)")
        let second = try Self.bench(engine, args + ["--compare", "native", "--format", "json"], baselines: dir)
        #expect(second.status == 0, "\(second.stderr)")
        let a = try #require((try Self.json(first)["instructions"] as? [String: Any])?["instructionsPerFix"] as? Double)
        let b = try #require(
            (try Self.json(second)["instructions"] as? [String: Any])?["instructionsPerFix"] as? Double)
        // Parsing, the rule and the answer of one fix: thousands of instructions, not millions.
        #expect(a > 1_000 && a < 10_000_000, "instructions per fix \(a)")
        #expect(isClose(a, b, relativeTolerance: 1e-3), "\(a) vs \(b)")
        #expect(try Self.verdicts(second)["instructions per fix"] == "unchanged")
    }
}
