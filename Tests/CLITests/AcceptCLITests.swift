import Foundation
import Testing
import _TestSupport

/// `fencelab accept`, `replay` and `calibrate` end to end through the built binary.
@Suite struct AcceptCLITests {
    static let scenario = "scenarios/urban-canyon.json"
    static let drive = "scenarios/device-logs/synthetic-drive-fiji.csv"
    static let loiter = "scenarios/device-logs/synthetic-loiter-berlin.csv"

    static func tempDir() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-accept-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func json(_ url: URL) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    @Test func withoutLogsTheDeviceLevelIsNotVerified() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try runFencelab(["accept", Self.scenario, "--replicates", "2", "--out", dir.path])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("Rules level: passed (") && $0.hasSuffix(" checks)") })
        #expect(lines.contains("Device level: not verified (no device log)"))
        let report = try Self.json(dir.appendingPathComponent("report.json"))
        let acceptance = try #require(report["acceptance"] as? [String: Any])
        let rules = try #require(acceptance["rules"] as? [String: Any])
        let device = try #require(acceptance["device"] as? [String: Any])
        #expect(rules["status"] as? String == "passed")
        #expect((rules["fixtureChecks"] as? Int ?? 0) > 0)
        #expect(device["status"] as? String == "not-verified")
        let run = try #require(report["run"] as? [String: Any])
        let inputs = try #require(run["inputFiles"] as? [[String: Any]])
        #expect(inputs.contains { $0["path"] as? String == Self.scenario && ($0["sha256"] as? String)?.count == 64 })
        #expect(inputs.contains { $0["kind"] as? String == "fixture" })
        let html = try String(contentsOf: dir.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(html.contains("<h2>Rules level</h2>") && html.contains("<h2>Device level</h2>"))
    }

    @Test func shippedLogsFailTheDeviceLevelWithTheirClasses() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try runFencelab([
            "accept", Self.scenario, "--replicates", "2", "--out", dir.path,
            "--device-log", Self.drive, Self.loiter, "--fence=-16.8075,180", "--fence", "52.52,13.405",
        ])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stdout.contains("Device level: failed (2 of 2 device logs)"))
        #expect(r.stdout.contains("Rules level: passed ("))
        let report = try Self.json(dir.appendingPathComponent("report.json"))
        let device = try #require((report["acceptance"] as? [String: Any])?["device"] as? [String: Any])
        let replays = try #require(device["replays"] as? [[String: Any]])
        #expect(replays.count == 2)
        let drive = try #require(replays.first?["counts"] as? [String: Int])
        #expect(
            drive == [
                "ruleFlutter": 0, "unsupportedSystemEvent": 1, "lateSystemEvent": 1, "duplicateSystemEvent": 2,
                "staleFix": 1, "missingSystemEvent": 0,
            ])
        let loiter = try #require(replays.last?["counts"] as? [String: Int])
        #expect(loiter["ruleFlutter"] == 2 && loiter["duplicateSystemEvent"] == 2)
        #expect(!(try String(contentsOf: dir.appendingPathComponent("report.md"), encoding: .utf8)).contains("-16.8"))
    }

    @Test func aFailingFixtureFailsTheRulesLevel() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fixtures = dir.appendingPathComponent("fixtures")
        try FileManager.default.createDirectory(at: fixtures, withIntermediateDirectories: true)
        let source = TestPaths.packageRoot.appendingPathComponent("scenarios/fixtures/seed001-threshold.json")
        let text = try String(contentsOf: source, encoding: .utf8)
        let broken = text.replacingOccurrences(
            of: "{ \"distance_m\": 500, \"accuracy_m\": 5, \"expect\": \"inside\" },",
            with: "{ \"distance_m\": 500, \"accuracy_m\": 5, \"expect\": \"outside\" },")
        #expect(broken != text)
        try Data(broken.utf8).write(to: fixtures.appendingPathComponent("seed001-threshold.json"))
        let out = dir.appendingPathComponent("out")
        let r = try runFencelab([
            "accept", Self.scenario, "--replicates", "2", "--fixtures", fixtures.path, "--out", out.path,
        ])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stdout.contains("Rules level: failed (1 of "))
        #expect(r.stdout.contains("FAIL ") && r.stdout.contains("distance_m=500.0"))
        #expect(r.stdout.contains("Device level: not verified (no device log)"))
    }

    @Test(arguments: [
        ["--fence", "91,0"], ["--fence", "abc"], ["--fence", "1,2,3"], ["--fence", "nan,0"], ["--fence", "52.5,"],
    ])
    func badFenceIsExit2NamingTheArgument(_ fence: [String]) throws {
        let r = try runFencelab(["replay", Self.drive, "--out", Self.tempDir().path] + fence)
        #expect(r.status == 2, "\(fence): \(r.stderr)")
        #expect(r.stderr.contains("--fence"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1)
        let a = try runFencelab(
            ["accept", Self.scenario, "--device-log", Self.drive, "--out", Self.tempDir().path] + fence)
        #expect(a.status == 2, "\(fence): \(a.stderr)")
        #expect(a.stderr.contains("--fence"))
    }

    @Test func missingFenceIsUsage() throws {
        #expect(try runFencelab(["replay", Self.drive]).status == 64)
        #expect(try runFencelab(["accept", "--device-log", Self.drive]).status == 64)
    }

    @Test func badDeviceLogIsExit2NamingFileAndLine() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = dir.appendingPathComponent("broken.csv")
        try Data("timestamp,latitude,longitude,horizontal_accuracy\n1,52.5,13.4,5\n2,52.5,abc,5\n".utf8).write(to: bad)
        for command in [
            ["replay", bad.path, "--fence", "52.5,13.4"],
            [
                "accept", Self.scenario, "--device-log", bad.path, "--fence", "52.5,13.4", "--out",
                dir.appendingPathComponent("o").path,
            ],
            ["calibrate", bad.path, "--out", dir.appendingPathComponent("c").path],
        ] {
            let r = try runFencelab(command)
            #expect(r.status == 2, "\(command[0]): \(r.stderr)")
            #expect(r.stderr.contains("broken.csv:3"), "\(command[0]): \(r.stderr)")
        }
        let missing = try runFencelab([
            "accept", "--device-log", dir.appendingPathComponent("nope.csv").path, "--fence", "1,2",
        ])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("nope.csv"))
    }

    @Test func replayPrintsClassesWithoutCoordinates() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try runFencelab(["replay", Self.drive, "--fence=-16.8075,180", "--out", dir.path])
        #expect(r.status == 1)
        for needle in [
            "unsupportedSystemEvent 1", "lateSystemEvent 1", "duplicateSystemEvent 2", "staleFix 1",
            "line 794 lateSystemEvent",
        ] {
            #expect(r.stdout.contains(needle), "\(needle)")
        }
        #expect(!r.stdout.contains("-16.8") && !r.stdout.contains("179.9"))
        for file in ["report.json", "report.md", "junit.xml", "index.html"] {
            #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent(file).path), "\(file)")
        }
        let html = try String(contentsOf: dir.appendingPathComponent("index.html"), encoding: .utf8)
        // The headline states the log's result (failed), then each level.
        #expect(
            html.contains(
                "<header class=\"banner fail\"><h1>FAILED</h1><p>rules level not verified (no rules check ran) · device level FAILED (1 of 1 device log)</p>"
            ))
        #expect(
            r.stdout.contains("+686 s line 691 staleFix: fix rejected as stale 1 s from an enter event"), "\(r.stdout)")
    }

    /// The CLI's stdout: summary lines, then the block as the last line.
    static func lastLineJSON(_ stdout: String) throws -> [String: Any] {
        let last = try #require(stdout.split(separator: "\n").last.map(String.init))
        return try #require(JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
    }

    @Test func calibrateRecoversTheExampleScenario() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let csv = dir.appendingPathComponent("stationary.csv")
        let e = try runFencelab([
            "export", "docs/examples/calibration-stationary-2h.json", "--format", "csv", "--out", csv.path,
        ])
        #expect(e.status == 0, "\(e.stderr)")
        let out = dir.appendingPathComponent("cal").path
        let r = try runFencelab([
            "calibrate", csv.path, "--stationary", "--out", out, "--replicates", "40", "--drives", "99",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let block = try Self.lastLineJSON(r.stdout)
        let noise = try #require(block["noise"] as? [String: Any])
        let bias = try #require(noise["bias"] as? [String: Any])
        let sigma = try #require(noise["sigma_m"] as? Double)
        let tau = try #require(bias["tau_s"] as? Double)
        #expect(isClose(sigma, 4, relativeTolerance: 0.05), "white σ \(sigma)")
        #expect(isClose(tau, 30, relativeTolerance: 0.25), "τ \(tau)")
        #expect((block["accuracy"] as? [String: Any])?["model"] as? String == "drms")
        #expect(r.stdout.contains("verdict: synthetic noise matches the recording"), "\(r.stdout)")
        #expect(!r.stdout.contains("WARNING"), "\(r.stdout)")
        #expect(r.stdout.contains("7200 of 7200 fixes used"))
        let html = try String(contentsOf: URL(fileURLWithPath: out + "/calibration.html"), encoding: .utf8)
        #expect(html.contains("QQ plot") && html.contains("Coverage") && html.contains("<svg"))
        let json = try #require(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/calibration.json")))
                as? [String: Any])
        #expect(json["schema"] as? String == "fencelab-calibration/2")
        // Re-running into the same folder replaces it.
        #expect(
            try runFencelab(["calibrate", csv.path, "--out", out, "--replicates", "20", "--drives", "99"]).status == 0)
    }

    /// A provider-smoothed recording (white noise, then a 5-fix moving average of the coordinates):
    /// stdout, calibration.json and calibration.html all carry the warning.
    @Test func calibrateWarnsAboutASmoothedRecording() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let scenario = dir.appendingPathComponent("white.json")
        try Data(
            """
            {"name": "white", "description": "white noise", "rulesVersion": "hysteresis-80-120-acc30", "seed": 3, "replicates": 1,
             "fence": {"center": [48.1374, 11.5755], "rule": {"kind": "hysteresis", "enter_m": 80, "exit_m": 120, "maxAccuracy_m": 30}},
             "route": {"kind": "stationary", "distance_m": 50, "bearing_deg": 30}, "sampling": {"rate_hz": 1, "duration_s": 3600},
             "noise": {"model": "gaussian", "sigma_m": 5}, "accuracy": {"model": "drms"}}
            """.utf8
        ).write(to: scenario)
        let raw = dir.appendingPathComponent("raw.csv")
        let smoothed = dir.appendingPathComponent("smoothed.csv")
        #expect(try runFencelab(["export", scenario.path, "--format", "csv", "--out", raw.path]).status == 0)
        let lines = try String(contentsOf: raw, encoding: .utf8).split(separator: "\n").map(String.init)
        let rows = lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        var out = [lines[0]]
        for i in rows.indices {
            let window = rows[max(0, i - 4)...i]
            let lat = window.map { Double($0[1])! }.reduce(0, +) / Double(window.count)
            let lon = window.map { Double($0[2])! }.reduce(0, +) / Double(window.count)
            var row = rows[i]
            row[1] = String(format: "%.9f", lat)
            row[2] = String(format: "%.9f", lon)
            out.append(row.joined(separator: ","))
        }
        try Data((out.joined(separator: "\n") + "\n").utf8).write(to: smoothed)
        let folder = dir.appendingPathComponent("cal").path
        let r = try runFencelab(["calibrate", smoothed.path, "--out", folder, "--replicates", "20", "--drives", "99"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("WARNING: residuals look smoothed/filtered upstream"), "\(r.stdout)")
        _ = try Self.lastLineJSON(r.stdout)
        let json = try String(contentsOf: URL(fileURLWithPath: folder + "/calibration.json"), encoding: .utf8)
        let html = try String(contentsOf: URL(fileURLWithPath: folder + "/calibration.html"), encoding: .utf8)
        #expect(json.contains("residuals look smoothed/filtered upstream"))
        #expect(html.contains("WARNING: residuals look smoothed/filtered upstream"))
    }

    @Test func calibrateRejectsBadOptions() throws {
        for bad in [
            ["--replicates", "5"], ["--replicates", "abc"], ["--drives", "10"], ["--seed", "0"], ["--seed", "-3"],
            ["--frobnicate"],
        ] {
            let r = try runFencelab(
                ["calibrate", "docs/examples/calibration-phone-1h.csv"] + bad + ["--out", Self.tempDir().path])
            #expect(r.status == 64, "\(bad): \(r.stderr)")
            #expect(r.stderr.contains(bad[0]), "\(bad): \(r.stderr)")
            #expect(r.stdout.isEmpty)
        }
    }
}
