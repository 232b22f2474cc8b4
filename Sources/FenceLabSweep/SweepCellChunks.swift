import _FenceLabSupport

/// Cells computed a run of points at a time, for the passes that visit every point
/// (`SweepSummary.make`, `sweep.csv`): the records of a run are read with one `pread` per
/// replicate row (`SweepRecordStore.records(_:)`, no shared cache), so runs can be computed on
/// several threads (`WorkPool.forEachInOrder`) and consumed in point order. The cells are the
/// ones `SweepCells[point]` gives, from the same records in the same order.
extension SweepCells {
    /// Points per run: large enough that a run's reads and hand-off cost little per point, small
    /// enough that the runs in flight (a few per worker) hold little memory (2048 decoded
    /// `SweepRecord`s per replicate).
    static let chunkPoints = 2048

    /// With more than one thread, at least this many runs per thread where runs of
    /// `minimumChunkPoints` allow: the threads end a pass at most one short run apart. (With
    /// runs of `chunkPoints`, the 14 200-point grid's 7 runs of 20 replicates' cells took 16 ms
    /// each, and one thread of `--jobs 2` ran four while the other waited for the last.)
    static let runsPerThread = 8
    static let minimumChunkPoints = 256

    /// The runs that cover `0..<count`, in order: of `chunkPoints` points, or with `jobs` > 1 of
    /// fewer (down to `minimumChunkPoints`) so that each thread gets `runsPerThread` runs. What a
    /// pass computes does not depend on the cut: its runs are consumed in point order.
    static func chunks(count: Int, jobs: Int = 1) -> [Range<Int>] {
        let wanted = runsPerThread * jobs
        let shorter = Swift.max(minimumChunkPoints, Swift.min(chunkPoints, (count + wanted - 1) / wanted))
        let size = jobs > 1 ? shorter : chunkPoints
        return Swift.stride(from: 0, to: count, by: size).map { $0..<Swift.min(count, $0 + size) }
    }

    /// The records of the points `range`, one row per replicate (row i holds replicate i's
    /// records of the run, in point order).
    func rows(_ range: Range<Int>) throws(SweepError) -> [[SweepRecord]] {
        var rows: [[SweepRecord]] = []
        try self.rows(range, into: &rows)
        return rows
    }

    /// The records of the points `range` as `rows(_:)` gives them, in `rows`: its arrays are
    /// reused (their capacity kept), so a thread that reads run after run allocates them once.
    func rows(_ range: Range<Int>, into rows: inout [[SweepRecord]]) throws(SweepError) {
        if rows.count > replicates { rows.removeLast(rows.count - replicates) }
        while rows.count < replicates { rows.append([]) }
        for i in 0..<replicates {
            let first = offset + i * points
            try store.records((first + range.lowerBound)..<(first + range.upperBound), into: &rows[i])
        }
    }

    /// The cell of `point`, the `j`-th of its run, from the run's `rows`, given what it needs of
    /// the scenario: a thread computing many cells passes its own copy of the name (`ownName`)
    /// and touches nothing of the shared `SweepCells` per point. Copying that value per point
    /// retained and released its store, name and kept cells, whose reference counts the threads
    /// of `--jobs 2` share: at 97 600 points the cells pass took 39.4 ms of CPU on two threads
    /// and 35.6 ms on one, now 36.6 and 33.0 ms (medians of 12 alternating runs).
    static func cell(
        point: Int, _ j: Int, rows: [[SweepRecord]], scenario: String, scenarioHours: Double,
        scratch: inout [SweepRecord], values: inout [Double]
    ) throws -> SweepCell {
        scratch.removeAll(keepingCapacity: true)
        for row in rows { scratch.append(row[j]) }
        return try SweepSummary.cell(
            point: point, scratch, scenario: scenario, scenarioHours: scenarioHours, values: &values)
    }

    /// The scenario's name in storage of its own (a name over 15 bytes is a reference-counted
    /// object), for a thread that passes it once per cell.
    var ownName: String { String(decoding: Array(scenario.utf8), as: UTF8.self) }

    /// The cells of the points `range`, in point order (`SweepSummary.make` computed every cell
    /// once before, so a failure here is the scratch file failing to read back what was written).
    /// Kept cells are handed as a slice of `kept`, not copied; computed ones are built in
    /// `buffer`, which a thread reuses from run to run (a run of 2 048 cells is ≈ 1.9 MB: made
    /// afresh, a worker thread's allocator arena handed it back to the system when it was freed
    /// and faulted it in again for the next run).
    func cells(_ range: Range<Int>, reusing buffer: inout CellBuffer) -> ArraySlice<SweepCell> {
        if let kept { return kept[range] }
        do {
            try rows(range, into: &buffer.rows)
            buffer.cells.removeAll(keepingCapacity: true)
            buffer.cells.reserveCapacity(range.count)
            let name = ownName
            for j in 0..<range.count {
                buffer.cells.append(
                    try Self.cell(
                        point: range.lowerBound + j, j, rows: buffer.rows, scenario: name,
                        scenarioHours: scenarioHours, scratch: &buffer.scratch, values: &buffer.values))
            }
            return buffer.cells[...]
        } catch {
            fatalError("fencelab: \(error) (aggregated without error before)")
        }
    }
}

/// The arrays a thread reuses from one run of cells to the next (`SweepCells.cells(_:reusing:)`).
struct CellBuffer: Sendable {
    /// The run's records, one row per replicate.
    var rows: [[SweepRecord]] = []
    /// The run's cells.
    var cells: [SweepCell] = []
    /// One point's records.
    var scratch: [SweepRecord] = []
    /// One figure's values over those records (`SweepSummary.cell`).
    var values: [Double] = []
}

/// What `SweepSummary.make` computes for one run of points, per scenario and for the mix, to be
/// appended in point order. The cells themselves (≈ 950 bytes each) travel only when the summary
/// keeps them; otherwise a run carries the three flutter figures its frontier needs (24 bytes a
/// point), so the runs in flight (`2 × jobs` of `chunkPoints` points) hold little memory.
struct AggregatedRun: Sendable {
    /// Per scenario: the run's cells in point order, when the summary keeps them (else empty).
    var cells: [[SweepCell]]
    /// Per scenario: the run's flutter figures in point order (`TradeOffColumns.figures`).
    var trade: [[SIMD3<Double>]]
    /// The run's mix figures, in point order, each with an empty `violations` list: point k's
    /// violations are `violations[violationEnds[k - 1]..<violationEnds[k]]` (from 0 for the first).
    var mix: [MixPoint] = []
    var violations: [MixViolation] = []
    var violationEnds: [Int] = []
    /// Whether `cells` holds the cells.
    let keepsCells: Bool

    init(scenarios: Int, points: Int, keepingCells: Bool) {
        keepsCells = keepingCells
        cells = (0..<scenarios).map { _ in
            var c: [SweepCell] = []
            if keepingCells { c.reserveCapacity(points) }
            return c
        }
        trade = (0..<scenarios).map { _ in
            var t: [SIMD3<Double>] = []
            t.reserveCapacity(points)
            return t
        }
        mix.reserveCapacity(points)
        violationEnds.reserveCapacity(points)
        violations.reserveCapacity(2 * points)
    }

    /// Adds scenario `s`'s cell of the next point.
    mutating func append(_ c: SweepCell, scenario s: Int) {
        trade[s].append(TradeOffColumns.figures(c))
        if keepsCells { cells[s].append(c) }
    }
}
