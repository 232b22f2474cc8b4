import Foundation
import Testing
import _TestSupport

/// No command writes over one of its own inputs, however the path is spelt.
@Suite struct OwnInputCLITests {
    static func tempDir() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-own-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test(arguments: [
        ("s.json", "s.json"), ("s.json", "link.json"), ("link.json", "./s.json"), ("s.json", "sub/../s.json"),
    ])
    func exportRefusesItsOwnScenario(input: String, out: String) throws {
        let dir = try Self.tempDir()
        let original = try Data(
            contentsOf: TestPaths.packageRoot.appendingPathComponent("scenarios/dateline-fiji.json"))
        try original.write(to: dir.appendingPathComponent("s.json"))
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/link.json", withDestinationPath: "s.json")
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("sub"), withIntermediateDirectories: true)
        let r = try runFencelab(["export", input, "--format", "csv", "--out", out], currentDirectory: dir)
        #expect(r.status == 2)
        #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("refusing to write over the input"))
        #expect(try Data(contentsOf: dir.appendingPathComponent("s.json")) == original)
    }

    /// `merge shards --out alias/merged` with `alias → shards` would write inside its input.
    @Test func mergeRefusesAnOutputInsideAnInputThroughALink() throws {
        let dir = try Self.tempDir()
        let fm = FileManager.default
        try fm.createDirectory(at: dir.appendingPathComponent("shards/s0"), withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: dir.appendingPathComponent("shards/s0/shard.json"))
        try fm.createSymbolicLink(atPath: dir.path + "/alias", withDestinationPath: "shards")
        let r = try runFencelab(["merge", "shards", "--out", "alias/merged"], currentDirectory: dir)
        #expect(r.status != 0)
        #expect(r.stderr.contains("is this input or inside it"), "\(r.stderr)")
        #expect(!fm.fileExists(atPath: dir.appendingPathComponent("shards/merged").path))
    }
}

/// A file-size limit (`ulimit -f`) is an ordinary write error: one line, exit 2, nothing left behind.
@Suite struct FileSizeLimitCLITests {
    @Test(arguments: [
        ["run", "scenarios/edge-loiter-100m.json", "--replicates", "2", "--out", "OUT/o"],
        ["export", "scenarios/dateline-fiji.json", "--format", "gpx", "--out", "OUT/x.gpx"],
    ])
    func writesPastTheLimitFailWithOneLine(arguments: [String]) throws {
        let dir = try OwnInputCLITests.tempDir()
        let args = arguments.map { $0.replacingOccurrences(of: "OUT", with: dir.path) }
        let quoted = args.map { "'\($0)'" }.joined(separator: " ")
        let bin = TestPaths.product("fencelab").path
        let r = try runProcess(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "ulimit -f 8; exec '\(bin)' \(quoted)"],
            currentDirectory: TestPaths.packageRoot, deadline_s: 120)
        #expect(r.status == 2, "status \(r.status): \(r.stderr)")
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("File too large"), "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }
}

/// Each scenario counts once: a file reached twice or two files with one name are refused, so
/// nothing runs twice and no sweep weight applies twice.
@Suite struct DuplicateScenarioCLITests {
    @Test(arguments: [
        (["run", "a.json", "a.json"], "a.json: the same file as a.json"),
        (["run", "a.json", "link.json"], "link.json: the same file as a.json"),
        (["run", "a.json", "sub/../a.json"], "sub/../a.json: the same file as a.json"),
        (["run", "a.json", "copy.json"], "copy.json: the same name 'edge-loiter-100m' as a.json"),
        (["sweep", "a.json", "copy.json", "--enter", "50:60:10", "--exit", "100:120:20"], "the same name"),
    ])
    func aScenarioGivenTwiceIsRefused(arguments: [String], message: String) throws {
        let dir = try OwnInputCLITests.tempDir()
        let fm = FileManager.default
        let source = TestPaths.packageRoot.appendingPathComponent("scenarios/edge-loiter-100m.json")
        try fm.copyItem(at: source, to: dir.appendingPathComponent("a.json"))
        try fm.copyItem(at: source, to: dir.appendingPathComponent("copy.json"))
        try fm.createSymbolicLink(atPath: dir.path + "/link.json", withDestinationPath: "a.json")
        try fm.createDirectory(at: dir.appendingPathComponent("sub"), withIntermediateDirectories: true)
        let r = try runFencelab(arguments + ["--out", "out"], currentDirectory: dir)
        #expect(r.status == 2)
        let lines = r.stderr.split(separator: "\n")
        #expect(
            lines.count == 1 && lines[0].contains(message) && lines[0].hasSuffix("give each scenario once"),
            "\(r.stderr)")
        #expect(!fm.fileExists(atPath: dir.appendingPathComponent("out").path))
    }
}

/// An error line is at most 2000 characters and keeps its end: the reason after a huge path.
@Suite struct LongErrorLineCLITests {
    @Test func aHugeOutPathKeepsTheReasonVisible() throws {
        let out = FileManager.default.temporaryDirectory.path + "/" + String(repeating: "d", count: 5000)
        let r = try runFencelab(["run", "scenarios/edge-loiter-100m.json", "--out", out])
        #expect(r.status == 2)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].count <= 2000, "\(lines.map(\.count))")
        #expect(lines[0].hasPrefix("fencelab: ") && lines[0].contains("…"))
        #expect(lines[0].hasSuffix("(File name too long))"), "\(lines[0].suffix(120))")
    }
}
