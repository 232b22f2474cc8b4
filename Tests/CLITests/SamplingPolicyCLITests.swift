import Foundation
import Testing
import _TestSupport

/// A scenario's `sampling.policy` through the binary: refusals name the key, a valid policy is
/// part of the rules version and its cost is reported.
@Suite struct SamplingPolicyCLITests {
    /// `scenarios/edge-loiter-100m.json` with `policy` set and the rules version `version`, in a fresh folder.
    static func scenario(policy: String, version: String = "hysteresis-80-120-acc30") throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-policy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        var text = try String(
            contentsOf: TestPaths.packageRoot.appendingPathComponent("scenarios/edge-loiter-100m.json"), encoding: .utf8
        )
        let sampling = #""sampling": { "rate_hz": 1, "duration_s": 3600 }"#
        try #require(text.contains(sampling))
        text = text.replacingOccurrences(
            of: sampling, with: #""sampling": { "rate_hz": 1, "duration_s": 3600, "policy": "\#(policy)" }"#)
        text = text.replacingOccurrences(
            of: #""rulesVersion": "hysteresis-80-120-acc30""#, with: #""rulesVersion": "\#(version)""#)
        let file = dir.appendingPathComponent("s.json")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test(arguments: [
        ("interval:0", "interval S must be finite and > 0"), ("interval:0.5", "at least the base sampling interval"),
        ("every:5", "unknown policy 'every'"), ("interval:60+distance:50", "only batch:S may follow"),
        ("adaptive:300:30", "adaptive MOVING_S (300.0) must be ≤ STOPPED_S (30.0)"),
        ("adaptive:0.5:300", "at least the base sampling interval"),
        ("rampup:50:0.5:60", "at least the base sampling interval"),
        ("adaptive:30:300:0:300", "adaptive R must be finite and > 0"),
        ("distance:50:elastic:nan", "distance elasticity K must be finite and > 0"),
        ("adaptive:30:300+rampup:50:10:60", "adaptive and rampup do not compose"),
        ("rampup:50:10:60+batch:0.25", "at least the base sampling interval"),
    ])
    func badPolicyIsRefusedNamingTheKey(policy: String, message: String) throws {
        let file = try Self.scenario(policy: policy)
        let out = file.deletingLastPathComponent().appendingPathComponent("out")
        let r = try runFencelab(["run", file.path, "--out", out.path])
        #expect(r.status == 2)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("sampling.policy") && lines[0].contains(message), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test func policyIsPartOfTheRulesVersion() throws {
        let file = try Self.scenario(policy: "interval:60")
        let r = try runFencelab([
            "run", file.path, "--out", file.deletingLastPathComponent().appendingPathComponent("o").path,
        ])
        #expect(r.status == 2)
        #expect(r.stderr.contains("its rule is hysteresis-80-120-acc30+interval60"), "\(r.stderr)")
    }

    /// One fix a minute for an hour: 60 fixes and 60 wake-ups per hour in every replicate.
    @Test func intervalSixtyCostsSixtyFixesPerHour() throws {
        let file = try Self.scenario(policy: "interval:60", version: "hysteresis-80-120-acc30+interval60")
        let out = file.deletingLastPathComponent().appendingPathComponent("out")
        let r = try runFencelab(["run", file.path, "--out", out.path, "--replicates", "4"])
        #expect(r.status == 0 || r.status == 1, "\(r.stderr)")
        let data = try Data(contentsOf: out.appendingPathComponent("report.json"))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let scenario = try #require((json["scenarios"] as? [[String: Any]])?.first)
        let cost = try #require(scenario["cost"] as? [String: Any])
        for key in ["fixesPerHour", "wakeupsPerHour"] {
            let mean = try #require((cost[key] as? [String: Any])?["mean"] as? Double)
            #expect(abs(mean - 60) <= 1e-9, "\(key) = \(mean) per hour")
        }
    }

    /// Same seed, same deliveries and figures for any --jobs (the phase comes from the replicate's
    /// own stream): every scenario figure but throughput is equal between 1 and 2 jobs.
    @Test(arguments: [
        ("interval:60", "+interval60"), ("distance:40+batch:120", "+distance40-batch120"),
        ("distance:10:elastic:1", "+distance10-elastic1"),
        ("adaptive:30:300:20:120+batch:600", "+adaptive30-300-r20-t120-batch600"),
        ("rampup:15:10:60", "+rampup15-10-60"),
    ])
    func policiesGiveTheSameFiguresForAnyJobCount(policy: String, suffix: String) throws {
        let file = try Self.scenario(policy: policy, version: "hysteresis-80-120-acc30" + suffix)
        var figures: [NSDictionary] = []
        for jobs in ["1", "2"] {
            let out = file.deletingLastPathComponent().appendingPathComponent("out-\(jobs)")
            let r = try runFencelab(["run", file.path, "--out", out.path, "--replicates", "6", "--jobs", jobs])
            #expect(r.status == 0 || r.status == 1, "\(r.stderr)")
            let data = try Data(contentsOf: out.appendingPathComponent("report.json"))
            let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            var scenario = try #require((json["scenarios"] as? [[String: Any]])?.first)
            scenario["throughput"] = nil
            figures.append(scenario as NSDictionary)
        }
        #expect(figures[0] == figures[1])
    }
}
