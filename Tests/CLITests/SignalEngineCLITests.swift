import Foundation
import Testing
import _TestSupport

/// SIGINT, SIGTERM and SIGHUP during a run with an external engine: the engine and its shell
/// are killed before fencelab exits with 128 + the signal, and the one line says nothing was kept.
@Suite(.serialized) struct SignalEngineCLITests {
    /// Process ids whose NUL-separated command line contains `marker` (from /proc), this test's
    /// own excluded.
    static func processes(containing marker: String) -> [Int32] {
        let me = ProcessInfo.processInfo.processIdentifier
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            // procfs files report size 0: read to the end instead of by size.
            guard pid != me, let file = FileHandle(forReadingAtPath: "/proc/\(pid)/cmdline") else { return false }
            defer { try? file.close() }
            let data = readToEnd(file)
            return String(decoding: data, as: UTF8.self).contains(marker)
        }
    }

    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143)), (SIGHUP, Int32(129))])
    func aSignalTakesTheEngineDownToo(signal: Int32, status: Int32) throws {
        let marker = "\(88_000 + Int.random(in: 0..<10_000)).5"  // a sleep no other test starts
        let p = Process()
        p.executableURL = TestPaths.product("fencelab")
        p.arguments = [
            "run", "scenarios/edge-loiter-100m.json", "--engine", "sleep \(marker)", "--jobs", "2", "--out",
            FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-sig-\(UUID().uuidString)").path,
        ]
        p.currentDirectoryURL = TestPaths.packageRoot
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(60)
        while Self.processes(containing: "sleep\0\(marker)").isEmpty, p.isRunning, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(!Self.processes(containing: "sleep\0\(marker)").isEmpty, "the engine never started")
        kill(p.processIdentifier, signal)
        let text = String(decoding: readToEnd(err.fileHandleForReading), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == status, "\(text)")
        #expect(text.contains("fencelab: interrupted; nothing was kept"), "\(text)")
        // The kill is sent before exit; give the kernel a moment to reap the group.
        let gone = Date().addingTimeInterval(5)
        while !Self.processes(containing: "sleep\0\(marker)").isEmpty, Date() < gone {
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(Self.processes(containing: "sleep\0\(marker)").isEmpty, "engine processes left running")
    }
}
