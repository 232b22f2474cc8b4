import Foundation
import Testing
import _TestSupport

/// Nothing an engine starts outlives it (Linux): a helper that leaves the engine's process group
/// and session (`setsid`, a double fork) is ended when its engine ends, and whatever is left
/// when fencelab exits — normally, on an error or on a signal. Checked in the process table
/// (`/proc/*/cmdline`), with a `sleep` whose argument no other test uses.
@Suite(.serialized) struct EngineDescendantsCLITests {
    /// A sleep duration no other process uses: `300.NNNNNN` seconds.
    static func marker() -> String { "300.\(100_000 + Int.random(in: 0..<900_000))" }

    /// Pids whose command line is `sleep MARKER` (from /proc). A zombie's is empty: not counted.
    static func sleeping(_ marker: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let file = FileHandle(forReadingAtPath: "/proc/\(pid)/cmdline") else { return false }
            defer { try? file.close() }
            return String(decoding: readToEnd(file), as: UTF8.self).hasSuffix("sleep\0\(marker)\0")
        }
    }

    /// Ends what a failed test left, so it does not outlive the test either.
    static func cleanUp(_ marker: String) {
        for pid in sleeping(marker) { kill(pid, SIGKILL) }
    }

    /// The helper's start, with its duration built at run time so the engine's own command line
    /// (`sh -c …`) never holds the marker: `setsid sleep MARKER` with its output elsewhere (so
    /// the engine's stdout reaches its end), in the background.
    static func helper(_ marker: String, wrap: (String) -> String = { $0 }) -> String {
        let (whole, fraction) = (marker.prefix { $0 != "." }, marker.drop { $0 != "." }.dropFirst())
        return "d=\(whole); " + wrap("setsid sleep \"$d.\(fraction)\" </dev/null >/dev/null 2>&1 &")
    }

    static var engineServe: String { "exec '\(TestPaths.product("fencelab").path)' engine-serve" }

    static func outputFolder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-box-\(UUID().uuidString)").path
    }

    static func requireProcFS() throws {
        try #require(
            FileManager.default.fileExists(atPath: "/proc/self/stat"),
            "SKIPPED: no /proc on this system; only the process group is killed here")
    }

    /// One helper per work item, each ended when its engine ends: every engine start sees none
    /// left by the engine before it, and none is left after fencelab exits 0.
    @Test(arguments: ["setsid", "double fork", "cleared environment"])
    func helpersAreEndedWithTheirEngine(style: String) throws {
        try Self.requireProcFS()
        let marker = Self.marker()
        defer { Self.cleanUp(marker) }
        let counts = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-box-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: counts) }
        let out = Self.outputFolder()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let wrap: (String) -> String
        switch style {
        case "double fork": wrap = { "( \($0) );" }
        case "cleared environment": wrap = { "env -i " + $0 }
        default: wrap = { $0 }
        }
        // How many helpers of this test run when each engine starts (command lines as text; only
        // the helpers' start with `sleep`).
        let count =
            "for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' < $f; echo; done 2>/dev/null "
            + "| grep -c '^sleep \(marker.replacingOccurrences(of: ".", with: "\\.")) $' >> '\(counts.path)'; "
        let engine = count + Self.helper(marker, wrap: wrap) + " " + Self.engineServe
        let r = try runFencelab([
            "run", "--engine", engine, "scenarios/edge-loiter-100m.json", "--replicates", "4", "--jobs", "1",
            "--out", out,
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.sleeping(marker).isEmpty, "helpers left running after fencelab exited: \(Self.sleeping(marker))")
        let seen = try String(contentsOf: counts, encoding: .utf8).split(separator: "\n").map {
            Int($0.trimmingCharacters(in: .whitespaces))
        }
        #expect(seen.count == 4, "\(seen)")
        if style == "cleared environment" {
            // Without the marker a helper is not told from another engine's: it is ended when
            // fencelab exits, not with its engine.
            #expect(seen.last == 3, "\(seen)")
        } else {
            #expect(
                seen.allSatisfy { $0 == 0 }, "helpers of earlier engines still running when the next started: \(seen)")
        }
    }

    /// Ctrl-C, SIGTERM and SIGHUP while an engine that started a `setsid` helper hangs: the
    /// helper is ended before fencelab exits with 128 + the signal.
    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143)), (SIGHUP, Int32(129))])
    func aSignalEndsTheHelpersToo(signal: Int32, status: Int32) throws {
        try Self.requireProcFS()
        let marker = Self.marker()
        defer { Self.cleanUp(marker) }
        let out = Self.outputFolder()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let p = Process()
        p.executableURL = TestPaths.product("fencelab")
        p.arguments = [
            "run", "scenarios/edge-loiter-100m.json", "--engine", Self.helper(marker) + " exec sleep 600", "--jobs",
            "2",
            "--out", out,
        ]
        p.currentDirectoryURL = TestPaths.packageRoot
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(60)
        while Self.sleeping(marker).isEmpty, p.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(!Self.sleeping(marker).isEmpty, "the helper never started")
        kill(p.processIdentifier, signal)
        // Checked the moment fencelab has exited (reading its stderr to the end would also wait
        // for any helper that held it).
        let exitDeadline = Date().addingTimeInterval(30)
        while p.isRunning, Date() < exitDeadline { Thread.sleep(forTimeInterval: 0.01) }
        let left = Self.sleeping(marker)
        try #require(!p.isRunning, "fencelab did not exit after the signal")
        let text = String(decoding: err.fileHandleForReading.availableData, as: UTF8.self)
        #expect(p.terminationStatus == status, "\(text)")
        #expect(text.split(separator: "\n").filter { !$0.isEmpty }.count == 1, "\(text)")
        #expect(text.contains("fencelab: interrupted; nothing was kept"), "\(text)")
        #expect(left.isEmpty, "helpers left running after fencelab exited: \(left)")
    }

    /// The engine exited after 40 answers while a helper it started holds its stdout: the message
    /// says so and names the last answered fix, not a fix that had no answer; the helper is ended.
    @Test func anExitedEngineWhoseStdoutStaysOpenIsNamedAsSuch() throws {
        try Self.requireProcFS()
        let marker = Self.marker()
        defer { Self.cleanUp(marker) }
        let out = Self.outputFolder()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let (whole, fraction) = (marker.prefix { $0 != "." }, marker.drop { $0 != "." }.dropFirst())
        // The helper keeps the engine's stdout; `head` passes the ready line and 40 answers, and
        // the shell exits when `head` does.
        let engine =
            "d=\(whole); setsid sleep \"$d.\(fraction)\" </dev/null 2>/dev/null & "
            + "'\(TestPaths.product("fencelab").path)' engine-serve | head -n 41"
        let r = try runFencelab([
            "run", "--engine", engine, "--engine-timeout", "0.5", "scenarios/edge-loiter-100m.json",
            "--replicates", "1", "--out", out,
        ])
        #expect(r.status == 2, "\(r.stderr)")
        #expect(!r.stderr.contains("no answer for fix"), "\(r.stderr)")
        #expect(
            r.stderr.contains(
                #/engine exited with status 0 after answering 40 of [0-9]+ fixes \(the last was fix 39\), but its standard output stayed open 0.5 s after without another answer/#
            ),
            "\(r.stderr)")
        #expect(Self.sleeping(marker).isEmpty, "the helper holding stdout was left running")
    }
}
