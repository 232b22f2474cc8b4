import Foundation
import GSLKit
import GeoPolicy
import Testing
import _TestSupport

@testable import FenceLab
@testable import FenceLabSweep
@testable import _FenceLabSupport

/// Short scenarios in a fresh temporary folder, and helpers to run sweeps into it.
private struct SweepFixture {
    let root: URL

    /// `edge-loiter-100m` and `urban-canyon` from the catalog, shortened to `duration_s` with `replicates`.
    init(_ tag: String, duration_s: Double = 300, replicates: Int = 3) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-sweep-\(tag)-\(getpid())")
        try? FileManager.default.removeItem(at: root)
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("scenarios"), withIntermediateDirectories: true)
        for name in ["edge-loiter-100m", "urban-canyon"] {
            let data = try Data(contentsOf: TestPaths.packageRoot.appendingPathComponent("scenarios/\(name).json"))
            var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            var sampling = try #require(object["sampling"] as? [String: Any])
            sampling["duration_s"] = min(duration_s, sampling["duration_s"] as? Double ?? duration_s)
            object["sampling"] = sampling
            object["replicates"] = replicates
            let out = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            try out.write(to: root.appendingPathComponent("scenarios/\(name).json"))
        }
    }

    var scenarios: String { root.appendingPathComponent("scenarios").path }
    func path(_ name: String) -> String { root.appendingPathComponent(name).path }

    func request(shard: Shard? = nil, jobs: Int = 2) throws -> SweepRequest {
        let grid = try SweepGrid(
            kind: .hysteresis, enter: SweepRange(parsing: "70:90:10", option: "--enter"),
            exit: SweepRange(parsing: "110:130:10", option: "--exit"), maxAccuracy: [30], confirm: [1, 2])
        var r = SweepRequest(grid: grid)
        r.paths = [scenarios]
        r.shard = shard
        r.jobs = jobs
        return r
    }

    func files(_ folder: String) throws -> [String: Data] {
        var out: [String: Data] = [:]
        for name in SweepOutput.fileNames {
            out[name] = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
        }
        return out
    }
}

/// The `what` of the `SweepError.mismatch` that `body` throws, or nil.
/// Sweeps every shard K/`count` of the fixture's request into `fx.path("sK")`.
private func shardFolders(_ fx: SweepFixture, count: Int) throws -> [String] {
    try (0..<count).map { k in
        _ = try SweepJob.sweep(try fx.request(shard: Shard(index: k, count: count), jobs: 1), out: fx.path("s\(k)"))
        return fx.path("s\(k)")
    }
}

private func mismatch(_ body: () throws -> Any) -> String? {
    do { _ = try body() } catch let error as SweepError {
        if case .mismatch(let what, _, _, _) = error { return what }
    } catch {}
    return nil
}

@Suite(.serialized) struct SweepTests {
    /// The files stream into the output folder through `FileSink` (64 KiB writes); they must be
    /// the bytes the same renderers give in memory, and sweep.json must be complete JSON with one
    /// point and one result per grid point and scenario.
    @Test func streamedFilesEqualInMemoryRendering() throws {
        let fx = try SweepFixture("stream", replicates: 2)
        defer { try? FileManager.default.removeItem(at: fx.root) }
        // 9 × 9 × 2 × 2 = 324 settings: index.html and sweep.json outgrow one buffer.
        var request = SweepRequest(
            grid: try SweepGrid(
                kind: .hysteresis, enter: SweepRange(parsing: "60:100:5", option: "--enter"),
                exit: SweepRange(parsing: "110:150:5", option: "--exit"),
                maxAccuracy: [20, 30], confirm: [1, 2]))
        request.paths = [fx.scenarios]
        let s = try #require(try SweepJob.sweep(request, out: fx.path("out")).summary)
        let written = try fx.files(fx.path("out"))
        #expect(written["sweep.json"] == Data(SweepOutput.json(s).utf8))
        #expect(written["sweep.csv"] == Data(SweepOutput.csv(s).utf8))
        #expect(written["index.html"] == Data(SweepHTML.render(s).utf8))
        #expect((written["index.html"]?.count ?? 0) > FileSink.flushBytes, "the page spans several buffered writes")
        let jsonData = try #require(written["sweep.json"])
        let json = try #require(try JSONSerialization.jsonObject(with: jsonData) as? [String: Any])
        #expect((json["points"] as? [Any])?.count == s.manifest.points.count)
        let scenarios = try #require(json["scenarios"] as? [[String: Any]])
        #expect(scenarios.count == s.scenarios.count)
        for sc in scenarios { #expect((sc["results"] as? [Any])?.count == s.manifest.points.count) }
    }

    /// The page's heading names the inputs the grid's points decide on when there is more than
    /// one. It reads a filtered input from the grid's stages instead of passing over the points;
    /// the kinds must be those a pass over the points finds, also when the seeds' setting the grid
    /// gains (raw) is the only raw point.
    @Test func pageNamesTheInputsOfThePoints() throws {
        let fx = try SweepFixture("inputs", duration_s: 60, replicates: 1)
        defer { try? FileManager.default.removeItem(at: fx.root) }
        let cases: [[FenceInput.Kind]] = [[.raw], [.kalman], [.raw, .imm], [.kalman, .imm], [.raw, .kalman, .imm]]
        for (k, inputs) in cases.enumerated() {
            var request = try fx.request()
            request.grid = try SweepGrid(
                kind: .hysteresis, enter: SweepRange(parsing: "60:100:20", option: "--enter"),
                exit: SweepRange(parsing: "110:130:20", option: "--exit"), maxAccuracy: [20], confirm: [1],
                inputs: inputs, kalmanQ: [0.5], limit: nil)
            let s = try #require(try SweepJob.sweep(request, out: fx.path("out\(k)")).summary)
            let points = s.manifest.points
            let used = FenceInput.Kind.allCases.filter { kind in points.indices.contains { points[$0].input == kind } }
            let page = SweepHTML.render(s)
            if used.count > 1 {
                #expect(page.contains("(\(used.map(\.rawValue).joined(separator: ", ")) inputs)"), "\(inputs)")
            } else {
                #expect(!page.contains(" inputs)"), "\(inputs)")
            }
            if inputs == [.kalman] { #expect(used == [.raw, .kalman], "the seeds' raw setting is added") }
        }
    }

    /// The manifest (resume-file header, shard.json) is encoded 1024 points at a time and spliced;
    /// the bytes must be those of one `JSONEncoder` run over the whole manifest, compact and pretty,
    /// for grids just above and far above one piece, with filtered inputs (q present) among them.
    @Test func manifestInPiecesEqualsOneEncoderRun() throws {
        let fx = try SweepFixture("manifest", duration_s: 60, replicates: 1)
        defer { try? FileManager.default.removeItem(at: fx.root) }
        for (exit, inputs) in [("101:1125:1", [FenceInput.Kind.raw]), ("101:300:1", [.raw, .kalman])] {
            var request = try fx.request()
            request.grid = try SweepGrid(
                kind: .hysteresis, enter: SweepRange(parsing: "60:100:20", option: "--enter"),
                exit: SweepRange(parsing: exit, option: "--exit"), maxAccuracy: [20, 30], confirm: [1, 3],
                inputs: inputs, kalmanQ: [0.5], limit: nil)
            let m = try SweepPlan.prepare(request).manifest
            #expect(m.points.count > SweepManifest.pointsPerPiece)
            for pretty in [false, true] {
                var pieces = 0
                m.encode(pretty: pretty) { _ in pieces += 1 }
                #expect(pieces > 3, "spliced, not encoded whole")
                let whole = SweepManifest.encodeWhole(m, pretty: pretty)
                #expect(m.encoded(pretty: pretty) == whole)
                // The pieces encoded on several threads, emitted in order: the same bytes.
                for jobs in [2, 3] {
                    var text = ""
                    m.encode(pretty: pretty, jobs: jobs) { text += $0 }
                    #expect(text == whole, "jobs \(jobs)")
                }
            }
        }
    }

    /// A grid of a few points takes the same splice (one piece after the head): the bytes of one
    /// `JSONEncoder` run, compact and pretty, down to the smallest manifest (one grid point and
    /// the seeds' 80/120/30 it is set against).
    @Test func smallManifestSplicedEqualsOneEncoderRun() throws {
        let fx = try SweepFixture("manifest-small", duration_s: 60, replicates: 1)
        defer { try? FileManager.default.removeItem(at: fx.root) }
        let grids: [(enter: String, accuracies: [Double], confirm: [Int], inputs: [FenceInput.Kind], points: Int)] = [
            ("60:60:20", [20], [1], [.raw], 2), ("60:60:20", [20, 30], [1], [.raw], 3),
            ("60:100:20", [20, 30], [1, 3], [.raw, .kalman], 25),
        ]
        for g in grids {
            var request = try fx.request()
            request.grid = try SweepGrid(
                kind: .hysteresis, enter: SweepRange(parsing: g.enter, option: "--enter"),
                exit: SweepRange(parsing: "101:101:1", option: "--exit"), maxAccuracy: g.accuracies,
                confirm: g.confirm, inputs: g.inputs, kalmanQ: [0.5], limit: nil)
            let m = try SweepPlan.prepare(request).manifest
            #expect(m.points.count == g.points)
            for pretty in [false, true] {
                var pieces = 0
                m.encode(pretty: pretty) { _ in pieces += 1 }
                #expect(pieces == 3, "\(g.points) points: head, one piece, tail")
                #expect(m.encoded(pretty: pretty) == SweepManifest.encodeWhole(m, pretty: pretty))
            }
        }
    }

    /// A manifest over 1 MiB is read in pieces (the object without its points, then 1024 points
    /// at a time): the same manifest as the whole reading, and for a broken text the same error.
    @Test func largeManifestDecodesInPiecesAsWhole() throws {
        let fx = try SweepFixture("manifest-read", duration_s: 60, replicates: 1)
        defer { try? FileManager.default.removeItem(at: fx.root) }
        var request = try fx.request()
        request.grid = try SweepGrid(
            kind: .hysteresis, enter: SweepRange(parsing: "60:100:20", option: "--enter"),
            exit: SweepRange(parsing: "101:1125:1", option: "--exit"), maxAccuracy: [20, 30], confirm: [1, 3],
            inputs: [.raw], kalmanQ: [0.5], limit: nil)
        let m = try SweepPlan.prepare(request).manifest
        let text = m.encoded(pretty: true)
        let data = Array(text.utf8)
        #expect(data.count > SweepManifest.piecewiseThreshold_bytes)
        let pieces = try #require(try SweepManifest.decodeInPieces(data, file: "shard.json"))
        #expect(pieces == m)
        #expect(try SweepManifest.decode(data, file: "shard.json") == m)
        #expect(
            try SweepManifest.decodeInPieces(Array(SweepManifest.encodeWhole(m, pretty: false).utf8), file: "s") == m)
        // Broken texts: the piecewise reading refuses them with the whole reading's message.
        let lastPoint = try #require(text.range(of: "}\n  ],", options: .backwards))
        let firstPoint = try #require(text.range(of: "\"points\" : [\n"))
        let broken = [
            text.replacingCharacters(in: lastPoint, with: "},\n  ],"),  // trailing comma
            text.replacingCharacters(in: firstPoint, with: "\"points\" : [\n,"),  // leading comma
            text.replacingCharacters(in: firstPoint, with: "\"points\" : [], \"points\" : [\n"),  // duplicate key
            text.replacingOccurrences(of: "\"enter_m\" : 60,", with: "\"enter_m\" : 060,"),  // number grammar
            text.replacingOccurrences(of: "\"enter_m\" : 80,", with: "\"enter_m\" : \"80\","),  // type
            String(text.dropLast(40)),  // truncated
        ]
        for b in broken {
            let bad = Array(b.utf8)
            var whole: SweepError?
            var piecewise: SweepError?
            do { _ = try SweepManifest.decodeWhole(bad, file: "shard.json") } catch { whole = error }
            do { _ = try SweepManifest.decode(bad, file: "shard.json") } catch { piecewise = error }
            #expect(
                whole != nil && piecewise == whole, "\(String(describing: piecewise)) vs \(String(describing: whole))")
        }
    }

    /// Cells kept in memory (small grids) and cells computed from the records when asked (large
    /// grids, budget 0 here) are the same cells, frontiers and mix.
    @Test func keptCellsEqualCellsComputedOnDemand() throws {
        let fx = try SweepFixture("kept-cells")
        defer { try? FileManager.default.removeItem(at: fx.root) }
        let run = try SweepJob.sweep(try fx.request(), out: fx.path("out")).run
        let kept = try SweepSummary.make(manifest: run.manifest, store: run.records)
        let onDemand = try SweepSummary.make(manifest: run.manifest, store: run.records, keepingCellsUpTo: 0)
        #expect(kept.scenarios.allSatisfy { $0.cells.kept != nil })
        #expect(onDemand.scenarios.allSatisfy { $0.cells.kept == nil })
        for (k, d) in zip(kept.scenarios, onDemand.scenarios) {
            #expect(Array(k.cells) == Array(d.cells))
            #expect(k.frontier == d.frontier && k.frontierByLatency == d.frontierByLatency)
        }
        #expect(kept.mix == onDemand.mix)
    }

    @Test func shardsMergeByteIdenticalToOneRun() throws {
        let fx = try SweepFixture("shards")
        defer { try? FileManager.default.removeItem(at: fx.root) }
        let whole = try SweepJob.sweep(try fx.request(), out: fx.path("whole"))
        let expected = try fx.files(fx.path("whole"))
        #expect(whole.run.evaluatedItems + whole.run.resumedItems == whole.run.manifest.items)
        #expect(
            whole.run.records.count == whole.run.manifest.items
                && whole.run.records.storedCount == whole.run.manifest.items)
        let left = try FileManager.default.contentsOfDirectory(atPath: fx.root.path).filter {
            $0.contains("sweep-records")
        }
        #expect(left.isEmpty, "the records' scratch file is unlinked at once: \(left)")
        #expect(expected["sweep.csv"].map { $0.count > 100 } == true)
        for n in [1, 2, 3, 7] {
            var folders: [String] = []
            for k in 0..<n {
                let folder = fx.path("shard-\(n)-\(k)")
                _ = try SweepJob.sweep(try fx.request(shard: Shard(index: k, count: n), jobs: 1), out: folder)
                folders.append(folder)
            }
            _ = try SweepJob.merge(folders: folders.reversed(), out: fx.path("merged-\(n)"))
            let merged = try fx.files(fx.path("merged-\(n)"))
            for name in SweepOutput.fileNames { #expect(merged[name] == expected[name], "N = \(n): \(name) differs") }
        }
    }

    @Test func mergeRefusesMixedIncompleteAndDuplicateShards() throws {
        let fx = try SweepFixture("refuse", duration_s: 120, replicates: 2)
        defer { try? FileManager.default.removeItem(at: fx.root) }
        let folders = try shardFolders(fx, count: 3)
        #expect(throws: SweepError.missingShards(count: 3, missing: [1])) {
            try SweepMerge.load(folders: [folders[0], folders[2]])
        }
        #expect(throws: SweepError.duplicateShard(index: 2, count: 3, first: folders[2], second: folders[2])) {
            try SweepMerge.load(folders: [folders[0], folders[2], folders[2], folders[1]])
        }
        var other = try fx.request(shard: Shard(index: 1, count: 3), jobs: 1)
        other.seed = 99
        _ = try SweepJob.sweep(other, out: fx.path("other-seed"))
        #expect(mismatch { try SweepMerge.load(folders: [folders[0], fx.path("other-seed"), folders[2]]) } == "seed")
        var wider = try fx.request(shard: Shard(index: 1, count: 3), jobs: 1)
        wider.grid = try SweepGrid(
            kind: .hysteresis, enter: SweepRange(values: [70]), exit: SweepRange(values: [130]),
            maxAccuracy: [30], confirm: [1])
        _ = try SweepJob.sweep(wider, out: fx.path("other-grid"))
        #expect(mismatch { try SweepMerge.load(folders: [folders[0], fx.path("other-grid"), folders[2]]) } == "grid")
        // A shard folder whose records lost their last lines is incomplete.
        let items = URL(fileURLWithPath: folders[1] + "/items.jsonl")
        let lines = try String(contentsOf: items, encoding: .utf8).split(separator: "\n")
        try (lines.dropLast().joined(separator: "\n") + "\n").write(to: items, atomically: true, encoding: .utf8)
        #expect(throws: SweepError.incompleteShard(folder: folders[1], expected: lines.count, found: lines.count - 1)) {
            try SweepMerge.load(folders: folders)
        }
        // Nothing was written by the refused merges.
        #expect(!FileManager.default.fileExists(atPath: fx.path("merged")))
    }

    /// items.jsonl is read in pieces with the checks of the whole-file reader: a malformed line is
    /// named before an item that does not belong, then the first item out of place or given twice,
    /// and a valid last line without its newline counts.
    @Test func mergeChecksEveryItemLineInOrder() throws {
        let fx = try SweepFixture("items", duration_s: 120, replicates: 2)
        defer { try? FileManager.default.removeItem(at: fx.root) }
        let folders = try shardFolders(fx, count: 2)
        let items = URL(fileURLWithPath: folders[1] + "/items.jsonl")
        let original = try String(contentsOf: items, encoding: .utf8)
        let lines = original.split(separator: "\n").map(String.init)
        #expect(lines.count >= 3)
        func load(_ text: String) throws -> (SweepManifest, SweepRecordStore) {
            try text.write(to: items, atomically: true, encoding: .utf8)
            return try SweepMerge.load(folders: folders)
        }
        let file = items.path
        // Shard 0's first item (0) given in shard 1 on line 2 (with its checksum: a line that
        // proves itself, of another shard), a duplicate on line 3.
        var moved = try SweepRecord(parsing: lines[0][...], file: file, line: 1)
        #expect(moved.item == 1)
        moved.item = 0
        let foreign = moved.jsonLine
        #expect(
            throws: SweepError.badRecord(
                file: file, line: 2,
                reason: "item 0 is not one of shard 1/2's items (those with item mod 2 = 1)")
        ) {
            try load(([lines[0], foreign] + lines.dropFirst() + [""]).joined(separator: "\n"))
        }
        #expect(
            throws: SweepError.badRecord(file: file, line: 3, reason: "item 1 appears twice")
        ) {
            try load(([lines[0], lines[1], lines[0]] + lines.dropFirst(2) + [""]).joined(separator: "\n"))
        }
        // A malformed later line wins over an earlier misplaced item.
        do {
            _ = try load(([lines[0], foreign, "{\"item\":"] + lines.dropFirst() + [""]).joined(separator: "\n"))
            Issue.record("a malformed line was accepted")
        } catch let SweepError.badRecord(f, line, _) {
            #expect(f == file && line == 3)
        }
        // A count changed by hand no longer matches the line's checksum.
        let edited = lines[1].replacingOccurrences(of: "\"transitions\":", with: "\"transitions\":1")
        #expect(edited != lines[1])
        do {
            _ = try load(([lines[0], edited] + lines.dropFirst(2) + [""]).joined(separator: "\n"))
            Issue.record("an edited record was accepted")
        } catch let SweepError.badRecord(f, line, reason) {
            #expect(f == file && line == 2 && reason.hasPrefix("checksum mismatch"), "\(reason)")
        }
        // The last line without its newline is read (and so the shard is complete).
        let (_, store) = try load(lines.joined(separator: "\n"))
        #expect(store.storedCount == store.count)
        // CR LF line ends (JSON whitespace, docs/report-format.md) give the same records.
        let (_, lf) = try load(original)
        let (_, crlf) = try load(lines.map { $0 + "\r\n" }.joined())
        #expect(crlf.storedCount == lf.count)
        for k in 0..<lf.count { #expect(try crlf.record(k) == lf.record(k)) }
        try original.write(to: items, atomically: true, encoding: .utf8)
    }

    @Test func recommendedPointIsOnTheMixFrontier() throws {
        let fx = try SweepFixture("frontier")
        defer { try? FileManager.default.removeItem(at: fx.root) }
        let summary = try #require(try SweepJob.sweep(try fx.request(), out: fx.path("out")).summary)
        if let r = summary.mix.recommended {
            #expect(
                summary.mix.frontier.contains(r),
                "recommended \(r) not on the mix frontier \(summary.mix.frontier.sorted())")
            #expect(summary.mix.points[r].feasible)
        } else {
            let anyFeasible = summary.mix.points.contains { $0.feasible }
            #expect(!anyFeasible)
        }
        // The same property on seeded random mix points, including ties and infeasible points.
        let rng = try RandomSource(seed: 2024)
        for _ in 0..<200 {
            let points = (0..<12).map { i -> MixPoint in
                let recall = Double(Int(rng.uniform() * 3)) * 0.05 + 0.9
                let latency = Double(Int(rng.uniform() * 5)) * 20
                var violations: [MixViolation] = []
                if recall < 0.95 { violations.append(MixViolation(constraint: .recall, scenario: 0, value: recall)) }
                if latency > 60 { violations.append(MixViolation(constraint: .latency, scenario: 0, value: latency)) }
                return MixPoint(
                    point: i, unwantedPerHour: Double(Int(rng.uniform() * 4)), worstEntryP95_s: latency,
                    worstRecall: recall, matchedVisits: 1, violations: violations)
            }
            if let r = points.filter(\.feasible).min(by: SweepMix.better) {
                #expect(SweepMix.mixFrontier(points).contains(r.point))
            }
        }
    }

    /// Nested hysteresis bands on the same drives: the wider one never switches more. The
    /// truth loiters 85…115 m from the centre, inside every band here, so every observed
    /// transition is spurious.
    @Test func widerBandIsNoMoreSpuriousOnEdgeLoiter() throws {
        var run = RunRequest()
        run.paths = [TestPaths.packageRoot.appendingPathComponent("scenarios/edge-loiter-100m.json").path]
        run.replicates = 4
        let spec = try #require(try ScenarioRunner.prepare(run).first).spec
        let bands: [(Double, Double)] = [(85, 115), (80, 120), (75, 125), (70, 130), (60, 140)]
        let settings = EvaluationSettings()
        var narrowestTotal = 0
        for r in 0..<spec.replicates {
            let drive = try SweepDrive(spec: spec, replicate: r)
            let records = try bands.map { e, x in
                try drive.evaluate(
                    SweepPoint(kind: .hysteresis, enter_m: e, exit_m: x, maxAccuracy_m: 30, confirm_n: 1), item: 0,
                    settings: settings)
            }
            narrowestTotal += records[0].spurious
            for (narrow, wide) in zip(records, records.dropFirst()) {
                #expect(wide.truthTransitions == 0)
                #expect(wide.spurious <= narrow.spurious, "replicate \(r): \(wide.spurious) > \(narrow.spurious)")
            }
        }
        #expect(narrowestTotal > 0, "the narrowest band should flutter on this scenario")
    }

    @Test func resumeAfterInterruptionEqualsUninterruptedRun() throws {
        let fx = try SweepFixture("resume")
        defer { try? FileManager.default.removeItem(at: fx.root) }
        _ = try SweepJob.sweep(try fx.request(), out: fx.path("straight"))
        let expected = try fx.files(fx.path("straight"))

        var interrupted = try fx.request(jobs: 1)
        interrupted.checkpointAfter_s = 0
        interrupted.stopAfterUnits = 2
        #expect(throws: SweepError.interrupted(afterUnits: 2)) {
            try SweepJob.sweep(interrupted, out: fx.path("resumed"))
        }
        #expect(!FileManager.default.fileExists(atPath: fx.path("resumed")), "no final output after an interruption")
        let partial = SweepRunner.partialPath(out: fx.path("resumed"))
        // A torn last line, as a kill in the middle of an append leaves.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: partial))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("{\"item\":9,\"spur".utf8))
        try handle.close()

        var resumed = try fx.request()
        resumed.resume = true
        let announced = ResumeCalls()
        resumed.onResume = { n, left, file in announced.append(n, left, file) }
        let outcome = try SweepJob.sweep(resumed, out: fx.path("resumed"))
        let perUnit = outcome.run.manifest.points.count
        #expect(announced.calls.count == 1)
        #expect(announced.calls.first?.resumed == 2 * perUnit)
        #expect(announced.calls.first?.remaining == outcome.run.manifest.items - 2 * perUnit)
        #expect(announced.calls.first?.file == partial)
        #expect(outcome.run.resumedItems == 2 * perUnit)
        #expect(outcome.run.evaluatedItems == outcome.run.manifest.items - 2 * perUnit)
        #expect(try fx.files(fx.path("resumed")) == expected)
        #expect(!FileManager.default.fileExists(atPath: partial), "the resume file is removed after success")

        // A resume file of another sweep is refused, not mixed in.
        var other = try fx.request(jobs: 1)
        other.checkpointAfter_s = 0
        other.stopAfterUnits = 1
        other.seed = 5
        #expect(throws: SweepError.interrupted(afterUnits: 1)) { try SweepJob.sweep(other, out: fx.path("mixed")) }
        var again = try fx.request()
        again.resume = true
        #expect(throws: SweepError.partialMismatch(file: SweepRunner.partialPath(out: fx.path("mixed")))) {
            try SweepJob.sweep(again, out: fx.path("mixed"))
        }
    }

    /// A resume file started late (`checkpointAfter_s`) holds the records finished before it
    /// once each, then the later ones: here the clock passes the wait after two work units, the
    /// third starts the file, the fourth is appended, the fifth interrupts; resuming gives the
    /// uninterrupted run's bytes. Short of the default wait the same interrupted run keeps no file.
    @Test func aResumeFileStartedLateHoldsEveryFinishedRecordOnce() throws {
        let fx = try SweepFixture("resume-late")
        defer { try? FileManager.default.removeItem(at: fx.root) }
        _ = try SweepJob.sweep(try fx.request(), out: fx.path("straight"))
        let expected = try fx.files(fx.path("straight"))
        let pieces = Locked(0)
        var interrupted = try fx.request(jobs: 1)
        interrupted.checkpointAfter_s = 10
        interrupted.checkpointClock = {
            pieces.withLock { read in
                read += 1
                return read <= 2 ? 0 : 60
            }
        }
        interrupted.stopAfterUnits = 4
        #expect(throws: SweepError.interrupted(afterUnits: 4)) { try SweepJob.sweep(interrupted, out: fx.path("o")) }
        #expect(pieces.withLock { $0 } == 3, "the clock is read until the file is started")
        let partial = SweepRunner.partialPath(out: fx.path("o"))
        let lines = try String(contentsOfFile: partial, encoding: .utf8).split(separator: "\n").dropFirst()
        let items = try lines.map { line in
            try #require(
                (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["item"] as? Int)
        }
        var resumed = try fx.request()
        resumed.resume = true
        let outcome = try SweepJob.sweep(resumed, out: fx.path("o"))
        let perUnit = outcome.run.manifest.points.count
        #expect(items.count == 4 * perUnit)
        #expect(Set(items).count == items.count, "each finished record once")
        #expect(outcome.run.resumedItems == 4 * perUnit)
        #expect(try fx.files(fx.path("o")) == expected)

        var early = try fx.request(jobs: 1)
        early.checkpointClock = { 1.9 }  // always short of the default wait
        early.stopAfterUnits = 4
        #expect(throws: SweepError.interrupted(afterUnits: 4)) { try SweepJob.sweep(early, out: fx.path("e")) }
        #expect(!FileManager.default.fileExists(atPath: SweepRunner.partialPath(out: fx.path("e"))))
    }

    /// A resume file whose line ends became CR LF (an editor, a converting copy) is the same
    /// sweep: it resumes, and the outputs equal the uninterrupted run's.
    @Test func resumeFileWithCRLFLineEndsResumes() throws {
        let fx = try SweepFixture("resume-crlf")
        defer { try? FileManager.default.removeItem(at: fx.root) }
        _ = try SweepJob.sweep(try fx.request(), out: fx.path("straight"))
        let expected = try fx.files(fx.path("straight"))
        var interrupted = try fx.request(jobs: 1)
        interrupted.checkpointAfter_s = 0
        interrupted.stopAfterUnits = 2
        #expect(throws: SweepError.interrupted(afterUnits: 2)) { try SweepJob.sweep(interrupted, out: fx.path("crlf")) }
        let partial = SweepRunner.partialPath(out: fx.path("crlf"))
        let text = try String(contentsOfFile: partial, encoding: .utf8)
        try #require(text.contains("\n") && !text.contains("\r"))
        try text.replacingOccurrences(of: "\n", with: "\r\n").write(toFile: partial, atomically: true, encoding: .utf8)
        var resumed = try fx.request()
        resumed.resume = true
        let outcome = try SweepJob.sweep(resumed, out: fx.path("crlf"))
        #expect(outcome.run.resumedItems == 2 * outcome.run.manifest.points.count)
        #expect(try fx.files(fx.path("crlf")) == expected)
    }

    /// Every record of the resume file proves itself: a changed count, a duplicate (also one
    /// placed before the original) and an item outside the sweep are refused naming the line.
    @Test func resumeRefusesEditedDuplicatedAndForeignRecordsNamingTheLine() throws {
        let fx = try SweepFixture("resume-proof")
        defer { try? FileManager.default.removeItem(at: fx.root) }
        var interrupted = try fx.request(jobs: 1)
        interrupted.checkpointAfter_s = 0
        interrupted.stopAfterUnits = 2
        #expect(throws: SweepError.interrupted(afterUnits: 2)) { try SweepJob.sweep(interrupted, out: fx.path("o")) }
        let partial = SweepRunner.partialPath(out: fx.path("o"))
        let original = try String(contentsOfFile: partial, encoding: .utf8)
        let lines = original.split(separator: "\n").map(String.init)
        try #require(lines.count >= 4)
        var resumed = try fx.request()
        resumed.resume = true
        func refusal(_ body: [String]) throws -> (line: Int, reason: String)? {
            try ((body + [""]).joined(separator: "\n")).write(toFile: partial, atomically: true, encoding: .utf8)
            do {
                _ = try SweepJob.sweep(resumed, out: fx.path("o"))
                return nil
            } catch let SweepError.badRecord(file, line, reason) {
                #expect(file == partial)
                return (line, reason)
            }
        }
        // "transitions":N → "transitions":1N on the third line (the second record).
        let edited = lines[2].replacingOccurrences(of: "\"transitions\":", with: "\"transitions\":1")
        #expect(edited != lines[2])
        let changed = try refusal([lines[0], lines[1], edited] + lines.dropFirst(3))
        #expect(
            changed?.line == 3 && changed?.reason.hasPrefix("checksum mismatch") == true,
            "\(String(describing: changed))")
        // A conflicting duplicate before the original: refused, never taken instead of it.
        var twin = try SweepRecord(parsing: lines[2][...], file: partial, line: 3)
        twin.spurious += 5
        let duplicate = try refusal([lines[0], twin.jsonLine] + lines.dropFirst(1))
        #expect(duplicate?.line == 4 && duplicate?.reason == "item \(twin.item) appears twice")
        // An item past the sweep's last.
        var far = twin
        far.item = 1_000_000
        let outside = try refusal([lines[0], far.jsonLine] + lines.dropFirst(1))
        #expect(outside?.line == 2 && outside?.reason.hasPrefix("item 1000000 is outside the sweep") == true)
        #expect(!FileManager.default.fileExists(atPath: fx.path("o")), "nothing written by a refused resume")
        #expect(FileManager.default.fileExists(atPath: partial), "the resume file is kept")
    }

    @Test func recordsAndManifestsRoundTripExactly() throws {
        let awkward: [Double?] = [0.1 + 0.2, -1e-300, Double.leastNonzeroMagnitude, 123456.789e10, -0.0, nil, 1 / 3]
        for (i, v) in awkward.enumerated() {
            var r = SweepRecord(
                item: i, spurious: 3, missed: 0, flaps: 1, transitions: 4, truthTransitions: 2,
                latencyMedian_s: v, latencyP95_s: v.map { $0 * 7 })
            r.trueVisits = 2
            r.matchedVisits = 1
            r.falseVisits = 5
            r.fragments = 7
            r.earlyEntries = 1
            r.entryLatencyP95_s = v.map { -$0 }
            r.lateEntryP95_s = v
            r.exitLatencyP95_s = v.map { $0 / 3 }
            r.filterRMSE_m = v.map { abs($0) * 5 }
            let back = try SweepRecord(parsing: Substring(r.jsonLine), file: "t", line: 1)
            #expect(back.jsonLine == r.jsonLine)
            #expect(back.filterRMSE_m?.bitPattern == r.filterRMSE_m?.bitPattern)
            #expect(
                back.entryLatencyP95_s?.bitPattern == r.entryLatencyP95_s?.bitPattern && back.fragments == 7
                    && back.trueVisits == 2)
            #expect(back.latencyMedian_s?.bitPattern == r.latencyMedian_s?.bitPattern && back.item == r.item)
            #expect(back.latencyP95_s?.bitPattern == r.latencyP95_s?.bitPattern)
        }
        #expect(throws: SweepError.self) { try SweepRecord(parsing: "{\"item\":1}", file: "t", line: 3) }
        // The line ends in its checksum: the CRC-32C of the bytes before `,"sum"`, computed here
        // bit by bit (the definition, not the tables).
        let line = awkwardLine()
        let cut = try #require(line.range(of: #","sum":""#))
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in line[..<cut.lowerBound].utf8 {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        }
        let hex = String(crc ^ 0xFFFF_FFFF, radix: 16)
        let digest = String(repeating: "0", count: 8 - hex.count) + hex
        #expect(line.hasSuffix(#","sum":"\#(digest)"}"#), "\(line)")
        let forged = line.replacingOccurrences(of: digest, with: String(repeating: "0", count: 8))
        #expect(throws: SweepError.self) { try SweepRecord(parsing: forged[...], file: "t", line: 4) }
        let grid = try SweepGrid(
            kind: .threshold, enter: SweepRange(parsing: "0.1:0.7:0.3", option: "--enter"), exit: nil,
            maxAccuracy: [30], confirm: [1, 3], inputs: [.raw, .imm], kalmanQ: [0.1 + 0.2])
        let m = SweepManifest(
            toolVersion: "t", rule: .threshold, points: grid.points,
            scenarios: [
                SweepScenario(
                    name: "a", sha256: "00", seed: 3, replicates: 2, generator: "mt19937",
                    duration_s: 600, weight: 2.5)
            ],
            window_s: 60, maxFixAge_s: 30, maxLatency_s: 45.5, minRecall: 0.9, matchSlack_s: 60,
            shard: 1, shards: 4, items: 2 * grid.points.count)
        let back = try SweepManifest.decode(Array(m.encoded(pretty: true).utf8), file: "shard.json")
        #expect(back == m)
        #expect(grid.referenceIndex != nil, "80/120/30 is evaluated for every rule kind")
    }
}

/// The calls of `SweepRequest.onResume`.
final class ResumeCalls: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [(resumed: Int, remaining: Int, file: String)] = []
    var calls: [(resumed: Int, remaining: Int, file: String)] {
        lock.lock()
        defer { lock.unlock() }
        return list
    }
    func append(_ resumed: Int, _ remaining: Int, _ file: String) {
        lock.lock()
        list.append((resumed, remaining, file))
        lock.unlock()
    }
}

/// A record line with every kind of value, for the checksum tests.
private func awkwardLine() -> String {
    var r = SweepRecord(
        item: 12, spurious: 3, missed: 0, flaps: 1, transitions: 4, truthTransitions: 2,
        latencyMedian_s: 0.1 + 0.2, latencyP95_s: nil)
    r.filterRMSE_m = 1e-300
    return r.jsonLine
}
