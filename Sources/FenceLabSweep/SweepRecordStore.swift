import Foundation
import _FenceLabSupport

/// The work-item records of one sweep process or merge: in memory up to `memoryLimit_bytes`
/// (64 MiB, ≈ 466 000 records), above that in a private scratch file, so that a sweep's peak
/// memory does not grow with grid points × replicates (at 10⁵ points × 5 replicates the records
/// are 72 MB).
///
/// Each record is a fixed 144-byte slot at its owned position (owned record k is item
/// `k · stride + first`), so workers store their drives' records in any order. Held in memory,
/// the slots are one zeroed allocation that workers fill side by side and readers decode in
/// place. In a file, it is created next to the output folder and unlinked at once
/// (`FileSystem.openScratch`): it exists only as this object's descriptor and disappears with
/// the process; reads go through a small cache of decoded blocks sized for the replicate rows an
/// output walks side by side (`streams`). Below the limit the memory saves the kernel's copies
/// into and out of the page cache, and the workers no longer take turns at the file: the
/// 97 600-point, 1-replicate sweep takes 329–348 ms of CPU at either `--jobs` against 371–399 ms
/// with the file (`perf stat`, 8 runs each, two rounds; with 4 KiB pages 352–400 ms). The bits
/// of every figure are kept exactly either way, so the outputs do not depend on where the
/// records were held.
package final class SweepRecordStore: @unchecked Sendable {
    /// The number of records (owned items).
    package let count: Int
    /// Owned record k is item `k * stride + first` (shard K/N: N and K; a whole sweep: 1 and 0).
    package let stride: Int, first: Int
    /// The slots held in memory (`count · bytesPerRecord` bytes, zeroed at first, in 2 MiB pages
    /// where Linux allows: `Syscalls.mapZeroedMemory`), or nil when they are in the scratch file
    /// `fd` (also for no records). Written by several workers at once, each to its own
    /// slots; read once the writers are done (`@unchecked Sendable` rests on that).
    private let memory: UnsafeMutablePointer<UInt64>?
    /// The scratch file's descriptor when the slots are not in memory, else -1.
    private let fd: Int32
    /// Where the scratch file lives, for error messages.
    private let directory: String
    private let cache: Locked<BlockCache>
    private let stored = Locked(0)
    /// Records whose counts do not fit the slot's 32 bits, by owned position (`encode`).
    private let wide = Locked<[Int: SweepRecord]>([:])

    /// 64-bit words per record: a head (written, kept aside, which optional figures were
    /// measured), sixteen counts of 32 bits two to a word, nine figures. The item is not stored:
    /// the slot's position gives it. 27 words with the item and 64-bit counts: the 97 600-point
    /// sweep's 21 MB of records were zeroed by the kernel in 2 MiB pages as the workers stored
    /// them, 22.6 ms of CPU a run at `--jobs 1` after 8 s idle on a VM whose host takes freed
    /// memory back (`perf record`, six runs).
    static let words = 18
    static let bytesPerRecord = words * 8
    /// Records per cached block: up to 64 (9 KiB read at a time), fewer when many streams would
    /// make the cache larger than `cacheBudgetBytes` (at least 4).
    let blockRecords: Int
    /// What the decoded blocks may take at most (`MemoryLayout<SweepRecord>.stride` bytes a
    /// record), unless 4 records per block and two blocks per stream need more.
    static let cacheBudgetBytes = 8 << 20
    /// Marks a written slot (a hole of the file reads as zeros).
    static let writtenFlag: UInt64 = 1 << 63
    /// Marks a slot whose record is kept aside whole (a count outside `0...UInt32.max`).
    static let wideFlag: UInt64 = 1 << 62
    /// The most the records may take in memory before they go to a scratch file: 64 MiB holds
    /// 97 600 points × 1 replicate (14 MB) and 14 200 points × 20 replicates (41 MB), and keeps
    /// the 976 000-point sweep's peak RSS (its 141 MB of records in a file) within its 100 MB
    /// target. With `--jobs 2` both workers' 64 KiB `pwrite`s to the one file wait on its inode
    /// lock: with 216-byte records the 14 200-point sweep took 416–428 ms of CPU at `--jobs 1`
    /// with the file and 386–408 ms without, and 421–458 ms against 381–425 ms at `--jobs 2`.
    package static let memoryLimit_bytes = 64 << 20

    /// Decoded blocks, replaced first in, first out.
    struct BlockCache {
        var blocks: [Int: [SweepRecord?]] = [:]
        var ring: [Int]
        var next = 0
    }

    /// - Parameters:
    ///   - streams: how many places of the store an output reads side by side (the sweep's
    ///     replicate rows: Σ replicates over the scenarios); the cache keeps two blocks each.
    ///   - memoryLimit_bytes: the most the records may take in memory (tests pass 0 for the file).
    /// - Throws: `SweepError.io` when the scratch file cannot be created or sized.
    package init(
        count: Int, stride: Int = 1, first: Int = 0, directory: String, streams: Int,
        memoryLimit_bytes: Int = SweepRecordStore.memoryLimit_bytes
    ) throws(SweepError) {
        self.count = count
        self.stride = stride
        self.first = first
        self.directory = directory
        let slots = 2 * max(1, streams) + 8
        blockRecords = max(4, min(64, Self.cacheBudgetBytes / (MemoryLayout<SweepRecord>.stride * slots)))
        cache = Locked(BlockCache(ring: [Int](repeating: -1, count: slots)))
        let (bytes, overflow) = count.multipliedReportingOverflow(by: Self.bytesPerRecord)
        if !overflow, bytes <= memoryLimit_bytes, let zeroed = Syscalls.mapZeroedMemory(bytes) {
            memory = zeroed.bindMemory(to: UInt64.self, capacity: count * Self.words)
            fd = -1
            return
        }
        memory = nil
        do throws(OutputError) {
            fd = try FileSystem.openScratch(directory: directory, prefix: "fencelab-sweep-records")
        } catch { throw .io(path: directory, reason: "cannot hold the sweep's records: \(error.reason)") }
        guard Syscalls.ftruncate(fd, count * Self.bytesPerRecord) == 0 else {
            let reason = FileSystem.lastError()
            FileSystem.closeFile(fd)
            throw .io(path: directory, reason: "cannot hold the sweep's records: \(reason)")
        }
    }

    deinit {
        if let memory {
            Syscalls.unmapMemory(UnsafeMutableRawPointer(memory), count * Self.bytesPerRecord)
        } else {
            FileSystem.closeFile(fd)
        }
    }

    /// The records kept aside because a count does not fit their slot (`encode`).
    package var keptAsideCount: Int { wide.withLock { $0.count } }

    /// Whether the records are held in memory (else in the scratch file).
    package var inMemory: Bool { memory != nil }

    /// The records stored so far (each owned item is stored once).
    package var storedCount: Int { stored.withLock { $0 } }

    /// The owned position of `item`, or nil when this store does not hold it.
    package func ordinal(ofItem item: Int) -> Int? {
        guard item >= first, (item - first) % stride == 0, (item - first) / stride < count else { return nil }
        return (item - first) / stride
    }

    /// Stores `records` (items this store holds, each once over all calls): in memory each is
    /// encoded straight into its slot; in the file consecutive positions go out in one `pwrite`.
    /// Thread-safe.
    /// - Throws: `SweepError.io` for a failed write or an item outside the store.
    package func store(_ records: [SweepRecord]) throws(SweepError) {
        if let memory {
            for r in records {
                guard let k = ordinal(ofItem: r.item) else { throw notHeld(r.item) }
                if !Self.encode(r, to: memory + k * Self.words) { keepAside(r, ordinal: k) }
            }
            stored.withLock { $0 += records.count }
            return
        }
        var words: [UInt64] = []
        words.reserveCapacity(min(records.count, 4096) * Self.words)
        var runStart = -1
        var runEnd = -1
        func flush() throws(SweepError) {
            guard runStart >= 0 else { return }
            let failure = words.withUnsafeBytes { raw -> OutputError? in
                do throws(OutputError) {
                    try FileSystem.writeAll(fd: fd, raw, offset: runStart * Self.bytesPerRecord, path: directory)
                    return nil
                } catch { return error }
            }
            if let failure {
                throw .io(path: directory, reason: "storing the sweep's records failed: \(failure.reason)")
            }
            words.removeAll(keepingCapacity: true)
            runStart = -1
        }
        for r in records {
            guard let k = ordinal(ofItem: r.item) else { throw notHeld(r.item) }
            if k != runEnd || words.count >= 4096 * Self.words { try flush() }
            if runStart < 0 { runStart = k }
            let at = words.count
            words.append(contentsOf: repeatElement(0, count: Self.words))
            if !words.withUnsafeMutableBufferPointer({ Self.encode(r, to: $0.baseAddress! + at) }) {
                keepAside(r, ordinal: k)
            }
            runEnd = k + 1
        }
        try flush()
        cache.withLock { $0 = BlockCache(ring: [Int](repeating: -1, count: $0.ring.count)) }
        stored.withLock { $0 += records.count }
    }

    /// Keeps a record whose counts do not fit its slot (`encode`).
    private func keepAside(_ r: SweepRecord, ordinal k: Int) {
        wide.withLock { $0[k] = r }
    }

    private func notHeld(_ item: Int) -> SweepError {
        .io(path: directory, reason: "internal: item \(item) is not one of this store's \(count) records")
    }

    /// The held slots of owned records `range` (in memory).
    private func slots(_ memory: UnsafeMutablePointer<UInt64>, _ range: Range<Int>) -> UnsafeBufferPointer<UInt64> {
        UnsafeBufferPointer(start: memory + range.lowerBound * Self.words, count: range.count * Self.words)
    }

    /// Owned record `k` (0 ≤ k < count).
    /// - Throws: `SweepError.io` for a failed read or a record that was never stored.
    package func record(_ k: Int) throws(SweepError) -> SweepRecord {
        if let memory {
            guard k >= 0, k < count else {
                throw .io(path: directory, reason: "internal: sweep record \(k) outside 0..<\(count)")
            }
            guard let r = decoded(slots(memory, k..<(k + 1)), at: 0, ordinal: k) else {
                throw .io(path: directory, reason: "internal: sweep record \(k) of \(count) was never stored")
            }
            return r
        }
        let block = k / blockRecords
        let found = try cache.withLock { (c) throws(SweepError) -> SweepRecord? in
            if let records = c.blocks[block] { return records[k - block * blockRecords] }
            let records = try read(block: block)
            if c.ring[c.next] >= 0 { c.blocks[c.ring[c.next]] = nil }
            c.ring[c.next] = block
            c.next = (c.next + 1) % c.ring.count
            c.blocks[block] = records
            return records[k - block * blockRecords]
        }
        guard let found else {
            throw .io(path: directory, reason: "internal: sweep record \(k) of \(count) was never stored")
        }
        return found
    }

    /// Owned record `k` for callers that cannot throw (outputs rendered after `SweepSummary.make`
    /// has read every record once): a failure here is the scratch file failing to read back what
    /// was just written (an I/O error of the disk), so it stops the process with the reason.
    func recordReadBack(_ k: Int) -> SweepRecord {
        do { return try record(k) } catch { fatalError("fencelab: \(error)") }
    }

    /// Owned records `range`, read with one `pread` past the cache and its lock, so several
    /// threads can each walk their own part of the store (`SweepCells.chunk`).
    /// - Throws: `SweepError.io` for a failed read or a record that was never stored.
    package func records(_ range: Range<Int>) throws(SweepError) -> [SweepRecord] {
        var out: [SweepRecord] = []
        try records(range, into: &out)
        return out
    }

    /// Owned records `range` in `out` (emptied first, its capacity kept), as `records(_:)` gives
    /// them: a thread that reads run after run reuses one array, whose pages are faulted in once.
    package func records(_ range: Range<Int>, into out: inout [SweepRecord]) throws(SweepError) {
        guard range.lowerBound >= 0, range.upperBound <= count else {
            throw .io(path: directory, reason: "internal: sweep records \(range) outside 0..<\(count)")
        }
        out.removeAll(keepingCapacity: true)
        guard !range.isEmpty else { return }
        out.reserveCapacity(range.count)
        func decodeAll(_ words: UnsafeBufferPointer<UInt64>) throws(SweepError) {
            for i in 0..<range.count {
                guard let r = decoded(words, at: i * Self.words, ordinal: range.lowerBound + i) else {
                    throw .io(
                        path: directory,
                        reason: "internal: sweep record \(range.lowerBound + i) of \(count) was never stored")
                }
                out.append(r)
            }
        }
        if let memory {
            try decodeAll(slots(memory, range))
            return
        }
        var words = [UInt64](repeating: 0, count: range.count * Self.words)
        let failure = words.withUnsafeMutableBytes { raw -> OutputError? in
            do throws(OutputError) {
                try FileSystem.readAll(
                    fd: fd, into: raw, offset: range.lowerBound * Self.bytesPerRecord, path: directory)
                return nil
            } catch { return error }
        }
        if let failure {
            throw .io(path: directory, reason: "reading back the sweep's records failed: \(failure.reason)")
        }
        try words.withUnsafeBufferPointer { (w) throws(SweepError) in try decodeAll(w) }
    }

    /// The records of `block`, nil where a slot was never written.
    private func read(block: Int) throws(SweepError) -> [SweepRecord?] {
        let start = block * blockRecords
        let n = min(blockRecords, count - start)
        var words = [UInt64](repeating: 0, count: n * Self.words)
        let failure = words.withUnsafeMutableBytes { raw -> OutputError? in
            do throws(OutputError) {
                try FileSystem.readAll(fd: fd, into: raw, offset: start * Self.bytesPerRecord, path: directory)
                return nil
            } catch { return error }
        }
        if let failure {
            throw .io(path: directory, reason: "reading back the sweep's records failed: \(failure.reason)")
        }
        return words.withUnsafeBufferPointer { w in
            (0..<n).map { decoded(w, at: $0 * Self.words, ordinal: start + $0) }
        }
    }

    /// Writes the record's `words` words at `w` (no allocation: this is on the per-item path).
    /// Returns false when a count is outside `0...UInt32.max`: the slot is then marked `wideFlag`
    /// and the caller keeps the whole record aside (no drive gives such a count: each is at most
    /// the drive's fixes).
    static func encode(_ r: SweepRecord, to w: UnsafeMutablePointer<UInt64>) -> Bool {
        var fits = true
        func counts(_ k: Int, _ low: Int, _ high: Int) {
            if low < 0 || low > Int(UInt32.max) || high < 0 || high > Int(UInt32.max) {
                fits = false
                w[k] = 0
            } else {
                w[k] = UInt64(low) | UInt64(high) << 32
            }
        }
        func figure(_ k: Int, _ f: Double?) { w[k] = f?.bitPattern ?? 0 }
        let n = r.notifications
        counts(1, r.spurious, r.missed)
        counts(2, r.flaps, r.transitions)
        counts(3, r.truthTransitions, r.trueVisits)
        counts(4, r.matchedVisits, r.falseVisits)
        counts(5, r.fragments, r.earlyEntries)
        counts(6, r.trueExits, n?.entries ?? 0)
        counts(7, n?.unwanted ?? 0, n?.falseDwells ?? 0)
        counts(8, n?.matchedDwells ?? 0, n?.dwellVisits ?? 0)
        figure(9, r.latencyMedian_s)
        figure(10, r.latencyP95_s)
        figure(11, r.entryLatencyP95_s)
        figure(12, r.lateEntryP95_s)
        figure(13, r.exitLatencyP95_s)
        figure(14, r.filterRMSE_m)
        figure(15, r.fixesPerHour)
        figure(16, r.wakeupsPerHour)
        figure(17, n?.dwellLatencyP95_s)
        // The first word: written, kept aside, and which optional figures were measured (the
        // notification figures and their dwell latency in bits 6 and 7).
        var head = writtenFlag
        if !fits { head |= wideFlag }
        if r.latencyMedian_s != nil { head |= 1 << 0 }
        if r.latencyP95_s != nil { head |= 1 << 1 }
        if r.entryLatencyP95_s != nil { head |= 1 << 2 }
        if r.lateEntryP95_s != nil { head |= 1 << 3 }
        if r.exitLatencyP95_s != nil { head |= 1 << 4 }
        if r.filterRMSE_m != nil { head |= 1 << 5 }
        if let n { head |= 1 << 6 | (n.dwellLatencyP95_s != nil ? 1 << 7 : 0) }
        w[0] = head
        return fits
    }

    /// The record in the slot at word `i` whose item is `item`, nil when the slot was never
    /// written; a slot marked `wideFlag` is decoded as if its counts were zero (`decoded` takes
    /// the record kept aside instead).
    static func decode(_ words: UnsafeBufferPointer<UInt64>, at i: Int, item: Int) -> SweepRecord? {
        let head = words[i]
        guard head & writtenFlag != 0 else { return nil }
        func low(_ k: Int) -> Int { Int(truncatingIfNeeded: UInt32(truncatingIfNeeded: words[i + k])) }
        func high(_ k: Int) -> Int { Int(truncatingIfNeeded: UInt32(truncatingIfNeeded: words[i + k] >> 32)) }
        func figure(_ bit: UInt64, _ k: Int) -> Double? {
            head & (1 << bit) != 0 ? Double(bitPattern: words[i + k]) : nil
        }
        var r = SweepRecord(
            item: item, spurious: low(1), missed: high(1), flaps: low(2), transitions: high(2),
            truthTransitions: low(3), latencyMedian_s: figure(0, 9), latencyP95_s: figure(1, 10))
        r.trueVisits = high(3)
        r.matchedVisits = low(4)
        r.falseVisits = high(4)
        r.fragments = low(5)
        r.earlyEntries = high(5)
        r.entryLatencyP95_s = figure(2, 11)
        r.lateEntryP95_s = figure(3, 12)
        r.exitLatencyP95_s = figure(4, 13)
        r.filterRMSE_m = figure(5, 14)
        r.trueExits = low(6)
        r.fixesPerHour = Double(bitPattern: words[i + 15])
        r.wakeupsPerHour = Double(bitPattern: words[i + 16])
        if head & (1 << 6) != 0 {
            r.notifications = SweepNotificationFigures(
                entries: high(6), unwanted: low(7), falseDwells: high(7), matchedDwells: low(8), dwellVisits: high(8),
                dwellLatencyP95_s: figure(7, 17))
        }
        return r
    }

    /// Owned record `k` from its slot at word `i` of `words`: nil when never written, the record
    /// kept aside when its slot is marked `wideFlag` (only a written slot is: `decode` checks
    /// the written mark once).
    private func decoded(_ words: UnsafeBufferPointer<UInt64>, at i: Int, ordinal k: Int) -> SweepRecord? {
        if words[i] & Self.wideFlag != 0 { return wide.withLock { $0[k] } }
        return Self.decode(words, at: i, item: k * stride + first)
    }
}

extension SweepRecordStore: Hashable {
    package static func == (a: SweepRecordStore, b: SweepRecordStore) -> Bool { a === b }
    package func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
