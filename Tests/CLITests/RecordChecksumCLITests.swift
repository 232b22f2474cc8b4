import Foundation
import Testing
import _TestSupport

/// Record lines prove themselves: a count changed by hand in a shard's items.jsonl or in a
/// resume file is refused naming the file and the line, never taken.
@Suite struct RecordChecksumCLITests {
    static let sweep = [
        "sweep", "scenarios/edge-loiter-100m.json", "--enter", "70:90:10", "--exit", "110:130:10",
        "--replicates", "2",
    ]

    /// `"transitions":N` → `"transitions":1N` on line `line` (1-based) of `file`.
    static func editCount(_ file: URL, line: Int) throws {
        var lines = try String(contentsOf: file, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false
        )
        .map(String.init)
        let edited = lines[line - 1].replacingOccurrences(of: "\"transitions\":", with: "\"transitions\":1")
        try #require(edited != lines[line - 1])
        lines[line - 1] = edited
        try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
    }

    @Test func mergeRefusesAnEditedShardRecordNamingFileAndLine() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-sum-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        for k in 0..<2 {
            let r = try runFencelab(
                Self.sweep + ["--shard", "\(k)/2", "--out", dir.appendingPathComponent("shards/\(k)").path])
            #expect(r.status == 0, "\(r.stderr)")
        }
        let items = dir.appendingPathComponent("shards/1/items.jsonl")
        let line = try #require(try String(contentsOf: items, encoding: .utf8).split(separator: "\n").first)
        let sum = try #require(line.split(separator: "\"").dropLast().last)
        #expect(line.hasSuffix(#","sum":"\#(sum)"}"#), "\(line)")
        #expect(sum.count == 8 && sum.allSatisfy(\.isHexDigit) && sum == sum.lowercased(), "\(line)")
        try Self.editCount(items, line: 2)
        let merged = dir.appendingPathComponent("merged").path
        let r = try runFencelab(["merge", dir.appendingPathComponent("shards").path, "--out", merged])
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(r.stderr.contains("\(items.path): line 2: checksum mismatch"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: merged))
    }

    @Test func resumeRefusesAnEditedRecordNamingFileAndLine() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-sum-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        // A resume file as an interrupted sweep leaves it: the manifest line, then records.
        let out = dir.appendingPathComponent("o").path
        let partial = dir.appendingPathComponent(".o.sweep-partial.jsonl")
        let p = Process()
        p.executableURL = TestPaths.product("fencelab")
        p.arguments = [
            "sweep", "scenarios/edge-loiter-100m.json", "--enter", "50:95:5", "--exit", "100:180:10", "--jobs", "1",
            "--checkpoint-after", "0", "--out", out,
        ]
        p.currentDirectoryURL = TestPaths.packageRoot
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(120)
        func lines() -> Int {
            (try? String(contentsOf: partial, encoding: .utf8))?.split(separator: "\n").count ?? 0
        }
        while lines() < 4, p.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        p.interrupt()
        p.waitUntilExit()
        try #require(p.terminationStatus == 130 && lines() >= 4)
        try Self.editCount(partial, line: 3)
        let r = try runFencelab(p.arguments! + ["--resume"])
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(r.stderr.contains("\(partial.path): line 3: checksum mismatch"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
