/// Why a device log was refused: the file, the 1-based line (when one applies) and the problem.
///
/// `description` is one line, `FILE:LINE: problem`, ready for stderr (exit code 2).
/// Every problem found while reading content carries a line; only problems found
/// before reading (size, format, unreadable) have `line == nil`.
public struct DeviceLogError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file as given by the caller.
    public var file: String
    /// 1-based line number of the offending row or XML token, `nil` for whole-file problems.
    public var line: Int?
    /// What is wrong, with the offending value.
    public var problem: DeviceLogProblem

    public init(file: String, line: Int?, problem: DeviceLogProblem) {
        self.file = file
        self.line = line
        self.problem = problem
    }

    public var description: String {
        if let line { return "\(file):\(line): \(problem)" }
        return "\(file): \(problem)"
    }
}

/// The problems a device-log importer reports (one enum for the import layer).
public enum DeviceLogProblem: Sendable, Hashable, CustomStringConvertible {
    /// The file could not be opened or read (OS reason).
    case unreadable(reason: String)
    /// The file is larger than the configured limit (checked before reading).
    case fileTooLarge(size_bytes: Int, limit_bytes: Int)
    /// The extension is not `.csv`, `.gpx`, `.jsonl` or `.nmea` and no `format:` was passed to `load`.
    case unknownFormat(extension: String)
    /// The file has no content at all.
    case emptyFile
    /// A CSV file's first line is blank although the file has content.
    case missingHeader
    /// A CSV file has a header but no data row, or a GPX/JSONL file has no point.
    case noData
    /// A line is longer than the configured limit (checked before the line is decoded).
    case lineTooLong(limit_bytes: Int)
    /// A GPX name, attribute value or text node is longer than the line limit.
    case xmlTokenTooLong(limit_bytes: Int)
    /// The bytes are not valid UTF-8.
    case invalidUTF8
    /// A required CSV column / JSON key is absent (name).
    case missingColumn(String)
    /// A CSV column / JSON key is not one of the known names (name).
    case unknownColumn(String)
    /// A CSV column / JSON key appears twice (name).
    case duplicateColumn(String)
    /// A CSV row has another number of fields than the header.
    case columnCount(expected: Int, found: Int)
    /// A field that must be a number is not one (column, value).
    case notANumber(column: String, value: String)
    /// A JSON number literal beyond the range of a double (column, value), e.g. `1e999`.
    case outOfRange(column: String, value: String)
    /// A required value is empty (column).
    case missingValue(column: String)
    /// A timestamp is neither ISO-8601 with zone nor finite Unix seconds (value, why).
    case badTimestamp(value: String, reason: String)
    /// The `event` value is not empty, `enter` or `exit` (value).
    case badEvent(String)
    /// A CSV quoted field is not closed or has text after the closing quote.
    case badQuoting
    /// The JSON text of a line is malformed (what was expected).
    case json(String)
    /// The XML is malformed or truncated (what was expected).
    case xml(String)
    /// A DOCTYPE or entity declaration: refused, never expanded.
    case xmlDeclarationRefused(String)
    /// An entity reference other than the five predefined ones or a character reference:
    /// refused, never expanded (the reference as written).
    case xmlEntityRefused(String)
    /// A GPX point lacks something required (what).
    case gpx(String)
    /// An NMEA sentence is malformed (no `$`, bad checksum, too few fields, bad status).
    case nmea(String)
    /// A GnssLogger record is malformed (what).
    case gnssLogger(String)
    /// An OwnTracks message is malformed (what).
    case ownTracks(String)
    /// A Google Records.json document is malformed or empty (what).
    case googleRecords(String)
    /// A GeoJSON document is malformed or empty (what).
    case geoJSON(String)
    /// `--assume-accuracy` or `--date` given for a format that carries the value itself (option, format).
    case optionNotApplicable(option: String, format: DeviceLogFormat)
    /// A GPX point or NMEA epoch has no accuracy and no `--assume-accuracy` was given (what it lacks).
    case noAccuracy(String)
    /// An NMEA position comes before any RMC date and no `--date` was given.
    case noDate
    /// The reader skipped everything: no sentence or point was a fix (the format, the skip counts as text).
    case noFix(format: DeviceLogFormat, skipped: String)
    /// `--assume-accuracy` with a `--columns` map that names an accuracy column (the map).
    case accuracyColumnMapped(String)
    /// A column `--columns` names is not in the CSV header (key, column).
    case mappedColumnMissing(key: String, column: String)
    /// An NMEA `ddmm.mmmm` field holds decimal degrees (field, value).
    case decimalDegrees(field: String, value: String)

    public var description: String {
        switch self {
        case .unreadable(let reason): return "cannot read file: \(reason)"
        case .fileTooLarge(let size, let limit):
            return "file is \(size) bytes, more than the limit of \(limit) bytes"
        case .unknownFormat(let ext):
            return
                "unknown device-log format '\(ext)': neither the extension (.csv, .gpx, .jsonl, .nmea) nor the content names one; give --format csv|gpx|jsonl|nmea|gnsslogger|owntracks|google-records|geojson"
        case .emptyFile: return "file is empty"
        case .missingHeader:
            return
                "missing header: the first line must name the columns (timestamp,latitude,longitude,horizontal_accuracy,...)"
        case .noData: return "no data: the log holds no fix and no event"
        case .lineTooLong(let limit): return "line longer than the limit of \(limit) bytes"
        case .xmlTokenTooLong(let limit): return "XML name, attribute or text longer than the limit of \(limit) bytes"
        case .invalidUTF8: return "text is not valid UTF-8"
        case .missingColumn(let name): return "missing required column '\(name)'"
        case .unknownColumn(let name): return "unknown column '\(name)'"
        case .duplicateColumn(let name): return "duplicate column '\(name)'"
        case .columnCount(let expected, let found):
            return "wrong column count: header has \(expected), row has \(found)"
        case .notANumber(let column, let value): return "\(column): '\(value)' is not a number"
        case .outOfRange(let column, let value): return "\(column): \(value) is beyond the range of a double"
        case .missingValue(let column): return "\(column): value is missing"
        case .badTimestamp(let value, let reason): return "timestamp '\(value)': \(reason)"
        case .badEvent(let value): return "event: '\(value)' is not empty, 'enter' or 'exit'"
        case .badQuoting: return "malformed quoted field"
        case .json(let what): return "malformed JSON: \(what)"
        case .xml(let what): return "malformed XML: \(what)"
        case .xmlDeclarationRefused(let what):
            return "XML \(what) refused (DOCTYPE and entity declarations are never processed)"
        case .xmlEntityRefused(let ref): return "XML entity reference '\(ref)' refused (entities are never expanded)"
        case .gpx(let what): return "GPX: \(what)"
        case .nmea(let m): return "NMEA: \(m)"
        case .gnssLogger(let m): return "GnssLogger: \(m)"
        case .ownTracks(let m): return "OwnTracks: \(m)"
        case .googleRecords(let m): return "Google Records: \(m)"
        case .geoJSON(let m): return "GeoJSON: \(m)"
        case .accuracyColumnMapped(let map):
            return "--assume-accuracy does not apply: --columns \(map) names an accuracy column"
        case .mappedColumnMissing(let key, let column):
            let hint =
                key == "time" && column.contains(":")
                ? " (a time format is " + DeviceLogTimeFormat.named.map { ":\($0)" }.joined(separator: ", ") + ")" : ""
            return "--columns \(key)=\(column): the header has no column '\(column)'\(hint)"
        case .optionNotApplicable(let option, let format):
            if option == "--columns" {
                return "--columns does not apply to \(format) logs (it maps the columns of a CSV)"
            }
            if option == "--provider" {
                return "--provider does not apply to \(format) logs (only GnssLogger and Google Records name providers)"
            }
            switch format {
            case .csv, .jsonl:
                return "\(option) does not apply to \(format) logs (the app's own format records accuracy and date)"
            case .gpx: return "\(option) does not apply to GPX logs (GPX times carry their date)"
            case .nmea, .gnsslogger, .owntracks, .googleRecords, .geojson:
                return "\(option) does not apply to \(format) logs"
            }
        case .noAccuracy(let what): return "\(what) has no accuracy; give --assume-accuracy M"
        case .noDate:
            return "NMEA: position before any date (no RMC sentence yet); give --date YYYY-MM-DD"
        case .noFix(let format, let skipped):
            switch format {
            case .gpx:
                return skipped.isEmpty
                    ? "GPX: no timed point (no wpt, rtept or trkpt at all)" : "GPX: no timed point (skipped \(skipped))"
            case .gnsslogger: return "GnssLogger: no Fix record and no NMEA fix (skipped \(skipped))"
            case .owntracks: return "OwnTracks: no location or transition message (skipped \(skipped))"
            case .geojson: return "GeoJSON: no timed Point feature (skipped \(skipped))"
            default: return "NMEA: no fix: every sentence was skipped (\(skipped))"
            }
        case .decimalDegrees(let field, let value):
            return
                "\(field): '\(value)' is decimal degrees, expected \(field.hasSuffix("longitude") ? "dddmm.mmmm" : "ddmm.mmmm")"
        }
    }
}
