import Foundation
import Testing
import _TestSupport

/// `fencelab run --engine`: an external engine end to end, and the failures it must survive.
@Suite struct RunEngineCLITests {
    /// A fresh output folder path (not created) under the temporary directory.
    func outputFolder(_ tag: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-run-engine-\(tag)-\(UUID().uuidString)")
    }

    /// The `flutter` object of the first scenario in `report.json`, as path → mean.
    func flutterMeans(_ folder: URL) throws -> [String: Double] {
        let data = try Data(contentsOf: folder.appendingPathComponent("report.json"))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let scenarios = try #require(root["scenarios"] as? [[String: Any]])
        let flutter = try #require(scenarios.first?["flutter"] as? [String: Any])
        var out: [String: Double] = [:]
        for (key, value) in flutter {
            if let estimate = value as? [String: Any], let mean = estimate["mean"] as? Double { out[key] = mean }
        }
        return out
    }

    @Test func pythonSeedEngineMatchesTheBuiltInEngine() throws {
        let external = outputFolder("python")
        let builtIn = outputFolder("builtin")
        defer {
            try? FileManager.default.removeItem(at: external)
            try? FileManager.default.removeItem(at: builtIn)
        }
        let args = ["scenarios/edge-loiter-100m.json", "--replicates", "2"]
        let e = try runFencelab(
            ["run", "--engine", "python3 Examples/engines/seed_rules.py"] + args + ["--out", external.path])
        #expect(e.status == 0, "\(e.stderr)")
        #expect(e.stdout.contains("edge-loiter-100m"))
        let b = try runFencelab(["run"] + args + ["--out", builtIn.path])
        #expect(b.status == 0, "\(b.stderr)")
        // The Python engine (seed 000 in ~30 lines) is an independent implementation of the
        // same rules: on the same seeded fixes it must decide exactly as FenceMonitor.
        let fe = try flutterMeans(external)
        let fb = try flutterMeans(builtIn)
        for key in ["transitions", "truthTransitions", "spurious", "missed", "flaps"] {
            let value = try #require(fe[key], "\(key)")
            #expect(value == fb[key], "\(key)")
        }
        #expect(try #require(fe["transitions"]) > 0)
        // Model disagreements need both distance models: only the built-in engine reports them.
        #expect(fe["modelDisagreements"] == nil)
        #expect(fb["modelDisagreements"] != nil)
    }

    @Test func crashingEngineIsBadInputNamingTheWorkItem() throws {
        let out = outputFolder("crash")
        defer { try? FileManager.default.removeItem(at: out) }
        let r = try runFencelab([
            "run", "--engine", "exit 3", "scenarios/edge-loiter-100m.json",
            "--replicates", "2", "--out", out.path,
        ])
        #expect(r.status == 2)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(r.stderr)")
        #expect(r.stderr.contains("scenario edge-loiter-100m, replicate 0"))
        #expect(r.stderr.contains("status 3"))
        #expect(!FileManager.default.fileExists(atPath: out.path), "no report for a failed run")
    }

    @Test func engineStoppingMidStreamIsCaughtWithTheCount() throws {
        let out = outputFolder("short")
        defer { try? FileManager.default.removeItem(at: out) }
        // `head` keeps the ready line and 10 answers, then closes: the engine answered too few fixes.
        let r = try runFencelab([
            "run", "--engine", "python3 Examples/engines/seed_rules.py | head -n 11",
            "scenarios/edge-loiter-100m.json", "--replicates", "1", "--out", out.path,
        ])
        #expect(r.status == 2)
        #expect(r.stderr.contains("scenario edge-loiter-100m, replicate 0"))
        #expect(r.stderr.contains("answering 10 of 3600 fixes"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test func hangingEngineIsStoppedByTheTimeout() throws {
        let dir = outputFolder("hang")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // A 20 s scenario and a short start-up grace keep the item deadline short: 0.2 s + 20 fixes × 0.05 s.
        let source = try String(
            contentsOf: TestPaths.packageRoot.appendingPathComponent("scenarios/edge-loiter-100m.json"),
            encoding: .utf8)
        let short = source.replacingOccurrences(of: "\"duration_s\": 3600", with: "\"duration_s\": 20")
        #expect(short != source)
        let scenario = dir.appendingPathComponent("short.json")
        try short.write(to: scenario, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("out")
        let clock = ContinuousClock()
        let start = clock.now
        let r = try runFencelab([
            "run", "--engine", "exec sleep 60", "--engine-timeout", "0.05", "--engine-startup", "0.2", scenario.path,
            "--replicates", "1", "--out", out.path,
        ])
        let elapsed = start.duration(to: clock.now)
        #expect(r.status == 2)
        #expect(r.stderr.contains("scenario edge-loiter-100m, replicate 0"))
        // `exec sleep 60` never says ready: stopped after the start-up allowance (0.2 s + 0.05 s).
        #expect(r.stderr.contains("no ready line within 0.25 s"), "\(r.stderr)")
        #expect(elapsed < .seconds(30), "the engine must not hang fencelab")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }
}
