/// What one sweep work item (scenario × replicate × grid point) measured: the flutter counts
/// and latencies of one rule on one generated drive, and its visits against the place.
///
/// Stored one per line (JSON Lines) in shard folders and in the resume file, keys in a fixed
/// order, numbers in Swift's shortest round-trip form, so that parsing gives back the same
/// bits and a merged sweep is byte-identical to an unsharded one.
public struct SweepRecord: Sendable, Hashable {
    /// Work-item index (see `SweepPlan.itemIndex`).
    public var item: Int
    public var spurious: Int
    public var missed: Int
    public var flaps: Int
    public var transitions: Int
    public var truthTransitions: Int
    /// Median detection latency of the matched transitions, seconds; nil when nothing matched.
    public var latencyMedian_s: Double?
    /// 95th percentile of the matched latencies, seconds; nil when nothing matched.
    public var latencyP95_s: Double?
    /// Visits against the place (`VisitMetrics`): counts of this drive.
    public var trueVisits: Int = 0
    public var matchedVisits: Int = 0
    public var falseVisits: Int = 0
    public var fragments: Int = 0
    public var earlyEntries: Int = 0
    /// p95 entry latency as measured, p95 with early entries counted as 0, and p95 exit latency,
    /// seconds; nil when nothing was matched (or no true exit lies within the drive).
    public var entryLatencyP95_s: Double?
    public var lateEntryP95_s: Double?
    public var exitLatencyP95_s: Double?
    /// RMSE in metres of the point's input filter on this drive (every fix the filter accepts,
    /// against the truth), as `kalman.filtered.rmse_m` / `kalman.imm.rmse_m` of a run with that q;
    /// nil for raw input.
    public var filterRMSE_m: Double?

    public init(item: Int, spurious: Int, missed: Int, flaps: Int, transitions: Int, truthTransitions: Int,
                latencyMedian_s: Double?, latencyP95_s: Double?) {
        self.item = item; self.spurious = spurious; self.missed = missed; self.flaps = flaps
        self.transitions = transitions; self.truthTransitions = truthTransitions
        self.latencyMedian_s = latencyMedian_s; self.latencyP95_s = latencyP95_s
    }

    /// The record of `flutter` and `visits` for `item`.
    public init(item: Int, flutter: FlutterMetrics, visits: VisitMetrics) {
        self.init(item: item, spurious: flutter.spurious, missed: flutter.missed, flaps: flutter.flaps,
                  transitions: flutter.transitions, truthTransitions: flutter.truthTransitions,
                  latencyMedian_s: flutter.latencyMedian_s, latencyP95_s: flutter.latencyP95_s)
        trueVisits = visits.trueVisits; matchedVisits = visits.matchedVisits; falseVisits = visits.falseVisits
        fragments = visits.fragments; earlyEntries = visits.earlyEntries
        entryLatencyP95_s = visits.entryLatencyP95_s; lateEntryP95_s = visits.lateEntryP95_s
        exitLatencyP95_s = visits.exitLatencyP95_s
    }

    static let keys = ["item", "spurious", "missed", "flaps", "transitions", "truthTransitions",
                       "latencyMedian_s", "latencyP95_s", "trueVisits", "matchedVisits", "falseVisits", "fragments",
                       "earlyEntries", "entryLatencyP95_s", "lateEntryP95_s", "exitLatencyP95_s", "filterRMSE_m"]

    /// One JSON object on one line (no newline), keys in `keys` order.
    public var jsonLine: String {
        func d(_ v: Double?) -> String { v.map { $0.isFinite ? $0.description : "null" } ?? "null" }
        let values = ["\(item)", "\(spurious)", "\(missed)", "\(flaps)", "\(transitions)", "\(truthTransitions)",
                      d(latencyMedian_s), d(latencyP95_s), "\(trueVisits)", "\(matchedVisits)", "\(falseVisits)",
                      "\(fragments)", "\(earlyEntries)", d(entryLatencyP95_s), d(lateEntryP95_s), d(exitLatencyP95_s),
                      d(filterRMSE_m)]
        return "{" + zip(Self.keys, values).map { "\"\($0)\":\($1)" }.joined(separator: ",") + "}"
    }

    /// Parses a line written by `jsonLine` (exactly those keys, in that order).
    /// - Throws: `SweepError.badRecord` naming `file`, `line` and what is wrong.
    public init(parsing text: Substring, file: String, line: Int) throws(SweepError) {
        func bad(_ why: String) -> SweepError { .badRecord(file: file, line: line, reason: why) }
        guard text.first == "{", text.last == "}" else { throw bad("not a JSON object on one line") }
        let fields = text.dropFirst().dropLast().split(separator: ",", omittingEmptySubsequences: false)
        guard fields.count == Self.keys.count else { throw bad("expected the keys \(Self.keys.joined(separator: ", "))") }
        var ints: [Int] = [], doubles: [Double?] = []
        for (field, key) in zip(fields, Self.keys) {
            let quoted = "\"\(key)\":"
            guard field.hasPrefix(quoted) else { throw bad("expected key \"\(key)\" in '\(field)'") }
            let value = field.dropFirst(quoted.count)
            if key.hasSuffix("_s") || key.hasSuffix("_m") {
                if value == "null" { doubles.append(nil); continue }
                guard let v = Double(value), v.isFinite else { throw bad("\(key): not a finite number: '\(value)'") }
                doubles.append(v)
            } else {
                guard let v = Int(value), v >= 0 else { throw bad("\(key): not a count: '\(value)'") }
                ints.append(v)
            }
        }
        self.init(item: ints[0], spurious: ints[1], missed: ints[2], flaps: ints[3], transitions: ints[4],
                  truthTransitions: ints[5], latencyMedian_s: doubles[0], latencyP95_s: doubles[1])
        trueVisits = ints[6]; matchedVisits = ints[7]; falseVisits = ints[8]; fragments = ints[9]; earlyEntries = ints[10]
        entryLatencyP95_s = doubles[2]; lateEntryP95_s = doubles[3]; exitLatencyP95_s = doubles[4]
        filterRMSE_m = doubles[5]
    }

    /// Parses JSON Lines text; with `allowTornTail` a last line without its newline (an
    /// interrupted append) is ignored instead of refused.
    public static func parseLines(_ text: String, file: String, firstLine: Int = 1,
                                  allowTornTail: Bool = false) throws(SweepError) -> [SweepRecord] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() } else if allowTornTail, !lines.isEmpty { lines.removeLast() }
        var out: [SweepRecord] = []
        out.reserveCapacity(lines.count)
        for (i, line) in lines.enumerated() {
            out.append(try SweepRecord(parsing: line, file: file, line: firstLine + i))
        }
        return out
    }
}

/// Why a sweep, a shard set or a merge was refused; each case names the file or option.
public enum SweepError: Error, Sendable, Hashable, CustomStringConvertible {
    case grid(SweepGridError)
    case badRecord(file: String, line: Int, reason: String)
    case badManifest(file: String, reason: String)
    case mismatch(what: String, first: String, other: String, detail: String)
    case missingShards(count: Int, missing: [Int])
    case duplicateShard(index: Int, count: Int, first: String, second: String)
    case incompleteShard(folder: String, expected: Int, found: Int)
    case partialMismatch(file: String)
    case io(path: String, reason: String)
    case noScenarios(paths: [String])
    /// A scenario without `place`: a sweep ranks settings against the place.
    case noPlace(file: String)
    /// `--weight NAME=W` names no scenario of the sweep.
    case unknownWeightScenario(name: String, known: [String])
    /// A `fencelab merge` input that cannot be used (missing, holds no shard folder, or holds the output).
    case mergeInput(path: String, reason: String)
    /// Test hook: the run stopped on purpose after some work units.
    case interrupted(afterUnits: Int)

    public var description: String {
        switch self {
        case let .grid(e): return e.description
        case let .badRecord(f, l, r): return "\(f): line \(l): \(r)"
        case let .badManifest(f, r): return "\(f): \(r)"
        case let .mismatch(what, a, b, d):
            return "cannot merge: \(b) was made with a different \(what) than \(a) (\(d)); merge only shards of one sweep"
        case let .missingShards(n, missing):
            return "cannot merge: incomplete shard set, missing shard\(missing.count > 1 ? "s" : "") "
                + missing.map { "\($0)/\(n)" }.joined(separator: ", ")
        case let .duplicateShard(k, n, a, b): return "cannot merge: shard \(k)/\(n) given twice (\(a) and \(b))"
        case let .incompleteShard(f, e, n):
            return "cannot merge: \(f) holds \(n) of its \(e) work items (an unfinished shard); rerun it with --resume"
        case let .partialMismatch(f):
            return "\(f): the unfinished results there belong to a different sweep (grid, scenarios, seeds or shard); remove the file or run without --resume"
        case let .io(p, r): return "\(p): \(r)"
        case let .noScenarios(paths): return "no scenario files found in \(paths.joined(separator: ", "))"
        case let .noPlace(f):
            return "\(f): place: missing; a sweep ranks settings against the place the app means (e.g. \"place\": {\"radius_m\": 100}, docs/metrics.md)"
        case let .unknownWeightScenario(n, known):
            return "--weight: no scenario named '\(n)' in this sweep (scenarios: \(known.joined(separator: ", ")))"
        case let .mergeInput(p, r): return "cannot merge: \(p): \(r)"
        case let .interrupted(k): return "sweep interrupted after \(k) work units"
        }
    }
}
