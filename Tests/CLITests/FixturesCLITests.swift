import Foundation
import Testing
import _TestSupport

@Suite struct FixturesCLITests {
    static func tempDir(_ files: [String: String]) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for (name, text) in files { try Data(text.utf8).write(to: dir.appendingPathComponent(name)) }
        return dir
    }

    static func ruleFixture(expect: String) -> String {
        """
        { "name": "t", "source": "test", "kind": "rule", "rule": "threshold:500", "rulesVersion": "threshold-500",
          "sequences": [ { "name": "s", "initial": "unknown",
            "steps": [ { "distance_m": 500.1, "accuracy_m": 5, "expect": "\(expect)" } ] } ] }
        """
    }

    @Test func committedFixturesPassWithExit0() throws {
        let r = try runFencelab(["fixtures"])
        #expect(r.status == 0, "stderr: \(r.stderr)")
        #expect(r.stdout.hasPrefix("Rules fixtures: passed ("))
        #expect(r.stderr.isEmpty)
    }

    @Test func fixturesWithoutDirectoryUseTheCommittedFixtures() throws {
        let r = try runFencelab(["fixtures"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("Rules fixtures: passed"))
    }

    /// Plain `fencelab` (options only) is `fencelab run`.
    @Test func bareFencelabWithOptionsIsRun() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-bare-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let r = try runFencelab(["--out", out.path, "--replicates", "1", "scenarios/edge-loiter-100m.json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("report.json").path))
    }

    @Test func failingCheckExits1WithUnroundedValues() throws {
        let dir = try Self.tempDir([
            "ok.json": Self.ruleFixture(expect: "outside"), "wrong.json": Self.ruleFixture(expect: "inside"),
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try runFencelab(["fixtures", dir.path])
        #expect(r.status == 1)
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.contains("FAIL") == true && lines.first?.contains("wrong.json") == true)
        #expect(lines.first?.contains("distance_m=500.1") == true)
        #expect(lines.last == "Rules fixtures: failed (1 of 2 checks)")
    }

    @Test func malformedFixtureExits2WithOneLine() throws {
        let text = Self.ruleFixture(expect: "outside").replacingOccurrences(of: "\"initial\"", with: "\"initail\"")
        let dir = try Self.tempDir(["broken.json": text])
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try runFencelab(["fixtures", dir.path])
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.split(separator: "\n").count == 1)
        #expect(r.stderr.contains("broken.json") && r.stderr.contains("sequences[0].initail"))
    }

    @Test func versionMismatchExits2() throws {
        let r = try runFencelab(["fixtures", "--rule", "hysteresis:75:120:30"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("hysteresis-75-120-acc30") && r.stderr.contains("reviewed"))
    }

    @Test func usageErrorsExit64() throws {
        #expect(try runFencelab(["fixtures", "--rule", "circle:5"]).status == 64)
        #expect(try runFencelab(["fixtures", "a", "b"]).status == 64)
        #expect(try runFencelab(["fixtures", "--frobnicate"]).status == 64)
    }

    @Test func missingDirectoryExits2() throws {
        let r = try runFencelab(["fixtures", "/nonexistent/fixtures"])
        #expect(r.status == 2 && r.stderr.contains("/nonexistent/fixtures"))
    }
}
