import Foundation
import Testing
import _TestSupport

/// `fencelab run --notify SPEC` and a scenario's `notification.policy` through the binary:
/// refusals name the option or key (exit 2, nothing written), the policy is part of the rules
/// version, `notify.*` is reported only with a policy.
@Suite struct NotifyCLITests {
    /// `scenarios/tuning/drive-in-stay.json` (it has a place), optionally with a notification
    /// object and another rules version, in a fresh folder.
    static func scenario(notification: String? = nil, version: String = "hysteresis-80-120-acc30") throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-notify-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        var text = try String(
            contentsOf: TestPaths.packageRoot.appendingPathComponent("scenarios/tuning/drive-in-stay.json"),
            encoding: .utf8)
        let versionLine = #""rulesVersion": "hysteresis-80-120-acc30","#
        try #require(text.contains(versionLine))
        text = text.replacingOccurrences(
            of: versionLine,
            with: #""rulesVersion": "\#(version)","# + (notification.map { #" "notification": \#($0),"# } ?? ""))
        let file = dir.appendingPathComponent("s.json")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    static func scenarioJSON(_ out: URL) throws -> [String: Any] {
        let data = try Data(contentsOf: out.appendingPathComponent("report.json"))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require((json["scenarios"] as? [[String: Any]])?.first)
    }

    @Test(arguments: [
        ("dwell:0", "dwell T must be finite and > 0"), ("cooldown:-5", "cooldown T must be finite and > 0"),
        ("dwell:nan", "dwell T must be finite"), ("dwell:inf", "dwell T must be finite"),
        ("linger:5", "unknown part 'linger:5'"), ("dwell:5+dwell:6", "at most one dwell"),
    ])
    func badNotifyIsRefusedNamingTheOption(spec: String, message: String) throws {
        let file = try Self.scenario()
        let out = file.deletingLastPathComponent().appendingPathComponent("out")
        let r = try runFencelab(["run", file.path, "--out", out.path, "--notify", spec])
        #expect(r.status == 2)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("--notify") && lines[0].contains(message), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test func notifyWithoutAValueIsAUsageError() throws {
        let file = try Self.scenario()
        let r = try runFencelab(["run", file.path, "--notify"])
        #expect(r.status == 64, "\(r.stderr)")
    }

    @Test func badScenarioPolicyIsRefusedNamingTheKey() throws {
        let file = try Self.scenario(notification: #"{"policy": "dwell:-1"}"#)
        let out = file.deletingLastPathComponent().appendingPathComponent("out")
        let r = try runFencelab(["run", file.path, "--out", out.path])
        #expect(r.status == 2)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("notification.policy"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test func scenarioPolicyIsPartOfTheRulesVersion() throws {
        let file = try Self.scenario(notification: #"{"policy": "dwell:300"}"#)
        let r = try runFencelab([
            "run", file.path, "--out", file.deletingLastPathComponent().appendingPathComponent("o").path,
        ])
        #expect(r.status == 2)
        #expect(r.stderr.contains("its rule is hysteresis-80-120-acc30+dwell300"), "\(r.stderr)")
    }

    /// The customer stays: one entry and one dwell per drive, nothing unwanted; `--notify`
    /// replaces the scenario's policy and the report records its rules version. Without a
    /// policy there is no `notify` key.
    @Test func notifyIsReportedOnlyWithAPolicy() throws {
        let file = try Self.scenario(
            notification: #"{"policy": "cooldown:60"}"#, version: "hysteresis-80-120-acc30+cooldown60")
        let dir = file.deletingLastPathComponent()
        let out = dir.appendingPathComponent("out")
        let r = try runFencelab(["run", file.path, "--out", out.path, "--replicates", "3", "--notify", "dwell:300"])
        #expect(r.status == 0 || r.status == 1, "\(r.stderr)")
        let s = try Self.scenarioJSON(out)
        #expect(s["rulesVersion"] as? String == "hysteresis-80-120-acc30+dwell300")
        let notify = try #require(s["notify"] as? [String: Any])
        func mean(_ key: String) throws -> Double {
            try #require((notify[key] as? [String: Any])?["mean"] as? Double)
        }
        #expect(try mean("entriesPerTrueVisit") == 1 && mean("dwells") == 1 && mean("unwanted") == 0)
        #expect(try mean("dwellRecall") == 1)
        let md = try String(contentsOf: out.appendingPathComponent("report.md"), encoding: .utf8)
        #expect(md.contains("## Notifications"))

        let plain = try Self.scenario()
        let plainOut = plain.deletingLastPathComponent().appendingPathComponent("out")
        let p = try runFencelab(["run", plain.path, "--out", plainOut.path, "--replicates", "3"])
        #expect(p.status == 0 || p.status == 1, "\(p.stderr)")
        #expect(try Self.scenarioJSON(plainOut)["notify"] == nil)
        let plainMD = try String(contentsOf: plainOut.appendingPathComponent("report.md"), encoding: .utf8)
        #expect(!plainMD.contains("## Notifications"))
    }
}
