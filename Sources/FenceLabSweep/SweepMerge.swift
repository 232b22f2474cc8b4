import DriveSim
import Foundation
import _FenceLabSupport

/// Shard folders (`--shard K/N`) and their merge into the files of one unsharded run.
///
/// A shard folder holds `shard.json` (the `SweepManifest`, pretty-printed) and `items.jsonl`
/// (its `SweepRecord`s in item order). Merge checks that every manifest describes the same sweep
/// (tool version, grid, scenario files, seeds, replicates, settings, N), that each K in 0..<N is
/// present exactly once and complete, then aggregates all records with the same code as an
/// unsharded run: the output bytes are equal by construction.
package enum SweepMerge {
    package static let manifestName = "shard.json", itemsName = "items.jsonl"
    package static var shardFileNames: [String] { [manifestName, itemsName] }

    /// The files of a shard folder, streamed: `items.jsonl` is written a record at a time.
    package static func shardFiles(_ run: SweepRun) -> [(name: String, render: @Sendable (inout FileSink) -> Void)] {
        [
            (
                manifestName,
                { sink in
                    run.manifest.encode(pretty: true) { sink.append($0) }
                    sink.append("\n")
                }
            ),
            (
                itemsName,
                { sink in
                    for k in 0..<run.records.count {
                        do throws(SweepError) { sink.append(try run.records.record(k).jsonLine + "\n") } catch {
                            sink.fail(OutputError.io(path: itemsName, operation: "write", reason: error.description))
                            return
                        }
                    }
                }
            ),
        ]
    }

    /// The shard folders among `inputs`, as `fencelab merge` takes them: an input holding
    /// `shard.json` is a shard folder; any other folder is a parent whose subfolders holding
    /// `shard.json` are taken (one level, by name; hidden ones such as a shard's temporary
    /// folder are skipped). So `shards/` or a glob `shards/*` next to logs, `lost+found`, an
    /// earlier merge output or a file still selects exactly the shard folders; what was not
    /// taken is returned in `ignored`.
    ///
    /// Refused: an input that does not exist, `out` equal to or inside an input (the merge
    /// would read or replace its own inputs), and inputs holding no shard folder at all.
    package static func selectShardFolders(
        inputs: [String], out: String
    ) throws(SweepError) -> (folders: [String], ignored: [String]) {
        let fm = FileManager.default
        let outPath = resolved(out)
        var folders: [String] = []
        var ignored: [String] = []
        func isShard(_ path: String) -> Bool {
            fm.fileExists(atPath: (path as NSString).appendingPathComponent(manifestName))
        }
        for input in inputs {
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: input, isDirectory: &isDirectory) else {
                throw .mergeInput(path: input, reason: "no such folder")
            }
            let inPath = resolved(input)
            if outPath == inPath || outPath.hasPrefix(inPath == "/" ? "/" : inPath + "/") {
                throw .mergeInput(
                    path: input,
                    reason: "the output folder \(out) is this input or inside it; write the merged sweep elsewhere")
            }
            guard isDirectory.boolValue else {
                ignored.append(input)
                continue
            }
            if isShard(input) {
                folders.append(input)
                continue
            }
            let children = ((try? fm.contentsOfDirectory(atPath: input)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
            let before = folders.count
            for child in children {
                let path = (input as NSString).appendingPathComponent(child)
                if isShard(path) { folders.append(path) } else { ignored.append(path) }
            }
            if folders.count == before { ignored.append(input) }
        }
        guard !folders.isEmpty else {
            throw .mergeInput(
                path: inputs.joined(separator: ", "),
                reason:
                    "no shard folder (a folder holding \(manifestName), written by `fencelab sweep --shard K/N --out DIR`) there or one level below"
            )
        }
        return (folders, ignored)
    }

    /// Absolute path with `.`/`..` and symbolic links resolved, also below an existing prefix.
    static func resolved(_ path: String) -> String { FileSystem.resolvedPath(path) }

    /// Reads and checks shard folders; returns the common manifest (as shard 0/1) and all records,
    /// in a `SweepRecordStore` whose scratch file is made in `scratchDirectory`. Each `items.jsonl`
    /// is read 1 MiB at a time straight into the store (`RecordLineReader`, as `--resume` reads),
    /// so merge's memory does not grow with the number of work items.
    package static func load(
        folders: [String], scratchDirectory: String = NSTemporaryDirectory()
    ) throws(SweepError) -> (SweepManifest, SweepRecordStore) {
        // The first shard's manifest is kept; the others are compared with it and dropped (a
        // manifest holds every grid point: ≈ 8 MB at 10⁵ points).
        var first: (folder: String, manifest: SweepManifest)?
        var folderOfShard: [Int: String] = [:]
        var records: SweepRecordStore?
        var seen: [Bool] = []  // by item: stored from some shard
        for folder in folders {
            let mpath = (folder as NSString).appendingPathComponent(manifestName)
            let data: [UInt8]
            do { data = try InputFileReader.readAll(path: mpath, limit_bytes: .max) } catch {
                if case .missing = error {
                    throw .badManifest(
                        file: mpath,
                        reason:
                            "missing: \(folder) is not a sweep shard folder (run `fencelab sweep --shard K/N --out \(folder)`)"
                    )
                }
                throw .badManifest(file: mpath, reason: error.description)
            }
            let m = try SweepManifest.decode(data, file: mpath)
            if let first { try compare(first.manifest, first.folder, m, folder) }
            if let twin = folderOfShard[m.shard] {
                throw .duplicateShard(index: m.shard, count: m.shards, first: twin, second: folder)
            }
            let ipath = (folder as NSString).appendingPathComponent(itemsName)
            // `nil`: no such file; anything but a regular file is refused (`InputFileReader`).
            guard let reader = try RecordLineReader(path: ipath, what: "the shard's records") else {
                throw .badManifest(file: ipath, reason: "missing: the shard's records are not there")
            }
            if records == nil {
                // In the scratch file whatever their size: a merge holds the manifest's points as a
                // list, and its records in memory took merging the 97 600-point, 1-replicate grid
                // from 89.4–89.9 MB to 108.6–108.9 MB for 0.1 s less CPU (one thread reads them).
                records = try SweepRecordStore(
                    count: m.items, directory: scratchDirectory,
                    streams: m.scenarios.reduce(0) { $0 + $1.replicates }, memoryLimit_bytes: 0)
                seen = [Bool](repeating: false, count: m.items)
            }
            guard let store = records else { throw .missingShards(count: 0, missing: []) }
            // Every line is parsed first (a malformed one is reported before any item that does not
            // belong), then the first item that is not this shard's or comes twice is reported.
            let shard = Shard(index: m.shard, count: m.shards)
            var lineNumber = 0
            var found = 0
            var misplaced: (line: Int, reason: String)?
            var batch: [SweepRecord] = []
            func take(_ line: ArraySlice<UInt8>) throws(SweepError) {
                lineNumber += 1
                let r = try SweepRecord(
                    parsing: String(decoding: line, as: UTF8.self)[...], file: ipath, line: lineNumber)
                found += 1
                guard misplaced == nil else { return }
                guard r.item < m.items, shard.owns(r.item) else {
                    misplaced = (lineNumber, notInShard(r.item, m))
                    return
                }
                guard !seen[r.item] else {
                    misplaced = (lineNumber, "item \(r.item) appears twice")
                    return
                }
                seen[r.item] = true
                batch.append(r)
                if batch.count >= SweepRunner.recordsPerPiece {
                    try store.store(batch)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            let unterminated = try reader.lines(take)
            if !unterminated.isEmpty { try take(unterminated[...]) }  // a last line without its newline is read too
            if let misplaced {
                throw .badRecord(file: ipath, line: misplaced.line, reason: misplaced.reason)
            }
            let expected = m.items > m.shard ? (m.items - 1 - m.shard) / m.shards + 1 : 0
            guard found == expected else { throw .incompleteShard(folder: folder, expected: expected, found: found) }
            try store.store(batch)
            folderOfShard[m.shard] = folder
            if first == nil { first = (folder, m) }
        }
        guard let first, let records else { throw .missingShards(count: 0, missing: []) }
        let n = first.manifest.shards
        let missing = (0..<n).filter { folderOfShard[$0] == nil }
        guard missing.isEmpty else { throw .missingShards(count: n, missing: missing) }
        return (first.manifest.withShard(0, of: 1), records)
    }

    /// Why `item` cannot be a record of the shard `m` describes.
    static func notInShard(_ item: Int, _ m: SweepManifest) -> String {
        item >= m.items
            ? "item \(item) is outside the sweep (items 0…\(m.items - 1))"
            : "item \(item) is not one of shard \(m.shard)/\(m.shards)'s items (those with item mod \(m.shards) = \(m.shard))"
    }

    /// Names the first difference between two manifests.
    static func compare(_ a: SweepManifest, _ af: String, _ b: SweepManifest, _ bf: String) throws(SweepError) {
        func fail(_ what: String, _ detail: String) -> SweepError {
            .mismatch(what: what, first: af, other: bf, detail: detail)
        }
        if a.format != b.format { throw fail("shard format", "\(a.format) vs \(b.format)") }
        if a.toolVersion != b.toolVersion { throw fail("tool version", "\(a.toolVersion) vs \(b.toolVersion)") }
        if a.rule != b.rule || a.points.count != b.points.count {
            throw fail(
                "grid", "\(a.points.count) \(a.rule.rawValue) points vs \(b.points.count) \(b.rule.rawValue) points")
        }
        if let i = a.points.indices.first(where: { a.points[$0] != b.points[$0] }) {
            throw fail("grid", "point \(i): \(a.points[i].label) vs \(b.points[i].label)")
        }
        if a.scenarios.map(\.name) != b.scenarios.map(\.name) {
            throw fail(
                "scenario set",
                a.scenarios.map(\.name).joined(separator: ",") + " vs " + b.scenarios.map(\.name).joined(separator: ",")
            )
        }
        for (x, y) in zip(a.scenarios, b.scenarios) {
            if x.sha256 != y.sha256 {
                throw fail("scenario file hash", "\(x.name): \(x.sha256.prefix(12))… vs \(y.sha256.prefix(12))…")
            }
            if x.seed != y.seed { throw fail("seed", "\(x.name): \(x.seed) vs \(y.seed)") }
            if x.generator != y.generator { throw fail("generator", "\(x.name): \(x.generator) vs \(y.generator)") }
            if x.replicates != y.replicates {
                throw fail("replicate count", "\(x.name): \(x.replicates) vs \(y.replicates)")
            }
            if x.duration_s != y.duration_s {
                throw fail("duration", "\(x.name): \(x.duration_s) s vs \(y.duration_s) s")
            }
            if x.weight != y.weight { throw fail("weight", "\(x.name): \(x.weight) vs \(y.weight)") }
        }
        let settings: [(String, Double, Double)] = [
            ("--window", a.window_s, b.window_s), ("--max-age", a.maxFixAge_s, b.maxFixAge_s),
            ("--max-latency", a.maxLatency_s, b.maxLatency_s), ("--min-recall", a.minRecall, b.minRecall),
            ("--match-slack", a.matchSlack_s, b.matchSlack_s),
        ]
        for (name, x, y) in settings where x != y && !(x.isNaN && y.isNaN) {
            throw fail("setting \(name)", "\(x) vs \(y)")
        }
        func shown(_ v: Double?) -> String { v.map { "\($0)" } ?? "none" }
        if a.maxExitLatency_s != b.maxExitLatency_s {
            throw fail("setting --max-exit-latency", "\(shown(a.maxExitLatency_s)) vs \(shown(b.maxExitLatency_s))")
        }
        if a.maxUnwanted != b.maxUnwanted {
            throw fail("setting --max-unwanted", "\(shown(a.maxUnwanted)) vs \(shown(b.maxUnwanted))")
        }
        if a.cost != b.cost { throw fail("setting --cost", "\(a.cost) vs \(b.cost)") }
        if a.shards != b.shards { throw fail("shard count N", "\(a.shards) vs \(b.shards)") }
        if a.items != b.items { throw fail("item count", "\(a.items) vs \(b.items)") }
    }
}
