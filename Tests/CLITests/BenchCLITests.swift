import Testing
import Foundation
import _TestSupport

/// Runs the built `fencelab-bench` (debug in `swift test`) on cheap benchmarks only.
/// Baselines go to a temporary folder through FENCELAB_BENCH_BASELINES, except in
/// `defaultBaselineFolder`, which writes `test-<pid>` under Benchmarks/baselines and deletes it.
@Suite(.serialized) struct BenchCLITests {
    /// A cheap benchmark with a C kernel, and the allocation demo (no kernel).
    static let cheap = ["--quick", "--samples", "3", "--filter", "rng/", "--filter", "alloc/"]

    static func bench(_ arguments: [String], environment: [String: String] = [:]) throws -> ProcessResult {
        // /usr/bin/env sets the variables: runProcess inherits the test's environment.
        let assignments = environment.map { "\($0.key)=\($0.value)" }
        return try runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                              assignments + [TestPaths.product("fencelab-bench").path] + arguments,
                              currentDirectory: TestPaths.packageRoot)
    }

    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("fencelab-bench-test-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func helpAndUsageErrors() throws {
        let help = try Self.bench(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("--compare"))
        for bad in [["--bogus"], ["--format", "yaml"], ["--compare", "x", "--threshold", "-5%"],
                    ["--threshold", "10%"], ["--save-baseline", "../escape"], ["--filter", "no-such-benchmark"]] {
            let r = try Self.bench(bad)
            #expect(r.status == 64, "\(bad)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(bad): \(r.stderr)")
            #expect(r.stdout.isEmpty, "\(bad)")
        }
        let slow = try Self.bench(Self.cheap, environment: ["FENCELAB_BENCH_SLOWDOWN": "fast"])
        #expect(slow.status == 64)
        #expect(slow.stderr.contains("FENCELAB_BENCH_SLOWDOWN"))
    }

    @Test func listNamesKernelsAndReferences() throws {
        let r = try Self.bench(["--list"])
        #expect(r.status == 0)
        for name in ["reference/c-fence-scalar", "reference/c-kalman-cv", "reference/c-gsl-ziggurat",
                     "reference/c-gsl-cspline", "fence/validate-haversine-hysteresis/batch",
                     "rng/gaussianZiggurat\t4096 draws/run\tvs reference/c-gsl-ziggurat"] {
            #expect(r.stdout.contains(name), "\(name)")
        }
    }

    /// Statistics and allocation counting, checked on the JSON output.
    @Test func jsonResultsAreConsistent() throws {
        let r = try Self.bench(Self.cheap + ["--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let results = try #require(try Self.json(r.stdout)["results"] as? [[String: Any]])
        #expect(results.map { $0["name"] as? String } == ["rng/gaussianZiggurat", "alloc/array-per-item-demo"])
        let relativeTolerance = 1e-9
        for m in results {
            let median_ns = try #require(m["medianRun_ns"] as? Double)
            let p90_ns = try #require(m["p90Run_ns"] as? Double)
            let items = try #require(m["itemsPerRun"] as? Double)
            let rate = try #require(m["itemsPerSecond"] as? Double)
            #expect(median_ns > 0 && p90_ns >= median_ns)
            #expect(isClose(rate, items / median_ns * 1e9, relativeTolerance: relativeTolerance))
        }
        let rng = results[0], demo = results[1]
        #expect((rng["ratio"] as? Double ?? 0) > 0)
        #expect((rng["referenceItemsPerSecond"] as? Double ?? 0) > 0)
        #expect(demo["ratio"] == nil)
        // The demo builds one escaping array per item: the counter must see about one allocation each.
        let allocations = try #require(demo["allocationsPerItem"] as? Double)
        #expect(allocations >= 0.9 && allocations <= 3, "allocations per item \(allocations)")
    }

    @Test func saveThenCompareRoundTrips() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let env = ["FENCELAB_BENCH_BASELINES": folder.path]
        let save = try Self.bench(Self.cheap + ["--save-baseline", "round-trip"], environment: env)
        #expect(save.status == 0, "\(save.stderr)")
        let file = folder.appendingPathComponent("round-trip.json")
        let stored = try Self.json(String(decoding: try Data(contentsOf: file), as: UTF8.self))
        let machine = try #require(stored["machine"] as? [String: Any])
        for key in ["cpuModel", "cores", "toolchain", "gslVersion", "date", "operatingSystem"] {
            #expect(machine[key] != nil, "machine.\(key)")
        }
        // A debug build on a shared machine: a wide threshold, so only a real change fails.
        let same = try Self.bench(Self.cheap + ["--compare", "round-trip", "--threshold", "95%"], environment: env)
        #expect(same.status == 0, "\(same.stdout)\n\(same.stderr)")
        #expect(same.stdout.contains("0 regressed"))
    }

    /// Polarity and threshold: a baseline 100× better must regress, 100× worse must improve.
    @Test func compareVerdictsFollowPolarityAndThreshold() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let env = ["FENCELAB_BENCH_BASELINES": folder.path]
        let args = ["--quick", "--samples", "3", "--filter", "rng/"]
        #expect(try Self.bench(args + ["--save-baseline", "base"], environment: env).status == 0)
        let file = folder.appendingPathComponent("base.json")
        let original = try Data(contentsOf: file)
        for (factor, verdict, status) in [(100.0, "regressed", Int32(2)), (0.01, "improved", Int32(0))] {
            var doc = try #require(try JSONSerialization.jsonObject(with: original) as? [String: Any])
            var results = try #require(doc["results"] as? [[String: Any]])
            results[0]["ratio"] = try #require(results[0]["ratio"] as? Double) * factor
            doc["results"] = results
            try JSONSerialization.data(withJSONObject: doc).write(to: file)
            let r = try Self.bench(args + ["--compare", "base", "--format", "json"], environment: env)
            #expect(r.status == status, "factor \(factor): \(r.stderr)")
            let comparison = try #require(try Self.json(r.stdout)["comparison"] as? [String: Any])
            let rows = try #require(comparison["rows"] as? [[String: Any]])
            #expect(rows.first?["verdict"] as? String == verdict)
            #expect(rows.first?["metric"] as? String == "ratio")
        }
    }

    /// The documented slowed build: FENCELAB_BENCH_SLOWDOWN makes Swift bodies repeat work.
    @Test func slowdownIsARegression() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let env = ["FENCELAB_BENCH_BASELINES": folder.path]
        let args = ["--quick", "--samples", "3", "--filter", "rng/"]
        #expect(try Self.bench(args + ["--save-baseline", "fast"], environment: env).status == 0)
        var slowEnv = env
        slowEnv["FENCELAB_BENCH_SLOWDOWN"] = "20"
        let r = try Self.bench(args + ["--compare", "fast", "--threshold", "50%"], environment: slowEnv)
        #expect(r.status == 2, "\(r.stdout)\n\(r.stderr)")
        #expect(r.stdout.contains("regressed"))
    }

    /// Benchmarks check themselves at set-up (FenceBatch vs the scalar path, KalmanFilter vs
    /// the C CV kernel, IMMFilter vs the C IMM kernel, SeedKalman vs its C transcription, the
    /// spline vs GSL's cspline) and say so on stderr when they disagree.
    @Test func setUpSelfChecksAgree() throws {
        let r = try Self.bench(["--quick", "--samples", "3", "--filter", "hysteresis/batch", "--filter", "kalman/",
                                "--filter", "gapfill/", "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        for word in ["disagrees", "differs"] { #expect(!r.stderr.contains(word), "\(r.stderr)") }
        let results = try #require(try Self.json(r.stdout)["results"] as? [[String: Any]])
        #expect(results.count == 5)
    }

    @Test func missingBaselineExitsFive() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let r = try Self.bench(Self.cheap + ["--compare", "does-not-exist"],
                               environment: ["FENCELAB_BENCH_BASELINES": folder.path])
        #expect(r.status == 5)
        #expect(r.stderr.contains("does-not-exist.json"))
        #expect(r.stdout.isEmpty)
    }

    @Test func corruptBaselineExitsOne() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("{".utf8).write(to: folder.appendingPathComponent("broken.json"))
        let r = try Self.bench(Self.cheap + ["--compare", "broken"],
                               environment: ["FENCELAB_BENCH_BASELINES": folder.path])
        #expect(r.status == 1)
        #expect(r.stderr.contains("broken.json"))
        #expect(r.stderr.split(separator: "\n").count == 1)
        #expect(r.stdout.isEmpty)
    }

    @Test func defaultBaselineFolder() throws {
        let name = "test-\(ProcessInfo.processInfo.processIdentifier)"
        let file = TestPaths.packageRoot.appendingPathComponent("Benchmarks/baselines/\(name).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let save = try Self.bench(Self.cheap + ["--save-baseline", name])
        #expect(save.status == 0, "\(save.stderr)")
        #expect(FileManager.default.fileExists(atPath: file.path))
        let compare = try Self.bench(Self.cheap + ["--compare", name, "--threshold", "95%"])
        #expect(compare.status == 0, "\(compare.stdout)\n\(compare.stderr)")
    }
}
