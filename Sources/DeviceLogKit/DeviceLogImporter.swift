import Foundation
import GeoPolicy
import _FenceLabSupport

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
    /// The size is checked before reading; the format comes from `format`, else the extension, else
    /// the file's first bytes (`DeviceLogFormat.sniff`).
    /// - Parameters:
    ///   - path: the file; named in every error.
    ///   - format: the format, or `nil` to take it from the extension (`.csv`, `.gpx`, `.jsonl`,
    ///     `.nmea`) or, for any other extension, from the content.
    ///   - options: what the reader may assume and whether damage is refused (`--assume-accuracy`,
    ///     `--date`, `--strict`); the assumptions are refused for CSV and JSON Lines, which carry
    ///     accuracy and date themselves.
    ///   - limits: file-size and line-length limits.
    ///   - keepingFix: called with every well-formed fix in file order; a fix it returns `false` for
    ///     is not stored (`nil`: every fix is). A reader that needs only some fixes (calibration
    ///     drops out-of-order ones) then holds those, not the whole file (docs/device-logs.md, Memory).
    ///     Events are stored either way.
    /// - Throws: `DeviceLogError` with the file, the line (when one applies) and the problem.
    public static func load(
        path: String, format: DeviceLogFormat? = nil, options: DeviceLogReadOptions = .standard,
        limits: DeviceLogLimits = .standard, keepingFix: ((Fix) -> Bool)? = nil
    ) throws(DeviceLogError) -> DeviceLog {
        func fail(_ problem: DeviceLogProblem) -> DeviceLogError {
            DeviceLogError(file: path, line: nil, problem: problem)
        }
        // Only a regular file is read (`InputFileReader`): a FIFO or `/dev/zero` would hang or never end.
        let opened: Result<InputFileReader, InputFileProblem>
        do { opened = .success(try InputFileReader(path: path)) } catch { opened = .failure(error) }
        // Named as such before the extension is looked at (`/dev/zero` has none).
        if case .failure(.notRegularFile(let kind)) = opened {
            // A folder: --device-log wants files.
            if kind == "a directory" {
                throw fail(
                    .unreadable(reason: "is a directory; --device-log takes log files (.csv, .gpx, .jsonl, .nmea)"))
            }
            throw fail(.unreadable(reason: InputFileProblem.notRegularFile(kind: kind).description))
        }
        let file: InputFileReader
        switch opened {
        case .success(let f): file = f
        case .failure(.missing): throw fail(.unreadable(reason: "no such file"))
        case .failure(let problem): throw fail(.unreadable(reason: problem.description))
        }
        let size = file.size_bytes
        guard size <= limits.maxFileSize_bytes else {
            throw fail(.fileTooLarge(size_bytes: size, limit_bytes: limits.maxFileSize_bytes))
        }
        let chosen: DeviceLogFormat
        if let format {
            chosen = format
        } else if let named = DeviceLogFormat(extensionOf: path) {
            chosen = named
        } else {
            // Any other extension (`.log`, `.txt`, none): the content decides.
            let head = (try? file.read(upToCount: DeviceLogFormat.sniffLength_bytes)) ?? Data()
            do { try file.rewind() } catch { throw fail(.unreadable(reason: error.description)) }
            guard let sniffed = DeviceLogFormat.sniff(head) else {
                throw fail(.unknownFormat(extension: DeviceLogFormat.fileExtension(path)))
            }
            chosen = sniffed
        }
        try check(options, for: chosen, file: path)
        let source = DeviceLogByteSource.file(file, limit_bytes: limits.maxFileSize_bytes)
        if chosen == .gpx {
            // A GPX point takes several lines (~230 bytes), so there is no line count to reserve by.
            return try parse(
                source, file: path, format: chosen, options: options, limits: limits, reservingFixes: 0,
                keepingFix: keepingFix)
        }
        // Two passes over the same open file: the line count, then the parse. With `keepingFix`
        // how many fixes are kept is unknown: one pass, the kept fixes grow as they come.
        var reserve = 0
        if keepingFix == nil {
            reserve = lineCount(file, limit_bytes: limits.maxFileSize_bytes)
            do { try file.rewind() } catch { throw fail(.unreadable(reason: error.description)) }
        }
        return try parse(
            source, file: path, format: chosen, options: options, limits: limits, reservingFixes: reserve,
            keepingFix: keepingFix)
    }

    /// Refuses an assumption the format has no use for: CSV and JSON Lines (the app's own formats)
    /// carry accuracy and date, GPX times carry a date.
    static func check(
        _ options: DeviceLogReadOptions, for format: DeviceLogFormat, file: String
    ) throws(DeviceLogError) {
        if options.columns != nil, format != .csv {
            throw DeviceLogError(
                file: file, line: nil, problem: .optionNotApplicable(option: "--columns", format: format))
        }
        // A CSV read by --columns without an accuracy column is the one CSV that takes the assumption.
        let mappedWithoutAccuracy = format == .csv && options.columns.map { !$0.hasAccuracy } == true
        if options.assumedAccuracy_m != nil, format == .csv, let columns = options.columns, columns.hasAccuracy {
            throw DeviceLogError(file: file, line: nil, problem: .accuracyColumnMapped(columns.description))
        }
        if options.assumedAccuracy_m != nil, format == .csv || format == .jsonl, !mappedWithoutAccuracy {
            throw DeviceLogError(
                file: file, line: nil, problem: .optionNotApplicable(option: "--assume-accuracy", format: format))
        }
        if options.providers != nil, format != .gnsslogger, format != .googleRecords {
            throw DeviceLogError(
                file: file, line: nil, problem: .optionNotApplicable(option: "--provider", format: format))
        }
        if options.assumedDate_days != nil, format != .nmea {
            throw DeviceLogError(file: file, line: nil, problem: .optionNotApplicable(option: "--date", format: format))
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
        bytes: [UInt8], file: String, format: DeviceLogFormat, options: DeviceLogReadOptions = .standard,
        limits: DeviceLogLimits = .standard
    ) throws(DeviceLogError) -> DeviceLog {
        try bytes.withUnsafeBufferPointer { (buffer) throws(DeviceLogError) -> DeviceLog in
            try parse(buffer: buffer, file: file, format: format, options: options, limits: limits)
        }
    }

    static func parse(
        buffer: UnsafeBufferPointer<UInt8>, file: String, format: DeviceLogFormat,
        options: DeviceLogReadOptions = .standard, limits: DeviceLogLimits,
        chunk_bytes: Int = 1 << 20, keepingFix: ((Fix) -> Bool)? = nil
    ) throws(DeviceLogError) -> DeviceLog {
        try check(options, for: format, file: file)
        guard buffer.count <= limits.maxFileSize_bytes else {
            throw DeviceLogError(
                file: file, line: nil,
                problem: .fileTooLarge(size_bytes: buffer.count, limit_bytes: limits.maxFileSize_bytes))
        }
        return try parse(
            .memory(buffer, chunk_bytes: chunk_bytes), file: file, format: format, options: options, limits: limits,
            reservingFixes: format == .gpx || keepingFix != nil ? 0 : newlineCount(buffer) + 1,
            keepingFix: keepingFix)
    }

    /// Parses a device log as its source delivers it, piece by piece: the line formats (CSV,
    /// JSON Lines, NMEA) line by line, GPX token by token.
    /// - Parameter reservingFixes: fixes to allocate room for up front (the line count: one fix per
    ///   line at most), so the array is allocated once instead of growing by copies (a 900 000-row
    ///   log would otherwise hold 1.5 copies of its fixes while growing); 0 reserves nothing.
    static func parse(
        _ source: DeviceLogByteSource, file: String, format: DeviceLogFormat, options: DeviceLogReadOptions = .standard,
        limits: DeviceLogLimits, reservingFixes: Int,
        keepingFix: ((Fix) -> Bool)? = nil
    ) throws(DeviceLogError) -> DeviceLog {
        var lines = DeviceLogLines(source, maxLineLength_bytes: limits.maxLineLength_bytes)
        var builder = DeviceLogBuilder(keep: keepingFix, options: options)
        builder.fixes.reserveCapacity(reservingFixes)
        do {
            switch format {
            case .csv: try CSVDeviceLogReader.read(&lines, into: &builder)
            case .jsonl: try JSONLinesDeviceLogReader.read(&lines, into: &builder)
            case .nmea: try NMEADeviceLogReader.read(&lines, into: &builder)
            case .gnsslogger: try GnssLoggerDeviceLogReader.read(&lines, into: &builder)
            case .owntracks: try OwnTracksDeviceLogReader.read(&lines, into: &builder)
            case .googleRecords: try GoogleRecordsDeviceLogReader.read(&lines, into: &builder)
            case .geojson: try GeoJSONDeviceLogReader.read(&lines, into: &builder)
            case .gpx: try GPXDeviceLogReader.read(source, limits: limits, into: &builder)
            }
        } catch {
            throw DeviceLogError(file: file, line: error.line, problem: error.problem)
        }
        return DeviceLog(
            file: file, format: format, fixes: builder.fixes, events: builder.events, ingest: builder.ingest)
    }

    private static func newlineCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var count = 0
        for b in bytes where b == 0x0A { count += 1 }
        return count
    }

    /// Lines in the file (LF count + 1) by a first pass in 1 MiB pieces, stopping past
    /// `limit_bytes`; 0 when it cannot be read (the parse then reports why).
    private static func lineCount(_ file: InputFileReader, limit_bytes: Int) -> Int {
        var count = 1
        var total = 0
        while total <= limit_bytes, let data = try? file.read(upToCount: 1 << 20), !data.isEmpty {
            total += data.count
            count += data.withUnsafeBytes { newlineCount($0.bindMemory(to: UInt8.self)) }
        }
        return count
    }
}

/// Collects fixes and events row by row, applying the rules common to all formats.
struct DeviceLogBuilder {
    var fixes: [DeviceLogFix] = []
    var events: [SystemEvent] = []
    /// Decides whether a well-formed fix is stored (`nil`: all are); see `DeviceLogImporter.load`.
    let keep: ((Fix) -> Bool)?
    /// What the reader may assume and whether damage is refused.
    let options: DeviceLogReadOptions
    /// What was skipped and assumed so far.
    var ingest = DeviceLogIngest()
    /// Whether any fix was read (stored or not).
    private(set) var sawFix = false

    init(keep: ((Fix) -> Bool)? = nil, options: DeviceLogReadOptions = .standard) {
        self.keep = keep
        self.options = options
        ingest.selectedProviders = options.providers.map { $0.map(\.rawValue).sorted() }
    }

    /// Counts a fix's provider (`ingest.providers`) and says whether `--provider` keeps it; a fix
    /// it does not keep is counted as `providerNotSelected` at `line`. Without the option every fix
    /// is kept; with it a fix whose log names no provider is not.
    mutating func selects(_ provider: DeviceLogProvider?, line: Int) -> Bool {
        if let provider { ingest.providers[provider.rawValue, default: 0] += 1 }
        guard let selected = options.providers else { return true }
        if let provider, selected.contains(provider) { return true }
        ingest.skip(.providerNotSelected, line: line)
        return false
    }

    /// Adds one row.
    ///
    /// When latitude, longitude and accuracy are all absent and an event is given, the row is
    /// an event-only row; otherwise all three are required and the row is a fix (plus its event).
    mutating func add(
        line: Int, timestamp_s: Double, latitude: Double?, longitude: Double?, accuracy_m: Double?,
        speed_mps: Double?, course_deg: Double?, event: SystemEventKind?, provider: DeviceLogProvider? = nil,
        place: String? = nil
    ) throws(DeviceLogProblemAtLine) {
        // A place names an event's place: on a row without an event it means nothing.
        if place != nil, event == nil {
            throw DeviceLogProblemAtLine(line: line, problem: .missingValue(column: "event"))
        }
        if latitude == nil, longitude == nil, accuracy_m == nil, let event {
            guard speed_mps == nil, course_deg == nil else {
                throw DeviceLogProblemAtLine(line: line, problem: .missingValue(column: "latitude"))
            }
            events.append(SystemEvent(kind: event, timestamp_s: timestamp_s, line: line, place: place))
            return
        }
        guard let latitude else { throw DeviceLogProblemAtLine(line: line, problem: .missingValue(column: "latitude")) }
        guard let longitude else {
            throw DeviceLogProblemAtLine(line: line, problem: .missingValue(column: "longitude"))
        }
        guard let accuracy_m else {
            throw DeviceLogProblemAtLine(line: line, problem: .missingValue(column: "horizontal_accuracy"))
        }
        let fix = Fix(
            timestamp_s: timestamp_s, latitude: latitude, longitude: longitude, horizontalAccuracy_m: accuracy_m)
        sawFix = true
        if keep?(fix) ?? true {
            fixes.append(
                DeviceLogFix(fix: fix, speed_mps: speed_mps, course_deg: course_deg, line: line, provider: provider))
        }
        if let event { events.append(SystemEvent(kind: event, timestamp_s: timestamp_s, line: line, place: place)) }
    }

    /// No row read: neither a fix (stored or not) nor an event.
    var isEmpty: Bool { !sawFix && events.isEmpty }
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
    /// The place an event is about (a log of many places); empty: none.
    case place

    static let required: [DeviceLogField] = [.timestamp, .latitude, .longitude, .horizontalAccuracy]
}
