import Foundation
import Testing
import _TestSupport

/// Defects of the second hardening round that had no test through the binary yet: a resume file
/// with a duplicate or a foreign record (case 4), a JSON Lines number beyond a double (15),
/// bidirectional and line-separator characters in echoed input (16), a resume file with CR LF
/// line ends and merge messages that named no difference (17).
@Suite(.serialized) struct IssueRegressionCLITests {
    static func tempDir() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-issue-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static let sweep = [
        "sweep", "scenarios/edge-loiter-100m.json", "--enter", "50:95:5", "--exit", "100:180:10", "--jobs", "1",
        "--checkpoint-after", "0",
    ]

    /// Runs `arguments` and interrupts it (SIGINT) once its resume file `partial` holds `lines`
    /// lines; returns the file's lines.
    static func interrupted(_ arguments: [String], partial: URL, lines: Int = 4) throws -> [String] {
        let p = Process()
        p.executableURL = TestPaths.product("fencelab")
        p.arguments = arguments
        p.currentDirectoryURL = TestPaths.packageRoot
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(120)
        func read() -> [String] {
            ((try? String(contentsOf: partial, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
        while read().count < lines, p.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        p.interrupt()
        p.waitUntilExit()
        try #require(p.terminationStatus == 130, "the sweep was not interrupted")
        return read()
    }

    /// Case 4: a record given twice in a resume file, or one of another shard's items, is refused
    /// naming the file and the line (before, resume kept one of two records and skipped others).
    @Test func resumeRefusesADuplicateAndAnotherShardsRecord() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("s").path
        let partial = dir.appendingPathComponent(".s.sweep-partial.jsonl")
        let lines = try Self.interrupted(Self.sweep + ["--out", out], partial: partial)
        try #require(lines.count >= 4)
        // The record of line 3 again, right after it.
        try (lines[0..<3] + [lines[2]] + lines[3...]).map { $0 + "\n" }.joined().write(
            to: partial, atomically: true, encoding: .utf8)
        let dup = try runFencelab(Self.sweep + ["--out", out, "--resume"])
        #expect(dup.status == 2, "\(dup.stderr)")
        #expect(dup.stderr.contains(#/\.s\.sweep-partial\.jsonl: line 4: item [0-9]+ appears twice/#), "\(dup.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))

        // A record of shard 1/2 (its checksum intact) in shard 0/2's resume file.
        let shard1 = dir.appendingPathComponent("s1").path
        let s1 = try runFencelab(Self.sweep + ["--shard", "1/2", "--out", shard1])
        #expect(s1.status == 0, "\(s1.stderr)")
        let foreign = try #require(
            try String(contentsOfFile: shard1 + "/items.jsonl", encoding: .utf8).split(separator: "\n").first)
        let out0 = dir.appendingPathComponent("s0").path
        let partial0 = dir.appendingPathComponent(".s0.sweep-partial.jsonl")
        let lines0 = try Self.interrupted(Self.sweep + ["--shard", "0/2", "--out", out0], partial: partial0)
        try (lines0 + [String(foreign)]).map { $0 + "\n" }.joined().write(
            to: partial0, atomically: true, encoding: .utf8)
        let r = try runFencelab(Self.sweep + ["--shard", "0/2", "--out", out0, "--resume"])
        #expect(r.status == 2, "\(r.stderr)")
        #expect(
            r.stderr.contains("line \(lines0.count + 1): item 1 is not one of shard 0/2's items"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out0))
    }

    /// Case 17: a resume file whose lines end in CR LF (edited on another system) resumes; before,
    /// it was "a different sweep".
    @Test func aResumeFileWithCRLFLineEndsResumes() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("s").path
        let partial = dir.appendingPathComponent(".s.sweep-partial.jsonl")
        let lines = try Self.interrupted(Self.sweep + ["--out", out], partial: partial)
        try lines.map { $0 + "\r\n" }.joined().write(to: partial, atomically: true, encoding: .utf8)
        let r = try runFencelab(Self.sweep + ["--out", out, "--resume"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("fencelab: resumed \(lines.count - 1) finished work items"), "\(r.stderr)")
    }

    /// Case 17: shards of two grids with as many points, or of a changed scenario file with the
    /// same seed, are refused naming what differs (before: "150 hysteresis points vs 150
    /// hysteresis points", "different seed (1201 vs 1201)").
    @Test func mergeNamesWhatDiffers() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let base = ["sweep", "--exit", "100:100:10", "--replicates", "2"]
        func shards(_ name: String, _ zero: [String], _ one: [String]) throws -> ProcessResult {
            let a = try runFencelab(base + zero + ["--shard", "0/2", "--out", dir.path + "/\(name)/s0"])
            let b = try runFencelab(base + one + ["--shard", "1/2", "--out", dir.path + "/\(name)/s1"])
            #expect(a.status == 0 && b.status == 0, "\(a.stderr) \(b.stderr)")
            return try runFencelab(["merge", dir.path + "/\(name)", "--out", dir.path + "/\(name)-merged"])
        }
        let walkIn = "scenarios/tuning/walk-in.json"
        let grid = try shards("grid", [walkIn, "--enter", "50:60:10"], [walkIn, "--enter", "60:70:10"])
        #expect(grid.status == 2, "\(grid.stderr)")
        #expect(
            grid.stderr.contains(
                #/made with a different grid than .+ \(point 0: hysteresis 50/100 acc30 confirm1 vs hysteresis 60/100 acc30 confirm1\)/#
            ), "\(grid.stderr)")
        #expect(!grid.stderr.contains(#/([0-9]+ hysteresis points) vs \1/#), "\(grid.stderr)")

        // The same scenario, name and seed, with another noise level.
        let changed = dir.appendingPathComponent("walk-in.json")
        var text = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent(walkIn), encoding: .utf8)
        let sigma = try #require(text.firstMatch(of: /"sigma_m"\s*:\s*([0-9.]+)/))
        text.replaceSubrange(sigma.1.startIndex..<sigma.1.endIndex, with: "\(Double(sigma.1)! + 1)")
        try text.write(to: changed, atomically: true, encoding: .utf8)
        let file = try shards("file", [walkIn, "--enter", "50:60:10"], [changed.path, "--enter", "50:60:10"])
        #expect(file.status == 2, "\(file.stderr)")
        #expect(
            file.stderr.contains(
                #/made with a different scenario file hash than .+ \(walk-in: [0-9a-f]{12}… vs [0-9a-f]{12}…\)/#),
            "\(file.stderr)")
        #expect(!file.stderr.contains(#/seed \(([0-9]+) vs \1\)/#), "\(file.stderr)")
    }

    /// Case 15: a JSON Lines number beyond the double range is refused naming its key (it was
    /// taken as infinity).
    @Test func aJSONLinesNumberBeyondADoubleIsRefusedNamingTheKey() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let log = dir.appendingPathComponent("big.jsonl")
        try #"{"timestamp":1772366400,"latitude":52.52,"longitude":13.405,"horizontal_accuracy":1e999}"#.appending("\n")
            .write(to: log, atomically: true, encoding: .utf8)
        let r = try runFencelab([
            "replay", log.path, "--fence", "52.52,13.405", "--out", dir.appendingPathComponent("o").path,
        ])
        #expect(r.status == 2, "\(r.stderr)")
        #expect(
            r.stderr.contains("big.jsonl:1: horizontal_accuracy: 1e999 is beyond the range of a double"), "\(r.stderr)")
    }

    /// Case 16: U+202E (right-to-left override) and U+2028 (line separator) in a log field and in
    /// a scenario name are echoed escaped, never raw.
    @Test func bidirectionalAndLineSeparatorCharactersAreEscaped() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let log = dir.appendingPathComponent("bidi.csv")
        try
            "timestamp,latitude,longitude,horizontal_accuracy,speed,course,event\n1772366400,52.52,13.405,5\u{202E}9,,,\n"
            .write(to: log, atomically: true, encoding: .utf8)
        let replay = try runFencelab([
            "replay", log.path, "--fence", "52.52,13.405", "--out", dir.appendingPathComponent("o").path,
        ])
        #expect(replay.status == 2, "\(replay.stderr)")
        #expect(replay.stderr.contains("'5\\u{202E}9'"), "\(replay.stderr)")

        var text = try String(
            contentsOf: TestPaths.packageRoot.appendingPathComponent("scenarios/edge-loiter-100m.json"), encoding: .utf8
        )
        let name = try #require(text.firstMatch(of: /"name"\s*:\s*"([^"]*)"/))
        text.replaceSubrange(name.1.startIndex..<name.1.endIndex, with: "evil\\u202Eeman\\u2028x")
        let scenario = dir.appendingPathComponent("bidi.json")
        try text.write(to: scenario, atomically: true, encoding: .utf8)
        let run = try runFencelab([
            "run", scenario.path, "--replicates", "1", "--out", dir.appendingPathComponent("r").path,
        ])
        let said = run.stdout + run.stderr
        #expect(said.contains("evil\\u{202E}eman\\u{2028}x"), "\(said)")
        for raw in ["\u{202E}", "\u{2028}"] { #expect(!said.contains(raw), "raw \(raw.unicodeScalars.first!) echoed") }
    }
}
