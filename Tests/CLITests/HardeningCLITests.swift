import Foundation
import Testing
import _TestSupport

/// Regression tests: hostile or careless input ends with one line and a
/// documented exit code, never a trap (exit 132/133/139), a hang or a stray process.
@Suite struct HardeningCLITests {
    static func tempDir(_ tag: String) throws -> URL {
        // Unique per call: parameterised cases run concurrently.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fencelab-hardening-\(tag)-\(getpid())-\(UUID().uuidString)")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    static let fenceLine =
        "{\"type\":\"fence\",\"protocol\":1,\"center\":[0,0],\"rule\":{\"kind\":\"hysteresis\",\"enter_m\":80,\"exit_m\":120,\"maxAccuracy_m\":30}}\n"

    /// A shell engine that says ready, then answers every fix with `answer`.
    static func engine(answering answer: String) -> String {
        "read l; echo '{\"type\":\"ready\",\"protocol\":1}'; while read l; do echo '\(answer)'; done"
    }

    // MARK: floating → integer conversions

    @Test(arguments: [
        "{\"index\":1e300,\"state\":\"inside\"}", "{\"index\":\"Infinity\",\"state\":\"inside\"}",
        "{\"index\":-1e300,\"state\":\"inside\"}", "{\"index\":0.5,\"state\":\"inside\"}",
    ])
    func hugeEngineIndexIsAnErrorNotATrap(answer: String) throws {
        let dir = try Self.tempDir("index")
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try runFencelab([
            "run", "--engine", Self.engine(answering: answer), "scenarios/edge-loiter-100m.json",
            "--replicates", "1", "--out", dir.appendingPathComponent("out").path,
        ])
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("index"))
        let check = try runFencelab(["engine-check", Self.engine(answering: answer), "--timeout", "2"])
        #expect(check.status == 1, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout.contains("index"))
    }

    @Test(arguments: ["1e300", "-1", "\"Infinity\"", "0.5"])
    func engineServeRefusesANonIntegerIndex(index: String) throws {
        let fix =
            "{\"index\":\(index),\"timestamp\":0,\"latitude\":0,\"longitude\":0,\"horizontal_accuracy\":5,\"now\":0}\n"
        let r = try runFencelab(["engine-serve"], stdin: Data((Self.fenceLine + fix).utf8))
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("line 2") && r.stderr.contains("index"))
        #expect(r.stderr.split(separator: "\n").count == 1)
    }

    @Test func engineServeRefusesAHugeConfirmCount() throws {
        let fence =
            "{\"type\":\"fence\",\"protocol\":1,\"center\":[0,0],\"rule\":{\"kind\":\"threshold\",\"radius_m\":80,\"confirm_n\":1e300}}\n"
        let r = try runFencelab(["engine-serve"], stdin: Data(fence.utf8))
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("confirm_n"))
    }

    @Test(arguments: [
        ("\"rate_hz\":1,\"duration_s\":1e19", "duration_s"), ("\"rate_hz\":1000,\"duration_s\":1e300", "duration_s"),
        ("\"rate_hz\":1,\"duration_s\":60,\"start_unix_s\":1e300", "start_unix_s"),
        ("\"rate_hz\":1,\"duration_s\":60,\"start_unix_s\":-1e300", "start_unix_s"),
    ])
    func hugeSamplingIsBadInput(sampling: String, key: String) throws {
        let dir = try Self.tempDir("sampling")
        defer { try? FileManager.default.removeItem(at: dir) }
        let text = try String(contentsOfFile: "scenarios/edge-loiter-100m.json", encoding: .utf8)
        let start = try #require(text.range(of: "\"sampling\""))
        let open = try #require(text.range(of: "{", range: start.upperBound..<text.endIndex))
        let close = try #require(text.range(of: "}", range: open.upperBound..<text.endIndex))
        let patched = text.replacingCharacters(in: open.upperBound..<close.lowerBound, with: sampling)
        let file = dir.appendingPathComponent("huge.json")
        try patched.write(to: file, atomically: true, encoding: .utf8)
        for args in [
            ["run", file.path, "--out", dir.appendingPathComponent("out").path],
            ["export", file.path, "--format", "gpx", "--out", dir.appendingPathComponent("x.gpx").path],
        ] {
            let r = try runFencelab(args)
            #expect(r.status == 2, "\(args[0]): \(r.stderr)")
            #expect(r.stderr.contains("sampling.\(key)"), "\(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1)
        }
    }

    @Test(arguments: [
        ["--enter", "0:100:1e-17", "--exit", "100:180:10"], ["--enter", "60:80:10", "--exit", "-1e308:1e308:1"],
    ])
    func sweepRangeWithTooManyValuesIsBadInput(grid: [String]) throws {
        let dir = try Self.tempDir("sweep")
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try runFencelab(
            ["sweep", "scenarios/urban-canyon.json"] + grid + ["--out", dir.appendingPathComponent("out").path])
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("more than 1000000 values"))
        #expect(r.stderr.split(separator: "\n").count == 1)
    }

    // MARK: recursion on input

    @Test(arguments: ["<!---->", "<??>"])
    func thirtyThousandCommentsDoNotOverflowTheStack(markup: String) throws {
        let dir = try Self.tempDir("gpx")
        defer { try? FileManager.default.removeItem(at: dir) }
        let gpx =
            "<?xml version=\"1.0\"?><gpx version=\"1.1\" creator=\"t\">" + String(repeating: markup, count: 30_000)
            + "<trk><trkseg><trkpt lat=\"52.52\" lon=\"13.405\"><time>2026-01-01T00:00:00Z</time><hdop>1</hdop></trkpt>"
            + "<trkpt lat=\"52.52\" lon=\"13.405\"><time>2026-01-01T00:00:01Z</time><hdop>1</hdop></trkpt></trkseg></trk></gpx>\n"
        let file = dir.appendingPathComponent("many.gpx")
        try gpx.write(to: file, atomically: true, encoding: .utf8)
        let r = try runFencelab([
            "replay", file.path, "--fence", "52.52,13.405", "--out", dir.appendingPathComponent("out").path,
        ])
        // Two fixes replay fine (exit 0 or 1 by the device criteria); a stack overflow would be 132/139.
        #expect(r.status == 0 || r.status == 1, "\(r.status) \(r.stderr)")
    }

    // MARK: hangs and orphans

    /// Processes whose command line contains `marker` (from /proc; empty where /proc is missing).
    static func processes(containing marker: String) -> [String] {
        guard let pids = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return pids.filter { $0.allSatisfy(\.isNumber) }.compactMap { pid in
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return nil }
            let cmd = String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
            return cmd.contains(marker) ? "\(pid): \(cmd)" : nil
        }
    }

    @Test func engineShellChildrenAreKilledWithTheEngine() throws {
        let dir = try Self.tempDir("orphan")
        defer { try? FileManager.default.removeItem(at: dir) }
        // A marker no other process carries: the shell forks `sleep`, FenceLab must kill both.
        let marker = "9\(getpid() % 10_000).25"
        let clock = ContinuousClock()
        let start = clock.now
        let r = try runFencelab([
            "run", "--engine", "sleep \(marker); true", "--engine-timeout", "0.2",
            "scenarios/edge-loiter-100m.json", "--replicates", "1", "--out", dir.appendingPathComponent("out").path,
        ])
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("no ready line"))
        #expect(start.duration(to: clock.now) < .seconds(30))
        Thread.sleep(forTimeInterval: 0.2)
        #expect(
            Self.processes(containing: "sleep \(marker)").isEmpty, "left behind: \(Self.processes(containing: marker))")
    }

    @Test func garbageSpewingEngineStopsAtOnce() throws {
        let dir = try Self.tempDir("yes")
        defer { try? FileManager.default.removeItem(at: dir) }
        let clock = ContinuousClock()
        let start = clock.now
        let r = try runFencelab([
            "run", "--engine", "yes garbage", "--engine-timeout", "0.05", "scenarios/edge-loiter-100m.json",
            "--replicates", "1", "--out", dir.appendingPathComponent("out").path,
        ])
        #expect(r.status == 2)
        #expect(r.stderr.contains("line 1") && r.stderr.contains("garbage"))
        #expect(start.duration(to: clock.now) < .seconds(30))
        #expect(Self.processes(containing: "yes garbage").isEmpty)
    }

    /// The timeout is per answer: an engine that answers fix 0 and then stalls for 10× the
    /// timeout fails at fix 1, although the old whole-item budget (5 s + n × timeout) was far larger.
    @Test func timeoutIsPerAnswer() throws {
        let dir = try Self.tempDir("per-answer")
        defer { try? FileManager.default.removeItem(at: dir) }
        let engine =
            "read l; echo '{\"type\":\"ready\",\"protocol\":1}'; read l; echo '{\"index\":0,\"state\":\"unknown\"}'; exec sleep 3"
        let clock = ContinuousClock()
        let start = clock.now
        let r = try runFencelab([
            "run", "--engine", engine, "--engine-timeout", "0.3", "scenarios/edge-loiter-100m.json",
            "--replicates", "1", "--out", dir.appendingPathComponent("out").path,
        ])
        let elapsed = start.duration(to: clock.now)
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("no answer for fix 1 within 0.3 s"), "\(r.stderr)")
        #expect(elapsed < .seconds(2.5), "\(elapsed)")
    }

    @Test(arguments: ["cat >/dev/null", "exec sleep 30"])
    func engineCheckFailsAnEngineThatNeverSendsReady(engine: String) throws {
        let clock = ContinuousClock()
        let start = clock.now
        let r = try runFencelab(["engine-check", engine, "--timeout", "1"])
        #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("FAIL protocol: empty session") && r.stdout.contains("ready line"))
        #expect(r.stdout.contains("Engine check: failed"))
        #expect(start.duration(to: clock.now) < .seconds(20))
    }

    @Test func symlinkLoopsRunEachScenarioOnce() throws {
        let dir = try Self.tempDir("loops")
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = dir.appendingPathComponent("a")
        try FileManager.default.createDirectory(at: a, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: "scenarios/edge-loiter-100m.json", toPath: a.appendingPathComponent("s.json").path)
        try FileManager.default.createSymbolicLink(
            atPath: a.appendingPathComponent("up").path, withDestinationPath: "..")
        try FileManager.default.createSymbolicLink(
            atPath: a.appendingPathComponent("again").path, withDestinationPath: "../a")
        let out = dir.appendingPathComponent("out")
        let r = try runFencelab(["run", a.path, "--replicates", "1", "--out", out.path])
        #expect(r.status == 0, "\(r.stderr)")
        let report =
            try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("report.json")))
            as? [String: Any]
        let scenarios = try #require(report?["scenarios"] as? [Any])
        #expect(scenarios.count == 1)
    }

    // MARK: memory and size

    /// The catalog scenario with `patch` applied to its text.
    static func patchedScenario(in dir: URL, _ patch: (String) -> String) throws -> URL {
        let text = try String(contentsOfFile: "scenarios/edge-loiter-100m.json", encoding: .utf8)
        let file = dir.appendingPathComponent("patched.json")
        try patch(text).write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test func scenarioFileOver16MiBIsRefusedUnread() throws {
        let dir = try Self.tempDir("big")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try Self.patchedScenario(in: dir) { $0 + String(repeating: " ", count: 16 << 20) }
        let r = try runFencelab(["run", file.path, "--out", dir.appendingPathComponent("out").path])
        #expect(r.status == 2)
        #expect(r.stderr.contains("16 MiB"))
        #expect(r.stderr.split(separator: "\n").count == 1)
    }

    @Test func echoedValuesAreCappedAndEscaped() throws {
        let dir = try Self.tempDir("echo")
        defer { try? FileManager.default.removeItem(at: dir) }
        // A 1 MB unknown key and a 1 MB name: each error line stays short.
        let key = String(repeating: "k", count: 1_000_000)
        let unknown = try Self.patchedScenario(in: dir) {
            $0.replacingOccurrences(of: "\"name\"", with: "\"\(key)\": 1, \"name\"")
        }
        let r = try runFencelab(["run", unknown.path, "--out", dir.appendingPathComponent("out").path])
        #expect(r.status == 2)
        #expect(r.stderr.contains("unknown key") && r.stderr.contains("…"))
        #expect(r.stderr.utf8.count < 400, "\(r.stderr.utf8.count) bytes")
        let longName = try Self.patchedScenario(in: dir) {
            $0.replacingOccurrences(of: "\"edge-loiter-100m\"", with: "\"\(String(repeating: "n", count: 1_000_000))\"")
        }
        let n = try runFencelab(["run", longName.path, "--out", dir.appendingPathComponent("out").path])
        #expect(n.status == 2)
        #expect(n.stderr.contains("name") && n.stderr.utf8.count < 400)
        // ESC and BEL in a name: refused, and the terminal never receives them raw.
        let control = try Self.patchedScenario(in: dir) {
            $0.replacingOccurrences(of: "\"edge-loiter-100m\"", with: "\"a\\u001b[2Jb\\u0007\"")
        }
        let c = try runFencelab(["run", control.path, "--out", dir.appendingPathComponent("out").path])
        #expect(c.status == 2)
        #expect(!c.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        #expect(c.stderr.contains("\\u{1B}"))
    }

    @Test func engineControlCharactersAreEscapedOnStderr() throws {
        let dir = try Self.tempDir("esc")
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try runFencelab([
            "run", "--engine", "printf '\\033]0;pwned\\007\\n'", "scenarios/edge-loiter-100m.json",
            "--replicates", "1", "--out", dir.appendingPathComponent("out").path,
        ])
        #expect(r.status == 2)
        #expect(!r.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(r.stderr.debugDescription)")
    }

    // MARK: output safety

    @Test func exportNeverReplacesADeviceFIFOOrSymlink() throws {
        let dir = try Self.tempDir("export-out")
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o644) == 0)
        let link = dir.appendingPathComponent("link").path
        try FileManager.default.createSymbolicLink(
            atPath: link, withDestinationPath: dir.appendingPathComponent("target.gpx").path)
        for (out, kind) in [("/dev/full", "a character device"), (fifo, "a FIFO"), (link, "a symbolic link")] {
            let r = try runFencelab(["export", "scenarios/edge-loiter-100m.json", "--format", "gpx", "--out", out])
            #expect(r.status == 2, "\(out): \(r.stderr)")
            #expect(r.stderr.contains("refusing to replace \(kind)"), "\(r.stderr)")
            #expect(r.stdout.isEmpty)
        }
        var st = stat()
        #expect(lstat("/dev/full", &st) == 0 && st.st_mode & S_IFMT == S_IFCHR)
        #expect(lstat(fifo, &st) == 0 && st.st_mode & S_IFMT == S_IFIFO)
        #expect(lstat(link, &st) == 0 && st.st_mode & S_IFMT == S_IFLNK)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("target.gpx").path))
    }

    @Test func danglingSymlinkOutIsRefusedBeforeWork() throws {
        let dir = try Self.tempDir("dangling")
        defer { try? FileManager.default.removeItem(at: dir) }
        let link = dir.appendingPathComponent("report").path
        try FileManager.default.createSymbolicLink(
            atPath: link, withDestinationPath: dir.appendingPathComponent("missing").path)
        let r = try runFencelab(["run", "--out", link])
        #expect(r.status == 2)
        #expect(r.stderr.contains("refusing to replace a symbolic link"))
        #expect(r.stdout.isEmpty, "no scenario ran: \(r.stdout)")
    }

    @Test func stdoutWriteErrorIsANonZeroExit() throws {
        // `sh -c '… > /dev/full'`: the binary's own stdout is the full device.
        let bin = TestPaths.product("fencelab").path
        let fence = #"{"type":"fence","protocol":1,"center":[0,0],"rule":{"kind":"threshold","radius_m":80}}"#
        for args in [
            "--help", "distance 0 0 1 1", "geohash encode 52.52 13.405",
            "export scenarios/edge-loiter-100m.json --format csv",
            "engine-serve < /tmp/fencelab-fence-\(getpid()).jsonl",
        ] {
            try (fence + "\n").write(toFile: "/tmp/fencelab-fence-\(getpid()).jsonl", atomically: true, encoding: .utf8)
            let r = try runProcess(
                URL(fileURLWithPath: "/bin/sh"), ["-c", "'\(bin)' \(args) > /dev/full"],
                currentDirectory: TestPaths.packageRoot)
            #expect(r.status == 2, "\(args): \(r.status)")
            #expect(r.stderr.contains("cannot write to standard output"))
        }
    }

    @Test func reportMarkdownCarriesNoRawHTML() throws {
        let dir = try Self.tempDir("md")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try Self.patchedScenario(in: dir) {
            $0.replacingOccurrences(of: "\"edge-loiter-100m\"", with: "\"<img src=x onerror=alert(1)>&amp;\"")
        }
        let out = dir.appendingPathComponent("out")
        let r = try runFencelab(["run", file.path, "--replicates", "2", "--out", out.path])
        #expect(r.status == 0 || r.status == 1, "\(r.stderr)")
        let md = try String(contentsOf: out.appendingPathComponent("report.md"), encoding: .utf8)
        #expect(!md.contains("<img"))
        #expect(md.contains("&lt;img src=x onerror=alert(1)>&amp;amp;"))
    }

    // MARK: one strict JSON reader

    @Test(arguments: [
        ("\"protocol\":true", "protocol"), ("\"protocol\":1.7", "protocol"),
        ("\"protocol\":1,\"extra\":0", "unknown key 'extra'"), ("\"protocol\":01", "leading zero"),
        ("\"protocol\":1,\"protocol\":1", "duplicate key"),
    ])
    func engineServeFenceLineIsReadStrictly(members: String, mentions: String) throws {
        let fence =
            "{\"type\":\"fence\",\(members),\"center\":[0,0],\"rule\":{\"kind\":\"threshold\",\"radius_m\":80}}\n"
        let r = try runFencelab(["engine-serve"], stdin: Data(fence.utf8))
        #expect(r.status == 2, "\(r.stdout) \(r.stderr)")
        #expect(r.stderr.contains(mentions), "\(r.stderr)")
        #expect(r.stdout.isEmpty, "no ready line for a refused fence")
    }

    @Test func scenarioAndFixtureFilesRefuseLeadingZerosAndDuplicateKeys() throws {
        let dir = try Self.tempDir("strict")
        defer { try? FileManager.default.removeItem(at: dir) }
        let zero = try Self.patchedScenario(in: dir) {
            $0.replacingOccurrences(of: "\"replicates\": 20", with: "\"replicates\": 020")
        }
        let z = try runFencelab(["run", zero.path, "--out", dir.appendingPathComponent("out").path])
        #expect(z.status == 2)
        #expect(z.stderr.contains("leading zero") && z.stderr.contains("patched.json:"), "\(z.stderr)")
        let fixtures = dir.appendingPathComponent("fixtures")
        try FileManager.default.createDirectory(at: fixtures, withIntermediateDirectories: true)
        let source = try String(contentsOfFile: "scenarios/fixtures/seed000-hysteresis.json", encoding: .utf8)
        let duplicated = source.replacingOccurrences(
            of: "{", with: "{\"kind\": \"x\", ", options: [], range: source.range(of: "{"))
        try duplicated.write(to: fixtures.appendingPathComponent("dup.json"), atomically: true, encoding: .utf8)
        let f = try runFencelab(["fixtures", fixtures.path])
        #expect(f.status == 2, "\(f.stdout) \(f.stderr)")
        #expect(f.stderr.contains("duplicate key"), "\(f.stderr)")
    }

    @Test func hugeArgumentsGiveOneBoundedLine() throws {
        let huge = String(repeating: "9", count: 100_000)  // below Linux's 128 KiB per argument
        for args in [
            ["distance", huge, "0", "0", "0"], ["sweep", "--enter", huge + ":1:1", "--exit", "1:2:1"], ["--" + huge],
        ] {
            let r = try runFencelab(args)
            #expect(r.status == 2 || r.status == 64, "\(r.status)")
            #expect(r.stderr.split(separator: "\n").count == 1)
            #expect(r.stderr.utf8.count <= 2100, "\(r.stderr.utf8.count) bytes")
        }
    }

    // MARK: input files that are not regular files

    /// What an input path is made into: a FIFO with no writer (a reader opening it blocks
    /// forever), or `/dev/zero` (endless bytes).
    enum NotAFile: String, CaseIterable, CustomStringConvertible {
        case fifo, devZero
        var description: String { rawValue }

        /// The path, created in `dir` with `ext` for the FIFO.
        func path(in dir: URL, ext: String) throws -> String {
            switch self {
            case .devZero: return "/dev/zero"
            case .fifo:
                let path = dir.appendingPathComponent("input.\(ext)").path
                #expect(mkfifo(path, 0o600) == 0, "mkfifo \(path)")
                return path
            }
        }

        var kind: String { self == .fifo ? "a FIFO" : "a character device" }
    }

    /// Seconds before a child is killed: a refused input returns in well under a second, so only
    /// a regression (a hang on the FIFO, an endless read of /dev/zero) reaches it.
    static let notAFileDeadline_s = 30.0

    static func expectRefused(_ r: ProcessResult, path: String, kind: String) {
        #expect(r.status == 2, "status \(r.status) (9 = killed at the deadline: a hang): \(r.stderr)")
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(r.stderr)")
        #expect(r.stderr.contains(path) && r.stderr.contains("not a regular file (\(kind))"), "\(r.stderr)")
    }

    /// The command line of `command` reading `input` (a device log for replay/calibrate/accept,
    /// a scenario file for run/export/sweep) and writing `out`.
    static func notAFileArguments(_ command: String, input: String, out: String) -> [String] {
        switch command {
        case "replay": return ["replay", input, "--fence", "52.52,13.405", "--out", out]
        case "calibrate": return ["calibrate", input, "--out", out]
        case "accept":
            return [
                "accept", "scenarios/edge-loiter-100m.json", "--device-log", input, "--fence", "52.52,13.405", "--out",
                out,
            ]
        case "run": return ["run", input, "--replicates", "1", "--out", out]
        case "export": return ["export", input, "--format", "csv", "--out", out]
        default: return ["sweep", input, "--enter", "50:60:10", "--exit", "100:120:20", "--out", out]
        }
    }

    @Test(arguments: NotAFile.allCases, ["replay", "calibrate", "accept", "run", "export", "sweep"])
    func inputThatIsNotARegularFileIsRefused(input: NotAFile, command: String) throws {
        let dir = try Self.tempDir("notafile")
        defer { try? FileManager.default.removeItem(at: dir) }
        let isDeviceLog = ["replay", "calibrate", "accept"].contains(command)
        let path = try input.path(in: dir, ext: isDeviceLog ? "csv" : "json")
        let out = dir.appendingPathComponent("out").path
        let r = try runFencelab(
            Self.notAFileArguments(command, input: path, out: out), deadline_s: Self.notAFileDeadline_s)
        Self.expectRefused(r, path: path, kind: input.kind)
        #expect(!FileManager.default.fileExists(atPath: out), "no output for refused input")
    }

    @Test(arguments: NotAFile.allCases)
    func fixtureThatIsNotARegularFileIsRefused(input: NotAFile) throws {
        let dir = try Self.tempDir("notafile-fixture")
        defer { try? FileManager.default.removeItem(at: dir) }
        let fixture: String
        switch input {
        case .fifo: fixture = try input.path(in: dir, ext: "json")
        case .devZero:
            fixture = dir.appendingPathComponent("zero.json").path
            try FileManager.default.createSymbolicLink(atPath: fixture, withDestinationPath: "/dev/zero")
        }
        let r = try runFencelab(["fixtures", dir.path], deadline_s: Self.notAFileDeadline_s)
        Self.expectRefused(r, path: fixture, kind: input.kind)
    }
}
