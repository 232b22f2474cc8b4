import Foundation
import GeoPolicy

/// Size limits the importers enforce before and while reading.
public struct DeviceLogLimits: Sendable, Hashable {
    /// Largest file accepted, in bytes, checked before reading (default 256 MiB).
    public var maxFileSize_bytes: Int
    /// Longest line accepted, in bytes without the line break, checked before the line is
    /// decoded (default 64 KiB). For GPX it bounds every XML name, attribute value and text node.
    public var maxLineLength_bytes: Int

    /// - Parameters:
    ///   - maxFileSize_bytes: ≥ 0 (0 refuses every non-empty file).
    ///   - maxLineLength_bytes: ≥ 0 (0 refuses every non-empty line).
    public init(maxFileSize_bytes: Int = 256 << 20, maxLineLength_bytes: Int = 64 << 10) {
        self.maxFileSize_bytes = maxFileSize_bytes
        self.maxLineLength_bytes = maxLineLength_bytes
    }

    /// 256 MiB per file, 64 KiB per line.
    public static let standard = DeviceLogLimits()
}

/// Strict importers for device logs (CSV, GPX 1.1, JSON Lines; docs/device-logs.md).
///
/// A syntactically broken row is a `DeviceLogError` naming the file and line; a well-formed
/// row with invalid values (NaN, latitude 91, accuracy −1, backwards or duplicate timestamps)
/// is kept verbatim as a fix for the engine to reject with its reason.
public enum DeviceLogImporter {
    /// Reads and parses a device log file.
    ///
    /// The size is checked before reading; the format comes from `format` or else the extension.
    /// - Parameters:
    ///   - path: the file; named in every error.
    ///   - format: the format, or `nil` to take it from the extension (`.csv`, `.gpx`, `.jsonl`).
    ///   - limits: file-size and line-length limits.
    /// - Throws: `DeviceLogError` with the file, the line (when one applies) and the problem.
    public static func load(
        path: String, format: DeviceLogFormat? = nil, limits: DeviceLogLimits = .standard
    ) throws(DeviceLogError) -> DeviceLog {
        func fail(_ problem: DeviceLogProblem) -> DeviceLogError {
            DeviceLogError(file: path, line: nil, problem: problem)
        }
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        // A folder is named as such (not as an unknown extension): --device-log wants files.
        if let type = attributes?[.type] as? FileAttributeType, type == .typeDirectory {
            throw fail(.unreadable(reason: "is a directory; --device-log takes log files (.csv, .gpx, .jsonl, .nmea)"))
        }
        let chosen: DeviceLogFormat
        if let format { chosen = format } else { chosen = try DeviceLogFormat(path: path) }
        guard let attributes else { throw fail(.unreadable(reason: "no such file or no permission")) }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        guard size <= limits.maxFileSize_bytes else {
            throw fail(.fileTooLarge(size_bytes: size, limit_bytes: limits.maxFileSize_bytes))
        }
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            data = try handle.read(upToCount: max(0, limits.maxFileSize_bytes) + 1) ?? Data()
        } catch {
            throw fail(.unreadable(reason: "read failed"))
        }
        guard data.count <= limits.maxFileSize_bytes else {
            throw fail(.fileTooLarge(size_bytes: data.count, limit_bytes: limits.maxFileSize_bytes))
        }
        do {
            return try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws(DeviceLogError) -> DeviceLog in
                try parse(buffer: raw.bindMemory(to: UInt8.self), file: path, format: chosen, limits: limits)
            }
        } catch let error as DeviceLogError {
            throw error
        } catch {
            throw fail(.unreadable(reason: "\(error)"))
        }
    }

    /// Parses the bytes of a device log already in memory.
    /// - Parameters:
    ///   - bytes: the file content (UTF-8, optional BOM, LF or CRLF line ends).
    ///   - file: the name used in errors and in `DeviceLog.file`.
    ///   - format: the format of the content.
    ///   - limits: the same limits `load` applies (the size limit applies to `bytes.count`).
    /// - Throws: `DeviceLogError` with the file, the line (when one applies) and the problem.
    public static func parse(
        bytes: [UInt8], file: String, format: DeviceLogFormat, limits: DeviceLogLimits = .standard
    ) throws(DeviceLogError) -> DeviceLog {
        try bytes.withUnsafeBufferPointer { (buffer) throws(DeviceLogError) -> DeviceLog in
            try parse(buffer: buffer, file: file, format: format, limits: limits)
        }
    }

    static func parse(
        buffer: UnsafeBufferPointer<UInt8>, file: String, format: DeviceLogFormat, limits: DeviceLogLimits
    ) throws(DeviceLogError) -> DeviceLog {
        guard buffer.count <= limits.maxFileSize_bytes else {
            throw DeviceLogError(file: file, line: nil,
                                 problem: .fileTooLarge(size_bytes: buffer.count, limit_bytes: limits.maxFileSize_bytes))
        }
        var builder = DeviceLogBuilder()
        if format != .gpx {
            // One fix per line at most: reserving that exactly avoids the array's doubling copies
            // (a 900 000-row log would otherwise hold 1.5 copies of its fixes while growing).
            var newlines = 1
            for b in buffer where b == 0x0A { newlines += 1 }
            builder.fixes.reserveCapacity(newlines)
        }
        do {
            switch format {
            case .csv: try CSVDeviceLogReader.read(buffer, limits: limits, into: &builder)
            case .jsonl: try JSONLinesDeviceLogReader.read(buffer, limits: limits, into: &builder)
            case .gpx: try GPXDeviceLogReader.read(buffer, limits: limits, into: &builder)
            case .nmea: try NMEADeviceLogReader.read(buffer, limits: limits, into: &builder)
            }
        } catch {
            throw DeviceLogError(file: file, line: error.line, problem: error.problem)
        }
        return DeviceLog(file: file, format: format, fixes: builder.fixes, events: builder.events)
    }
}

/// Collects fixes and events row by row, applying the rules common to all formats.
struct DeviceLogBuilder {
    var fixes: [DeviceLogFix] = []
    var events: [SystemEvent] = []

    /// Adds one row.
    ///
    /// When latitude, longitude and accuracy are all absent and an event is given, the row is
    /// an event-only row; otherwise all three are required and the row is a fix (plus its event).
    mutating func add(
        line: Int, timestamp_s: Double, latitude: Double?, longitude: Double?, accuracy_m: Double?,
        speed_mps: Double?, course_deg: Double?, event: SystemEventKind?
    ) throws(DeviceLogProblemAtLine) {
        if latitude == nil, longitude == nil, accuracy_m == nil, let event {
            guard speed_mps == nil, course_deg == nil else {
                throw DeviceLogProblemAtLine(line: line, problem: .missingValue(column: "latitude"))
            }
            events.append(SystemEvent(kind: event, timestamp_s: timestamp_s, line: line))
            return
        }
        guard let latitude else { throw DeviceLogProblemAtLine(line: line, problem: .missingValue(column: "latitude")) }
        guard let longitude else { throw DeviceLogProblemAtLine(line: line, problem: .missingValue(column: "longitude")) }
        guard let accuracy_m else {
            throw DeviceLogProblemAtLine(line: line, problem: .missingValue(column: "horizontal_accuracy"))
        }
        let fix = Fix(timestamp_s: timestamp_s, latitude: latitude, longitude: longitude, horizontalAccuracy_m: accuracy_m)
        fixes.append(DeviceLogFix(fix: fix, speed_mps: speed_mps, course_deg: course_deg, line: line))
        if let event { events.append(SystemEvent(kind: event, timestamp_s: timestamp_s, line: line)) }
    }

    var isEmpty: Bool { fixes.isEmpty && events.isEmpty }
}

/// The column / key names shared by CSV and JSON Lines (contract).
enum DeviceLogField: String, CaseIterable {
    case timestamp
    case latitude
    case longitude
    case horizontalAccuracy = "horizontal_accuracy"
    case speed
    case course
    case event

    static let required: [DeviceLogField] = [.timestamp, .latitude, .longitude, .horizontalAccuracy]
}
