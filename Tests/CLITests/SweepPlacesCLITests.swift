import Foundation
import Testing
import _TestSupport

/// `fencelab sweep` on a place set through the built binary: the files, their independence of
/// `--jobs`, and bad input (one line; 2 for bad values, 64 for usage).
@Suite struct SweepPlacesCLITests {
    static let walk = #"""
        {"name":"walk","description":"d","rulesVersion":"hysteresis-15-30-acc30","seed":7,"replicates":2,
         "fence":{"center":[52.5,13.4],"rule":{"kind":"hysteresis","enter_m":15,"exit_m":30,"maxAccuracy_m":30}},
         "places":{"generate":{"kind":"grid","origin":[52.5,13.4],"bearing_deg":90,"rows":1,"columns":8,
                               "spacing_m":100,"radius_m":12}},
         "route":{"kind":"tour","speed_kmh":5,"stops":[{"place":"shop-1","dwell_s":0},{"place":"shop-8"}]},
         "sampling":{"rate_hz":1,"duration_s":700},
         "noise":{"model":"gaussian","sigma_m":3},
         "accuracy":{"model":"drms"}}
        """#

    @Test func placeSweepWritesItsFilesIdenticallyForAnyJobCount() throws {
        let dir = RunCLITests.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("walk.json")
        try Self.walk.write(to: file, atomically: true, encoding: .utf8)
        var folders: [URL] = []
        for jobs in ["1", "2"] {
            let out = dir.appendingPathComponent("jobs\(jobs)")
            let r = try runFencelab([
                "sweep", file.path, "--enter", "15:15:1", "--exit", "30:30:1", "--budget", "2,all", "--refresh",
                "50,2000", "--min-recall", "0.9", "--jobs", jobs, "--out", out.path,
            ])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("Recommended for walk:"), "\(r.stdout)")
            folders.append(out)
        }
        for name in ["sweep.json", "sweep.csv", "sweep.md", "index.html"] {
            let a = try Data(contentsOf: folders[0].appendingPathComponent(name))
            let b = try Data(contentsOf: folders[1].appendingPathComponent(name))
            #expect(a == b, "\(name)")
        }
        let json = try Data(contentsOf: folders[0].appendingPathComponent("sweep.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect(object["format"] as? String == "fencelab-sweep-places/1")
        let points = try #require(object["points"] as? [[String: Any]])
        #expect(points.count == 6)  // (15/30, 80/120) × (nearest:2+refresh:50, nearest:2+refresh:2000, all)
        let far = try #require(points.first { $0["monitoring"] as? String == "nearest:2+refresh:2000" })
        #expect(far["meets"] as? Bool == false && ((far["bindingPlaces"] as? [String])?.count ?? 0) >= 5)
        #expect(!String(decoding: json, as: UTF8.self).contains("52.5"))  // no coordinates
    }

    @Test func badPlaceSweepInputIsOneLine() throws {
        let dir = RunCLITests.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("walk.json")
        try Self.walk.write(to: file, atomically: true, encoding: .utf8)
        let base = ["sweep", file.path, "--enter", "15:15:1", "--exit", "30:30:1"]
        let cases: [([String], Int32, String)] = [
            (["--budget", "0", "--refresh", "50"], 2, "--budget: K = 0 must be within 1...100000 places"),
            (["--budget", "5", "--refresh", "0"], 2, "--refresh: 0.0 must be finite and > 0 m"),
            (["--budget", "5"], 64, "--budget: a budget K needs --refresh R"),
            (["--budget", "five", "--refresh", "50"], 64, "--budget: expected a comma-separated list"),
            (["--sampling", "all"], 64, "--sampling is not evaluated by a place-set sweep"),
            (["--checkpoint-after", "0"], 64, "--checkpoint-after is not evaluated by a place-set sweep"),
        ]
        for (extra, status, message) in cases {
            let out = dir.appendingPathComponent("out")
            let r = try runFencelab(base + extra + ["--out", out.path])
            #expect(r.status == status, "\(extra): \(r.stderr)")
            #expect(r.stderr.contains(message) && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
        // An axis that needs a place set, on a scenario with one fence.
        let r = try runFencelab([
            "sweep", "scenarios/edge-loiter-100m.json", "--enter", "80:80:1", "--exit", "120:120:1", "--budget", "5",
            "--refresh", "50", "--out", dir.appendingPathComponent("one").path,
        ])
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("has no place set (scenario key places)"), "\(r.stderr)")
    }

    /// `--shard K/N` on a place set: three shard folders merged (in any order) give the bytes of
    /// the unsharded run, whatever `--jobs`; merge names what differs or is missing.
    @Test func placeSweepShardsMergeToTheUnshardedFiles() throws {
        let dir = RunCLITests.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("walk.json")
        try Self.walk.write(to: file, atomically: true, encoding: .utf8)
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        let common = [
            "sweep", file.path, "--enter", "15:15:1", "--exit", "30:30:1", "--budget", "2,all", "--refresh",
            "50,2000", "--min-recall", "0.9",
        ]
        for jobs in ["1", "2"] {
            let r = try runFencelab(common + ["--jobs", jobs, "--out", path("whole\(jobs)")])
            #expect(r.status == 0, "\(r.stderr)")
        }
        for k in 0..<3 {
            let r = try runFencelab(
                common + ["--jobs", k == 1 ? "2" : "1", "--shard", "\(k)/3", "--out", path("s\(k)")])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("Shard \(k)/3: 4 work items written"), "\(r.stdout)")
        }
        let manifest = try String(contentsOfFile: path("s0/shard.json"), encoding: .utf8)
        #expect(manifest.contains("\"format\" : \"fencelab-sweep-places-shard/1\""), "\(manifest)")
        let merged = try runFencelab(["merge", path("s2"), path("s0"), path("s1"), "--out", path("merged")])
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stdout.contains("Recommended for walk:"), "\(merged.stdout)")
        for name in ["sweep.json", "sweep.csv", "sweep.md", "index.html"] {
            let a = try Data(contentsOf: URL(fileURLWithPath: path("whole1/\(name)")))
            #expect(a == (try Data(contentsOf: URL(fileURLWithPath: path("whole2/\(name)")))), "\(name): --jobs 1 vs 2")
            #expect(a == (try Data(contentsOf: URL(fileURLWithPath: path("merged/\(name)")))), "\(name): merged")
        }
        // A shard of another setting, a missing shard, and a one-fence option on merge.
        let other = try runFencelab(
            Array(common.dropLast()) + ["0.8", "--shard", "0/3", "--out", path("t0")])
        #expect(other.status == 0, "\(other.stderr)")
        let cases: [([String], Int32, String)] = [
            (["merge", path("t0"), path("s1"), path("s2"), "--out", path("m1")], 2, "setting --min-recall"),
            (["merge", path("s0"), path("s1"), "--out", path("m2")], 2, "missing shard 2/3"),
            (["merge", path("s0"), path("s1"), path("s2"), "--csv-gzip", "--out", path("m3")], 64, "--csv-gzip"),
        ]
        for (arguments, status, message) in cases {
            let r = try runFencelab(arguments)
            #expect(r.status == status, "\(arguments): \(r.stderr)")
            #expect(r.stderr.contains(message) && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: arguments[arguments.count - 1]))
        }
    }
}
