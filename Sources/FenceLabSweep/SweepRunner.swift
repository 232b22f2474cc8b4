import DriveSim
import Foundation
import _FenceLabSupport

/// What a sweep process computed: its records, and how many came from the resume file.
package struct SweepRun: Sendable {
    package var manifest: SweepManifest
    /// This process's records (all items of its shard), in item order.
    package var records: SweepRecordStore
    /// Items taken from the resume file instead of recomputed.
    package var resumedItems: Int
    /// Items evaluated by this process.
    package var evaluatedItems: Int
}

/// Runs the work items a process owns: each (scenario, replicate) drive is generated once and
/// every owned grid point is evaluated on it. Records are appended (one `write(2)` per piece of
/// up to `recordsPerPiece` records of a drive) to a resume file next to the output folder as they
/// finish, so `--resume` skips them after an interruption, and stored in a `SweepRecordStore`
/// (a scratch file) for the summary; the final files are written separately and atomically
/// (`ReportFolder`).
package enum SweepRunner {
    /// The resume file of output folder `out`: `PARENT/.NAME.sweep-partial.jsonl`. Its first line
    /// is the manifest (one line); then one `SweepRecord` per line.
    package static func partialPath(out: String) -> String {
        let url = URL(fileURLWithPath: out).standardizedFileURL
        return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).sweep-partial.jsonl")
            .path
    }

    /// - Parameter early: the plan's first drive, made while the destination was checked
    ///   (`SweepEarlyStart`), taken by the work unit that needs it.
    package static func run(
        _ plan: SweepPlan, request: SweepRequest, out: String, early: SweepEarlyStart? = nil
    ) throws -> SweepRun {
        let path = partialPath(out: out)
        // Every owned record goes to its slot of the store (item k of shard K/N is the (k / N)-th
        // owned one), out of memory: the records never exist all at once in the process.
        let store = try SweepRecordStore(
            count: plan.ownedCount, stride: plan.shard.count, first: plan.shard.index,
            directory: URL(fileURLWithPath: path).deletingLastPathComponent().path,
            streams: plan.scenarios.reduce(0) { $0 + $1.spec.replicates })
        // Which owned records the resume file gave (by position in the store).
        var done = [Bool](repeating: false, count: plan.ownedCount)
        if request.resume {
            done = try loadPartial(path: path, plan: plan, into: store, jobs: request.jobs)
        } else {
            // Without --resume a sweep starts afresh: an earlier run's resume file goes now, not
            // when this run starts its own.
            FileSystem.removeFile(path)
        }
        let resumed = done.count(where: { $0 })
        let kept = done
        // The resume file is started once the sweep has run `checkpointAfter_s` (at once for 0):
        // rewritten as its manifest line and the kept records, then fsync'd (10 MB and ≈ 20 ms of
        // fsync on an ext4 disk at 97 600 points), on a thread of its own while the workers go on;
        // the first append waits for it. The worker that starts it then appends the records
        // finished before, in pieces.
        let checkpoint = Checkpoint(
            after_s: request.checkpointAfter_s, store: store, elapsed_s: request.checkpointClock
        ) {
            () throws(SweepError) -> RecordAppender in
            try RecordAppender(path: path, manifest: plan.manifest, jobs: request.jobs) { sink in
                for k in kept.indices where kept[k] {
                    do throws(SweepError) { sink.append(try store.record(k).jsonLine + "\n") } catch {
                        sink.fail(.io(path: path, operation: "rewrite", reason: error.description))
                        return
                    }
                }
            }
        }

        // Work units: (scenario, replicate) pairs with owned points not yet done.
        var todoUnits: [(s: Int, r: Int, points: [Int])] = []
        // Unsharded, every drive owns every point: one array serves them all (one per drive was
        // made and faulted in on this thread before any worker started).
        let everyPoint = plan.shard.count > 1 ? nil : plan.ownedPoints(scenario: 0, replicate: 0)
        for (s, p) in plan.scenarios.enumerated() {
            for r in 0..<p.spec.replicates {
                let owned = everyPoint ?? plan.ownedPoints(scenario: s, replicate: r)
                // Nothing resumed: every owned point is to do (no per-point look-up, 97 600 of
                // them on one thread before any worker starts).
                let todo =
                    resumed == 0
                    ? owned
                    : owned.filter {
                        store.ordinal(ofItem: plan.itemIndex(scenario: s, replicate: r, point: $0)).map { !kept[$0] }
                            ?? true
                    }
                if !todo.isEmpty { todoUnits.append((s, r, todo)) }
            }
        }
        done = []
        let units = Self.split(todoUnits, jobs: request.jobs)
        // The pieces of a cut unit share its drive: the first piece to run makes it and the last
        // one lets it go, so a drive is generated once however many pieces it is cut into.
        var piecesOf: [SIMD2<Int>: Int] = [:]  // (scenario, replicate) → pieces
        for u in units { piecesOf[SIMD2(u.s, u.r), default: 0] += 1 }
        var cells: [SIMD2<Int>: SharedDrive] = [:]
        let sharedDrives: [SharedDrive?] = units.map { u in
            let key = SIMD2(u.s, u.r)
            guard let pieces = piecesOf[key], pieces > 1 else { return nil }
            if let cell = cells[key] { return cell }
            let cell = SharedDrive(pieces: pieces)
            cells[key] = cell
            return cell
        }
        let remaining = units.reduce(0) { $0 + $1.points.count }
        if resumed > 0 { request.onResume?(resumed, remaining, path) }
        let progress = ProgressReporter(
            scenarios: plan.scenarios.count, totalWorkItems: plan.ownedCount,
            alreadyDone: resumed, force: request.forceProgress)
        let stopAfter = request.stopAfterUnits
        let finished = Locked(0)  // work units done, for the interruption test hook
        // A worker's buffers (scratch, records, items, record lines), handed from unit to unit
        // (one set per worker at a time): their pages are faulted in once per worker, not once per
        // unit, and the pieces of a cut unit that one worker runs share the scratch's accepted
        // fixes and true transitions of their drive instead of computing them again.
        let workerBuffers = Locked<[WorkerBuffers]>([])
        let settings = plan.settings
        // With more than one worker the lines go to the file through one queue of their own, so
        // no worker waits for the file to open or for another worker's write.
        let queue = request.jobs > 1 ? LineQueue(checkpoint: checkpoint, inFlight: Self.queuedPieces) : nil
        // However the pool ends, the resume file is complete before `run` returns or throws, with
        // every line a worker held back or queued (below).
        func flushHeldLines() throws(SweepError) {
            try queue?.drain()
            let held = workerBuffers.withLock { buffers in
                defer { buffers.removeAll() }
                return buffers.map(\.lines).filter { !$0.isEmpty }
            }
            for lines in held { try checkpoint.opened().write(lines) }
        }
        defer { _ = try? checkpoint.openedIfStarted() }
        do {
            _ = try WorkPool.map(
                count: units.count, jobs: request.jobs,
                onDone: { i in
                    progress.advance(by: units[i].points.count, unit: "sweep items (grid point × drive)")
                }
            ) { i in
                let unit = units[i]
                if let stopAfter, finished.withLock({ $0 }) >= stopAfter {
                    throw SweepError.interrupted(afterUnits: stopAfter)
                }
                let make = { () throws -> SweepDrive in
                    if let drive = early?.takeDrive(scenario: unit.s, replicate: unit.r) { return drive }
                    return try SweepDrive(
                        spec: plan.scenarios[unit.s].spec, replicate: unit.r, filters: plan.filters,
                        samplings: plan.samplings)
                }
                let drive = try sharedDrives[i].map { try $0.take(make) } ?? make()
                var buffers = workerBuffers.takeSpare(or: WorkerBuffers.init)
                defer { workerBuffers.putBack(buffers) }
                // A drive's points in pieces, so that its records and their lines (≈ 500 bytes per
                // point) are not all in memory at once on a large grid.
                let points = unit.points
                buffers.records.reserveCapacity(min(points.count, Self.recordsPerPiece))
                buffers.items.reserveCapacity(min(points.count, Self.recordsPerPiece))
                for start in Swift.stride(from: points.startIndex, to: points.endIndex, by: Self.recordsPerPiece) {
                    buffers.records.removeAll(keepingCapacity: true)
                    buffers.items.removeAll(keepingCapacity: true)
                    for p in points[start..<min(points.endIndex, start + Self.recordsPerPiece)] {
                        buffers.items.append(
                            SweepItem(
                                point: plan.manifest.points[p],
                                item: plan.itemIndex(scenario: unit.s, replicate: unit.r, point: p),
                                sampling: plan.samplingIndex[p], notify: plan.notifications[p]))
                    }
                    try drive.evaluate(
                        buffers.items, settings: settings, scratch: &buffers.scratch, into: &buffers.records)
                    // The records are stored; before the resume file is started that is all, the
                    // worker that starts it appends those first, and from then on every piece's lines.
                    switch try checkpoint.storeOrStart(buffers.records) {
                    case .stored: continue
                    case .appending: break
                    case .started(let earlier):
                        try Self.append(earlier, from: store, to: checkpoint, buffer: &buffers.lines)
                    }
                    RecordAppender.encode(buffers.records, into: &buffers.lines)
                    if let queue {
                        try queue.submit(&buffers.lines)
                    } else {
                        // Until the resume file is open the lines are held (up to
                        // `heldLines_bytes`), so the worker does not wait for its fsync.
                        let full = buffers.lines.count >= Self.heldLines_bytes
                        if let ready = full ? try checkpoint.opened() : try checkpoint.ifOpened() {
                            try ready.write(buffers.lines)
                            buffers.lines.removeAll(keepingCapacity: true)
                        }
                    }
                }
                finished.withLock { $0 += 1 }
            }
        } catch {
            try? flushHeldLines()
            throw error
        }
        try flushHeldLines()
        progress.finish()
        try checkpoint.openedIfStarted()?.close()
        guard store.storedCount == plan.ownedCount else {
            throw SweepError.io(
                path: path, reason: "internal: \(store.storedCount) of \(plan.ownedCount) owned records were evaluated")
        }
        return SweepRun(manifest: plan.manifest, records: store, resumedItems: resumed, evaluatedItems: remaining)
    }

    /// Appends the lines of the stored records at `positions` to the resume file, `recordsPerPiece`
    /// at a time (`RecordAppender.append`: one `write(2)` each), built in `bytes` (left empty).
    static func append(
        _ positions: [Int], from store: SweepRecordStore, to checkpoint: Checkpoint, buffer bytes: inout [UInt8]
    ) throws(SweepError) {
        for start in Swift.stride(from: 0, to: positions.count, by: recordsPerPiece) {
            let piece = try positions[start..<min(positions.count, start + recordsPerPiece)].map {
                (k) throws(SweepError) in try store.record(k)
            }
            try checkpoint.opened().append(piece, buffer: &bytes)
        }
        bytes.removeAll(keepingCapacity: true)
    }

    /// What a worker reuses from one work unit to the next.
    struct WorkerBuffers {
        var scratch = SweepScratch()
        var records: [SweepRecord] = []
        var items: [SweepItem] = []
        var lines: [UInt8] = []
    }

    /// Records evaluated, appended to the resume file (one `write(2)`) and stored at a time.
    static let recordsPerPiece = 4096

    /// The most record-line bytes the one worker holds while the resume file is being opened;
    /// with more it waits for the file.
    static let heldLines_bytes = 8 << 20

    /// With more than one worker, the most pieces' lines waiting in the `LineQueue` (≤ 2 MB each,
    /// so about as many bytes as two workers would hold): a worker with more waits.
    static let queuedPieces = 8

    /// The fewest points a work unit is cut down to when there are too few units for the workers.
    static let minimumUnitPoints = 1024

    /// Work units wanted per worker: with fewer, units are cut (`split`).
    static let unitsPerWorker = 32

    /// With fewer than `unitsPerWorker` work units per worker (a large grid on few drives: 10⁵
    /// points × 1 replicate is one unit), each unit's points are cut into consecutive pieces of
    /// at least `minimumUnitPoints` until there are about that many, so every worker has a share
    /// and the last pieces leave little for one worker alone (on the 97 600-point sweep with 8
    /// pieces the last one ran 20 ms by itself); the pieces of a unit share its drive
    /// (`SharedDrive`). The pieces come `jobs` drives at a time, in turns (the first piece of
    /// each, then the second of each, …): the workers start by making different drives, where
    /// with one drive's pieces in a row the second worker waited while the first made the drive
    /// both needed. The records, and so every output, do not depend on the cut or the order.
    /// One worker: no cut. The pieces are slices of the units' arrays (no copies). The last unit's
    /// last pieces are cut smaller still (below).
    static func split(
        _ units: [(s: Int, r: Int, points: [Int])], jobs: Int
    ) -> [(s: Int, r: Int, points: ArraySlice<Int>)] {
        let wanted = unitsPerWorker * jobs
        // Nothing left (a resume file that holds every item): nothing to cut.
        guard jobs > 1, !units.isEmpty, units.count < wanted else { return units.map { ($0.s, $0.r, $0.points[...]) } }
        let perUnit = (wanted + units.count - 1) / units.count
        let cut: [[(s: Int, r: Int, points: ArraySlice<Int>)]] = units.map { u in
            let size = max(minimumUnitPoints, (u.points.count + perUnit - 1) / perUnit)
            return Swift.stride(from: 0, to: u.points.count, by: size).map { start in
                (u.s, u.r, u.points[start..<min(u.points.count, start + size)])
            }
        }
        var out: [(s: Int, r: Int, points: ArraySlice<Int>)] = []
        for first in Swift.stride(from: 0, to: cut.count, by: jobs) {
            let group = cut[first..<min(cut.count, first + jobs)]
            for k in 0..<(group.map(\.count).max() ?? 0) {
                for pieces in group where k < pieces.count { out.append(pieces[k]) }
            }
        }
        // The end of the last unit in smaller pieces: the last `jobs` pieces, when they are one
        // unit's consecutive points, become `jobs` pieces of half their size and then `2 × jobs`
        // of a quarter, in order (not below `smallestTailPiece`). The workers then end within
        // about a quarter piece of each other: with the last pieces whole, the one that took the
        // last piece ran 1.3–2.8 ms alone on the 97 600-point sweep at `--jobs 2` (64 pieces).
        let tail = out.suffix(jobs)
        guard let last = tail.last, tail.count == jobs,
            tail.allSatisfy({ $0.s == last.s && $0.r == last.r }),
            zip(tail, tail.dropFirst()).allSatisfy({ $0.points.endIndex == $1.points.startIndex }),
            let whole = units.first(where: { $0.s == last.s && $0.r == last.r })?.points
        else { return out }
        let start = tail.first!.points.startIndex
        let end = last.points.endIndex
        let quarter = (end - start) / (4 * jobs)
        guard quarter >= smallestTailPiece else { return out }
        out.removeLast(jobs)
        var bounds = [start]
        for _ in 0..<jobs { bounds.append(bounds.last! + 2 * quarter) }
        for _ in 0..<(2 * jobs - 1) { bounds.append(bounds.last! + quarter) }
        bounds.append(end)
        for (lower, upper) in zip(bounds, bounds.dropFirst()) { out.append((last.s, last.r, whole[lower..<upper])) }
        return out
    }

    /// The fewest points of the pieces the end of the last cut unit is cut into (`split`).
    static let smallestTailPiece = 256

    /// Removes the resume file once the final output is in place.
    package static func removePartial(out: String) {
        FileSystem.removeFile(partialPath(out: out))
    }

    /// Finished records of an earlier run of the same sweep and shard (a torn last line is dropped;
    /// a record whose checksum does not match, an item given twice or one outside the shard is
    /// refused naming the line), read 1 MiB at a time straight into `store`: the file
    /// (≈ 320 bytes per item) and its first line, the manifest (≈ 110 bytes per grid point), are
    /// never in memory whole; the manifest is compared piece by piece as it is encoded. Returns
    /// which owned records (by position in `store`) it held.
    static func loadPartial(
        path: String, plan: SweepPlan, into store: SweepRecordStore, jobs: Int = 1
    ) throws(SweepError) -> [Bool] {
        var done = [Bool](repeating: false, count: plan.ownedCount)
        guard let reader = try RecordLineReader(path: path, what: "the resume file") else { return done }
        // The first line must be this sweep's manifest; a file without a whole first line (a torn
        // header) holds nothing.
        var header: (matches: Bool, failure: SweepError?) = (true, nil)
        plan.manifest.encode(pretty: false, jobs: jobs) { piece in
            guard header.matches, header.failure == nil else { return }
            for byte in piece.utf8 {
                do throws(SweepError) {
                    guard try reader.peek() == byte else {
                        header.matches = false
                        return
                    }
                } catch {
                    header.failure = error
                    return
                }
                reader.skip()
            }
        }
        if let failure = header.failure { throw failure }
        if header.matches {
            guard var next = try reader.peek() else { return done }
            // CR LF line ends (a file that passed through an editor or a copy that converts them)
            // are JSON whitespace in the records; the header line takes them too.
            if next == UInt8(ascii: "\r") {
                reader.skip()
                guard let afterCR = try reader.peek() else { return done }
                next = afterCR
            }
            header.matches = next == UInt8(ascii: "\n")
        }
        guard header.matches else {
            if try reader.restHasNewline() { throw .partialMismatch(file: path) }
            return done
        }
        reader.skip()
        var lineNumber = 2
        var batch: [SweepRecord] = []
        _ = try reader.lines { (line) throws(SweepError) in
            defer { lineNumber += 1 }
            let r = try SweepRecord(parsing: String(decoding: line, as: UTF8.self)[...], file: path, line: lineNumber)
            guard r.item < plan.manifest.items, plan.shard.owns(r.item), let k = store.ordinal(ofItem: r.item) else {
                throw .badRecord(file: path, line: lineNumber, reason: SweepMerge.notInShard(r.item, plan.manifest))
            }
            guard !done[k] else {
                throw .badRecord(file: path, line: lineNumber, reason: "item \(r.item) appears twice")
            }
            done[k] = true
            batch.append(r)
            if batch.count >= recordsPerPiece {
                try store.store(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        try store.store(batch)  // what `lines` leaves is a torn last line: dropped
        return done
    }
}

/// Appends record lines to the resume file; thread-safe; each call is one `write(2)` of whole lines.
final class RecordAppender: Sendable {
    /// The open descriptor (−1 once closed); holding the lock serialises the appends.
    private let fd: Locked<Int32>
    private let path: String

    /// Rewrites `path` as the manifest's line + the record lines `existing` writes (streamed to a
    /// temporary file, then renamed), then opens it for appending.
    /// `jobs`: threads that encode the manifest's points (`SweepManifest.encode(pretty:jobs:into:)`).
    init(path: String, manifest: SweepManifest, jobs: Int = 1, existing: (inout FileSink) -> Void) throws(SweepError) {
        self.path = path
        do {
            try FileSystem.atomicWrite(to: path) { sink in
                manifest.encode(pretty: false, jobs: jobs) { sink.append($0) }
                sink.append("\n")
                existing(&sink)
            }
            fd = Locked(try FileSystem.openForAppending(path))
        } catch { throw .io(path: path, reason: error.reason) }
    }

    /// Appends the lines of `records` with one `write(2)`, built in `bytes` (emptied first, its
    /// capacity kept: a worker reuses one buffer for all its pieces, so the ≈ 2 MB of a piece of
    /// 4 096 lines are allocated and faulted in once per worker, not once per piece).
    func append(_ records: [SweepRecord], buffer bytes: inout [UInt8]) throws(SweepError) {
        bytes.removeAll(keepingCapacity: true)
        Self.encode(records, into: &bytes)
        try write(bytes)
    }

    /// Appends the lines of `records` to `bytes`.
    static func encode(_ records: [SweepRecord], into bytes: inout [UInt8]) {
        bytes.reserveCapacity(bytes.count + records.count * Self.lineReserve_bytes)
        for r in records {
            r.appendJSONLine(to: &bytes)
            bytes.append(UInt8(ascii: "\n"))
        }
    }

    /// Appends `bytes` (whole record lines) with one `write(2)`.
    func write(_ bytes: [UInt8]) throws(SweepError) {
        try fd.withLock { (fd) throws(SweepError) in
            do throws(OutputError) { try FileSystem.writeAll(fd: fd, bytes, path: path) } catch {
                throw .io(path: path, reason: "append failed: \(error.reason)")
            }
        }
    }

    /// Bytes reserved per record line (the lines of the sweep's records are 400–500 bytes).
    static let lineReserve_bytes = 512

    func close() {
        fd.withLock { fd in
            if fd >= 0 {
                FileSystem.closeFile(fd)
                fd = -1
            }
        }
    }

    deinit { close() }
}

/// Record lines on their way to the resume file when several workers make them: a worker hands
/// its buffer over (`submit`) and goes on with an emptied one from an earlier submission, while a
/// serial queue waits for the file to be open and writes the buffers in the order given, one
/// `write(2)` each. The kernel serialises appends to one file anyway; this way no worker waits
/// for another's (a 97 600-point sweep with two workers left one core idle for ≈ 15 ms when both
/// flushed the lines they had held while the file was being opened). At most `inFlight` buffers
/// wait; a worker with one more waits for a slot. The first failure is kept: the next `submit`
/// and `drain` throw it, and nothing is written after it.
final class LineQueue: Sendable {
    /// A buffer handed to the queue, so that its storage has one owner and is emptied in place.
    private final class Lines: @unchecked Sendable {
        var bytes: [UInt8] = []
    }

    private let checkpoint: Checkpoint
    private let queue = DispatchQueue(label: "fencelab.sweep.resume-file")
    private let slots: DispatchSemaphore
    private let spares = Locked<[[UInt8]]>([])
    private let failure = Locked<SweepError?>(nil)

    /// `checkpoint`: started before the first `submit` (the lines of a piece are made only then).
    init(checkpoint: Checkpoint, inFlight: Int) {
        self.checkpoint = checkpoint
        slots = DispatchSemaphore(value: max(1, inFlight))
    }

    /// Queues `lines` (whole record lines) for the file and leaves an empty buffer in their place.
    func submit(_ lines: inout [UInt8]) throws(SweepError) {
        if let error = failure.withLock({ $0 }) { throw error }
        guard !lines.isEmpty else { return }
        slots.wait()
        let handed = Lines()
        swap(&handed.bytes, &lines)
        if let spare = spares.withLock({ $0.popLast() }) { lines = spare }
        queue.async { [checkpoint, failure, spares, slots] in
            defer { slots.signal() }
            if failure.withLock({ $0 }) == nil {
                do throws(SweepError) { try checkpoint.opened().write(handed.bytes) } catch {
                    failure.withLock { $0 = $0 ?? error }
                }
            }
            handed.bytes.removeAll(keepingCapacity: true)
            // Moved, not copied, into the spares, so the worker that takes it owns it alone.
            spares.withLock { spare in
                spare.append([])
                swap(&spare[spare.count - 1], &handed.bytes)
            }
        }
    }

    /// Waits until every queued buffer is written; throws the first failure.
    func drain() throws(SweepError) {
        queue.sync {}
        spares.withLock { $0.removeAll() }
        if let error = failure.withLock({ $0 }) { throw error }
    }
}

/// When a sweep starts its resume file: after `after_s` seconds of work (wall time from the
/// start of the drives; 0: at once). Until then a finished piece's records are only stored, and
/// their positions noted; the piece that finds the time passed starts the file (its manifest
/// line and the kept records, `PendingAppender`, on a thread of its own) and its worker appends
/// the records stored before, then every piece's lines are appended. Every piece is stored
/// before the decision, outside its lock (workers fill their own slots of the store side by side),
/// and its positions are noted under the lock only while the file is not started, so the starter
/// reads only stored records and each record goes to the file exactly once. A sweep that ends sooner writes no
/// resume file, so a short sweep does not encode, checksum and write ≈ 510 bytes per work item
/// it will never need.
final class Checkpoint: Sendable {
    /// What a worker does with a finished piece once `storeOrStart` has stored its records.
    enum Step {
        /// The file is not due yet: nothing else to do.
        case stored
        /// Append the piece's lines.
        case appending
        /// This piece started the file: append the records stored before (their positions in
        /// the store), then the piece's lines.
        case started(earlier: [Int])
    }

    private let after_s: Double
    /// Seconds since the checkpoint was made (a test's clock, or the monotonic clock).
    private let elapsed_s: @Sendable () -> Double
    private let store: SweepRecordStore
    private let open: @Sendable () throws(SweepError) -> RecordAppender
    /// The started file, or the positions of the records stored before it.
    private let state = Locked<(appender: PendingAppender?, earlier: [Int])>((nil, []))

    /// - Parameter elapsed_s: seconds since the start (nil: the monotonic clock from now).
    init(
        after_s: Double, store: SweepRecordStore, elapsed_s: (@Sendable () -> Double)? = nil,
        open: @escaping @Sendable () throws(SweepError) -> RecordAppender
    ) {
        self.after_s = after_s
        let start = Syscalls.monotonicSeconds()
        self.elapsed_s = elapsed_s ?? { Syscalls.monotonicSeconds() - start }
        self.store = store
        self.open = open
        if after_s == 0 { state.withLock { $0.appender = PendingAppender(open) } }
    }

    /// Stores `records`, a finished piece, and says what else to do with it (see `Step`).
    func storeOrStart(_ records: [SweepRecord]) throws(SweepError) -> Step {
        try store.store(records)
        return state.withLock { s in
            if s.appender != nil { return .appending }
            if elapsed_s() < after_s {
                for r in records {
                    if let k = store.ordinal(ofItem: r.item) { s.earlier.append(k) }
                }
                return .stored
            }
            let earlier = s.earlier
            s.earlier = []
            s.appender = PendingAppender(open)
            return .started(earlier: earlier)
        }
    }

    /// The open appender (waiting for the opening); only once the file is started.
    func opened() throws(SweepError) -> RecordAppender {
        guard let appender = state.withLock({ $0.appender }) else {
            preconditionFailure("Checkpoint: the resume file is used before it is started")
        }
        return try appender.opened()
    }

    /// The appender if the file is started and open by now, nil while it is being opened.
    func ifOpened() throws(SweepError) -> RecordAppender? {
        try state.withLock({ $0.appender })?.ifOpened()
    }

    /// The open appender (waiting for the opening) if the file was started, else nil.
    func openedIfStarted() throws(SweepError) -> RecordAppender? {
        try state.withLock({ $0.appender })?.opened()
    }
}

/// A `RecordAppender` opened on a thread of its own: `opened()` waits until it is, then returns
/// it or throws why it could not be opened (every call the same).
final class PendingAppender: Sendable {
    private let result = Awaited<Result<RecordAppender, SweepError>>()

    init(_ open: @escaping @Sendable () throws(SweepError) -> RecordAppender) {
        HelperThreads.shared.start { [result] in
            do throws(SweepError) { result.set(.success(try open())) } catch { result.set(.failure(error)) }
        }
    }

    /// The appender if it is open by now, nil while it is being opened.
    func ifOpened() throws(SweepError) -> RecordAppender? {
        try result.current?.get()
    }

    func opened() throws(SweepError) -> RecordAppender {
        try result.value().get()
    }
}

/// The drive of a work unit cut into pieces (`SweepRunner.split`): made by the first piece that
/// asks, handed to each of the others, released after the last.
final class SharedDrive: Sendable {
    private let state: Locked<(drive: SweepDrive?, left: Int)>

    init(pieces: Int) { state = Locked((nil, pieces)) }

    /// The drive, made with `make` if no piece made it yet (under the lock: a second piece
    /// waits for it instead of generating it too).
    func take(_ make: () throws -> SweepDrive) throws -> SweepDrive {
        try state.withLock { (s) throws -> SweepDrive in
            let drive = try s.drive ?? make()
            s.left -= 1
            s.drive = s.left > 0 ? drive : nil
            return drive
        }
    }
}

/// A whole `fencelab sweep` / `fencelab merge`, as the CLI calls it.
package enum SweepJob {
    /// What a sweep wrote.
    package struct Outcome: Sendable {
        package var run: SweepRun
        /// The summary (nil for a shard, which writes records only).
        package var summary: SweepSummary?
    }

    /// Preflights `out`, prepares the scenarios, runs this process's items (resuming if asked),
    /// writes the final folder atomically (a shard folder with `--shard`), and removes the resume
    /// file once that folder is in place.
    /// The whole run holds the output's `OutputLock`, so a second sweep into the same `--out`
    /// is refused at once and never touches this one's resume file.
    package static func sweep(_ request: SweepRequest, out: String) throws -> Outcome {
        // The arena limit is set before any thread allocates; with more than one worker the plan
        // and the first drive are made beside the destination's checks and lock (`SweepEarlyStart`).
        PhaseClock.mark("sweep-start")
        AllocatorTuning.limitArenas(to: request.jobs)
        let early = request.jobs > 1 ? SweepEarlyStart(request) : nil
        try ReportFolder.preflight(destination: out, replaceable: SweepOutput.replaceableNames)
        let lock = try OutputLock.acquire(destination: out)
        defer { lock.release() }
        PhaseClock.mark("locked")
        let plan = try early?.plan() ?? SweepPlan.prepare(request)
        let run = try SweepRunner.run(plan, request: request, out: out, early: early)
        PhaseClock.mark("evaluated")
        AllocatorTuning.returnFreeMemory()
        var summary: SweepSummary?
        // The resume file goes as soon as the final files are in place, beside the removal of a
        // replaced folder (`--jobs` > 1): both free tens of megabytes of pages.
        let removePartial: @Sendable () -> Void = { SweepRunner.removePartial(out: out) }
        if request.shard != nil {
            try ReportFolder.write(
                streams: SweepMerge.shardFiles(run), to: out, replaceable: SweepOutput.replaceableNames,
                jobs: request.jobs, whenInPlace: removePartial)
        } else {
            let (s, digest) = try SweepSummary.makePendingDigest(
                manifest: run.manifest, store: run.records, fullFormLimit_points: request.fullFormLimit_points,
                jobs: request.jobs)
            PhaseClock.mark("summarised")
            try ReportFolder.write(
                streams: SweepOutput.streams(s, digest: digest, csvGzip: request.csvGzip, jobs: request.jobs),
                to: out, replaceable: SweepOutput.replaceableNames, jobs: request.jobs, whenInPlace: removePartial)
            summary = digest?.summary(s) ?? s
        }
        PhaseClock.mark("sweep-end")
        return Outcome(run: run, summary: summary)
    }

    /// Checks and merges shard folders into the files of one unsharded run.
    package static func merge(
        folders: [String], out: String, csvGzip: Bool = false,
        fullFormLimit_points: Int = SweepDigest.fullFormLimit_points
    ) throws -> SweepSummary {
        try ReportFolder.preflight(destination: out, replaceable: SweepOutput.replaceableNames)
        let (manifest, records) = try SweepMerge.load(
            folders: folders,
            scratchDirectory: URL(fileURLWithPath: out).standardizedFileURL.deletingLastPathComponent().path)
        let s = try SweepSummary.make(manifest: manifest, store: records, fullFormLimit_points: fullFormLimit_points)
        try ReportFolder.write(
            streams: SweepOutput.streams(s, csvGzip: csvGzip), to: out, replaceable: SweepOutput.replaceableNames)
        return s
    }
}
