import Foundation
import Testing
import _TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The shipped cluster recipes (deploy/): parsed as YAML by an independent parser (PyYAML, the
/// test oracle; `.ci/run` installs python3-yaml), their shard arithmetic checked, and their
/// shell commands executed as written on a small scenario, merged byte-identical to an
/// unsharded run. The Slurm recipe runs on a real Slurm in scripts/slurm-e2e.sh.
@Suite struct DeployRecipeTests {
    static let root = TestPaths.packageRoot

    /// All YAML documents of `path` as JSON values, via PyYAML's safe loader.
    static func yamlDocuments(_ path: String) throws -> [Any] {
        let script = "import sys, json, yaml; json.dump(list(yaml.safe_load_all(open(sys.argv[1]))), sys.stdout)"
        let r = try runProcess(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, root.appendingPathComponent(path).path])
        #expect(r.status == 0, "\(path) is not valid YAML (or python3-yaml, the test oracle, is missing): \(r.stderr)")
        let value = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8), options: [.fragmentsAllowed])
        return value as? [Any] ?? []
    }

    static func dict(_ v: Any?) -> [String: Any] { v as? [String: Any] ?? [:] }
    static func list(_ v: Any?) -> [Any] { v as? [Any] ?? [] }

    /// `N` of the first `"<prefix>N"` in `text` (e.g. prefix `/` after the shard variable).
    static func number(after prefix: String, in text: String) -> Int? {
        guard let r = text.range(of: prefix) else { return nil }
        return Int(text[r.upperBound...].prefix { $0.isNumber })
    }

    /// A shell glob as download-artifact applies it to artifact names.
    static func globMatches(_ pattern: String, _ name: String) -> Bool { fnmatch(pattern, name, 0) == 0 }

    @Test func workflowMatrixMapsToZeroBasedShardsAndMergeTakesOnlyShardFolders() throws {
        let doc = Self.dict(try Self.yamlDocuments("deploy/github-actions/sweep.yml").first)
        #expect(doc["on"] != nil || doc["true"] != nil, "no trigger (PyYAML reads the key `on` as true)")
        let jobs = Self.dict(doc["jobs"])
        let sweep = Self.dict(jobs["sweep"])
        let matrix = Self.list(Self.dict(Self.dict(sweep["strategy"])["matrix"])["shard"]).compactMap { $0 as? Int }
        #expect(matrix.count >= 2)
        #expect(matrix == Array(0..<matrix.count), "matrix shards must be 0..N-1, got \(matrix)")
        let steps = Self.list(sweep["steps"]).map(Self.dict)
        let run = try #require(steps.compactMap { $0["run"] as? String }.first { $0.contains("fencelab sweep") })
        let n = Self.number(after: "--shard \"${{ matrix.shard }}/", in: run)
        #expect(n == matrix.count, "--shard K/N must use N = \(matrix.count) matrix entries: \(run)")
        for k in matrix {
            let concrete = run.replacingOccurrences(of: "${{ matrix.shard }}", with: "\(k)")
            #expect(concrete.contains("--shard \"\(k)/\(matrix.count)\""), "shard \(k): \(concrete)")
            #expect(concrete.contains("--out \"shards/\(k)\""))
        }
        let upload = Self.dict(
            steps.first { ($0["uses"] as? String)?.hasPrefix("actions/upload-artifact") == true }?["with"])
        #expect(upload["name"] as? String == "shard-${{ matrix.shard }}")
        #expect(upload["path"] as? String == "shards/${{ matrix.shard }}")

        let merge = Self.dict(jobs["merge"])
        let needs = (merge["needs"] as? String).map { [$0] } ?? Self.list(merge["needs"]).compactMap { $0 as? String }
        #expect(needs.contains("sweep"))
        let mergeSteps = Self.list(merge["steps"]).map(Self.dict)
        let download = try #require(mergeSteps.map { Self.dict($0["with"]) }.first { $0["pattern"] != nil })
        let pattern = try #require(download["pattern"] as? String)
        let folder = try #require(download["path"] as? String)
        for k in matrix { #expect(Self.globMatches(pattern, "shard-\(k)"), "\(pattern) misses shard-\(k)") }
        // Every other artifact of the workflow (binary, merged output) stays out of the glob.
        let otherNames = jobs.values.flatMap { Self.list(Self.dict($0)["steps"]).map(Self.dict) }
            .filter { ($0["uses"] as? String)?.hasPrefix("actions/upload-artifact") == true }
            .compactMap { Self.dict($0["with"])["name"] as? String }.filter { !$0.contains("matrix.shard") }
        #expect(otherNames.count >= 2)
        for name in otherNames { #expect(!Self.globMatches(pattern, name), "\(pattern) also takes artifact \(name)") }
        let mergeRun = try #require(
            mergeSteps.compactMap { $0["run"] as? String }.first { $0.contains("fencelab merge") })
        #expect(mergeRun.contains("fencelab merge \(folder) --out "), "\(mergeRun)")
        let out = String(mergeRun.components(separatedBy: "--out ")[1].prefix { !$0.isWhitespace })
        #expect(out != folder && !out.hasPrefix(folder + "/"), "the merge output \(out) must not be inside \(folder)")

        for job in jobs.values {
            for step in Self.list(Self.dict(job)["steps"]).map(Self.dict) {
                guard let text = step["run"] as? String, let install = text.range(of: "apt-get install") else {
                    continue
                }
                let update = text.range(of: "apt-get update")
                #expect(
                    update.map { $0.lowerBound < install.lowerBound } == true,
                    "apt-get install without apt-get update first: \(text)")
            }
        }
    }

    @Test func kubernetesIndexedJobAndMergeShareAReadWriteManyVolume() throws {
        let docs = try Self.yamlDocuments("deploy/k8s/sweep-job.yaml").map(Self.dict)
        let pvc = try #require(docs.first { $0["kind"] as? String == "PersistentVolumeClaim" })
        let claim = try #require(Self.dict(pvc["metadata"])["name"] as? String)
        #expect(Self.list(Self.dict(pvc["spec"])["accessModes"]).contains { $0 as? String == "ReadWriteMany" })
        let job = Self.dict(docs.first { $0["kind"] as? String == "Job" }?["spec"])
        #expect(job["completionMode"] as? String == "Indexed")
        let n = try #require(job["completions"] as? Int)
        #expect((job["parallelism"] as? Int ?? 0) <= n)
        let pod = Self.dict(Self.dict(job["template"])["spec"])
        let container = Self.dict(Self.list(pod["containers"]).first)
        let args = Self.list(container["args"]).compactMap { $0 as? String }.joined(separator: " ")
        #expect(
            Self.number(after: "--shard \"$JOB_COMPLETION_INDEX/", in: args) == n,
            "--shard K/N must use N = completions = \(n): \(args)")
        #expect(args.contains("--resume") && args.contains("--out \"out/shards/$JOB_COMPLETION_INDEX\""))
        #expect(args.contains("--jobs \"$CPU_LIMIT\""))
        let cpuEnv = Self.list(container["env"]).map(Self.dict).first { $0["name"] as? String == "CPU_LIMIT" }
        #expect(Self.dict(Self.dict(cpuEnv?["valueFrom"])["resourceFieldRef"])["resource"] as? String == "limits.cpu")
        #expect(container["workingDir"] as? String == "/work")
        #expect(Self.list(container["volumeMounts"]).map(Self.dict).first?["mountPath"] as? String == "/work/out")
        #expect(
            Self.dict(Self.dict(Self.list(pod["volumes"]).first)["persistentVolumeClaim"])["claimName"] as? String
                == claim)

        let merge = Self.dict(Self.dict(try Self.yamlDocuments("deploy/k8s/merge-job.yaml").first)["spec"])
        let mpod = Self.dict(Self.dict(merge["template"])["spec"])
        let mcontainer = Self.dict(Self.list(mpod["containers"]).first)
        let margs = Self.list(mcontainer["args"]).compactMap { $0 as? String }.joined(separator: "\n")
        #expect(
            margs.contains("out/shards/*/shard.json") && margs.contains("-ge \(n) "),
            "the merge must wait for \(n) finished shards: \(margs)")
        #expect(margs.contains("fencelab merge out/shards --out out/sweep"))
        #expect(mcontainer["workingDir"] as? String == "/work")
        #expect(Self.list(mcontainer["volumeMounts"]).map(Self.dict).first?["mountPath"] as? String == "/work/out")
        #expect(
            Self.dict(Self.dict(Self.list(mpod["volumes"]).first)["persistentVolumeClaim"])["claimName"] as? String
                == claim)

        let dockerfile = try String(
            contentsOf: Self.root.appendingPathComponent("deploy/k8s/Dockerfile"), encoding: .utf8)
        #expect(dockerfile.contains("COPY scenarios /work/scenarios") && dockerfile.contains("WORKDIR /work"))
    }

    /// The docs show the shipped files: every `deploy/…` path they name exists, and no recipe is
    /// written out in prose beside them (the old inline Slurm script did not work as written).
    @Test func docsNameOnlyShippedRecipeFiles() throws {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/-")
        var named = Set<String>()
        for doc in ["README.md", "docs/sweeps.md"] {
            let text = try String(contentsOf: Self.root.appendingPathComponent(doc), encoding: .utf8)
            var rest = text[...]
            while let r = rest.range(of: "deploy/") {
                var path = String(rest[r.lowerBound...].prefix { allowed.contains($0) })
                while path.hasSuffix(".") || path.hasSuffix("/") { path.removeLast() }
                named.insert(path)
                rest = rest[r.upperBound...]
            }
            #expect(!text.contains("#SBATCH"), "\(doc): Slurm directives belong in deploy/slurm/*.sbatch")
            #expect(!text.contains("completionMode: Indexed\n"), "\(doc): the Job belongs in deploy/k8s/sweep-job.yaml")
        }
        for file in ["deploy/slurm/submit.sh", "deploy/k8s/sweep-job.yaml", "deploy/github-actions/sweep.yml"] {
            #expect(named.contains(file), "the docs do not name \(file)")
        }
        for path in named {
            #expect(
                FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(path).path),
                "docs name \(path), which is not shipped")
        }
    }

    /// A working folder holding `scenarios/` with one short scenario (1 replicate), so the
    /// recipes' own grids run in seconds.
    static func workFolder(_ name: String) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-deploy-\(name)-\(getpid())")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("scenarios"), withIntermediateDirectories: true)
        let source = try String(contentsOf: root.appendingPathComponent("scenarios/urban-canyon.json"), encoding: .utf8)
        let short = source.replacingOccurrences(of: "\"replicates\": 20", with: "\"replicates\": 1")
        #expect(short != source, "urban-canyon.json no longer has \"replicates\": 20")
        try short.write(
            to: dir.appendingPathComponent("scenarios/urban-canyon.json"), atomically: true, encoding: .utf8)
        return dir
    }

    static func shell(_ script: String, in dir: URL, env: [String: String] = [:]) throws -> ProcessResult {
        var assignments = [
            "PATH=\(TestPaths.productsDirectory.path):\(ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")"
        ]
        for (k, v) in env.sorted(by: { $0.key < $1.key }) { assignments.append("\(k)=\(v)") }
        return try runProcess(
            URL(fileURLWithPath: "/usr/bin/env"), assignments + ["sh", "-c", script], currentDirectory: dir)
    }

    static func expectSameSweep(_ a: URL, _ b: URL) throws {
        for name in ["sweep.json", "sweep.csv", "sweep.md", "index.html"] {
            #expect(
                try Data(contentsOf: a.appendingPathComponent(name))
                    == Data(contentsOf: b.appendingPathComponent(name)), "\(name) differs")
        }
    }

    /// The pods' commands as written, for every index, then the merge pod's: byte-identical to one run.
    @Test func kubernetesCommandsAsWrittenMergeToTheUnshardedSweep() throws {
        let dir = try Self.workFolder("k8s")
        defer { try? FileManager.default.removeItem(at: dir) }
        let job = Self.dict(
            try Self.yamlDocuments("deploy/k8s/sweep-job.yaml").map(Self.dict).first {
                $0["kind"] as? String == "Job"
            }?["spec"])
        let n = try #require(job["completions"] as? Int)
        let container = Self.dict(Self.list(Self.dict(Self.dict(job["template"])["spec"])["containers"]).first)
        let script = try #require(Self.list(container["args"]).first as? String)
        // A mounted volume holds lost+found; a shard folder left by an earlier attempt does not matter.
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("out/shards/lost+found"), withIntermediateDirectories: true)
        for k in 0..<n {
            let r = try Self.shell(script, in: dir, env: ["JOB_COMPLETION_INDEX": "\(k)", "CPU_LIMIT": "1"])
            #expect(r.status == 0, "pod \(k): \(r.stderr)")
        }
        let merge = Self.dict(Self.dict(try Self.yamlDocuments("deploy/k8s/merge-job.yaml").first)["spec"])
        let mcontainer = Self.dict(Self.list(Self.dict(Self.dict(merge["template"])["spec"])["containers"]).first)
        let r = try Self.shell(try #require(Self.list(mcontainer["args"]).first as? String), in: dir)
        #expect(r.status == 0, "merge: \(r.stderr)")
        #expect(r.stderr.contains("lost+found"), "the ignored folder is named: \(r.stderr)")
        let whole = try Self.shell(
            script.replacingOccurrences(of: " --shard \"$JOB_COMPLETION_INDEX/\(n)\" --resume", with: "")
                .replacingOccurrences(of: "out/shards/$JOB_COMPLETION_INDEX", with: "whole"),
            in: dir, env: ["CPU_LIMIT": "2"])
        #expect(whole.status == 0, "\(whole.stderr)")
        try Self.expectSameSweep(dir.appendingPathComponent("whole"), dir.appendingPathComponent("out/sweep"))
    }

    /// The workflow's sweep step for every matrix entry, its artifacts laid out as
    /// download-artifact does (PATH/NAME/...), then its merge step.
    @Test func workflowStepsAsWrittenMergeToTheUnshardedSweep() throws {
        let dir = try Self.workFolder("gha")
        defer { try? FileManager.default.removeItem(at: dir) }
        let jobs = Self.dict(Self.dict(try Self.yamlDocuments("deploy/github-actions/sweep.yml").first)["jobs"])
        let sweep = Self.dict(jobs["sweep"])
        let matrix = Self.list(Self.dict(Self.dict(sweep["strategy"])["matrix"])["shard"]).compactMap { $0 as? Int }
        let run = try #require(
            Self.list(sweep["steps"]).compactMap { Self.dict($0)["run"] as? String }.first {
                $0.contains("fencelab sweep")
            })
        let fm = FileManager.default
        try fm.createDirectory(at: dir.appendingPathComponent("bin"), withIntermediateDirectories: true)
        try fm.copyItem(at: TestPaths.product("fencelab"), to: dir.appendingPathComponent("bin/fencelab"))
        let downloads = dir.appendingPathComponent("merge-job/shards")
        try fm.createDirectory(at: downloads, withIntermediateDirectories: true)
        for k in matrix {
            let r = try Self.shell(run.replacingOccurrences(of: "${{ matrix.shard }}", with: "\(k)"), in: dir)
            #expect(r.status == 0, "shard \(k): \(r.stderr)")
            try fm.copyItem(
                at: dir.appendingPathComponent("shards/\(k)"), to: downloads.appendingPathComponent("shard-\(k)"))
        }
        let mergeRun = try #require(
            Self.list(Self.dict(jobs["merge"])["steps"]).compactMap { Self.dict($0)["run"] as? String }
                .first { $0.contains("fencelab merge") })
        try fm.copyItem(at: dir.appendingPathComponent("bin"), to: dir.appendingPathComponent("merge-job/bin"))
        let r = try Self.shell(mergeRun, in: dir.appendingPathComponent("merge-job"))
        #expect(r.status == 0, "merge: \(r.stderr)")
        let whole = try Self.shell(
            run.replacingOccurrences(of: " --shard \"${{ matrix.shard }}/\(matrix.count)\"", with: "")
                .replacingOccurrences(of: "shards/${{ matrix.shard }}", with: "whole"), in: dir)
        #expect(whole.status == 0, "\(whole.stderr)")
        try Self.expectSameSweep(dir.appendingPathComponent("whole"), dir.appendingPathComponent("merge-job/sweep"))
    }
}
