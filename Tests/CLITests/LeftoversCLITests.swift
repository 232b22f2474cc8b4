import Foundation
import Testing
import _TestSupport

/// What a fencelab killed with SIGKILL leaves next to its output — `.NAME.tmp-PID-N`,
/// `.NAME.old-PID-N`, `.NAME.lock` — is removed by the next run into the same output, which
/// says so in one line; the files of a process that still runs are never touched.
@Suite(.serialized) struct LeftoversCLITests {
    static func tempDir() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fencelab-leftovers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The pid of a process that has exited (and been reaped): no process has it now.
    static func deadPID() throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/true")
        try p.run()
        p.waitUntilExit()
        let pid = p.processIdentifier
        try #require(kill(pid, 0) != 0, "pid \(pid) was reused at once")
        return pid
    }

    /// A process that runs until the test ends it.
    static func liveProcess() throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sleep")
        p.arguments = ["120"]
        try p.run()
        return p
    }

    static func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }

    /// The stderr lines that report removed leftovers.
    static func cleanupLines(_ stderr: String) -> [Substring] {
        stderr.split(separator: "\n").filter { $0.contains("left next to") || $0.contains("restored ") }
    }

    @Test func theNextRunRemovesAKilledRunsLeftoversAndNoLiveOnes() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("o")
        let args = ["run", "scenarios/edge-loiter-100m.json", "--replicates", "1", "--out", out.path]
        let first = try runFencelab(args)
        #expect(first.status == 0, "\(first.stderr)")
        let dead = try Self.deadPID()
        let live = try Self.liveProcess()
        defer { live.terminate() }
        // What a run killed mid-write leaves: its temporary folder, a report it had set aside,
        // its lock file naming it; and a temporary folder of a run that still runs.
        let tmp = dir.appendingPathComponent(".o.tmp-\(dead)-1")
        let old = dir.appendingPathComponent(".o.old-\(dead)-2")
        let lock = dir.appendingPathComponent(".o.lock")
        let liveTmp = dir.appendingPathComponent(".o.tmp-\(live.processIdentifier)-1")
        for folder in [tmp, old, liveTmp] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data("partial".utf8).write(to: folder.appendingPathComponent("index.html"))
        }
        try Data("\(dead)\n".utf8).write(to: lock)

        let second = try runFencelab(args)
        #expect(second.status == 0, "\(second.stderr)")
        let said = Self.cleanupLines(second.stderr)
        #expect(
            said == [
                "fencelab: removed what a killed FenceLab run (pid \(dead)) left next to \(out.path): "
                    + ".o.lock, .o.old-\(dead)-2, .o.tmp-\(dead)-1"
            ], "\(second.stderr)")
        #expect(!Self.exists(tmp) && !Self.exists(old) && !Self.exists(lock))
        #expect(Self.exists(liveTmp), "a live run's temporary folder was removed")
        #expect(Self.exists(out.appendingPathComponent("report.json")))

        let third = try runFencelab(args)
        #expect(third.status == 0, "\(third.stderr)")
        #expect(Self.cleanupLines(third.stderr).isEmpty, "\(third.stderr)")
        #expect(Self.exists(liveTmp))
    }

    /// A run killed between its two renames left the old report aside and no report: the next
    /// run puts it back before replacing it, and says so.
    @Test func aReportSetAsideByAKilledRunIsRestoredFirst() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("o")
        let args = ["run", "scenarios/edge-loiter-100m.json", "--replicates", "1", "--out", out.path]
        #expect(try runFencelab(args).status == 0)
        let dead = try Self.deadPID()
        let old = dir.appendingPathComponent(".o.old-\(dead)-1")
        try FileManager.default.moveItem(at: out, to: old)
        let r = try runFencelab(args)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            Self.cleanupLines(r.stderr) == [
                "fencelab: restored \(out.path) from .o.old-\(dead)-1, set aside by a killed FenceLab run (pid \(dead))"
            ], "\(r.stderr)")
        #expect(!Self.exists(old))
        #expect(Self.exists(out.appendingPathComponent("report.json")))
    }

    /// Ctrl-C leaves nothing to clean: the lock file goes with the signal's exit, only the resume
    /// file stays, and `--resume` has no leftover to report.
    @Test func aSweepEndedByCtrlCLeavesOnlyItsResumeFile() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("sweep")
        let partial = dir.appendingPathComponent(".sweep.sweep-partial.jsonl")
        let args = [
            "sweep", "scenarios/edge-loiter-100m.json", "--enter", "50:95:5", "--exit", "100:180:10", "--jobs", "1",
            "--checkpoint-after", "0", "--out", out.path,
        ]
        let p = Process()
        p.executableURL = TestPaths.product("fencelab")
        p.arguments = args
        p.currentDirectoryURL = TestPaths.packageRoot
        p.standardError = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(120)
        while ((try? String(contentsOf: partial, encoding: .utf8))?.count ?? 0) < 400, p.isRunning, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        p.interrupt()
        p.waitUntilExit()
        try #require(p.terminationStatus == 130)
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(left == [".sweep.sweep-partial.jsonl"], "\(left)")
        let resumed = try runFencelab(args + ["--resume"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(Self.cleanupLines(resumed.stderr).isEmpty, "\(resumed.stderr)")
    }

    /// SIGKILL in the middle of a sweep leaves its lock file (and the resume file, on purpose):
    /// `--resume` removes the lock, says so, and finishes with nothing left beside the folder.
    @Test func aSweepKilledWithSIGKILLIsCleanedUpByItsResume() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("sweep")
        let partial = dir.appendingPathComponent(".sweep.sweep-partial.jsonl")
        let args = [
            "sweep", "scenarios/edge-loiter-100m.json", "--enter", "50:95:5", "--exit", "100:180:10", "--jobs", "1",
            "--checkpoint-after", "0", "--out", out.path,
        ]
        let p = Process()
        p.executableURL = TestPaths.product("fencelab")
        p.arguments = args
        p.currentDirectoryURL = TestPaths.packageRoot
        p.standardError = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(120)
        func lines() -> Int {
            (try? String(contentsOf: partial, encoding: .utf8))?.split(separator: "\n").count ?? 0
        }
        while lines() < 3, p.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        try #require(p.isRunning, "the sweep ended before it could be killed")
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        let lock = dir.appendingPathComponent(".sweep.lock")
        try #require(Self.exists(lock), "SIGKILL left no lock file to clean")

        let resumed = try runFencelab(args + ["--resume"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(
            Self.cleanupLines(resumed.stderr) == [
                "fencelab: removed what a killed FenceLab run (pid \(p.processIdentifier)) left next to \(out.path): .sweep.lock"
            ], "\(resumed.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0 != "sweep" }
        #expect(left.isEmpty, "left beside the sweep folder: \(left)")
    }

    /// An export killed mid-write leaves `.x.gpx.tmp-PID-N`: the next export to that file removes
    /// it and says so; a live writer's temporary stays.
    @Test func theNextExportRemovesAKilledExportsTemporary() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let dead = try Self.deadPID()
        let live = try Self.liveProcess()
        defer { live.terminate() }
        let stale = dir.appendingPathComponent(".x.gpx.tmp-\(dead)-1")
        let busy = dir.appendingPathComponent(".x.gpx.tmp-\(live.processIdentifier)-1")
        try Data("<gpx".utf8).write(to: stale)
        try Data("<gpx".utf8).write(to: busy)
        let target = dir.appendingPathComponent("x.gpx")
        let r = try runFencelab([
            "export", "scenarios/edge-loiter-100m.json", "--format", "gpx", "--start", "2026-01-01T00:00:00Z", "--out",
            target.path,
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            Self.cleanupLines(r.stderr) == [
                "fencelab: removed what a killed FenceLab run (pid \(dead)) left next to \(target.path): .x.gpx.tmp-\(dead)-1"
            ], "\(r.stderr)")
        #expect(!Self.exists(stale))
        #expect(Self.exists(busy))
        #expect(Self.exists(target))
    }
}
