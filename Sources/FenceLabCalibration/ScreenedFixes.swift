import DeviceLogKit
import GeoPolicy

/// The fixes of a recording that can be calibrated, in file order, with the count of each drop
/// reason (`FixAccounting`): screened one fix at a time, so a reader can drop the others as it
/// reads them (`CalibrationRun.load`) instead of holding every row of the file.
package struct ScreenedFixes: Sendable, Hashable {
    /// The path the fixes were read from.
    package var file: String
    /// The kept fixes (finite time, valid coordinate and accuracy, strictly increasing time) and
    /// their validated positions, in chunks: growing never copies what is held.
    private var keptFixes = ChunkedStorage<Fix>()
    private var keptPoints = ChunkedStorage<Coordinate>()
    /// `read` and the drop counts up to `outOfOrder`; the rest is filled by the calibration.
    package private(set) var accounting = FixAccounting()
    /// What the import skipped and assumed (`DeviceLog.ingest`).
    package var ingest = DeviceLogIngest()
    private var last = -Double.infinity

    package init(file: String) { self.file = file }

    /// Number of kept fixes.
    package var count: Int { keptFixes.count }
    /// Kept fix `k` (0 ≤ k < `count`).
    package func fix(at k: Int) -> Fix { keptFixes[k] }
    /// Kept fix `k`'s position.
    package func point(at k: Int) -> Coordinate { keptPoints[k] }
    /// The kept fixes, copied into one array.
    package var fixes: [Fix] { keptFixes.elements }
    /// The kept fixes' positions, copied into one array.
    package var points: [Coordinate] { keptPoints.elements }

    /// The screened fixes of a log already in memory.
    package init(_ log: DeviceLog) {
        self.init(file: log.file)
        ingest = log.ingest
        for logged in log.fixes { admit(logged.fix) }
    }

    /// Counts `f` as read and keeps it unless a `FixAccounting` drop reason applies (checked in
    /// that order: non-finite time, invalid coordinate, invalid accuracy, same time as the last
    /// kept fix, earlier than it). Returns whether it was kept.
    @discardableResult
    package mutating func admit(_ f: Fix) -> Bool {
        accounting.read += 1
        guard f.timestamp_s.isFinite else {
            accounting.nonFiniteTime += 1
            return false
        }
        guard let c = try? Coordinate(latitude: f.latitude, longitude: f.longitude) else {
            accounting.invalidCoordinate += 1
            return false
        }
        guard f.horizontalAccuracy_m.isFinite, f.horizontalAccuracy_m > 0 else {
            accounting.invalidAccuracy += 1
            return false
        }
        guard f.timestamp_s != last else {
            accounting.duplicateTimestamp += 1
            return false
        }
        guard f.timestamp_s > last else {
            accounting.outOfOrder += 1
            return false
        }
        last = f.timestamp_s
        keptFixes.append(f)
        keptPoints.append(c)
        return true
    }
}

/// Values appended in chunks of 65 536. An array that doubles its capacity holds the old and the
/// new buffer while it copies (up to 3× what it holds, at a size not known in advance); chunks
/// are never copied, and the slack is at most one chunk.
struct ChunkedStorage<Element> {
    static var chunkShift: Int { 16 }
    private var chunks: [[Element]] = []
    private(set) var count = 0

    mutating func append(_ element: Element) {
        let mask = (1 << Self.chunkShift) - 1
        if count & mask == 0 {
            var chunk: [Element] = []
            chunk.reserveCapacity(1 << Self.chunkShift)
            chunks.append(chunk)
        }
        chunks[chunks.count - 1].append(element)
        count += 1
    }

    subscript(index: Int) -> Element { chunks[index >> Self.chunkShift][index & ((1 << Self.chunkShift) - 1)] }

    /// Every element, in one array.
    var elements: [Element] { Array(chunks.joined()) }
}

extension ChunkedStorage: Sendable where Element: Sendable {}
extension ChunkedStorage: Equatable where Element: Equatable {}
extension ChunkedStorage: Hashable where Element: Hashable {}
