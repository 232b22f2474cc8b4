import Foundation
import GSLKit
import Testing
import _FenceLabSupport

@testable import FenceLab
@testable import FenceLabSweep

/// The store gives back every record bit for bit, held in memory or in its scratch file, whatever
/// order they were stored in, for a shard's stride and with many streams (small blocks), and names
/// a record never stored.
@Suite struct SweepRecordStoreTests {
    /// Memory limits that put 1 000 records in the scratch file (0) and in memory (the default).
    static let limits = [0, SweepRecordStore.memoryLimit_bytes]

    static func record(item: Int, _ rng: RandomSource) -> SweepRecord {
        func count() -> Int { Int(rng.uniform() * 50) }
        func figure() -> Double? { rng.uniform() < 0.3 ? nil : rng.uniform() * 300 }
        var r = SweepRecord(
            item: item, spurious: count(), missed: count(), flaps: count(), transitions: count(),
            truthTransitions: count(), latencyMedian_s: figure(), latencyP95_s: figure())
        r.trueVisits = count()
        r.matchedVisits = count()
        r.falseVisits = count()
        r.fragments = count()
        r.earlyEntries = count()
        r.entryLatencyP95_s = figure()
        r.lateEntryP95_s = -0.0
        r.exitLatencyP95_s = figure()
        r.filterRMSE_m = rng.uniform() < 0.5 ? nil : .infinity
        r.trueExits = count()
        r.fixesPerHour = rng.uniform() * 3600
        r.wakeupsPerHour = rng.uniform() * 60
        // Notification figures on some records only, their dwell latency on some of those.
        if rng.uniform() < 0.6 {
            r.notifications = SweepNotificationFigures(
                entries: count(), unwanted: count(), falseDwells: count(), matchedDwells: count(),
                dwellVisits: count(), dwellLatencyP95_s: figure())
        }
        // The full range of Int survives: counts outside 32 bits (no drive gives one) on some
        // records, which the store keeps aside whole; the others, 32-bit maximum included, fit
        // their slot.
        switch Int(rng.uniform() * 10) {
        case 0: r.earlyEntries = Int.max - count()
        case 1: r.spurious = -1 - count()
        case 2: r.fragments = Int(UInt32.max) + 1 + count()
        case 3: r.trueExits = Int(UInt32.max)
        case 4: r.notifications?.dwellVisits = Int(UInt32.max) + 1
        default: break
        }
        return r
    }

    /// Whether a record has a count outside `0...UInt32.max`.
    static func isWide(_ r: SweepRecord) -> Bool {
        let n = r.notifications
        return [
            r.spurious, r.missed, r.flaps, r.transitions, r.truthTransitions, r.trueVisits, r.matchedVisits,
            r.falseVisits, r.fragments, r.earlyEntries, r.trueExits, n?.entries ?? 0, n?.unwanted ?? 0,
            n?.falseDwells ?? 0, n?.matchedDwells ?? 0, n?.dwellVisits ?? 0,
        ].contains { $0 < 0 || $0 > Int(UInt32.max) }
    }

    @Test(arguments: limits) func recordsComeBackBitForBitInAnyStoreOrder(memoryLimit_bytes: Int) throws {
        let rng = try RandomSource(seed: 42)
        for (stride, first, streams) in [(1, 0, 1), (3, 2, 5), (1, 0, 4000)] {
            let count = 1000
            let records = (0..<count).map { Self.record(item: $0 * stride + first, rng) }
            let store = try SweepRecordStore(
                count: count, stride: stride, first: first,
                directory: NSTemporaryDirectory(), streams: streams, memoryLimit_bytes: memoryLimit_bytes)
            #expect(store.inMemory == (memoryLimit_bytes >= count * SweepRecordStore.bytesPerRecord))
            // Stored in pieces, back to front, as workers finishing out of order would.
            for start in Swift.stride(from: 0, to: count, by: 97).reversed() {
                try store.store(Array(records[start..<min(count, start + 97)]))
            }
            #expect(store.storedCount == count)
            let wide = records.filter(Self.isWide).count
            #expect(wide >= 250 && wide <= 470, "about 36 in 100 records have a count beyond 32 bits: \(wide)")
            #expect(store.keptAsideCount == wide)
            for k in [0, 999, 500, 1, 998] + Array(0..<count) {
                let back = try store.record(k)
                #expect(back == records[k], "stride \(stride): record \(k)")
                #expect(back.lateEntryP95_s?.sign == .minus, "−0 keeps its sign")
            }
            #expect(store.ordinal(ofItem: first + stride * 10) == 10)
            #expect(store.ordinal(ofItem: count * stride + first) == nil)
            // Runs of records read at once (`SweepCells.chunk`) give the same records.
            #expect(try store.records(0..<count) == records)
            #expect(try store.records(17..<420) == Array(records[17..<420]))
            // Read into one reused array: emptied first, a shorter run after a longer one.
            var reused: [SweepRecord] = []
            for range in [0..<count, 17..<420, 990..<1000, 5..<5] {
                try store.records(range, into: &reused)
                #expect(reused == Array(records[range]), "\(range)")
            }
        }
    }

    /// Over the limit the records go to the scratch file: one more record than fits.
    @Test func theMemoryLimitDecidesWhereRecordsGo() throws {
        let fits = 10 * SweepRecordStore.bytesPerRecord
        let inMemory = try SweepRecordStore(
            count: 10, directory: NSTemporaryDirectory(), streams: 1, memoryLimit_bytes: fits)
        let inFile = try SweepRecordStore(
            count: 11, directory: NSTemporaryDirectory(), streams: 1, memoryLimit_bytes: fits)
        #expect(inMemory.inMemory)
        #expect(!inFile.inMemory)
    }

    @Test(arguments: limits) func aRecordNeverStoredIsNamedNotInvented(memoryLimit_bytes: Int) throws {
        let rng = try RandomSource(seed: 7)
        let store = try SweepRecordStore(
            count: 10, directory: NSTemporaryDirectory(), streams: 1, memoryLimit_bytes: memoryLimit_bytes)
        try store.store((0..<9).map { Self.record(item: $0, rng) })
        #expect(throws: SweepError.self) { try store.record(9) }
        #expect(throws: SweepError.self) { try store.records(5..<10) }
        #expect(throws: SweepError.self) { try store.store([Self.record(item: 10, rng)]) }
    }

    /// The shared reader of resume files and shards' items.jsonl gives back every line, also one
    /// that crosses a 1 MiB piece, and what follows the last newline.
    @Test func lineReaderCrossesPiecesAndKeepsTheUnterminatedTail() throws {
        let piece = RecordLineReader.pieceBytes
        let lines = [
            String(repeating: "a", count: piece - 3), String(repeating: "b", count: 10), "",
            String(repeating: "c", count: piece + 5), "d",
        ]
        let path = NSTemporaryDirectory() + "fencelab-line-reader-\(getpid()).txt"
        defer { try? FileManager.default.removeItem(atPath: path) }
        for tail in ["", "torn{\"item\""] {
            try Data((lines.joined(separator: "\n") + "\n" + tail).utf8).write(to: URL(fileURLWithPath: path))
            let reader = try #require(try RecordLineReader(path: path, what: "the test file"))
            var back: [String] = []
            let rest = try reader.lines { back.append(String(decoding: $0, as: UTF8.self)) }
            #expect(back == lines)
            #expect(String(decoding: rest, as: UTF8.self) == tail)
        }
        #expect(try RecordLineReader(path: path + ".missing", what: "the test file") == nil)
    }
}

/// A record line is written into room made at the end of the caller's buffer and cut to its
/// length: the longest values fit, the bytes before it stay, and the line is the keys with each
/// value's `description` and the checksum of those bytes.
@Suite struct SweepRecordLineTests {
    @Test func longestValuesFitAndTheBufferBeforeTheLineStays() throws {
        let big = Int.min  // 20 characters
        let longest = -2.2250738585072014e-308  // 24 characters, the longest `description`
        var r = SweepRecord(
            item: big, spurious: big, missed: big, flaps: big, transitions: big, truthTransitions: big,
            latencyMedian_s: longest, latencyP95_s: longest)
        r.trueVisits = big
        r.matchedVisits = big
        r.falseVisits = big
        r.fragments = big
        r.earlyEntries = big
        r.entryLatencyP95_s = longest
        r.lateEntryP95_s = longest
        r.exitLatencyP95_s = longest
        r.filterRMSE_m = longest
        r.trueExits = big
        r.fixesPerHour = longest
        r.wakeupsPerHour = longest
        r.notifications = SweepNotificationFigures(
            entries: big, unwanted: big, falseDwells: big, matchedDwells: big, dwellVisits: big,
            dwellLatencyP95_s: longest)
        let (int, double) = ("\(big)", "\(longest)")
        let values: [String] =
            Array(repeating: int, count: 6) + [double, double] + Array(repeating: int, count: 5)
            + Array(repeating: double, count: 4) + [int, double, double] + Array(repeating: int, count: 5) + [double]
        #expect(values.count == SweepRecord.keys.count)
        let covered = zip(SweepRecord.keys, values).enumerated().map { k, kv in
            (k == 0 ? "{" : ",") + "\"\(kv.0)\":\(kv.1)"
        }.joined()
        let sum = CRC32C.checksum(Array(covered.utf8))
        let hex = String(sum, radix: 16)
        let expected = covered + ",\"sum\":\"" + String(repeating: "0", count: 8 - hex.count) + hex + "\"}"
        let before = Array("earlier lines\n".utf8)
        var bytes = before
        r.appendJSONLine(to: &bytes)
        #expect(Array(bytes.prefix(before.count)) == before)
        #expect(String(decoding: bytes.dropFirst(before.count), as: UTF8.self) == expected)
        #expect(r.jsonLine == expected)
    }
}
