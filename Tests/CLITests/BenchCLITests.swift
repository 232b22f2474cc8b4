import Foundation
import Testing
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
        return try runProcess(
            URL(fileURLWithPath: "/usr/bin/env"),
            assignments + [TestPaths.product("fencelab-bench").path] + arguments,
            currentDirectory: TestPaths.packageRoot)
    }

    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent(
                "fencelab-bench-test-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// `--help` and the parser share one declaration: the synopsis and the OPTIONS section name the
    /// same options, every option listed is accepted (with `--list`, which stops before any work)
    /// and a misspelling is refused with a suggestion.
    @Test func helpAndParserAgree() throws {
        let help = try Self.bench(["--help"]).stdout
        let section = try #require(
            help.components(separatedBy: "\nOPTIONS:\n").last?.components(separatedBy: "\n\n").first)
        let samples = ["SUBSTR": "rng/", "NAME": "x", "T": "10%", "N": "5", "DIR": "/tmp"]
        var listed: [String] = []
        for line in section.split(separator: "\n") where line.hasPrefix("  --") {
            let words = line.split(separator: " ").map(String.init)
            listed.append(words[0])
            guard words[0] != "--help" else { continue }
            var argv = [words[0]]
            if words.count > 1, words[1].contains("|") || words[1] == words[1].uppercased() {
                argv.append(
                    words[1].contains("|")
                        ? String(words[1].split(separator: "|").last!) : samples[words[1], default: "x"])
            }
            if words[0] == "--threshold" { argv += ["--compare", "x"] }
            // Accepted: not unknown and given its value (some apply to one --metric only, and say so).
            let r = try Self.bench(argv + ["--list"])
            #expect(r.status == 0 || (r.status == 64 && r.stderr.contains("applies to")), "\(argv): \(r.stderr)")
            #expect(!r.stderr.contains("unknown") && !r.stderr.contains("needs a value"), "\(argv): \(r.stderr)")
        }
        #expect(listed.count >= 10, "\(section)")
        // The synopsis comes from the same declarations: it names exactly the options OPTIONS lists, in order.
        let synopsis = try #require(help.components(separatedBy: "\n\n").first)
        #expect(synopsis.hasPrefix("USAGE: fencelab-bench ["), "\(synopsis)")
        let named = synopsis.split { !($0.isLetter || $0 == "-") }.filter { $0.hasPrefix("--") }.map(String.init)
        #expect(named == listed, "\(synopsis)")
        let typo = try Self.bench(["--lsit"])
        #expect(typo.status == 64 && typo.stderr.contains("did you mean --list?"), "\(typo.stderr)")
    }

    @Test func helpAndUsageErrors() throws {
        let help = try Self.bench(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("--compare"))
        for bad in [
            ["--bogus"], ["--format", "yaml"], ["--compare", "x", "--threshold", "-5%"],
            ["--threshold", "10%"], ["--save-baseline", "../escape"], ["--filter", "no-such-benchmark"],
        ] {
            let r = try Self.bench(bad)
            #expect(r.status == 64, "\(bad)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(bad): \(r.stderr)")
            #expect(r.stdout.isEmpty, "\(bad)")
        }
        for bad in ["fast", "0.5", "nan", "inf", "1001"] {
            let slow = try Self.bench(Self.cheap, environment: ["FENCELAB_BENCH_SLOWDOWN": bad])
            #expect(slow.status == 64, "\(bad)")
            #expect(slow.stderr.contains("FENCELAB_BENCH_SLOWDOWN"), "\(bad)")
            #expect(slow.stderr.split(separator: "\n").count == 1, "\(bad): \(slow.stderr)")
        }
        for bad in [
            ["--metric", "energy"], ["--metric", "instructions", "--quick"],
            ["--metric", "instructions", "--samples", "3"], ["--runs", "3"], ["--callgrind-out", "/tmp/x"],
            ["--metric", "instructions", "--runs", "0"], ["--instructions-child", "rng/gaussianZiggurat"],
        ] {
            let r = try Self.bench(bad)
            #expect(r.status == 64, "\(bad)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(bad): \(r.stderr)")
            #expect(r.stdout.isEmpty, "\(bad)")
        }
    }

    /// Without valgrind on PATH: one line naming the Debian package, exit 1, nothing on stdout.
    @Test func instructionMetricWithoutValgrindNamesThePackage() throws {
        let empty = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: empty) }
        let r = try Self.bench(["--metric", "instructions", "--filter", "rng/"], environment: ["PATH": empty.path])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(r.stderr.contains("Debian package valgrind"), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
    }

    /// A time baseline is not an instruction baseline: the metric is checked before anything runs.
    @Test func baselineOfTheOtherMetricIsRejected() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let env = ["FENCELAB_BENCH_BASELINES": folder.path]
        #expect(try Self.bench(Self.cheap + ["--save-baseline", "t"], environment: env).status == 0)
        try FileManager.default.copyItem(
            at: folder.appendingPathComponent("t.json"),
            to: folder.appendingPathComponent("t-instructions.json"))
        let r = try Self.bench(["--metric", "instructions", "--filter", "rng/", "--compare", "t"], environment: env)
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("t-instructions.json") && r.stderr.contains("--metric time"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1)
    }

    /// A time row without a tight in-run ratio is tracked-only, so a 2×
    /// slowdown on it reads `tracked`, never `unchanged`; a ratio row with a narrow spread regresses.
    /// The baseline is edited to be 2× faster than this run (no timing is asserted).
    @Test func twoTimesSlowerIsNeverUnchanged() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let env = ["FENCELAB_BENCH_BASELINES": folder.path]
        let args = ["--quick", "--samples", "3", "--filter", "rng/", "--filter", "geohash/encode"]
        #expect(try Self.bench(args + ["--save-baseline", "base"], environment: env).status == 0)
        let file = folder.appendingPathComponent("base.json")
        var doc = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        var results = try #require(doc["results"] as? [[String: Any]])
        for i in results.indices {
            results[i]["itemsPerSecond"] = try #require(results[i]["itemsPerSecond"] as? Double) * 2
            if let ratio = results[i]["ratio"] as? Double { results[i]["ratio"] = ratio * 2 }
        }
        doc["results"] = results
        try JSONSerialization.data(withJSONObject: doc).write(to: file)
        let r = try Self.bench(args + ["--compare", "base", "--format", "json"], environment: env)
        #expect(r.status == 2, "\(r.stderr)")
        let comparison = try #require(try Self.json(r.stdout)["comparison"] as? [String: Any])
        let rows = try #require(comparison["rows"] as? [[String: Any]])
        let verdicts = Dictionary(
            uniqueKeysWithValues: rows.map { ($0["name"] as? String ?? "", $0["verdict"] as? String ?? "") })
        #expect(verdicts["rng/gaussianZiggurat"] == "regressed")
        #expect(verdicts["geohash/encode-p7"] == "tracked")
        let spread = try #require(rows.first { $0["name"] as? String == "geohash/encode-p7" }?["spread"] as? Double)
        #expect(spread > 0 && spread < 1, "spread \(spread)")
    }

    @Test func listNamesKernelsAndReferences() throws {
        let r = try Self.bench(["--list"])
        #expect(r.status == 0)
        for name in [
            "reference/c-fence-scalar", "reference/c-kalman-cv", "reference/c-kalman-geo", "reference/c-gsl-ziggurat",
            "reference/c-gsl-cspline", "fence/validate-haversine-hysteresis/batch",
            "rng/gaussianZiggurat\t4096 draws/run\tvs reference/c-gsl-ziggurat",
        ] {
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
        let rng = results[0]
        let demo = results[1]
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
    /// the C CV kernel and, bit for bit, the fair geo kernel, IMMFilter vs the C IMM kernel,
    /// SeedKalman vs its C transcription, the spline vs GSL's cspline, quantiles vs gsl_sort)
    /// and say so on stderr when they disagree.
    @Test func setUpSelfChecksAgree() throws {
        let r = try Self.bench([
            "--quick", "--samples", "3", "--filter", "hysteresis/batch", "--filter", "kalman/",
            "--filter", "gapfill/", "--filter", "stats/", "--format", "json",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        for word in ["disagrees", "differs"] { #expect(!r.stderr.contains(word), "\(r.stderr)") }
        let results = try #require(try Self.json(r.stdout)["results"] as? [[String: Any]])
        #expect(results.count == 7)
    }

    @Test func missingBaselineExitsFive() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let r = try Self.bench(
            Self.cheap + ["--compare", "does-not-exist"],
            environment: ["FENCELAB_BENCH_BASELINES": folder.path])
        #expect(r.status == 5)
        #expect(r.stderr.contains("does-not-exist.json"))
        #expect(r.stdout.isEmpty)
    }

    @Test func corruptBaselineExitsOne() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("{".utf8).write(to: folder.appendingPathComponent("broken.json"))
        let r = try Self.bench(
            Self.cheap + ["--compare", "broken"],
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

    // MARK: --metric instructions (needs valgrind; .ci/run installs it)

    static let valgrindAvailable = ProcessInfo.processInfo.environment["PATH", default: "/usr/bin:/bin"]
        .split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/valgrind") }

    /// Rows of the instruction-gate proof on the debug build (each is a callgrind process of
    /// ≈ 2 s): a plain ratio row, the Kalman filter, two stateful bodies (a generator moving along
    /// its route, GSL draws) and a C kernel (shown, not gated, never slowed). Every row of the
    /// release build is proven by .ci/run with the committed baseline.
    static let instructionArgs = [
        "--metric", "instructions", "--runs", "1", "--format", "json",
        "--filter", "hysteresis/scalar", "--filter", "rng/", "--filter", "kalman/cv-update",
        "--filter", "generator/isotropic-moving", "--filter", "reference/c-gsl-ziggurat",
    ]

    static func instructionRows(_ r: ProcessResult) throws -> [String: [String: Any]] {
        let comparison = try #require(try json(r.stdout)["comparison"] as? [String: Any], "\(r.stderr)")
        let rows = try #require(comparison["rows"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: rows.map { ($0["name"] as? String ?? "", $0) })
    }

    /// The instruction gate's proof on the debug build: three unmodified runs pass with identical counts, and
    /// FENCELAB_BENCH_SLOWDOWN=1.1 regresses every gated row by 8–12 % (gate 2 %), not the kernel.
    @Test(.enabled(if: valgrindAvailable)) func instructionGateCatchesTenPercent() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let env = ["FENCELAB_BENCH_BASELINES": folder.path]
        let save = try Self.bench(Self.instructionArgs + ["--save-baseline", "gate"], environment: env)
        #expect(save.status == 0, "\(save.stderr)")
        let stored = try Self.json(
            String(
                decoding: try Data(contentsOf: folder.appendingPathComponent("gate-instructions.json")), as: UTF8.self))
        #expect(stored["metric"] as? String == "instructions")
        let machine = try #require(stored["machine"] as? [String: Any])
        for key in ["toolchain", "gslVersion", "valgrindVersion"] { #expect(machine[key] is String, "machine.\(key)") }
        let baselineRows = try #require(stored["results"] as? [String: Any])
        // The filters are substrings: rows added later that match them join the proof.
        let required: Set = [
            "fence/validate-haversine-hysteresis/scalar", "rng/gaussianZiggurat", "kalman/cv-update",
            "generator/isotropic-moving", "reference/c-gsl-ziggurat",
        ]
        #expect(Set(baselineRows.keys).isSuperset(of: required), "\(baselineRows.keys.sorted())")

        for run in 1...3 {
            let plain = try Self.bench(Self.instructionArgs + ["--compare", "gate"], environment: env)
            #expect(plain.status == 0, "plain run \(run): \(plain.stderr)")
            for (name, row) in try Self.instructionRows(plain) {
                let change = try #require(row["change"] as? Double, "\(name)")
                // Deterministic counts: at most a few instructions in 10⁸ (measured 0 on these rows).
                #expect(abs(change) <= 1e-6, "plain run \(run), \(name): change \(change)")
                #expect(row["verdict"] as? String == "unchanged", "\(name)")
            }
        }

        let slow = try Self.bench(
            Self.instructionArgs + ["--compare", "gate"],
            environment: env.merging(["FENCELAB_BENCH_SLOWDOWN": "1.1"]) { $1 })
        #expect(slow.status == 2, "\(slow.stderr)")
        let rows = try Self.instructionRows(slow)
        #expect(Set(rows.keys) == Set(baselineRows.keys))
        for (name, row) in rows {
            let change = try #require(row["change"] as? Double, "\(name)")
            if row["gated"] as? Bool == true {
                #expect(row["verdict"] as? String == "regressed", "\(name)")
                #expect(change >= 0.08 && change <= 0.12, "\(name): +\(change * 100) % for a 1.1 slowdown")
            } else {
                #expect(name.hasPrefix("reference/"), "\(name) is not gated")
                #expect(abs(change) <= 1e-6, "a C kernel is never slowed: \(name) \(change)")
            }
        }
    }

    /// Adding a row: --save-baseline with --filter merges into the existing instruction baseline.
    @Test(.enabled(if: valgrindAvailable)) func filteredSaveMergesIntoInstructionBaseline() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let env = ["FENCELAB_BENCH_BASELINES": folder.path]
        let base = ["--metric", "instructions", "--runs", "1", "--save-baseline", "merge"]
        #expect(try Self.bench(base + ["--filter", "reference/c-gsl-ziggurat"], environment: env).status == 0)
        let second = try Self.bench(base + ["--filter", "rng/"], environment: env)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.contains("1 rows counted now, 1 kept"), "\(second.stderr)")
        let stored = try Self.json(
            String(
                decoding: try Data(contentsOf: folder.appendingPathComponent("merge-instructions.json")), as: UTF8.self)
        )
        let results = try #require(stored["results"] as? [String: [String: Any]])
        #expect(Set(results.keys) == ["reference/c-gsl-ziggurat", "rng/gaussianZiggurat"])
        for (name, m) in results {
            let perItem = try #require(m["instructionsPerItem"] as? Double)
            let total = try #require(m["instructions"] as? Double)
            let items = try #require(m["items"] as? Double)
            #expect(perItem > 10 && isClose(perItem, total / items, relativeTolerance: 1e-12), "\(name)")
        }

        // Another toolchain in the baseline: compared anyway, with one warning line; a filtered
        // save refuses to mix the two toolchains in one file.
        let file = folder.appendingPathComponent("merge-instructions.json")
        var doc = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        var machine = try #require(doc["machine"] as? [String: Any])
        machine["toolchain"] = "Swift 5.0"
        doc["machine"] = machine
        try JSONSerialization.data(withJSONObject: doc).write(to: file)
        let compare = try Self.bench(
            ["--metric", "instructions", "--runs", "1", "--filter", "rng/", "--compare", "merge"], environment: env)
        #expect(compare.status == 0, "\(compare.stderr)")
        #expect(
            compare.stderr.split(separator: "\n").filter {
                $0.contains("warning: baseline 'merge' was recorded with toolchain Swift 5.0")
            }.count == 1,
            "\(compare.stderr)")
        let mixed = try Self.bench(base + ["--filter", "rng/"], environment: env)
        #expect(mixed.status == 64, "\(mixed.stderr)")
        #expect(mixed.stderr.contains("Swift 5.0"))
    }
}
