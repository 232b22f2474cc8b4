import DriveSim
import FenceLab
import Foundation
import GeoPolicy
import _FenceLabSupport

/// What `fencelab sweep` is asked to do.
package struct SweepRequest: Sendable {
    /// Scenario files or folders (default `scenarios/`).
    package var paths: [String] = ["scenarios"]
    /// Override every scenario's replicate count (≥ 1).
    package var replicates: Int?
    /// Override every scenario's seed (≥ 1).
    package var seed: UInt64?
    /// Worker threads; results are identical for any value.
    package var jobs: Int = WorkPool.availableCores
    /// Flutter window and stale-fix age (the external engine is not used by sweeps).
    package var settings = EvaluationSettings()
    /// The rule settings to evaluate.
    package var grid: SweepGrid
    /// Constraint: p95 entry latency bound in seconds, early entries counted as 0 (finite, ≥ 0; default 60).
    package var maxLatency_s = SweepRequest.defaultMaxLatency_s
    /// The default p95 entry-latency bound, seconds.
    package static let defaultMaxLatency_s = 60.0
    /// Constraint: recall of true visits in every scenario that has some (0…1; default 0.95).
    package var minRecall = SweepRequest.defaultMinRecall
    /// The default recall constraint.
    package static let defaultMinRecall = 0.95
    /// Constraint: p95 exit latency bound in seconds in every scenario that leaves the place (nil: none).
    package var maxExitLatency_s: Double?
    /// Constraint: weighted unwanted (false + fragment) visits per hour (nil: the minimum any
    /// setting meeting the other constraints reaches).
    package var maxUnwanted: Double?
    /// What a fix and a wake-up cost in the objective (`--cost fix=A,wakeup=B`; default fix=1, wakeup=0).
    package var cost = CostWeights.fixes
    /// Scenario weights in the mix by scenario name (`--weight NAME=W`), overriding the files' `weight`.
    package var weights: [String: Double] = [:]
    /// Which work items this process runs; nil: all of them, written as final output.
    package var shard: Shard?
    /// Keep the finished work items of an interrupted run (from the resume file) instead of recomputing them.
    package var resume = false
    /// Seconds of work (wall time) before the sweep starts its resume file (0: from the start); a
    /// sweep that ends sooner writes none.
    package var checkpointAfter_s = SweepRequest.defaultCheckpointAfter_s
    /// The default wait before the resume file is started, seconds: a sweep shorter than this
    /// loses less than it by an interruption, and does not write the file at all.
    package static let defaultCheckpointAfter_s = 2.0
    /// Write the per-point table gzip-compressed, as `sweep.csv.gz` instead of `sweep.csv`.
    package var csvGzip = false
    /// Grids above this many points get the bounded sweep.json and index.html (tests lower it).
    package var fullFormLimit_points = SweepDigest.fullFormLimit_points
    /// Print progress on stderr even when it is not a terminal.
    package var forceProgress = false
    /// Called once, before any work, when `resume` found finished items in the resume file:
    /// (items resumed, items this process still evaluates, the resume file's path).
    package var onResume: (@Sendable (_ resumed: Int, _ remaining: Int, _ file: String) -> Void)?
    /// Test hook: throw `SweepError.interrupted` once this many work units (scenario × replicate) finished.
    package var stopAfterUnits: Int?
    /// Test hook: the seconds of work `checkpointAfter_s` is compared with (nil: the clock).
    package var checkpointClock: (@Sendable () -> Double)?

    package init(grid: SweepGrid) { self.grid = grid }
}

/// The weights of the cost the recommendation minimises: `perFix` × fixes per hour + `perWakeup`
/// × wake-ups per hour (both finite, ≥ 0, not both 0). Unitless: the honest proxies for battery,
/// weighted as the user says (no invented mAh).
package struct CostWeights: Sendable, Hashable, Codable, CustomStringConvertible {
    package var perFix: Double
    package var perWakeup: Double

    /// The default: fixes per hour.
    package static let fixes = CostWeights(perFix: 1, perWakeup: 0)

    package init(perFix: Double, perWakeup: Double) {
        self.perFix = perFix
        self.perWakeup = perWakeup
    }

    /// Parses `fix=A,wakeup=B` (either key may be left out: 0). The error names the part.
    package init(parsing text: String) throws(SweepGridError) {
        var fix: Double?
        var wakeup: Double?
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let kv = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard kv.count == 2, let v = Double(kv[1]) else {
                throw .malformedList(option: "--cost", text: text + " (expected fix=A,wakeup=B)")
            }
            guard v.isFinite else { throw .nonFinite(option: "--cost", text: text) }
            guard v >= 0 else {
                throw .invalidValue(option: "--cost \(kv[0])", value: v, reason: "must be ≥ 0")
            }
            switch kv[0] {
            case "fix" where fix == nil: fix = v
            case "wakeup" where wakeup == nil: wakeup = v
            default: throw .malformedList(option: "--cost", text: text + " (keys fix and wakeup, each once)")
            }
        }
        let a = fix ?? 0
        let b = wakeup ?? 0
        guard a > 0 || b > 0 else {
            throw .invalidValue(option: "--cost", value: 0, reason: "weighs nothing: give fix or wakeup a weight > 0")
        }
        self.init(perFix: a, perWakeup: b)
    }

    /// `fix=1,wakeup=0`.
    package var description: String { "fix=\(fmt(perFix)),wakeup=\(fmt(perWakeup))" }

    /// The cost of `fixesPerHour` and `wakeupsPerHour`.
    package func cost(fixesPerHour: Double, wakeupsPerHour: Double) -> Double {
        perFix * fixesPerHour + perWakeup * wakeupsPerHour
    }
}

/// A scenario as a sweep manifest records it: what must match for shards to be merged.
package struct SweepScenario: Sendable, Hashable, Codable {
    package var name: String
    /// SHA-256 of the scenario file.
    package var sha256: String
    package var seed: UInt64
    package var replicates: Int
    package var generator: String
    /// Length of each drive, seconds (for the per-hour visit rates).
    package var duration_s: Double
    /// Weight in the mix (> 0): the file's `weight` or `--weight`.
    package var weight: Double
}

/// Everything that defines a sweep's results, plus which shard a folder holds (`shard.json`).
/// Two shards merge only when every field but `shard` is equal.
package struct SweepManifest: Sendable, Hashable, Codable {
    package static let currentFormat = "fencelab-sweep-shard/5"
    package var format: String = currentFormat
    package var toolVersion: String
    package var rule: SweepRuleKind
    /// Computed from the grid's axes for a sweep this process builds; stored when read from a file.
    package var points: SweepPointList
    package var scenarios: [SweepScenario]
    /// Flutter matching window, seconds.
    package var window_s: Double
    /// Stale-fix age, seconds.
    package var maxFixAge_s: Double
    /// Constraint: p95 entry-latency bound, seconds (early entries counted as 0).
    package var maxLatency_s: Double
    /// Constraint: minimum recall of true visits per scenario with visits.
    package var minRecall: Double
    /// Widening of true visits when matching, seconds.
    package var matchSlack_s: Double
    /// Constraint: p95 exit-latency bound in scenarios that leave the place, seconds (nil: none).
    package var maxExitLatency_s: Double?
    /// Constraint: weighted unwanted visits per hour (nil: the minimum reached).
    package var maxUnwanted: Double?
    /// The cost the recommendation minimises.
    package var cost: CostWeights = .fixes
    /// K of `--shard K/N` (0 for an unsharded run).
    package var shard: Int
    /// N of `--shard K/N` (1 for an unsharded run).
    package var shards: Int
    /// Work items of the whole sweep (all shards).
    package var items: Int

    /// Compact one-line JSON, keys sorted: the resume file's header and `shard.json`'s body.
    package func encoded(pretty: Bool) -> String {
        var out = ""
        encode(pretty: pretty) { out += $0 }
        return out
    }

    /// Points encoded per piece by `encode(pretty:into:)`.
    static let pointsPerPiece = 1024

    /// The text of `encoded(pretty:)`, handed to `emit` in pieces: `JSONEncoder` builds a
    /// dictionary per encoded object, ≈ 1 KB per grid point while it runs (≈ 100 MB at 10⁵
    /// points), so the points are written 1024 at a time (`SweepPointJSON`, the encoder's bytes
    /// without the encoder) and spliced into the encoding of the manifest with its first point
    /// only, at that point's place, re-indented by one level when pretty. `SweepPlanTests` checks
    /// the bytes against one whole `JSONEncoder` run. Any grid of two points or more takes this
    /// path (the encoder took 8.5 M instructions for the 142 points of a small sweep's resume
    /// file). `jobs`: threads that encode the pieces, handed to `emit` in order (the bytes do not
    /// depend on it).
    package func encode(pretty: Bool, jobs: Int = 1, into emit: (String) -> Void) {
        guard points.count > 1 else {
            emit(Self.encodeWhole(self, pretty: pretty))
            return
        }
        var head = self
        head.points = [points[0]]
        let whole = Self.encodeWhole(head, pretty: pretty)
        let first = Self.elements(Array(points[0..<1]), pretty: pretty)
        guard let at = whole.range(of: first), whole.range(of: first, range: at.upperBound..<whole.endIndex) == nil
        else {
            emit(Self.encodeWhole(self, pretty: pretty))  // cannot happen with today's keys; correct either way
            return
        }
        emit(String(whole[..<at.lowerBound]))
        let points = points
        let pieces = (points.count + Self.pointsPerPiece - 1) / Self.pointsPerPiece
        // Encoding plain value types cannot fail.
        try? WorkPool.forEachInOrder(
            count: pieces, jobs: jobs, window: 2 * max(1, jobs),
            { k in
                let start = k * Self.pointsPerPiece
                let end = min(points.count, start + Self.pointsPerPiece)
                return Self.elements(Array(points[start..<end]), pretty: pretty)
            },
            consume: { k, text in
                if k > 0 { emit(pretty ? ",\n" : ",") }
                emit(text)
            })
        emit(String(whole[at.upperBound...]))
    }

    static func encoder(pretty: Bool) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        // FenceLab's one spelling of non-finite numbers in JSON (README, "Limits and output safety").
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return encoder
    }

    static func encodeWhole<T: Encodable>(_ value: T, pretty: Bool) -> String {
        // Encoding plain value types cannot fail.
        String(decoding: try! encoder(pretty: pretty).encode(value), as: UTF8.self)
    }

    /// The elements of `points` as they appear inside the manifest's `points` array: without the
    /// brackets of a top-level array and, when pretty, indented one level deeper.
    static func elements(_ points: [SweepPoint], pretty: Bool) -> String {
        var direct = ""
        if SweepPointJSON.append(points[...], pretty: pretty, to: &direct) { return direct }
        let text = encodeWhole(points, pretty: pretty)
        guard pretty else { return String(text.dropFirst().dropLast()) }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return lines.dropFirst().dropLast().map { "  " + $0 }.joined(separator: "\n")
    }

    /// Reads `shard.json`.
    package static func decode(_ bytes: [UInt8], file: String) throws(SweepError) -> SweepManifest {
        if let m = try decodeInPieces(bytes, file: file) { return try checked(m, file: file) }
        return try checked(try decodeWhole(bytes, file: file), file: file)
    }

    /// The strict reader first (RFC grammar, duplicate keys, limits; JSONDecoder takes the last of
    /// two equal keys silently), then the decoder maps the checked text. The manifest is FenceLab's
    /// own output and grows with the grid (≈ 180 bytes and 8 values per point: 17.5 MB at 97 600
    /// points, past the 16 MiB of `Limits.standard`), so the file's own size bounds it; the memory
    /// a grid may take (`SweepGrid.admit`) bounds the file.
    static func decodeWhole(_ bytes: [UInt8], file: String) throws(SweepError) -> SweepManifest {
        let limits = StrictJSON.Limits(maxBytes: max(bytes.count, 1), maxValues: max(bytes.count, 1))
        do { _ = try StrictJSON.parse(bytes, limits: limits) } catch {
            throw .badManifest(file: file, reason: "not valid JSON: \(error)")
        }
        do { return try decoder().decode(SweepManifest.self, from: Data(bytes)) } catch {
            throw .badManifest(file: file, reason: "not a sweep shard manifest (\(error))")
        }
    }

    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return decoder
    }

    /// Manifests above this size are decoded in pieces.
    static let piecewiseThreshold_bytes = 1 << 20

    /// A large manifest the way `encode` writes it: the object without its points (`"points": []`)
    /// and then `pointsPerPiece` points at a time, each piece through the strict reader and the
    /// decoder. Whole, the strict tree and `JSONDecoder` held ≈ 8× the file (140 MB of heap for
    /// the 17.5 MB manifest of 97 600 points); in pieces the decoded points and the file remain.
    /// Every byte of the file is in exactly one piece and the pieces are joined at the array's own
    /// commas, so a text the whole reading refuses is refused here too (a trailing or doubled comma
    /// leaves an empty element; a second `points` key stays in the object part). Returns nil when
    /// the file is small or the top-level `points` array cannot be found; on any error the whole
    /// reading runs again, so the message is the one it gives.
    static func decodeInPieces(_ data: [UInt8], file: String) throws(SweepError) -> SweepManifest? {
        guard data.count > piecewiseThreshold_bytes else { return nil }
        let decoded: SweepManifest?? = data.withUnsafeBufferPointer { bytes in
            guard let span = ManifestScan.topLevelArray(named: "points", in: bytes) else { return nil }
            return pieces(bytes, span: span)
        }
        switch decoded {
        case .none: return nil  // no top-level points array: read whole
        case .some(.some(let m)): return m
        case .some(.none): return try decodeWhole(data, file: file)  // refused in pieces: the whole reading's message
        }
    }

    /// The manifest from the object without its points and the points 1024 at a time; nil if a
    /// piece is refused.
    static func pieces(_ bytes: UnsafeBufferPointer<UInt8>, span: Range<Int>) -> SweepManifest? {
        let elements = ManifestScan.elements(of: span, in: bytes)
        do {
            var head = Array(bytes[..<span.lowerBound])
            head += Array("[]".utf8)
            head += bytes[span.upperBound...]
            let limits = StrictJSON.Limits(maxBytes: max(bytes.count, 1), maxValues: max(bytes.count, 1))
            _ = try StrictJSON.parse(head, limits: limits)
            var m = try decoder().decode(SweepManifest.self, from: Data(head))
            guard m.points.isEmpty else { return nil }
            var points: [SweepPoint] = []
            points.reserveCapacity(elements.count)
            var start = 0
            while start < elements.count {
                let end = min(elements.count, start + pointsPerPiece)
                var piece: [UInt8] = [UInt8(ascii: "[")]
                for k in start..<end {
                    if k > start { piece.append(UInt8(ascii: ",")) }
                    piece += bytes[elements[k]]
                }
                piece.append(UInt8(ascii: "]"))
                _ = try StrictJSON.parse(piece, limits: limits)
                points += try decoder().decode([SweepPoint].self, from: Data(piece))
                start = end
            }
            m.points = SweepPointList(points)
            return m
        } catch {
            return nil
        }
    }

    static func checked(_ m: SweepManifest, file: String) throws(SweepError) -> SweepManifest {
        guard m.format == currentFormat else {
            throw .badManifest(file: file, reason: "format '\(m.format)', expected '\(currentFormat)'")
        }
        guard m.shards >= 1, m.shard >= 0, m.shard < m.shards, m.items >= 0, !m.points.isEmpty else {
            throw .badManifest(
                file: file, reason: "shard \(m.shard)/\(m.shards) with \(m.items) items is not a valid shard")
        }
        let expected = m.scenarios.reduce(0) { $0 + $1.replicates } * m.points.count
        guard expected == m.items else {
            throw .badManifest(
                file: file, reason: "items = \(m.items), but scenarios × replicates × points = \(expected)")
        }
        return m
    }

    /// The same sweep with another shard label (what merge compares).
    func withShard(_ k: Int, of n: Int) -> SweepManifest {
        var m = self
        m.shard = k
        m.shards = n
        return m
    }

    /// The grid as the points were listed.
    package var grid: SweepGrid { SweepGrid(points: points) }

    /// The seeds' 80/120/30 at the grid's first sampling policy (what a sweep without
    /// `--sampling` calls the reference).
    package var referencePoint: Int? { points.referenceIds.first }

    /// The seeds' 80/120/30 at each sampling policy of the grid, in policy order.
    package var referencePoints: [Int] { points.referenceIds }

    /// True when the points carry sampling policies of their own (`--sampling`). A grid gives
    /// every point one or none (`SweepGrid`), so the first point says it in O(1).
    package var hasSamplingAxis: Bool { points.first?.sampling != nil }

    /// True when the points carry notification policies (`--notify`; every point or none): the
    /// objective's unwanted figure is then unwanted notifications per hour.
    package var scoresNotifications: Bool { points.scoresNotifications }

    /// First work item of each scenario, and the total.
    var offsets: [Int] {
        var out: [Int] = []
        var next = 0
        for s in scenarios {
            out.append(next)
            next += s.replicates * points.count
        }
        return out
    }
}

/// The numbered work items of a sweep and the ones this process owns.
///
/// Item index = offset(scenario) + replicate · P + point, where offset(s) = P · Σ replicates of
/// the scenarios before s and P the number of grid points (with equal replicate counts R:
/// ((scenario · R + replicate) · P + point)). `--shard K/N` owns the items ≡ K (mod N).
package struct SweepPlan: Sendable {
    package var scenarios: [PreparedScenario]
    package var manifest: SweepManifest
    package var settings: EvaluationSettings
    package var shard: Shard
    let offsets: [Int]
    /// The grid's sampling policies (nil: each scenario's own), and each point's index into them.
    let samplings: [SamplingPolicy?]
    let samplingIndex: SweepPointOrdinals
    /// Each point's notification policy (nil: none scored).
    let notifications: SweepPointNotifications

    /// Loads and checks the scenarios (strict files, rules versions) before any work.
    package static func prepare(_ request: SweepRequest) throws -> SweepPlan {
        var run = RunRequest()
        run.paths = request.paths
        run.replicates = request.replicates
        run.seed = request.seed
        let scenarios = try ScenarioRunner.prepare(run)
        guard !scenarios.isEmpty else { throw SweepError.noScenarios(paths: request.paths) }
        if let missing = scenarios.first(where: { $0.spec.place == nil }) {
            throw SweepError.noPlace(file: missing.path)
        }
        let names = scenarios.map(\.spec.name)
        if let unknown = request.weights.keys.sorted().first(where: { !names.contains($0) }) {
            throw SweepError.unknownWeightScenario(name: unknown, known: names)
        }
        // Every sampling policy of the grid must be one each scenario's device can honour.
        var policies: [SamplingPolicy?] = []
        let samplingSpecs = request.grid.samplings
        for spec in samplingSpecs {
            guard let spec else {
                policies.append(nil)
                continue
            }
            let policy: SamplingPolicy
            do { policy = try SamplingPolicy.parse(spec) } catch {
                throw SweepError.grid(.sampling(option: "--sampling", error))
            }
            for sc in scenarios {
                if let period = policy.shortestPeriod_s, period * sc.spec.sampling.rate_hz < 1 - 1e-9 {
                    throw SweepError.grid(
                        .invalidValue(
                            option: "--sampling \(spec)", value: period,
                            reason: "s is shorter than the base sampling interval of \(sc.path) "
                                + "(\(fmt(1 / sc.spec.sampling.rate_hz)) s at sampling.rate_hz \(sc.spec.sampling.rate_hz)); "
                                + "a policy cannot deliver fixes the device never measures"))
                }
            }
            policies.append(policy)
        }
        let shard = request.shard ?? .whole
        let described = scenarios.map {
            SweepScenario(
                name: $0.spec.name, sha256: $0.sha256, seed: $0.spec.seed, replicates: $0.spec.replicates,
                generator: $0.spec.generator.rawValue, duration_s: $0.spec.sampling.duration_s,
                weight: request.weights[$0.spec.name] ?? $0.spec.weight)
        }
        let items = described.reduce(0) { $0 + $1.replicates } * request.grid.points.count
        let manifest = SweepManifest(
            toolVersion: ToolVersion.string,
            rule: request.grid.points.first { !$0.isSeedReference }?.kind ?? .hysteresis,
            points: request.grid.points, scenarios: described, window_s: request.settings.window_s,
            maxFixAge_s: request.settings.maxFixAge_s, maxLatency_s: request.maxLatency_s,
            minRecall: request.minRecall, matchSlack_s: request.settings.matchSlack_s,
            maxExitLatency_s: request.maxExitLatency_s, maxUnwanted: request.maxUnwanted, cost: request.cost,
            shard: shard.index, shards: shard.count, items: items)
        return SweepPlan(
            scenarios: scenarios, manifest: manifest, settings: request.settings, shard: shard,
            offsets: manifest.offsets, samplings: policies,
            samplingIndex: SweepPointOrdinals(points: request.grid.points, samplings: samplingSpecs),
            notifications: SweepPointNotifications(points: request.grid.points))
    }

    /// Grid points P.
    package var pointCount: Int { manifest.points.count }

    /// The distinct filtered inputs of the grid, in point order (each scored once per drive).
    var filters: [FenceInput] {
        if let axes = manifest.points.axes {
            // Every stage appears at the first setting, in stage order.
            return axes.stages.filter { $0.input != .raw }.compactMap {
                try? FenceInput($0.input, accelerationDensity_m2ps3: $0.q_m2s3)
            }
        }
        var seen: [FenceInput] = []
        for p in manifest.points where p.input != .raw && !seen.contains(p.fenceInput) { seen.append(p.fenceInput) }
        return seen
    }

    /// The index of work item (scenario s, replicate r, point p).
    package func itemIndex(scenario s: Int, replicate r: Int, point p: Int) -> Int {
        offsets[s] + r * pointCount + p
    }

    /// The points of (s, r) this process owns.
    func ownedPoints(scenario s: Int, replicate r: Int) -> [Int] {
        guard shard.count > 1 else { return Array(0..<pointCount) }
        return (0..<pointCount).filter { shard.owns(itemIndex(scenario: s, replicate: r, point: $0)) }
    }

    /// How many items this process owns.
    package var ownedCount: Int {
        let n = manifest.items
        let k = shard.index
        let c = shard.count
        return n > k ? (n - 1 - k) / c + 1 : 0
    }
}

/// Each point's sampling policy as an index into the grid's policies, computed from the point id.
struct SweepPointOrdinals: Sendable {
    let points: SweepPointList
    let samplings: [String?]

    subscript(point: Int) -> Int { points.samplingOrdinal(point, in: samplings) }
}

/// Each point's notification policy (nil: none scored), parsed once per distinct spec.
struct SweepPointNotifications: Sendable {
    let points: SweepPointList
    let specs: [String?]
    let parsed: [NotificationPolicy?]

    init(points: SweepPointList) {
        self.points = points
        specs = points.notifications
        parsed = specs.map { spec in spec.flatMap { try? NotificationPolicy.parse($0) } }
    }

    subscript(point: Int) -> NotificationPolicy? { parsed[points.notifyOrdinal(point, in: specs)] }
}

/// Byte-level structure of a JSON text, enough to split a manifest at its points array: strings
/// (with escapes) are skipped, brackets and braces counted. It validates nothing: every piece it
/// finds goes through the strict reader.
enum ManifestScan {
    /// The byte range of `[...]` that is the value of the key `name` (spelled without escapes) of
    /// the top-level object, or nil.
    static func topLevelArray(named name: String, in b: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        let key = Array("\"\(name)\"".utf8)
        var i = 0
        var depth = 0
        while i < b.count {
            switch b[i] {
            case UInt8(ascii: "\""):
                let end = stringEnd(b, from: i)
                if depth == 1, end - i == key.count, b[i..<end].elementsEqual(key) {
                    var j = end
                    while j < b.count, isSpace(b[j]) { j += 1 }
                    guard j < b.count, b[j] == UInt8(ascii: ":") else {
                        i = end
                        continue
                    }
                    j += 1
                    while j < b.count, isSpace(b[j]) { j += 1 }
                    guard j < b.count, b[j] == UInt8(ascii: "[") else { return nil }
                    guard let close = matching(b, open: j) else { return nil }
                    return j..<(close + 1)
                }
                i = end
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                i += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                i += 1
            default: i += 1
            }
        }
        return nil
    }

    /// The elements of the array at `span` (brackets included) as byte ranges between its
    /// top-level commas, whitespace kept; `[]` gives none, `[ ]` one blank element.
    static func elements(of span: Range<Int>, in b: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        var out: [Range<Int>] = []
        var start = span.lowerBound + 1
        var i = start
        var depth = 0
        let end = span.upperBound - 1
        guard end > start else { return [] }
        while i < end {
            switch b[i] {
            case UInt8(ascii: "\""):
                i = stringEnd(b, from: i)
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: ",") where depth == 0:
                out.append(start..<i)
                start = i + 1
            default: break
            }
            i += 1
        }
        out.append(start..<end)
        return out
    }

    /// Index after the string starting with the quote at `from` (the end of the text if unclosed).
    static func stringEnd(_ b: UnsafeBufferPointer<UInt8>, from: Int) -> Int {
        var i = from + 1
        while i < b.count {
            if b[i] == UInt8(ascii: "\\") {
                i += 2
                continue
            }
            if b[i] == UInt8(ascii: "\"") { return i + 1 }
            i += 1
        }
        return b.count
    }

    /// Index of the bracket closing the one at `open`, or nil.
    static func matching(_ b: UnsafeBufferPointer<UInt8>, open: Int) -> Int? {
        var i = open
        var depth = 0
        while i < b.count {
            switch b[i] {
            case UInt8(ascii: "\""):
                i = stringEnd(b, from: i)
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { return i }
            default: break
            }
            i += 1
        }
        return nil
    }

    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }
}
