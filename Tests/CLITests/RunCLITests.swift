import Foundation
import Testing
import _TestSupport

/// `fencelab run` end to end through the built binary, on two short catalog scenarios.
@Suite struct RunCLITests {
    static let scenarios = ["scenarios/edge-loiter-100m.json", "scenarios/tunnel-gap-highway.json"]

    static func tempDir() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-run-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// report.json without the fields that are allowed to differ between identical runs.
    static func deterministicPart(_ url: URL) throws -> String {
        var object = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var run = try #require(object["run"] as? [String: Any])
        run["time"] = nil
        object["run"] = run
        var scenarios = try #require(object["scenarios"] as? [[String: Any]])
        for i in scenarios.indices { scenarios[i]["throughput"] = nil }
        object["scenarios"] = scenarios
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    @Test func reportIsIdenticalForAnyJobCountAndHasAllFourFiles() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        var parts: [String] = []
        for jobs in ["1", "2"] {
            let out = dir.appendingPathComponent("jobs\(jobs)")
            let r = try runFencelab(
                ["run"] + Self.scenarios + ["--replicates", "3", "--jobs", jobs, "--out", out.path])
            #expect(r.status == 0, "\(r.stderr)")
            for file in ["report.json", "report.md", "junit.xml", "index.html"] {
                #expect(
                    FileManager.default.fileExists(atPath: out.appendingPathComponent(file).path), "\(file) missing")
            }
            parts.append(try Self.deterministicPart(out.appendingPathComponent("report.json")))
            #expect(r.stdout.contains("edge-loiter-100m"))
        }
        #expect(parts[0] == parts[1])
        // Privacy: no raw fence coordinates (52.52 / 13.405 for the Berlin scenarios) unless asked.
        let html = try String(contentsOf: dir.appendingPathComponent("jobs1/index.html"), encoding: .utf8)
        let json = try String(contentsOf: dir.appendingPathComponent("jobs1/report.json"), encoding: .utf8)
        let spec = try String(
            contentsOf: TestPaths.packageRoot.appendingPathComponent(Self.scenarios[0]), encoding: .utf8)
        let centre = try #require(spec.firstMatch(of: /"center": \[([0-9.\-]+), ([0-9.\-]+)\]/))
        #expect(!html.contains(String(centre.1) + ",") && !json.contains(String(centre.1) + ","))
        // Every catalog scenario states its place, so every scenario carries the visits group.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        for scenario in try #require(object["scenarios"] as? [[String: Any]]) {
            let visits = try #require(scenario["visits"] as? [String: Any])
            #expect(
                visits["trueVisits"] is [String: Any] && visits["falsePerHour"] is [String: Any],
                "\(scenario["name"] ?? "?")")
        }
        #expect(html.contains("Visits (against the place)") && html.contains("fragments per hour"))
        let md = try String(
            contentsOf: dir.appendingPathComponent("jobs1").appendingPathComponent("report.md"), encoding: .utf8)
        #expect(md.contains("## Visits") && md.contains("false visits per hour"))
    }

    /// A place nobody visits: visits.recall is null (not 0, not 1), every other visit figure is present.
    @Test func recallIsNullWithoutATrueVisit() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try runFencelab(["run", "scenarios/tuning/parked-outside.json", "--replicates", "2", "--out", dir.path])
        #expect(r.status == 0, "\(r.stderr)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("report.json")))
                as? [String: Any])
        let scenario = try #require((object["scenarios"] as? [[String: Any]])?.first)
        let visits = try #require(scenario["visits"] as? [String: Any])
        #expect(visits["recall"] is NSNull)
        #expect((visits["trueVisits"] as? [String: Any])?["mean"] as? Double == 0)
        #expect(visits["falsePerHour"] is [String: Any])
    }

    @Test func differentSeedGivesDifferentNumbers() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        var parts: [String] = []
        for seed in ["5", "6"] {
            let out = dir.appendingPathComponent("s\(seed)")
            let r = try runFencelab(["run", Self.scenarios[0], "--replicates", "2", "--seed", seed, "--out", out.path])
            #expect(r.status == 0, "\(r.stderr)")
            parts.append(try Self.deterministicPart(out.appendingPathComponent("report.json")))
        }
        #expect(parts[0] != parts[1])
    }

    @Test(arguments: [
        ["--replicates", "0"], ["--replicates", "100001"], ["--seed", "-1"], ["--seed", "x"], ["--bogus"],
        ["--jobs", "0"],
    ])
    func usageErrorsExit64(extra: [String]) throws {
        let r = try runFencelab(["run", Self.scenarios[0]] + extra + ["--out", "/tmp/fencelab-never-written"])
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: "/tmp/fencelab-never-written"))
    }

    @Test func badScenarioIsRefusedBeforeAnyOutput() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = dir.appendingPathComponent("bad.json")
        let text = try String(
            contentsOf: TestPaths.packageRoot.appendingPathComponent(Self.scenarios[0]), encoding: .utf8)
        try text.replacingOccurrences(of: "\"sigma_m\"", with: "\"sigmaa_m\"").write(
            to: bad, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("out")
        let r = try runFencelab(["run", bad.path, "--out", out.path])
        #expect(r.status == 2)
        #expect(r.stderr.contains("bad.json") && r.stderr.contains("noise.sigma"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test func rulesVersionMismatchNamesBothVersions() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("v.json")
        let text = try String(
            contentsOf: TestPaths.packageRoot.appendingPathComponent(Self.scenarios[0]), encoding: .utf8)
        try text.replacingOccurrences(of: "\"exit_m\": 120", with: "\"exit_m\": 130").write(
            to: file, atomically: true, encoding: .utf8)
        let r = try runFencelab(["run", file.path, "--out", dir.appendingPathComponent("out").path])
        #expect(r.status == 2)
        #expect(
            r.stderr.contains("hysteresis-80-120-acc30") && r.stderr.contains("hysteresis-80-130-acc30"), "\(r.stderr)")
    }

    @Test func unwritableOutputIsRefusedUpFront() throws {
        let r = try runFencelab(["run", Self.scenarios[0], "--out", "/proc/fencelab/out"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("/proc/fencelab"))
    }

    @Test func violatedExpectationExits1AndIsListedInJUnit() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("strict.json")
        let text = try String(
            contentsOf: TestPaths.packageRoot.appendingPathComponent(Self.scenarios[0]), encoding: .utf8)
        try text.replacingOccurrences(
            of: "\"flutter.missed\": {\"max\": 0}", with: "\"flutter.spurious\": {\"max\": 0}"
        )
        .write(to: file, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("out")
        let r = try runFencelab(["run", file.path, "--replicates", "2", "--out", out.path])
        #expect(r.status == 1, "\(r.stderr)")
        let junit = try String(contentsOf: out.appendingPathComponent("junit.xml"), encoding: .utf8)
        #expect(junit.contains("<failure"))
        #expect(junit.contains("flutter.spurious"))
    }

    @Test func inputFilesListTheScenariosAndASwappedCentreIsWarned() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        // tunnel-gap-highway's centre with latitude and longitude swapped: the route is ~900 km away.
        let file = dir.appendingPathComponent("swapped.json")
        let text = try String(
            contentsOf: TestPaths.packageRoot.appendingPathComponent(Self.scenarios[1]), encoding: .utf8)
        let swapped = text.replacingOccurrences(
            of: "\"center\": [44.880, 38.560]", with: "\"center\": [38.560, 44.880]")
        #expect(swapped != text)
        try swapped.write(to: file, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("out")
        let r = try runFencelab(["run", Self.scenarios[0], file.path, "--replicates", "2", "--out", out.path])
        #expect(
            r.stderr.contains(
                "warning: tunnel-gap-highway: the route never comes within 10 × the largest fence radius"),
            "\(r.stderr)")
        let object = try #require(
            JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("report.json")))
                as? [String: Any])
        let inputs = try #require((object["run"] as? [String: Any])?["inputFiles"] as? [[String: Any]])
        #expect(inputs.map { $0["path"] as? String } == [Self.scenarios[0], file.path])
        #expect(inputs.allSatisfy { $0["kind"] as? String == "scenario" && ($0["sha256"] as? String)?.count == 64 })
        let scenarios = try #require(object["scenarios"] as? [[String: Any]])
        #expect((scenarios[0]["warnings"] as? [String])?.isEmpty == true)
        #expect((scenarios[1]["warnings"] as? [String])?.count == 1)
        let html = try String(contentsOf: out.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(html.contains("<p class=\"warning\">Warning: check the input of tunnel-gap-highway"))
    }

    /// The README's typo example prints exactly what the tool prints.
    @Test func readmeTypoExampleIsWhatTheToolPrints() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("scenarios"), withIntermediateDirectories: true)
        let text = try String(
            contentsOf: TestPaths.packageRoot.appendingPathComponent(Self.scenarios[0]), encoding: .utf8)
        let typo = text.replacingOccurrences(of: "\"sigma_m\": 8", with: "\"sigmaa_m\": 8")
        #expect(typo != text)
        try typo.write(to: dir.appendingPathComponent("scenarios/x.json"), atomically: true, encoding: .utf8)
        let r = try runFencelab(["run", "scenarios/x.json", "--out", "out"], currentDirectory: dir)
        #expect(r.status == 2)
        let line = r.stderr.trimmingCharacters(in: .newlines)
        #expect(line == "fencelab: scenarios/x.json: noise.sigmaa_m: unknown key (did you mean sigma_m?)")
        let readme = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("a typo prints e.g. `\(line)`"))
    }
}
