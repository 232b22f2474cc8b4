import Foundation
import Testing
import _TestSupport

/// An engine whose stdout a process it started keeps open is named as such, not as a fix
/// without an answer; SIGTERM and SIGHUP end a sweep with the same one line as Ctrl-C.
@Suite struct EngineLingerAndSignalCLITests {
    static func tempDir() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-linger-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func anEngineWhoseStdoutStaysOpenIsNamedAsSuch() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        // The built-in engine answers every fix and exits; a background child keeps its stdout.
        let engine = "sleep 30 & exec '\(TestPaths.product("fencelab").path)' engine-serve"
        let clock = ContinuousClock()
        let start = clock.now
        let r = try runFencelab([
            "run", "--engine", engine, "--engine-timeout", "0.5", "scenarios/edge-loiter-100m.json",
            "--replicates", "1", "--out", dir.appendingPathComponent("out").path,
        ])
        #expect(r.status == 2, "\(r.stderr)")
        #expect(!r.stderr.contains("no answer for fix"), "\(r.stderr)")
        let match = try #require(
            r.stderr.firstMatch(
                of:
                    /engine answered all ([0-9]+) fixes \(the last was fix ([0-9]+)\), but its standard output stayed open 0.5 s after the last answer/
            ),
            "\(r.stderr)")
        #expect(Int(match.1).map { $0 > 0 } == true)
        #expect(Int(match.2) == Int(match.1).map { $0 - 1 }, "\(r.stderr)")
        #expect(start.duration(to: clock.now) < .seconds(20))
    }

    @Test(arguments: [(SIGTERM, Int32(143)), (SIGHUP, Int32(129))])
    func aSignalEndsASweepWithTheSameLineAsCtrlC(signal: Int32, status: Int32) throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("sweep").path
        let partial = dir.appendingPathComponent(".sweep.sweep-partial.jsonl").path
        let p = Process()
        p.executableURL = TestPaths.product("fencelab")
        p.arguments = [
            "sweep", "scenarios/edge-loiter-100m.json", "--enter", "50:95:5", "--exit", "100:180:10", "--jobs", "1",
            "--checkpoint-after", "0", "--out", out,
        ]
        p.currentDirectoryURL = TestPaths.packageRoot
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(120)
        func lines() -> Int {
            (try? String(contentsOfFile: partial, encoding: .utf8))?.split(separator: "\n").count ?? 0
        }
        while lines() < 3, p.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        kill(p.processIdentifier, signal)
        let text = String(decoding: readToEnd(err.fileHandleForReading), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == status, "\(text)")
        let said = text.split(separator: "\n").filter { !$0.isEmpty }
        #expect(said.count == 1, "\(text)")
        #expect(
            said.first?.contains(#/^fencelab: interrupted; at least [0-9]+ finished work items kept in /#) == true,
            "\(text)")
        #expect(said.first?.contains("run the same command with --resume") == true, "\(text)")
    }
}
