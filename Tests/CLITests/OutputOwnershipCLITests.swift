import Foundation
import Testing
import _TestSupport

/// Output folders are FenceLab's only by proof (the marker it writes), one writer at a time,
/// and an old report that cannot be removed gives a message.
@Suite struct OutputOwnershipCLITests {
    static func tempDir() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-own-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static let scenario = "scenarios/edge-loiter-100m.json"
    static let smallSweep = [
        "sweep", scenario, "--enter", "70:90:10", "--exit", "110:130:10", "--replicates", "1",
    ]

    /// A user's file with a report's name in a folder without a marker is never replaced.
    @Test(arguments: [
        (["run", scenario, "--replicates", "1"], "index.html"),
        (["run", scenario, "--replicates", "1"], "report.md"),
        (smallSweep, "sweep.csv"),
        (smallSweep + ["--shard", "0/2"], "items.jsonl"),
    ])
    func aUsersFileWithAReportNameIsRefusedNamingIt(arguments: [String], name: String) throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("u")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try Data("mine\n".utf8).write(to: out.appendingPathComponent(name))
        let r = try runFencelab(arguments + ["--out", out.path])
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(r.stderr.contains("'\(name)'") && r.stderr.contains(".fencelab-report.json"), "\(r.stderr)")
        #expect(try String(contentsOf: out.appendingPathComponent(name), encoding: .utf8) == "mine\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == [name])
    }

    @Test func aFolderWithForeignFilesAndNoMarkerIsRefusedWithTheNames() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        for name in ["thesis.tex", "a.txt", "report.json"] {
            try Data("mine\n".utf8).write(to: out.appendingPathComponent(name))
        }
        let r = try runFencelab(["run", Self.scenario, "--replicates", "1", "--out", out.path])
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("'a.txt', 'thesis.tex'"), "\(r.stderr)")
        #expect(try String(contentsOf: out.appendingPathComponent("report.json"), encoding: .utf8) == "mine\n")
    }

    /// In a folder FenceLab wrote, files the user added stay when the report is written again.
    @Test func filesAddedToAReportFolderStayAcrossRewrites() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("o")
        let first = try runFencelab(["run", Self.scenario, "--replicates", "1", "--out", out.path])
        #expect(first.status == 0, "\(first.stderr)")
        try Data("my notes\n".utf8).write(to: out.appendingPathComponent("notes.txt"))
        let second = try runFencelab(["run", Self.scenario, "--replicates", "1", "--out", out.path])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try String(contentsOf: out.appendingPathComponent("notes.txt"), encoding: .utf8) == "my notes\n")
        let marker = try String(contentsOf: out.appendingPathComponent(".fencelab-report.json"), encoding: .utf8)
        #expect(marker.contains(#""files":["index.html","junit.xml","report.json","report.md"]"#), "\(marker)")
        let entries = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(
            entries == [".fencelab-report.json", "index.html", "junit.xml", "notes.txt", "report.json", "report.md"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["o"], "no temporaries or lock")
    }

    /// A report folder of an older FenceLab (no marker) is refused with how to proceed.
    @Test func aReportFolderWithoutMarkerTellsHowToProceed() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("o")
        #expect(try runFencelab(["run", Self.scenario, "--replicates", "1", "--out", out.path]).status == 0)
        try FileManager.default.removeItem(at: out.appendingPathComponent(".fencelab-report.json"))
        let r = try runFencelab(["run", Self.scenario, "--replicates", "1", "--out", out.path])
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("before markers") && r.stderr.contains("delete that folder"), "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("report.json").path))
    }

    /// Whether `chattr +i` works here (root and a file system with the immutable attribute:
    /// ext4, xfs, btrfs; not tmpfs or overlay without it).
    static let chattrWorks: Bool = {
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("probe").path
        guard FileManager.default.createFile(atPath: file, contents: Data()) else { return false }
        guard let r = try? runProcess(URL(fileURLWithPath: "/usr/bin/chattr"), ["+i", file]), r.status == 0 else {
            return false
        }
        _ = try? runProcess(URL(fileURLWithPath: "/usr/bin/chattr"), ["-i", file])
        return true
    }()

    /// An old report that cannot be removed (`chattr +i`) is named, nothing is written, nothing left aside.
    @Test(.enabled(if: chattrWorks, "needs chattr +i: root and ext4/xfs/btrfs"))
    func anImmutableOldReportGivesAMessage() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("o")
        #expect(try runFencelab(["run", Self.scenario, "--replicates", "1", "--out", out.path]).status == 0)
        let file = out.appendingPathComponent("report.json").path
        let chattr = try runProcess(URL(fileURLWithPath: "/usr/bin/chattr"), ["+i", file])
        try #require(chattr.status == 0, "\(chattr.stderr)")
        defer { _ = try? runProcess(URL(fileURLWithPath: "/usr/bin/chattr"), ["-i", file]) }
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        let r = try runFencelab(["run", Self.scenario, "--replicates", "2", "--out", out.path])
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("'report.json'") && r.stderr.contains("immutable"), "\(r.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["o"], "nothing left aside")
    }

    /// A second sweep into the same --out is refused at once naming the first one's pid; the
    /// first one's resume file is not touched.
    @Test func aSecondSweepIntoTheSameFolderIsRefusedNamingTheFirst() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("sweep").path
        let partial = dir.appendingPathComponent(".sweep.sweep-partial.jsonl").path
        let args = [
            "sweep", Self.scenario, "--enter", "50:95:5", "--exit", "100:180:10", "--jobs", "1",
            // Long enough (≈ 5 s in a debug build) to be running while the second is refused.
            "--replicates", "200", "--checkpoint-after", "0", "--out", out,
        ]
        let first = Process()
        first.executableURL = TestPaths.product("fencelab")
        first.arguments = args
        first.currentDirectoryURL = TestPaths.packageRoot
        first.standardOutput = FileHandle.nullDevice
        first.standardError = FileHandle.nullDevice
        try first.run()
        defer { if first.isRunning { first.terminate() } }
        let deadline = Date().addingTimeInterval(120)
        func lines() -> Int {
            (try? String(contentsOfFile: partial, encoding: .utf8))?.split(separator: "\n").count ?? 0
        }
        while lines() < 2, first.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        try #require(first.isRunning, "the first sweep ended before the second started")
        let second = try runFencelab(args)
        #expect(second.status == 2, "\(second.stderr)")
        #expect(second.stderr.split(separator: "\n").count == 1, "\(second.stderr)")
        #expect(second.stderr.contains("(pid \(first.processIdentifier))"), "\(second.stderr)")
        #expect(second.stderr.contains("another FenceLab process"), "\(second.stderr)")
        let resume = try #require(try? String(contentsOfFile: partial, encoding: .utf8))
        #expect(resume.split(separator: "\n").count >= 2)
        first.interrupt()
        first.waitUntilExit()
        #expect(first.terminationStatus == 130)
        #expect(FileManager.default.fileExists(atPath: partial), "the first sweep's resume file is kept")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
