import DriveSim
import FenceLab
import GeoPolicy
import _FenceLabSupport

/// What one sweep work item (scenario × replicate × grid point) measured: the flutter counts
/// and latencies of one rule on one generated drive, and its visits against the place.
///
/// Stored one per line (JSON Lines) in shard folders and in the resume file, keys in a fixed
/// order, numbers in Swift's shortest round-trip form, so that parsing gives back the same
/// bits and a merged sweep is byte-identical to an unsharded one.
package struct SweepRecord: Sendable, Hashable {
    /// Work-item index (see `SweepPlan.itemIndex`).
    package var item: Int
    package var spurious: Int
    package var missed: Int
    package var flaps: Int
    package var transitions: Int
    package var truthTransitions: Int
    /// Median detection latency of the matched transitions, seconds; nil when nothing matched.
    package var latencyMedian_s: Double?
    /// 95th percentile of the matched latencies, seconds; nil when nothing matched.
    package var latencyP95_s: Double?
    /// Visits against the place (`VisitMetrics`): counts of this drive.
    package var trueVisits: Int = 0
    package var matchedVisits: Int = 0
    package var falseVisits: Int = 0
    package var fragments: Int = 0
    package var earlyEntries: Int = 0
    /// p95 entry latency as measured, p95 with early entries counted as 0, and p95 exit latency,
    /// seconds; nil when nothing was matched (or no true exit lies within the drive).
    package var entryLatencyP95_s: Double?
    package var lateEntryP95_s: Double?
    package var exitLatencyP95_s: Double?
    /// RMSE in metres of the point's input filter on this drive (every fix the filter accepts,
    /// against the truth), as `kalman.filtered.rmse_m` / `kalman.imm.rmse_m` of a run with that q;
    /// nil for raw input.
    package var filterRMSE_m: Double?
    /// True visits of this drive that end within it (the user leaves the place; the same for
    /// every point of the drive).
    package var trueExits: Int = 0
    /// Fixes the sampling policy delivered to the app, and deliveries (wake-ups; a batch is one),
    /// per hour of drive (`CostMetrics`; the same for every rule at one policy).
    package var fixesPerHour: Double = 0
    package var wakeupsPerHour: Double = 0
    /// What the point's notification policy told the user, scored against the true visits; nil
    /// when the sweep scores no notification policy (no `--notify`).
    package var notifications: SweepNotificationFigures?

    package init(
        item: Int, spurious: Int, missed: Int, flaps: Int, transitions: Int, truthTransitions: Int,
        latencyMedian_s: Double?, latencyP95_s: Double?
    ) {
        self.item = item
        self.spurious = spurious
        self.missed = missed
        self.flaps = flaps
        self.transitions = transitions
        self.truthTransitions = truthTransitions
        self.latencyMedian_s = latencyMedian_s
        self.latencyP95_s = latencyP95_s
    }

    /// The record of `flutter` and `visits` for `item`.
    package init(item: Int, flutter: FlutterMetrics, visits: VisitMetrics) {
        self.init(
            item: item, spurious: flutter.spurious, missed: flutter.missed, flaps: flutter.flaps,
            transitions: flutter.transitions, truthTransitions: flutter.truthTransitions,
            latencyMedian_s: flutter.latencyMedian_s, latencyP95_s: flutter.latencyP95_s)
        trueVisits = visits.trueVisits
        matchedVisits = visits.matchedVisits
        falseVisits = visits.falseVisits
        fragments = visits.fragments
        earlyEntries = visits.earlyEntries
        entryLatencyP95_s = visits.entryLatencyP95_s
        lateEntryP95_s = visits.lateEntryP95_s
        exitLatencyP95_s = visits.exitLatencyP95_s
    }

    static let keys = [
        "item", "spurious", "missed", "flaps", "transitions", "truthTransitions",
        "latencyMedian_s", "latencyP95_s", "trueVisits", "matchedVisits", "falseVisits", "fragments",
        "earlyEntries", "entryLatencyP95_s", "lateEntryP95_s", "exitLatencyP95_s", "filterRMSE_m",
        "trueExits", "fixesPerHour", "wakeupsPerHour", "entries", "unwantedNotifications", "falseDwells",
        "matchedDwells", "dwellVisits", "dwellLatencyP95_s",
    ]

    /// Keys whose value is a count or null (notification figures not measured).
    static let optionalCounts: Set<String> = [
        "entries", "unwantedNotifications", "falseDwells", "matchedDwells", "dwellVisits",
    ]

    /// One JSON object on one line (no newline), keys in `keys` order.
    package var jsonLine: String {
        var bytes: [UInt8] = []
        appendJSONLine(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `{"item":` and then `,"key":` of every other key, as UTF-8, so a line appends slices of
    /// one buffer.
    private static let keyPrefixes = KeyPrefixes(
        keys.enumerated().map { k, key in Array(((k == 0 ? "{" : ",") + "\"\(key)\":").utf8) })

    /// Appends `jsonLine` to `bytes` as UTF-8: the resume file and every shard's items.jsonl get
    /// one line per item, so this is on the sweep's per-item path (no intermediate strings for
    /// the counts, one small string per finite latency; the checksum without allocating). The line
    /// ends in `"sum"`: 8 lower-case hex digits, the CRC-32C of the line's bytes before `,"sum"`.
    package func appendJSONLine(to bytes: inout [UInt8]) {
        let start = bytes.count
        appendValues(to: &bytes)
        let sum = bytes.withUnsafeBufferPointer {
            CRC32C.checksum(UnsafeBufferPointer(rebasing: $0[start...]))
        }
        bytes.append(contentsOf: Self.sumPrefix)
        for shift in stride(from: 28, through: 0, by: -4) {
            let nibble = UInt8(truncatingIfNeeded: (sum >> UInt32(shift)) & 0xf)
            bytes.append(nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10)
        }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: "}"))
    }

    /// `,"sum":"` before the checksum's hex digits.
    private static let sumPrefix = Array(#","sum":""#.utf8)

    /// The checksum's 8 hex digits of the line `appendJSONLine` writes for these values.
    var checksum: Substring {
        var bytes: [UInt8] = []
        appendJSONLine(to: &bytes)
        return String(decoding: bytes[(bytes.count - 10)..<(bytes.count - 2)], as: UTF8.self)[...]
    }

    /// `{"item":…` up to the last value, without the closing brace: the bytes the checksum covers.
    /// Keys are slices of `keyPrefixes`; numbers are `DecimalDigits` (an `Int`'s and a
    /// finite `Double`'s `description`); non-finite and absent values are `null`.
    private func appendValues(to bytes: inout [UInt8]) {
        // The line is written with pointer stores into room made at the end of `bytes` (the
        // caller's buffer, reused from record to record), which is then cut to what was written;
        // through a writer value (no captured variable: those cost two runtime exclusivity checks
        // per access). A temporary allocation of `valuesCapacity_bytes` (1 034 bytes, over the 1 024
        // always placed on the stack) goes on the stack only where the thread's stack has room for
        // it, which Dispatch's worker threads did not: one malloc and free per record.
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: Self.valuesCapacity_bytes))
        let written = bytes.withUnsafeMutableBufferPointer { all in
            Self.keyPrefixes.withKeys { keys in
                let line = UnsafeMutableBufferPointer(rebasing: all[start...])
                var w = LineWriter(line: line, keys: keys)
                w.int(0, item)
                w.int(1, spurious)
                w.int(2, missed)
                w.int(3, flaps)
                w.int(4, transitions)
                w.int(5, truthTransitions)
                w.double(6, latencyMedian_s)
                w.double(7, latencyP95_s)
                w.int(8, trueVisits)
                w.int(9, matchedVisits)
                w.int(10, falseVisits)
                w.int(11, fragments)
                w.int(12, earlyEntries)
                w.double(13, entryLatencyP95_s)
                w.double(14, lateEntryP95_s)
                w.double(15, exitLatencyP95_s)
                w.double(16, filterRMSE_m)
                w.int(17, trueExits)
                w.double(18, fixesPerHour)
                w.double(19, wakeupsPerHour)
                if let n = notifications {
                    w.int(20, n.entries)
                    w.int(21, n.unwanted)
                    w.int(22, n.falseDwells)
                    w.int(23, n.matchedDwells)
                    w.int(24, n.dwellVisits)
                    w.double(25, n.dwellLatencyP95_s)
                } else {
                    for k in 20...25 { w.double(k, nil) }
                }
                return w.at
            }
        }
        bytes.removeLast(Self.valuesCapacity_bytes - written)
    }

    /// Writes `appendValues`' keys and numbers into a buffer with room for them.
    private struct LineWriter {
        let line: UnsafeMutableBufferPointer<UInt8>
        let keys: KeyPrefixes.Keys
        var at = 0

        /// Key k's prefix (`{"item":` or `,"KEY":`).
        @inline(__always)
        mutating func key(_ k: Int) {
            let prefix = keys[k]
            (line.baseAddress! + at).update(from: prefix.baseAddress!, count: prefix.count)
            at += prefix.count
        }

        @inline(__always)
        mutating func int(_ k: Int, _ v: Int) {
            key(k)
            DecimalDigits.write(v, into: line, at: &at)
        }

        /// A finite value's digits, else `null`.
        @inline(__always)
        mutating func double(_ k: Int, _ v: Double?) {
            key(k)
            if let v, v.isFinite {
                DecimalDigits.write(v, into: line, at: &at)
            } else {
                line[at] = UInt8(ascii: "n")
                line[at + 1] = UInt8(ascii: "u")
                line[at + 2] = UInt8(ascii: "l")
                line[at + 3] = UInt8(ascii: "l")
                at += 4
            }
        }
    }

    /// Room for `appendValues`' bytes: every key prefix and, per value, the longest a value takes
    /// (a finite double's `description` at most 24 characters, an `Int` at most 20 and its sign).
    private static let valuesCapacity_bytes = keyPrefixes.bytes.count + keys.count * 24

    /// Parses a line written by `jsonLine` (exactly those keys, in that order, then `sum`) with
    /// the one strict reader, and checks its checksum against its values.
    /// - Throws: `SweepError.badRecord` naming `file`, `line` and what is wrong.
    package init(parsing text: Substring, file: String, line: Int) throws(SweepError) {
        func bad(_ why: String) -> SweepError { .badRecord(file: file, line: line, reason: why) }
        let root: StrictJSON.Value
        do { root = try StrictJSON.parse(text, limits: StrictJSON.Limits(maxBytes: 4096, maxDepth: 2)) } catch {
            throw bad("not a JSON object on one line: \(error)")
        }
        guard case .object(let members, _) = root else { throw bad("not a JSON object on one line") }
        guard members.map(\.key) == Self.keys + ["sum"] else {
            throw bad("expected the keys \(Self.keys.joined(separator: ", ")), sum")
        }
        guard case .string(let sum, _) = members[members.count - 1].value else {
            throw bad("sum: not a string of 8 hex digits: \(members[members.count - 1].value.kindDescription)")
        }
        var ints: [Int] = []
        var doubles: [Double?] = []
        var rates: [Double] = []
        var notify: [Int?] = []
        var dwellLatency: Double?
        for (key, value) in members.dropLast() {
            if Self.optionalCounts.contains(key) {
                if case .null = value {
                    notify.append(nil)
                    continue
                }
                guard case .number(let x, _, _) = value, let v = Int(exactly: x), v >= 0 else {
                    throw bad("\(key): not a count or null: \(value.kindDescription)")
                }
                notify.append(v)
            } else if key == "dwellLatencyP95_s" {
                if case .null = value { continue }
                guard case .number(let v, _, _) = value, v.isFinite else {
                    throw bad("\(key): not a finite number: \(value.kindDescription)")
                }
                dwellLatency = v
            } else if key.hasSuffix("PerHour") {
                guard case .number(let v, _, _) = value, v.isFinite, v >= 0 else {
                    throw bad("\(key): not a finite rate ≥ 0: \(value.kindDescription)")
                }
                rates.append(v)
            } else if key.hasSuffix("_s") || key.hasSuffix("_m") {
                if case .null = value {
                    doubles.append(nil)
                    continue
                }
                guard case .number(let v, _, _) = value, v.isFinite else {
                    throw bad("\(key): not a finite number: \(value.kindDescription)")
                }
                doubles.append(v)
            } else {
                guard case .number(let x, _, _) = value, let v = Int(exactly: x), v >= 0 else {
                    throw bad("\(key): not a count: \(value.kindDescription)")
                }
                ints.append(v)
            }
        }
        self.init(
            item: ints[0], spurious: ints[1], missed: ints[2], flaps: ints[3], transitions: ints[4],
            truthTransitions: ints[5], latencyMedian_s: doubles[0], latencyP95_s: doubles[1])
        trueVisits = ints[6]
        matchedVisits = ints[7]
        falseVisits = ints[8]
        fragments = ints[9]
        earlyEntries = ints[10]
        entryLatencyP95_s = doubles[2]
        lateEntryP95_s = doubles[3]
        exitLatencyP95_s = doubles[4]
        filterRMSE_m = doubles[5]
        trueExits = ints[11]
        fixesPerHour = rates[0]
        wakeupsPerHour = rates[1]
        let present = notify.compactMap { $0 }
        if present.count == notify.count {
            notifications = SweepNotificationFigures(
                entries: present[0], unwanted: present[1], falseDwells: present[2], matchedDwells: present[3],
                dwellVisits: present[4], dwellLatencyP95_s: dwellLatency)
        } else if !present.isEmpty || dwellLatency != nil {
            throw bad("the notification figures are all counts or all null")
        }
        let expected = checksum
        guard sum == expected else {
            throw bad(
                "checksum mismatch: sum \"\(ShownText.shown(sum))\", the values give \"\(expected)\" (the line was changed or damaged)"
            )
        }
    }
}

/// What one point's notification policy told the user on one drive (`NotificationMetrics`).
package struct SweepNotificationFigures: Sendable, Hashable {
    /// Entry notifications shown.
    package var entries: Int
    /// Unwanted notifications: entries of no true visit, exits other than a visit's true exit,
    /// false and repeated dwells.
    package var unwanted: Int
    /// Dwells outside every true visit of at least the loitering delay.
    package var falseDwells: Int
    /// True visits of at least the loitering delay that got their dwell, and how many there were.
    package var matchedDwells: Int
    package var dwellVisits: Int
    /// p95 of the dwell latencies (dwell − (true entry + T)), seconds; nil when none matched.
    package var dwellLatencyP95_s: Double?
}

/// Why a sweep, a shard set or a merge was refused; each case names the file or option.
package enum SweepError: Error, Sendable, Hashable, CustomStringConvertible {
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

    package var description: String {
        switch self {
        case .grid(let e): return e.description
        case .badRecord(let f, let l, let r): return "\(f): line \(l): \(r)"
        case .badManifest(let f, let r): return "\(f): \(r)"
        case .mismatch(let what, let a, let b, let d):
            return
                "cannot merge: \(b) was made with a different \(what) than \(a) (\(d)); merge only shards of one sweep"
        case .missingShards(let n, let missing):
            return "cannot merge: incomplete shard set, missing shard\(missing.count > 1 ? "s" : "") "
                + missing.map { "\($0)/\(n)" }.joined(separator: ", ")
        case .duplicateShard(let k, let n, let a, let b):
            return "cannot merge: shard \(k)/\(n) given twice (\(a) and \(b))"
        case .incompleteShard(let f, let e, let n):
            return "cannot merge: \(f) holds \(n) of its \(e) work items (an unfinished shard); rerun it with --resume"
        case .partialMismatch(let f):
            return
                "\(f): the unfinished results there belong to a different sweep (grid, scenarios, seeds or shard); remove the file or run without --resume"
        case .io(let p, let r): return "\(p): \(r)"
        case .noScenarios(let paths): return "no scenario files found in \(paths.joined(separator: ", "))"
        case .noPlace(let f):
            return
                "\(f): place: missing; a sweep ranks settings against the place the app means (e.g. \"place\": {\"radius_m\": 100}, docs/metrics.md)"
        case .unknownWeightScenario(let n, let known):
            return "--weight: no scenario named '\(n)' in this sweep (scenarios: \(known.joined(separator: ", ")))"
        case .mergeInput(let p, let r): return "cannot merge: \(p): \(r)"
        case .interrupted(let k): return "sweep interrupted after \(k) work units"
        }
    }
}
