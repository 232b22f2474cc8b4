import Foundation
import Testing
import _TestSupport

@testable import FenceLabSweep
@testable import _FenceLabSupport

/// sweep.json and index.html above the full-form limit (the bounded form), and the gzip table.
/// The limit is lowered to 20 points so that a 180-point grid on short drives takes the bounded form.
@Suite struct SweepBoundedOutputTests {
    /// `edge-loiter-100m` from the catalog, 120 s long, 2 replicates, in a fresh folder.
    struct Fixture {
        let root: URL

        init(_ tag: String) throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-bounded-\(tag)-\(getpid())")
            try? FileManager.default.removeItem(at: root)
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent("scenarios"), withIntermediateDirectories: true)
            let data = try Data(
                contentsOf: TestPaths.packageRoot.appendingPathComponent("scenarios/edge-loiter-100m.json"))
            var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            var sampling = try #require(object["sampling"] as? [String: Any])
            sampling["duration_s"] = 120.0
            object["sampling"] = sampling
            object["replicates"] = 2
            try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                .write(to: root.appendingPathComponent("scenarios/edge-loiter-100m.json"))
        }

        func path(_ name: String) -> String { root.appendingPathComponent(name).path }

        /// 9 enter × 5 exit × 2 gates × 2 confirmations = 180 points.
        func request(limit: Int = 20, shard: Shard? = nil, gzip: Bool = false) throws -> SweepRequest {
            let grid = try SweepGrid(
                kind: .hysteresis, enter: SweepRange(parsing: "60:100:5", option: "--enter"),
                exit: SweepRange(parsing: "110:150:10", option: "--exit"), maxAccuracy: [20, 30], confirm: [1, 2])
            var r = SweepRequest(grid: grid)
            r.paths = [root.appendingPathComponent("scenarios").path]
            r.jobs = 2
            r.shard = shard
            r.csvGzip = gzip
            r.fullFormLimit_points = limit
            return r
        }

        func data(_ folder: String, _ name: String) throws -> Data {
            try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
        }
    }

    @Test func boundedFormListsTheDigestWithinItsBound() throws {
        let fx = try Fixture("digest")
        defer { try? FileManager.default.removeItem(at: fx.root) }
        let s = try #require(try SweepJob.sweep(fx.request(), out: fx.path("bounded")).summary)
        let d = try #require(s.digest, "180 points > 20: the bounded form")
        let count = s.manifest.points.count
        #expect(count == 180)
        // The listed points: sorted, unique, within the stated bound, holding what a reader needs.
        #expect(d.listed == Array(Set(d.listed)).sorted())
        #expect(d.listed.count <= SweepDigest.maxListedPoints(scenarios: 1, samplingPolicies: 1))
        #expect(d.listed.count < count, "a 180-point grid lists fewer than all of them")
        let recommended = try #require(s.mix.recommended)
        #expect(d.listed.contains(recommended))
        for ref in s.manifest.referencePoints { #expect(d.listed.contains(ref)) }
        #expect(Set(d.mixFrontier).isSubset(of: Set(d.listed)) && Set(d.costFrontier).isSubset(of: Set(d.listed)))
        // Top: the first `listedTop` by the ranking, best first; the recommendation is the best.
        let rank = SweepDigest.Ranking(mix: s.mix)
        let all = (0..<count).sorted { rank.before($0, $1) }
        #expect(d.top == Array(all.prefix(SweepDigest.listedTop)))
        #expect(d.top.first == recommended)
        // Per axis value, the best point by the same ranking (brute force over the grid).
        let names = d.axes.map(\.name)
        #expect(names == ["enter_m", "exit_m", "maxAccuracy_m", "confirm_n"], "the axes with more than one value")
        for axis in d.axes {
            let value = try #require(SweepDigest.axes.first { $0.rawValue == axis.name }).value
            for (v, point) in axis.values {
                let best = all.first { value(s.manifest.points[$0]) == v }
                #expect(best == point, "\(axis.name) = \(v): best \(String(describing: best)), listed \(point)")
            }
            #expect(axis.valuesLeftOut == 0)
        }
        #expect(Set(d.listed).isSubset(of: Set(d.marks)))
        #expect(d.marks.count <= d.listed.count + SweepDigest.thinnedMarks)

        // sweep.json says what it is and lists exactly the digest's points.
        let json = try #require(
            try JSONSerialization.jsonObject(with: fx.data(fx.path("bounded"), "sweep.json")) as? [String: Any])
        let form = try #require(json["form"] as? [String: Any])
        #expect(form["kind"] as? String == "bounded")
        #expect(form["points"] as? Int == count && form["pointsListed"] as? Int == d.listed.count)
        #expect(form["pointsLeftOut"] as? Int == count - d.listed.count)
        #expect(form["fullFormLimit_points"] as? Int == 20)
        let points = try #require(json["points"] as? [[String: Any]])
        #expect(points.compactMap { $0["id"] as? Int } == d.listed)
        let scenario = try #require((json["scenarios"] as? [[String: Any]])?.first)
        let results = try #require(scenario["results"] as? [[String: Any]])
        #expect(results.compactMap { $0["point"] as? Int } == d.listed)
        #expect(scenario["frontierSize"] as? Int == s.scenarios[0].frontier.count)
        #expect((json["top"] as? [[String: Any]])?.compactMap { $0["point"] as? Int } == d.top)
        #expect((json["byAxis"] as? [[String: Any]])?.compactMap { $0["axis"] as? String } == names)
        let html = String(decoding: try fx.data(fx.path("bounded"), "index.html"), as: UTF8.self)
        #expect(html.contains("its plots draw \(d.marks.count): those and every \(d.markStride)th setting by id"))

        // The same sweep at the default limit: the full form, no `form` key, and the same table.
        let full = try #require(try SweepJob.sweep(fx.request(limit: 20_000), out: fx.path("full")).summary)
        #expect(full.digest == nil)
        let fullJSON = try #require(
            try JSONSerialization.jsonObject(with: fx.data(fx.path("full"), "sweep.json")) as? [String: Any])
        #expect(fullJSON["form"] == nil && (fullJSON["points"] as? [Any])?.count == count)
        #expect(try fx.data(fx.path("full"), "sweep.csv") == fx.data(fx.path("bounded"), "sweep.csv"))
        #expect(try fx.data(fx.path("full"), "sweep.json").count > fx.data(fx.path("bounded"), "sweep.json").count)
    }

    @Test func boundedFormAndGzipTableMergeByteIdentical() throws {
        let fx = try Fixture("merge")
        defer { try? FileManager.default.removeItem(at: fx.root) }
        _ = try SweepJob.sweep(fx.request(gzip: true), out: fx.path("whole"))
        #expect(!FileManager.default.fileExists(atPath: fx.path("whole") + "/sweep.csv"), "the gzip replaces the table")
        var folders: [String] = []
        for k in 0..<3 {
            folders.append(fx.path("shard-\(k)"))
            _ = try SweepJob.sweep(fx.request(shard: Shard(index: k, count: 3)), out: folders[k])
        }
        _ = try SweepJob.merge(folders: folders, out: fx.path("merged"), csvGzip: true, fullFormLimit_points: 20)
        for name in ["sweep.json", SweepOutput.gzipTableName, "sweep.md", "index.html"] {
            #expect(try fx.data(fx.path("merged"), name) == fx.data(fx.path("whole"), name), "\(name) differs")
        }
    }

    @Test func gzipTableDecompressesToTheCSV() throws {
        let fx = try Fixture("gzip")
        defer { try? FileManager.default.removeItem(at: fx.root) }
        _ = try SweepJob.sweep(fx.request(), out: fx.path("plain"))
        _ = try SweepJob.sweep(fx.request(gzip: true), out: fx.path("gz"))
        let gz = try fx.data(fx.path("gz"), SweepOutput.gzipTableName)
        let csv = try fx.data(fx.path("plain"), "sweep.csv")
        // RFC 1952 header: magic, deflate, no flags (no name), time stamp 0, OS 255 (unknown).
        #expect(Array(gz.prefix(10)) == [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff])
        #expect(gz.count * 4 < csv.count, "\(gz.count) bytes compressed of \(csv.count)")
        // The trailer: CRC-32 and length (mod 2^32) of the uncompressed bytes, little-endian.
        let tail = Array(gz.suffix(4))
        let length = tail.enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        #expect(length == csv.count)
        // An independent decoder: the system's gzip.
        guard let gzip = ["/usr/bin/gzip", "/bin/gzip"].first(where: FileManager.default.isExecutableFile) else {
            Issue.record("no gzip binary to decompress with (checked /usr/bin/gzip, /bin/gzip)")
            return
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: gzip)
        p.arguments = ["-dc", fx.path("gz") + "/" + SweepOutput.gzipTableName]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let out = readToEnd(pipe.fileHandleForReading)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        #expect(out == csv, "the decompressed table is sweep.csv byte for byte")
        // Same inputs, same compressed bytes.
        _ = try SweepJob.sweep(fx.request(gzip: true), out: fx.path("gz2"))
        #expect(try fx.data(fx.path("gz2"), SweepOutput.gzipTableName) == gz)
    }

    /// Too few drives for the workers: each drive's points are cut into pieces of at least
    /// `minimumUnitPoints`, in order, covering every point once, the pieces of `jobs` drives in
    /// turns, the last unit's last pieces halved and quartered when they stay at least
    /// `smallestTailPiece`; one worker or enough drives: no cut.
    @Test func workUnitsAreCutWhenTheWorkersWouldIdle() {
        let one = [(s: 0, r: 0, points: Array(0..<10_000))]
        let cut = SweepRunner.split(one, jobs: 2)
        #expect(cut.count == 10, "64 wanted for 2 workers; 10 000 / 64 < 1024, so pieces of 1024")
        #expect(cut.flatMap(\.points) == one[0].points)
        #expect(cut.allSatisfy { $0.s == 0 && $0.r == 0 && $0.points.count <= SweepRunner.minimumUnitPoints })
        // 64 pieces of 1 600; the last two (3 200 points) become 2 of 800 and 4 of 400, in order.
        let big = [(s: 1, r: 2, points: Array(0..<102_400))]
        let pieces = SweepRunner.split(big, jobs: 2)
        #expect(pieces.count == 68 && pieces.flatMap(\.points) == big[0].points)
        #expect(pieces.prefix(62).allSatisfy { $0.points.count == 1600 })
        #expect(pieces.suffix(6).map(\.points.count) == [800, 800, 400, 400, 400, 400])
        #expect(pieces.allSatisfy { $0.s == 1 && $0.r == 2 })
        // Three workers: 96 pieces of 1 067 (the last 1 035); the last three (3 169 points) become
        // 3 of 528 and 6 of 264 (the last one 265, the remainder).
        let byThree = SweepRunner.split(big, jobs: 3)
        #expect(byThree.count == 102 && byThree.flatMap(\.points) == big[0].points)
        #expect(byThree.suffix(9).map(\.points.count) == [528, 528, 528, 264, 264, 264, 264, 264, 265])
        #expect(SweepRunner.split(one, jobs: 1).map { Array($0.points) } == [one[0].points])
        // 8 drives of 5 000 points, 8 pieces wanted from each: pieces of 1024 (four) and 904.
        let few = (0..<8).map { (s: 0, r: $0, points: Array(0..<5000)) }
        let fewCut = SweepRunner.split(few, jobs: 2)
        #expect(fewCut.count == 40)
        #expect(fewCut.filter { $0.r == 5 }.map(\.points.count) == [1024, 1024, 1024, 1024, 904])
        // Two drives at a time, in turns: 0, 1, 0, 1, … then 2, 3, 2, 3, …
        var turns: [Int] = []
        for g in 0..<4 { for _ in 0..<5 { turns += [2 * g, 2 * g + 1] } }
        #expect(fewCut.map(\.r) == turns)
        for r in 0..<8 {
            #expect(fewCut.filter { $0.r == r }.flatMap(\.points) == few[r].points, "drive \(r)'s points in order")
        }
        // An odd count: the last group holds one drive, its pieces in a row.
        let three = (0..<3).map { (s: 0, r: $0, points: Array(0..<3000)) }
        #expect(SweepRunner.split(three, jobs: 2).map(\.r) == [0, 1, 0, 1, 0, 1, 2, 2, 2])
        let many = (0..<64).map { (s: 0, r: $0, points: Array(0..<5000)) }
        #expect(SweepRunner.split(many, jobs: 2).count == 64, "enough drives: no cut")
        // A resume file that held every item leaves no unit (it divided by zero).
        #expect(SweepRunner.split([], jobs: 2).isEmpty)
    }
}
