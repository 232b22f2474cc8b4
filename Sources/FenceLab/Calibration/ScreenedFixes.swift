import DeviceLogKit
import GeoPolicy

/// The fixes of a recording that can be calibrated, in file order, with the count of each drop
/// reason (`FixAccounting`): screened one fix at a time, so a reader can drop the others as it
/// reads them (`CalibrationRun.load`) instead of holding every row of the file.
public struct ScreenedFixes: Sendable, Hashable {
    /// The path the fixes were read from.
    public var file: String
    /// The kept fixes: finite time, valid coordinate and accuracy, strictly increasing time.
    public private(set) var fixes: [Fix] = []
    /// The kept fixes' positions (validated while screening).
    public private(set) var points: [Coordinate] = []
    /// `read` and the drop counts up to `outOfOrder`; the rest is filled by the calibration.
    public private(set) var accounting = FixAccounting()
    private var last = -Double.infinity

    public init(file: String) { self.file = file }

    /// The screened fixes of a log already in memory.
    public init(_ log: DeviceLog) {
        self.init(file: log.file)
        for logged in log.fixes { admit(logged.fix) }
    }

    /// Counts `f` as read and keeps it unless a `FixAccounting` drop reason applies (checked in
    /// that order: non-finite time, invalid coordinate, invalid accuracy, same time as the last
    /// kept fix, earlier than it). Returns whether it was kept.
    @discardableResult
    public mutating func admit(_ f: Fix) -> Bool {
        accounting.read += 1
        guard f.timestamp_s.isFinite else { accounting.nonFiniteTime += 1; return false }
        guard let c = try? Coordinate(latitude: f.latitude, longitude: f.longitude) else { accounting.invalidCoordinate += 1; return false }
        guard f.horizontalAccuracy_m.isFinite, f.horizontalAccuracy_m > 0 else { accounting.invalidAccuracy += 1; return false }
        guard f.timestamp_s != last else { accounting.duplicateTimestamp += 1; return false }
        guard f.timestamp_s > last else { accounting.outOfOrder += 1; return false }
        last = f.timestamp_s
        fixes.append(f)
        points.append(c)
        return true
    }
}
