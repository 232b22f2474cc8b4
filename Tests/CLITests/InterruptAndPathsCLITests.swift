import Foundation
import Testing
import _TestSupport

/// Small things a user trips on: Ctrl-C says what was kept, `accept` finds its
/// fixtures from another folder, a folder given as a device log is named as such.
@Suite struct InterruptAndPathsCLITests {
    static func tempDir() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-trip-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Starts `fencelab ARGS`, waits until `ready()` holds (at most 120 s), sends SIGINT, returns (status, stderr).
    static func interrupt(_ arguments: [String], ready: () -> Bool) throws -> (Int32, String) {
        let p = Process()
        p.executableURL = TestPaths.product("fencelab")
        p.arguments = arguments
        p.currentDirectoryURL = TestPaths.packageRoot
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(120)
        while !ready(), p.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        p.interrupt()
        let text = String(decoding: readToEnd(err.fileHandleForReading), as: UTF8.self)
        p.waitUntilExit()
        return (p.terminationStatus, text)
    }

    /// The sweep both interrupted-sweep tests start (≈ 0.5 s for its 20 replicates in a debug build).
    static let sweep = [
        "sweep", "scenarios/edge-loiter-100m.json", "--enter", "50:95:5", "--exit", "100:180:10", "--jobs", "1",
    ]

    @Test func interruptedSweepSaysWhatWasKeptAndHowToResume() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("sweep").path
        let partial = dir.appendingPathComponent(".sweep.sweep-partial.jsonl").path
        let args = Self.sweep + ["--checkpoint-after", "0", "--out", out]
        let (status, stderr) = try Self.interrupt(args) {
            ((try? String(contentsOfFile: partial, encoding: .utf8))?.split(separator: "\n").count ?? 0) >= 3
        }
        #expect(status == 130, "\(stderr)")
        let line = try #require(stderr.split(separator: "\n").last { $0.hasPrefix("fencelab: interrupted") })
        let kept = try #require(
            line.firstMatch(
                of:
                    /interrupted; at least ([0-9]+) finished work items kept in (.+); run the same command with --resume/
            ))
        #expect(Int(kept.1)! >= 2 && kept.2 == partial, "\(line)")
        let resumed = try runFencelab(args + ["--resume"])
        #expect(resumed.status == 0)
        #expect(resumed.stderr.contains("fencelab: resumed "), "\(resumed.stderr)")
    }

    /// Interrupted before it started its resume file (`--checkpoint-after`), a sweep says that
    /// nothing was kept and leaves nothing beside its output folder; a sweep that ends before the
    /// wait writes no resume file at all.
    @Test func aSweepInterruptedBeforeItsCheckpointSaysNothingWasKept() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("sweep").path
        let lock = dir.appendingPathComponent(".sweep.lock").path
        let args = Self.sweep + ["--replicates", "400", "--checkpoint-after", "1000", "--out", out]
        var sawLock: Date?
        let (status, stderr) = try Self.interrupt(args) {
            if sawLock == nil, FileManager.default.fileExists(atPath: lock) { sawLock = Date() }
            return sawLock.map { Date().timeIntervalSince($0) > 0.5 } ?? false
        }
        #expect(status == 130, "\(stderr)")
        #expect(
            stderr.split(separator: "\n").last == """
                fencelab: interrupted; nothing was kept: a sweep starts its resume file after 1000 s of work \
                (--checkpoint-after) and this one had not. Run the same command again to start over.
                """, "\(stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)

        let short = try runFencelab([
            "sweep", "scenarios/edge-loiter-100m.json", "--enter", "70:90:10", "--exit", "110:130:10",
            "--replicates", "2", "--checkpoint-after", "1000", "--out", out,
        ])
        #expect(short.status == 0, "\(short.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["sweep"])
    }

    @Test func interruptedRunSaysNothingWasWritten() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("run").path
        let started = Date()
        let (status, stderr) = try Self.interrupt([
            "run", "scenarios", "--replicates", "400", "--jobs", "1", "--out", out,
        ]) {
            Date().timeIntervalSince(started) > 1.5
        }
        #expect(status == 130, "\(stderr)")
        #expect(
            stderr.contains(
                "fencelab: interrupted; nothing was kept: the report is written only when the run completes, so \(out) is unchanged."
            ))
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func acceptFindsFixturesBesideTheScenariosFromAnotherFolder() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let scenario = TestPaths.packageRoot.appendingPathComponent("scenarios/edge-loiter-100m.json").path
        // Absolute scenario path: fixtures/ beside it.
        let a = try runFencelab(["accept", scenario, "--replicates", "2", "--out", "a"], currentDirectory: dir)
        #expect(a.status == 0, "\(a.stderr)")
        #expect(a.stdout.contains("Rules level: passed (144 checks)"), "\(a.stdout)")
        // A folder of the user's own scenarios without fixtures: found above the binary (the checkout).
        let mine = dir.appendingPathComponent("myscen")
        try FileManager.default.createDirectory(at: mine, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: scenario, toPath: mine.appendingPathComponent("mine.json").path)
        let b = try runFencelab(["accept", "myscen/", "--replicates", "2", "--out", "b"], currentDirectory: dir)
        #expect(b.status == 0, "\(b.stderr)")
        let json = try String(contentsOf: dir.appendingPathComponent("b/report.json"), encoding: .utf8)
        #expect(
            json.contains("\(TestPaths.packageRoot.path)/scenarios/fixtures/seed000-hysteresis.json")
                || json.contains("scenarios/fixtures/seed000-hysteresis.json"))
        // A missing explicit folder names the flag.
        let c = try runFencelab(["accept", "myscen/", "--fixtures", "nope", "--out", "c"], currentDirectory: dir)
        #expect(c.status == 2 && c.stderr.contains("nope"))
        // A folder given as --device-log is named as a folder.
        let d = try runFencelab(
            ["accept", "myscen/", "--device-log", "myscen", "--fence", "52.52,13.405", "--out", "d"],
            currentDirectory: dir)
        #expect(
            d.status == 2
                && d.stderr.contains("myscen: cannot read file: is a directory; --device-log takes log files"),
            "\(d.stderr)")
    }
}
