import DriveSim
import FenceLab
import Foundation
import GeoPolicy
import _FenceLabSupport

/// One work item of a place-set sweep: replicate r at point p (item = r · P + p, P the points),
/// every place's figures there.
package struct SweepPlacesRecord: Sendable, Hashable {
    package var item: Int
    package var metrics: PlaceSetMetrics

    /// The `items.jsonl` line (without its newline): the item, the drive's hours, the oscillations
    /// (observed and true) and swaps, and every place with a figure other than 0 as
    /// `[place, trueVisits, matchedVisits, falseVisits, fragments, attributionErrors,
    /// orderingErrors, notMonitored, ruleMissed]`, by place index; then `sum`, the CRC-32C of the
    /// line's bytes before `,"sum"` as 8 lower-case hex digits (as one-fence records). Numbers are
    /// written so that they read back to the same values (integers; the hours as Swift's shortest
    /// round-trip text).
    package var jsonLine: String {
        let body = Array(values.utf8)
        let sum = body.withUnsafeBufferPointer { CRC32C.checksum($0) }
        let hex = String(sum, radix: 16)
        return values + ",\"sum\":\"" + String(repeating: "0", count: 8 - hex.count) + hex + "\"}"
    }

    /// The line before `,"sum"`.
    var values: String {
        let m = metrics
        var s = "{\"item\":\(item),\"driveHours\":\(m.driveHours),\"oscillations\":\(m.oscillations)"
        s += ",\"trueOscillations\":\(m.trueOscillations),\"swaps\":\(m.swaps),\"places\":["
        var first = true
        for (p, f) in m.perPlace.enumerated() where f != PlaceFigures() {
            if !first { s += "," }
            first = false
            s += "[\(p),\(f.trueVisits),\(f.matchedVisits),\(f.falseVisits),\(f.fragments),\(f.attributionErrors)"
            s += ",\(f.orderingErrors),\(f.notMonitored),\(f.ruleMissed)]"
        }
        return s + "]"
    }

    /// Reads a line of `items.jsonl` for a set with `weights` (one per place, from the manifest).
    package init(parsing line: String, weights: [Double], file: String, line number: Int) throws(SweepError) {
        func fail(_ reason: String) -> SweepError { .badRecord(file: file, line: number, reason: reason) }
        let value: StrictJSON.Value
        do { value = try StrictJSON.parse(line, limits: .init(maxBytes: max(line.utf8.count, 1))) } catch {
            throw fail("not valid JSON: \(error)")
        }
        guard case .object(let members, _) = value else {
            throw fail("expected an object, got \(value.kindDescription)")
        }
        let known: Set = ["item", "driveHours", "oscillations", "trueOscillations", "swaps", "places", "sum"]
        if let extra = members.first(where: { !known.contains($0.key) }) { throw fail("unknown key \(extra.key)") }
        func integer(_ v: StrictJSON.Value?, _ key: String) throws(SweepError) -> Int {
            guard let v else { throw fail("missing key \(key)") }
            guard case .number(let d, _, _) = v, d >= 0, d <= 9_007_199_254_740_992, d == d.rounded() else {
                throw fail("\(key): expected a whole number ≥ 0, got \(v.kindDescription)")
            }
            return Int(d)
        }
        item = try integer(value["item"], "item")
        guard case .number(let hours, _, _) = value["driveHours"], hours.isFinite, hours > 0 else {
            throw fail("driveHours: expected a number > 0")
        }
        var m = PlaceSetMetrics(
            perPlace: [PlaceFigures](repeating: PlaceFigures(), count: weights.count), weights: weights,
            oscillations: try integer(value["oscillations"], "oscillations"),
            trueOscillations: try integer(value["trueOscillations"], "trueOscillations"), driveHours: hours)
        m.swaps = try integer(value["swaps"], "swaps")
        guard case .array(let places, _) = value["places"] else { throw fail("places: expected an array") }
        var last = -1
        for (k, entry) in places.enumerated() {
            let key = "places[\(k)]"
            guard case .array(let fields, _) = entry, fields.count == 9 else {
                throw fail("\(key): expected [place, 8 figures]")
            }
            var n: [Int] = []
            for (j, f) in fields.enumerated() { n.append(try integer(f, "\(key)[\(j)]")) }
            guard n[0] > last, n[0] < weights.count else {
                throw fail("\(key): place \(n[0]) is not after \(last) within the set's \(weights.count) places")
            }
            last = n[0]
            m.perPlace[n[0]] = PlaceFigures(
                trueVisits: n[1], matchedVisits: n[2], falseVisits: n[3], fragments: n[4], attributionErrors: n[5],
                orderingErrors: n[6], notMonitored: n[7], ruleMissed: n[8])
        }
        metrics = m
        guard case .string(let sum, _) = value["sum"] else { throw fail("missing key sum") }
        let expected = jsonLine.suffix(10).prefix(8)
        guard sum == expected else {
            throw fail("sum \(ShownText.shown(sum, limit: 16)) does not match the line's values (\(expected))")
        }
    }

    package init(item: Int, metrics: PlaceSetMetrics) {
        self.item = item
        self.metrics = metrics
    }

    /// Records of every item (in item order) as the figures per replicate and point.
    static func perDrive(_ records: [SweepPlacesRecord], points: Int) -> [[PlaceSetMetrics]] {
        stride(from: 0, to: records.count, by: points).map { start in records[start..<start + points].map(\.metrics) }
    }
}

/// One point of a place-set sweep as its manifest records it (the budget and refresh radius as
/// numbers, so that they read back exactly).
package struct SweepPlacesManifestPoint: Sendable, Hashable, Codable {
    package var rule: SweepPoint
    /// K of `nearest:K+refresh:R`; absent for `all`.
    package var budget: Int?
    package var refresh_m: Double?

    init(_ p: SweepPlacePoint) {
        rule = p.rule
        budget = p.budget
        refresh_m = p.refresh_m
    }

    var point: SweepPlacePoint? {
        switch (budget, refresh_m) {
        case (nil, nil): return SweepPlacePoint(rule: rule, monitoring: .all)
        case (let k?, let r?): return SweepPlacePoint(rule: rule, monitoring: .nearest(count: k, refresh_m: r))
        default: return nil
        }
    }
}

/// `shard.json` of a place-set sweep shard: everything that defines the sweep's results (the
/// scenario file's hash, seed and replicates, the points, the places' names and weights, the
/// settings and constraints), plus which shard the folder holds. Shards merge only when every
/// field but `shard` is equal.
package struct SweepPlacesManifest: Sendable, Hashable, Codable {
    package static let currentFormat = "fencelab-sweep-places-shard/1"
    package var format = currentFormat
    package var toolVersion: String
    package var scenario: SweepScenario
    package var points: [SweepPlacesManifestPoint]
    package var placeNames: [String]
    package var placeWeights: [Double]
    package var window_s: Double
    package var maxFixAge_s: Double
    package var matchSlack_s: Double
    package var minRecall: Double
    package var constraint: String
    package var maxUnwanted: Double?
    package var shard: Int
    package var shards: Int
    /// Work items of the whole sweep: replicates × points.
    package var items: Int

    package init(_ request: SweepPlacesRequest, set: PlaceSetSpec, shard: Shard) {
        let spec = request.scenario.spec
        toolVersion = ToolVersion.string
        scenario = SweepScenario(
            name: spec.name, sha256: request.scenario.sha256, seed: spec.seed, replicates: spec.replicates,
            generator: spec.generator.rawValue, duration_s: spec.sampling.duration_s, weight: spec.weight)
        points = request.points.map(SweepPlacesManifestPoint.init)
        placeNames = set.places.map(\.name)
        placeWeights = set.places.map(\.weight)
        window_s = request.settings.window_s
        maxFixAge_s = request.settings.maxFixAge_s
        matchSlack_s = request.settings.matchSlack_s
        minRecall = request.minRecall
        constraint = request.constraint.rawValue
        maxUnwanted = request.maxUnwanted
        self.shard = shard.index
        shards = shard.count
        items = spec.replicates * request.points.count
    }

    /// The judgement the merged sweep applies (nil when a point or the constraint does not read back).
    var judgement: SweepPlacesJudgement? {
        let decoded = points.compactMap(\.point)
        guard decoded.count == points.count, let c = PlaceConstraint(rawValue: constraint) else { return nil }
        return SweepPlacesJudgement(
            scenario: scenario.name, placeNames: placeNames, points: decoded, minRecall: minRecall, constraint: c,
            maxUnwanted: maxUnwanted)
    }

    /// Reads `shard.json`: the strict reader first (duplicate keys, grammar), then the decoder.
    static func decode(_ bytes: [UInt8], file: String) throws(SweepError) -> SweepPlacesManifest {
        let limits = StrictJSON.Limits(maxBytes: max(bytes.count, 1), maxValues: max(bytes.count, 1))
        do { _ = try StrictJSON.parse(bytes, limits: limits) } catch {
            throw .badManifest(file: file, reason: "not valid JSON: \(error)")
        }
        let m: SweepPlacesManifest
        do { m = try SweepManifest.decoder().decode(SweepPlacesManifest.self, from: Data(bytes)) } catch {
            throw .badManifest(file: file, reason: "not a place-set sweep shard manifest (\(error))")
        }
        guard m.format == currentFormat else {
            throw .badManifest(file: file, reason: "format '\(m.format)', expected '\(currentFormat)'")
        }
        guard m.shards >= 1, m.shard >= 0, m.shard < m.shards, !m.points.isEmpty,
            m.items == m.scenario.replicates * m.points.count, m.judgement != nil,
            !m.placeNames.isEmpty, m.placeWeights.count == m.placeNames.count
        else {
            throw .badManifest(
                file: file, reason: "shard \(m.shard)/\(m.shards) with \(m.items) items is not a valid shard")
        }
        return m
    }

    /// Names the first difference between two manifests of shards to merge.
    static func compare(
        _ a: SweepPlacesManifest, _ af: String, _ b: SweepPlacesManifest, _ bf: String
    )
        throws(SweepError)
    {
        func fail(_ what: String, _ detail: String) -> SweepError {
            .mismatch(what: what, first: af, other: bf, detail: detail)
        }
        if a.toolVersion != b.toolVersion { throw fail("tool version", "\(a.toolVersion) vs \(b.toolVersion)") }
        let (x, y) = (a.scenario, b.scenario)
        if x.name != y.name { throw fail("scenario", "\(x.name) vs \(y.name)") }
        if x.sha256 != y.sha256 {
            throw fail("scenario file hash", "\(x.name): \(x.sha256.prefix(12))… vs \(y.sha256.prefix(12))…")
        }
        if x.seed != y.seed { throw fail("seed", "\(x.seed) vs \(y.seed)") }
        if x.replicates != y.replicates { throw fail("replicate count", "\(x.replicates) vs \(y.replicates)") }
        if x != y { throw fail("scenario", "\(x.name): generator, duration or weight") }
        if a.points != b.points {
            let i = zip(a.points, b.points).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            throw fail(
                "grid", i.map { "point \($0) differs" } ?? "\(a.points.count) points vs \(b.points.count) points")
        }
        if a.placeNames != b.placeNames || a.placeWeights != b.placeWeights {
            throw fail("place set", "\(a.placeNames.count) places vs \(b.placeNames.count) (names or weights)")
        }
        let settings: [(String, Double, Double)] = [
            ("--window", a.window_s, b.window_s), ("--max-age", a.maxFixAge_s, b.maxFixAge_s),
            ("--match-slack", a.matchSlack_s, b.matchSlack_s), ("--min-recall", a.minRecall, b.minRecall),
        ]
        for (name, u, v) in settings where u != v { throw fail("setting \(name)", "\(u) vs \(v)") }
        if a.constraint != b.constraint {
            throw fail("setting --place-constraint", "\(a.constraint) vs \(b.constraint)")
        }
        if a.maxUnwanted != b.maxUnwanted {
            throw fail(
                "setting --max-unwanted",
                "\(a.maxUnwanted.map { "\($0)" } ?? "none") vs \(b.maxUnwanted.map { "\($0)" } ?? "none")")
        }
        if a.shards != b.shards { throw fail("shard count N", "\(a.shards) vs \(b.shards)") }
    }
}

/// Shard folders of place-set sweeps (`fencelab sweep PLACES.json --shard K/N`) and their merge
/// into the files of one unsharded run: the same folder layout as one-fence shards (`shard.json`,
/// `items.jsonl`), its own manifest format.
package enum SweepPlacesShard {
    /// The shard folder's files for `records` (this shard's items, in item order).
    package static func files(
        _ manifest: SweepPlacesManifest, _ records: [SweepPlacesRecord]
    ) -> [(name: String, bytes: [UInt8])] {
        let head = SweepManifest.encodeWhole(manifest, pretty: true) + "\n"
        var lines = ""
        for r in records { lines += r.jsonLine + "\n" }
        return [(SweepMerge.manifestName, Array(head.utf8)), (SweepMerge.itemsName, Array(lines.utf8))]
    }

    /// True when the folder's `shard.json` says it is a place-set shard (its `format` key); false
    /// for any other manifest or a file that does not read, which the one-fence merge then names.
    package static func isPlaceShard(_ folder: String) -> Bool {
        let path = (folder as NSString).appendingPathComponent(SweepMerge.manifestName)
        guard let bytes = try? InputFileReader.readAll(path: path, limit_bytes: .max),
            let value = try? StrictJSON.parse(bytes, limits: .init(maxBytes: max(bytes.count, 1), maxValues: .max)),
            case .string(let format, _) = value["format"]
        else { return false }
        return format.hasPrefix("fencelab-sweep-places-shard/")
    }

    /// Reads and checks the shard folders (one sweep, every K in 0..<N once, each complete) and
    /// returns the summary an unsharded run of that sweep gives, without writing.
    package static func load(folders: [String]) throws(SweepError) -> SweepPlacesSummary {
        var first: (folder: String, manifest: SweepPlacesManifest)?
        var folderOfShard: [Int: String] = [:]
        var byItem: [SweepPlacesRecord?] = []
        for folder in folders {
            let mpath = (folder as NSString).appendingPathComponent(SweepMerge.manifestName)
            let bytes: [UInt8]
            do { bytes = try InputFileReader.readAll(path: mpath, limit_bytes: .max) } catch {
                throw .badManifest(file: mpath, reason: error.description)
            }
            guard isPlaceShard(folder) else {
                throw .mismatch(
                    what: "shard format", first: folders.first(where: isPlaceShard) ?? folder, other: folder,
                    detail: "a place-set shard and a one-fence shard")
            }
            let m = try SweepPlacesManifest.decode(bytes, file: mpath)
            if let first { try SweepPlacesManifest.compare(first.manifest, first.folder, m, folder) }
            if let twin = folderOfShard[m.shard] {
                throw .duplicateShard(index: m.shard, count: m.shards, first: twin, second: folder)
            }
            if first == nil { byItem = [SweepPlacesRecord?](repeating: nil, count: m.items) }
            let ipath = (folder as NSString).appendingPathComponent(SweepMerge.itemsName)
            let text: [UInt8]
            do { text = try InputFileReader.readAll(path: ipath, limit_bytes: .max) } catch {
                if case .missing = error {
                    throw .badManifest(file: ipath, reason: "missing: the shard's records are not there")
                }
                throw .badManifest(file: ipath, reason: error.description)
            }
            let shard = Shard(index: m.shard, count: m.shards)
            var found = 0
            for (k, raw) in text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
                var line = raw
                if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                if line.isEmpty { continue }
                let r = try SweepPlacesRecord(
                    parsing: String(decoding: line, as: UTF8.self), weights: m.placeWeights, file: ipath, line: k + 1)
                guard r.item < m.items, shard.owns(r.item) else {
                    throw .badRecord(
                        file: ipath, line: k + 1,
                        reason:
                            "item \(r.item) is not one of shard \(m.shard)/\(m.shards)'s items (those below \(m.items) with item mod \(m.shards) = \(m.shard))"
                    )
                }
                guard byItem[r.item] == nil else {
                    throw .badRecord(file: ipath, line: k + 1, reason: "item \(r.item) appears twice")
                }
                byItem[r.item] = r
                found += 1
            }
            let expected = m.items > m.shard ? (m.items - 1 - m.shard) / m.shards + 1 : 0
            guard found == expected else { throw .incompleteShard(folder: folder, expected: expected, found: found) }
            folderOfShard[m.shard] = folder
            if first == nil { first = (folder, m) }
        }
        guard let first, let judged = first.manifest.judgement else { throw .missingShards(count: 0, missing: []) }
        let n = first.manifest.shards
        let missing = (0..<n).filter { folderOfShard[$0] == nil }
        guard missing.isEmpty else { throw .missingShards(count: n, missing: missing) }
        let records = byItem.compactMap { $0 }
        do {
            return try SweepPlacesSummary.make(
                judged, perDrive: SweepPlacesRecord.perDrive(records, points: judged.points.count))
        } catch {
            throw .badManifest(file: first.folder, reason: "\(error)")
        }
    }

    /// `fencelab merge` of place-set shards: the summary of `load`, written to `out` as an
    /// unsharded run writes it (atomically).
    package static func merge(folders: [String], out: String) throws -> SweepPlacesSummary {
        let replaceable = Set(SweepPlacesOutput.fileNames)
        try ReportFolder.preflight(destination: out, replaceable: replaceable)
        let summary = try load(folders: folders)
        try ReportFolder.write(files: SweepPlacesOutput.files(summary), to: out, replaceable: replaceable)
        return summary
    }
}
