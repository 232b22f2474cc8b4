import Foundation
import Testing
import _TestSupport

@Suite struct SweepCLITests {
    /// Grids refused before any work: malformed text is a usage error (64), invalid values are bad input (2).
    @Test(
        arguments: [
            (["--enter", "60:100", "--exit", "110:130:10"], Int32(64), "--enter"),
            (["--enter", "a:b:c", "--exit", "110:130:10"], 64, "--enter"),
            (["--exit", "110:130:10"], 64, "--enter"),
            (["--enter", "60:100:10"], 64, "--exit"),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--rule", "circle"], 64, "--rule"),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--shard", "3/3"], 64, "--shard"),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--max-accuracy", "25,x"], 64, "--max-accuracy"),
            (["--enter", "60:100:0", "--exit", "110:130:10"], 2, "STEP"),
            (["--enter", "60:100:-5", "--exit", "110:130:10"], 2, "STEP"),
            (["--enter", "100:60:10", "--exit", "110:130:10"], 2, "empty range"),
            (["--enter", "100:120:10", "--exit", "60:90:10"], 2, "exit radius"),
            (["--enter", "0:1000:1", "--exit", "1001:1010:1"], 2, "--force"),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--max-points", "10"], 2, "limit 10"),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--confirm", "0"], 2, "--confirm"),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--max-latency", "-1"], 2, "--max-latency"),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--max-accuracy", "0"], 2, "--max-accuracy"),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--max-accuracy=-5"], 2, "--max-accuracy"),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--min-recall", "1.5"], 2, "--min-recall"),
            (
                ["--enter", "60:100:10", "--exit", "110:130:10", "--weight", "edge-loiter-100m=0"], 2,
                "--weight edge-loiter-100m"
            ),
            (
                ["--enter", "60:100:10", "--exit", "110:130:10", "--weight", "edge-loiter-100m=-2"], 2,
                "--weight edge-loiter-100m"
            ),
            (
                ["--enter", "60:100:10", "--exit", "110:130:10", "--weight", "edge-loiter-100m=nan"], 2,
                "--weight edge-loiter-100m"
            ),
            (
                ["--enter", "60:100:10", "--exit", "110:130:10", "--weight", "edge-loiter-100m=inf"], 2,
                "--weight edge-loiter-100m"
            ),
            (
                ["--enter", "60:100:10", "--exit", "110:130:10", "--weight", "no-such-scenario=2"], 2,
                "no-such-scenario"
            ),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--weight", "=2"], 64, "--weight"),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--match-slack", "-1"], 2, "--match-slack"),
            (["scenarios/device-logs", "--enter", "60:100:10", "--exit", "110:130:10"], 2, "no scenario files"),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--input", "raw,smoothed"], 64, "--input"),
            (
                ["--enter", "60:100:10", "--exit", "110:130:10", "--input", "kalman", "--kalman-q", "0"], 2,
                "--kalman-q"
            ),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--input", "imm", "--kalman-q=-1"], 2, "--kalman-q"),
            (
                ["--enter", "60:100:10", "--exit", "110:130:10", "--input", "imm", "--kalman-q", "1,x"], 64,
                "--kalman-q"
            ),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--sampling", "bogus:1"], 64, "--sampling"),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--sampling", "all,"], 64, "--sampling"),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--sampling", "interval:60+batch:x"], 64, "--sampling"),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--sampling", "interval:0"], 2, "interval S"),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--sampling", "distance:-5"], 2, "distance D"),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--sampling", "interval:inf"], 2, "interval S"),
            (
                ["scenarios/tuning", "--enter", "60:100:10", "--exit", "110:130:10", "--sampling", "all,interval:0.5"],
                2, "base sampling interval"
            ),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--cost", "fix=-1"], 2, "--cost"),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--cost", "fix=0,wakeup=0"], 2, "--cost"),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--cost", "watts=1"], 64, "--cost"),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--cost", "fix=1,fix=2"], 64, "--cost"),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--cost", "fix=nan"], 2, "--cost"),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--max-unwanted", "-1"], 2, "--max-unwanted"),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--notify", "bogus:1"], 64, "--notify"),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--notify", "dwell:0"], 2, "--notify"),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--notify", "dwell:nan"], 2, "--notify"),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--confirm-s", "-1"], 2, "--confirm-s"),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--confirm-s", "10,x"], 64, "--confirm-s"),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--max-exit-latency", "-3"], 2, "--max-exit-latency"),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--checkpoint-after", "-1"], 2, "--checkpoint-after"),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--checkpoint-after", "nan"], 2, "--checkpoint-after"),
            (["--enter", "60:100:10", "--exit", "110:130:10", "--checkpoint-after", "soon"], 2, "--checkpoint-after"),
        ] as [([String], Int32, String)])
    func refusedGrids(arguments: [String], status: Int32, mentions: String) throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-sweep-refused-\(getpid())")
            .path
        let r = try runFencelab(["sweep"] + arguments + ["--out", out])
        #expect(r.status == status, "\(arguments): \(r.stderr)")
        #expect(r.stderr.contains(mentions), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: out), "nothing written for a refused grid")
    }

    /// An 18-point, 2-replicate sweep of urban-canyon (fast in a debug build).
    static let smallGrid = [
        "sweep", "scenarios/urban-canyon.json", "--enter", "70:90:10", "--exit", "110:130:10",
        "--confirm", "1,2", "--replicates", "2",
    ]

    /// A temporary folder path `NAME-PID` with nothing at it.
    static func freshFolder(_ name: String) -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(getpid())")
        try? FileManager.default.removeItem(at: dir)
        return dir
    }

    /// `FENCELAB_PHASE_CLOCKS` makes the sweep write its phase marks to stderr, in order, with wall
    /// and CPU clocks that never go back; the files are those of a run without it, and without it
    /// no mark is written.
    @Test func phaseClocksMarkEveryPhaseAndChangeNoOutput() throws {
        let dir = Self.freshFolder("fencelab-sweep-phases")
        defer { try? FileManager.default.removeItem(at: dir) }
        let grid = Self.smallGrid + ["--jobs", "2"]
        func sweep(into name: String, phases: Bool) throws -> ProcessResult {
            let env = phases ? ["FENCELAB_PHASE_CLOCKS=1"] : []
            return try runProcess(
                URL(fileURLWithPath: "/usr/bin/env"),
                env + [TestPaths.product("fencelab").path] + grid + [
                    "--force", "--out", dir.appendingPathComponent(name).path,
                ],
                currentDirectory: TestPaths.packageRoot)
        }
        let plain = try sweep(into: "plain", phases: false)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(!plain.stderr.contains("fencelab-phase"))
        let first = try sweep(into: "marked", phases: true)
        #expect(first.status == 0, "\(first.stderr)")
        let again = try sweep(into: "marked", phases: true)  // replaces the folder it wrote
        #expect(again.status == 0, "\(again.stderr)")
        let common = ["sweep-start", "locked", "evaluated", "summarised", "files-written", "in-place"]
        for (run, names) in [(first, common + ["sweep-end"]), (again, common + ["replaced-removed", "sweep-end"])] {
            let marks = run.stderr.split(separator: "\n").filter { $0.hasPrefix("fencelab-phase ") }
                .map { $0.split(separator: " ") }
            #expect(marks.map { String($0[1]) } == names)
            let wall_ms = marks.compactMap { Double($0[2]) }
            let cpu_ms = marks.compactMap { Double($0[3]) }
            #expect(wall_ms.count == names.count && cpu_ms.count == names.count)
            // Clocks in ms: the monotonic clock and the process's CPU time never decrease.
            #expect(zip(wall_ms, wall_ms.dropFirst()).allSatisfy { $0 <= $1 })
            #expect(zip(cpu_ms, cpu_ms.dropFirst()).allSatisfy { $0 <= $1 })
            #expect((cpu_ms.first ?? 0) > 0)
        }
        for name in ["sweep.json", "sweep.csv", "sweep.md", "index.html"] {
            let a = try Data(contentsOf: dir.appendingPathComponent("plain/\(name)"))
            let b = try Data(contentsOf: dir.appendingPathComponent("marked/\(name)"))
            #expect(a == b, "\(name) differs")
        }
    }

    @Test func shardedSweepMergesToTheUnshardedFilesAndMergeNamesProblems() throws {
        let dir = Self.freshFolder("fencelab-sweep-cli")
        defer { try? FileManager.default.removeItem(at: dir) }
        let common = Self.smallGrid + ["--input", "raw,kalman,imm", "--kalman-q", "0.3,1"]
        let whole = try runFencelab(common + ["--out", dir.appendingPathComponent("whole").path])
        #expect(whole.status == 0, "\(whole.stderr)")
        #expect(whole.stdout.contains("urban-canyon"))
        #expect(whole.stdout.contains("q with the smallest filter RMSE: kalman q"), "\(whole.stdout)")
        for k in 0..<2 {
            let s = try runFencelab(common + ["--shard", "\(k)/2", "--out", dir.appendingPathComponent("s\(k)").path])
            #expect(s.status == 0, "\(s.stderr)")
        }
        let merged = try runFencelab([
            "merge", dir.appendingPathComponent("s1").path, dir.appendingPathComponent("s0").path,
            "--out", dir.appendingPathComponent("merged").path,
        ])
        #expect(merged.status == 0, "\(merged.stderr)")
        for name in ["sweep.json", "sweep.csv", "sweep.md", "index.html"] {
            let a = try Data(contentsOf: dir.appendingPathComponent("whole/\(name)"))
            let b = try Data(contentsOf: dir.appendingPathComponent("merged/\(name)"))
            #expect(a == b, "\(name) differs")
        }
        let incomplete = try runFencelab([
            "merge", dir.appendingPathComponent("s0").path, "--out", dir.appendingPathComponent("m2").path,
        ])
        #expect(incomplete.status == 2)
        #expect(incomplete.stderr.contains("missing shard 1/2"))
        let notShard = try runFencelab([
            "merge", dir.appendingPathComponent("whole").path, "--out", dir.appendingPathComponent("m3").path,
        ])
        #expect(notShard.status == 2)
        #expect(notShard.stderr.contains("shard.json"))
        let noArgs = try runFencelab(["merge"])
        #expect(noArgs.status == 64)
    }

    /// Sampling policies on the grid: every policy on the same drives, the cost in every file, the
    /// recommendation on the three-way frontier and different from the best at 1 Hz, and the same
    /// bytes for any --jobs and after merging three shards.
    @Test func samplingAxisRecommendsACheaperPipelineAndMergesByteIdentical() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-sweep-sampling-\(getpid())")
        try? FileManager.default.removeItem(at: dir)
        defer { try? FileManager.default.removeItem(at: dir) }
        let common = [
            "sweep", "scenarios/tuning", "--enter", "70:120:10", "--exit", "120:160:20", "--confirm", "1,2",
            "--replicates", "4", "--sampling", "all,interval:30,distance:50", "--max-unwanted", "0.3",
        ]
        func folder(_ name: String) -> String { dir.appendingPathComponent(name).path }
        let whole = try runFencelab(common + ["--jobs", "2", "--out", folder("whole")])
        #expect(whole.status == 0, "\(whole.stderr)")
        #expect(whole.stdout.contains("best at each sampling policy"), "\(whole.stdout)")
        let one = try runFencelab(common + ["--jobs", "1", "--out", folder("one")])
        #expect(one.status == 0, "\(one.stderr)")
        for k in 0..<3 {
            let s = try runFencelab(common + ["--jobs", "1", "--shard", "\(k)/3", "--out", folder("s\(k)")])
            #expect(s.status == 0, "\(s.stderr)")
        }
        let merged = try runFencelab(["merge", folder("s2"), folder("s0"), folder("s1"), "--out", folder("merged")])
        #expect(merged.status == 0, "\(merged.stderr)")
        for name in ["sweep.json", "sweep.csv", "sweep.md", "index.html"] {
            let a = try Data(contentsOf: dir.appendingPathComponent("whole/\(name)"))
            #expect(a == (try Data(contentsOf: dir.appendingPathComponent("one/\(name)"))), "\(name): --jobs 1 vs 2")
            #expect(a == (try Data(contentsOf: dir.appendingPathComponent("merged/\(name)"))), "\(name): merged")
        }
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("whole/sweep.json")))
                as? [String: Any])
        let rec = try #require(json["recommendation"] as? [String: Any])
        let point = try #require(rec["point"] as? Int)
        let sampling = try #require(rec["sampling"] as? String)
        let costFrontier = try #require(json["costFrontier"] as? [[String: Any]])
        #expect(
            costFrontier.contains { $0["point"] as? Int == point }, "the recommendation is on the three-way frontier")
        let bySampling = try #require(rec["bySampling"] as? [[String: Any]])
        #expect(bySampling.map { $0["sampling"] as? String } == ["all", "interval:30", "distance:50"])
        let atAll = try #require(bySampling.first?["best"] as? [String: Any])
        let recMix = try #require(rec["mix"] as? [String: Any])
        let allFixes = try #require(atAll["fixesPerHour"] as? Double)
        let recFixes = try #require(recMix["fixesPerHour"] as? Double)
        // The mix's scenarios are sampled at 1 Hz with signal throughout: `all` delivers 3600 fixes an hour.
        #expect(abs(allFixes - 3600) <= 1e-9, "fixes per hour at 1 Hz: \(allFixes)")
        #expect(sampling != "all" && recFixes < allFixes / 5, "a cheaper pipeline than 1 Hz: \(sampling) \(recFixes)")
        #expect((recMix["unwantedPerHour"] as? Double ?? .nan) <= 0.3, "within --max-unwanted")
        #expect(atAll["point"] as? Int != point, "the 1 Hz answer differs from the cost-aware one")
        // interval:30 on a 1 Hz drive delivers one fix per 30 s: 120 an hour.
        let points = try #require(json["points"] as? [[String: Any]])
        let scenarios = try #require(json["scenarios"] as? [[String: Any]])
        let results = try #require(scenarios.first?["results"] as? [[String: Any]])
        for r in results {
            let index = try #require(r["point"] as? Int)
            let p = try #require(points[index]["sampling"] as? String)
            let cost = try #require(r["cost"] as? [String: Any])
            let fixes = try #require((cost["fixesPerHour"] as? [String: Any])?["mean"] as? Double)
            if p == "interval:30" { #expect(abs(fixes - 120) <= 1, "interval:30: \(fixes) fixes per hour") }
            if p == "all" { #expect(abs(fixes - 3600) <= 1e-9) }
        }
        let csv = try String(contentsOf: dir.appendingPathComponent("whole/sweep.csv"), encoding: .utf8)
        let header = csv.split(separator: "\n")[0].split(separator: ",").map(String.init)
        for column in ["sampling", "fixesPerHour_mean", "wakeupsPerHour_mean", "costFrontier"] {
            #expect(header.contains(column), "sweep.csv lacks \(column)")
        }
        let html = try String(contentsOf: dir.appendingPathComponent("whole/index.html"), encoding: .utf8)
        #expect(html.contains("fixes per hour delivered to the app"), "the latency-vs-fixes plot")
        #expect(AxisLabelCheck.problems(in: html).isEmpty, "\(AxisLabelCheck.problems(in: html))")
    }

    /// --max-exit-latency on a mix where nobody leaves the place is not an error: the output says so.
    @Test func exitLatencyBoundWithoutALeavingScenarioIsNoted() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-sweep-exit-\(getpid())")
        try? FileManager.default.removeItem(at: dir)
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try runFencelab([
            "sweep", "scenarios/tuning/walk-in.json", "--enter", "70:90:10", "--exit", "120:140:20", "--replicates",
            "2",
            "--max-exit-latency", "60", "--out", dir.path,
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("--max-exit-latency 60 s constrains nothing"), "\(r.stdout)")
    }

    /// The shipped tuning mix: one recommendation with its reasons on stdout and in every file.
    @Test func tuningMixPrintsOneRecommendationAndWritesVisitFigures() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-sweep-tuning-\(getpid())")
        try? FileManager.default.removeItem(at: dir)
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try runFencelab([
            "sweep", "scenarios/tuning", "--enter", "60:100:20", "--exit", "120:160:20", "--confirm", "1,2",
            "--replicates", "3", "--weight", "walk-in=2", "--out", dir.path,
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("Recommended setting for the mix:") }.count == 1, "\(r.stdout)")
        #expect(r.stdout.contains("walk-in 2"), "the --weight override is shown")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("sweep.json")))
                as? [String: Any])
        #expect(json["schema"] as? String == "fencelab-sweep/2")
        let rec = try #require(json["recommendation"] as? [String: Any])
        let point = try #require(rec["point"] as? Int)
        #expect((rec["reason"] as? [Any])?.isEmpty == false)
        let frontier = try #require(json["frontier"] as? [[String: Any]])
        #expect(frontier.contains { $0["point"] as? Int == point }, "the recommendation lies on the mix frontier")
        let csv = try String(contentsOf: dir.appendingPathComponent("sweep.csv"), encoding: .utf8)
        let header = csv.split(separator: "\n")[0].split(separator: ",").map(String.init)
        for column in [
            "trueVisits_mean", "matchedVisits_mean", "recall_mean", "falseVisits_mean", "fragments_mean",
            "falsePerHour_mean", "fragmentsPerHour_mean", "entryLatency_p95_s_mean", "exitLatency_p95_s_mean",
        ] {
            #expect(header.contains(column), "sweep.csv lacks \(column)")
        }
        let recommendedColumn = try #require(header.firstIndex(of: "recommended"))
        let recommendedRows = csv.split(separator: "\n").dropFirst().filter {
            $0.split(separator: ",", omittingEmptySubsequences: false)[recommendedColumn] == "1"
        }
        #expect(recommendedRows.count == 8, "one recommended row per scenario of the mix")
        let md = try String(contentsOf: dir.appendingPathComponent("sweep.md"), encoding: .utf8)
        #expect(
            md.split(separator: "\n").dropFirst(1).first?.hasPrefix("Recommended setting for the mix:") == true,
            "sweep.md leads with it")
    }

    /// A scenario without a place cannot be tuned: one line naming the file and the key, exit 2, nothing written.
    @Test func sweepRefusesAScenarioWithoutPlace() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-sweep-noplace-\(getpid())")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let text = try String(contentsOfFile: "scenarios/urban-canyon.json", encoding: .utf8)
            .replacingOccurrences(of: #"  "place": { "radius_m": 100 },"# + "\n", with: "")
        let file = dir.appendingPathComponent("no-place.json")
        try Data(text.utf8).write(to: file)
        let out = dir.appendingPathComponent("out").path
        let r = try runFencelab(["sweep", file.path, "--enter", "70:90:10", "--exit", "110:130:10", "--out", out])
        #expect(r.status == 2)
        #expect(r.stderr.contains("no-place.json: place: missing"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// `merge PARENT` and globs take only the folders holding shard.json; the output is never an input.
    @Test func mergeTakesAParentFolderAndOnlyShardFolders() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-merge-select-\(getpid())")
        try? FileManager.default.removeItem(at: dir)
        defer { try? FileManager.default.removeItem(at: dir) }
        func path(_ p: String) -> String { dir.appendingPathComponent(p).path }
        let common = [
            "sweep", "scenarios/urban-canyon.json", "--enter", "70:80:10", "--exit", "110:120:10", "--replicates", "2",
        ]
        #expect(try runFencelab(common + ["--out", path("whole")]).status == 0)
        for k in 0..<3 {
            #expect(try runFencelab(common + ["--shard", "\(k)/3", "--out", path("shards/\(k)")]).status == 0)
        }
        // What lands next to shards: logs, lost+found, a file, and a shard's temporary folder mid-write.
        let fm = FileManager.default
        try fm.createDirectory(atPath: path("shards/logs"), withIntermediateDirectories: true)
        try fm.createDirectory(atPath: path("shards/lost+found"), withIntermediateDirectories: true)
        try Data("16 --enter".utf8).write(to: URL(fileURLWithPath: path("shards/submit.args")))
        try fm.createDirectory(atPath: path("shards/.2.tmp-1-1"), withIntermediateDirectories: true)
        try fm.copyItem(atPath: path("shards/2/shard.json"), toPath: path("shards/.2.tmp-1-1/shard.json"))

        let parent = try runFencelab(["merge", path("shards"), "--out", path("merged")])
        #expect(parent.status == 0, "\(parent.stderr)")
        #expect(
            parent.stderr.contains("ignored") && parent.stderr.contains("lost+found")
                && parent.stderr.contains("submit.args"))
        #expect(!parent.stderr.contains(".2.tmp"))
        let glob = try runFencelab(
            ["merge"] + ["0", "1", "2", "logs", "lost+found", "submit.args"].map { path("shards/\($0)") }
                + ["--out", path("merged-glob")])
        #expect(glob.status == 0, "\(glob.stderr)")
        for name in ["sweep.json", "sweep.csv", "sweep.md", "index.html"] {
            let whole = try Data(contentsOf: URL(fileURLWithPath: path("whole/\(name)")))
            #expect(try Data(contentsOf: URL(fileURLWithPath: path("merged/\(name)"))) == whole, "\(name) differs")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path("merged-glob/\(name)"))) == whole, "\(name) differs")
        }

        // Refused with one line and exit 2, nothing written.
        let refusals: [([String], String, String?)] = [
            (["merge", path("shards"), "--out", path("shards/merged")], "inside", path("shards/merged")),
            (["merge", path("shards"), "--out", path("shards")], "inside", nil),
            (
                [
                    "merge", path("shards/0"), path("shards/1"), path("shards/2"), path("merged"), "--out",
                    path("merged"),
                ], "inside", nil
            ),
            (["merge", path("shards/../shards"), "--out", path("shards/./x")], "inside", path("shards/x")),
            (["merge", path("nowhere"), "--out", path("m4")], "no such folder", path("m4")),
            (["merge", path("shards/logs"), path("whole"), "--out", path("m5")], "shard.json", path("m5")),
        ]
        for (arguments, mentions, unwritten) in refusals {
            let r = try runFencelab(arguments)
            #expect(r.status == 2, "\(arguments): \(r.stderr)")
            #expect(r.stderr.contains(mentions), "\(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
            if let unwritten { #expect(!fm.fileExists(atPath: unwritten), "\(unwritten) written by a refused merge") }
        }
    }

    /// `--resume` says what it resumed before any work, not at the end, and finishes the same shard.
    @Test func resumeIsAnnouncedBeforeTheWork() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-sweep-resume-\(getpid())")
        try? FileManager.default.removeItem(at: dir)
        defer { try? FileManager.default.removeItem(at: dir) }
        let common = [
            "sweep", "scenarios/urban-canyon.json", "--enter", "70:90:10", "--exit", "110:130:10", "--replicates", "3",
            "--shard", "1/2", "--jobs", "1",
        ]
        #expect(try runFencelab(common + ["--out", dir.appendingPathComponent("full").path]).status == 0)
        // The resume file an interrupted run leaves: the manifest on one line, then finished records.
        let pretty = try String(contentsOf: dir.appendingPathComponent("full/shard.json"), encoding: .utf8)
        var header = ""
        var inString = false
        var escaped = false
        for c in pretty {
            if inString {
                header.append(c)
                if escaped {
                    escaped = false
                } else if c == "\\" {
                    escaped = true
                } else if c == "\"" {
                    inString = false
                }
            } else if c == "\"" {
                inString = true
                header.append(c)
            } else if !c.isWhitespace {
                header.append(c)
            }
        }
        let items = try String(contentsOf: dir.appendingPathComponent("full/items.jsonl"), encoding: .utf8).split(
            separator: "\n")
        let kept = items.count / 2
        #expect(kept >= 2)
        try (([header] + items.prefix(kept).map(String.init)).joined(separator: "\n") + "\n")
            .write(to: dir.appendingPathComponent(".resumed.sweep-partial.jsonl"), atomically: true, encoding: .utf8)
        let r = try runFencelab(
            common + ["--resume", "--progress", "--out", dir.appendingPathComponent("resumed").path])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.first?.hasPrefix("fencelab: resumed \(kept) finished work items") == true, "\(r.stderr)")
        #expect(lines.first?.hasSuffix("evaluating the remaining \(items.count - kept)") == true, "\(r.stderr)")
        #expect(lines.dropFirst().allSatisfy { !$0.contains("resumed") }, "said once, at the start: \(r.stderr)")
        #expect(
            lines.last?.hasPrefix("sweep items (grid point × drive) \(items.count)/\(items.count)") == true,
            "\(r.stderr)")
        for name in ["shard.json", "items.jsonl"] {
            #expect(
                try Data(contentsOf: dir.appendingPathComponent("full/\(name)"))
                    == Data(contentsOf: dir.appendingPathComponent("resumed/\(name)")))
        }
    }

    @Test func helpSaysWhichRadiusThresholdUses() throws {
        let r = try runFencelab(["sweep", "--help"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("For threshold and"))
        #expect(r.stdout.contains("--shard K/N"))
        let top = try runFencelab(["--help"])
        #expect(top.stdout.contains("sweep") && top.stdout.contains("merge"))
    }
}
