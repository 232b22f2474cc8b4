/// Reads the CSV device-log format (contract):
/// header `timestamp,latitude,longitude,horizontal_accuracy[,speed][,course][,event][,place]`.
///
/// Columns are matched by name in any order; the four required ones must be present,
/// an unknown or repeated name is an error. A field may be enclosed in double quotes
/// (no line break inside; a quote inside a value makes it invalid for every column, so
/// `""` is not unescaped); spaces and tabs around a field are ignored; blank lines are
/// skipped. Works on the bytes of each line: no per-field allocation.
///
/// With `DeviceLogReadOptions.columns` (`--columns`) any CSV is read: the map names which header
/// columns hold the time (in the `timestamp` grammar, or the format `time=COLUMN:FORMAT` names:
/// `iso`, `epoch-s`, `epoch-ms`), position and, optionally, accuracy, speed, course and event; the
/// other columns are ignored and listed. Without an accuracy column every fix takes `--assume-accuracy`
/// (an assumption, counted), and without that the file is refused naming the option.
enum CSVDeviceLogReader {
    static func read(_ lines: inout DeviceLogLines, into builder: inout DeviceLogBuilder) throws(DeviceLogProblemAtLine)
    {
        var ranges: [Range<Int>] = []
        let map = builder.options.columns
        var ignored: [String] = []
        let first = try lines.next {
            (bytes, line) throws(DeviceLogProblemAtLine) -> (columns: [DeviceLogField?]?, line: Int) in
            let row = try validated(bytes, line)
            if row.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return (nil, line) }
            if let map { return (try mappedHeader(row, map, line: line, ranges: &ranges, ignored: &ignored), line) }
            return (try header(row, line: line, ranges: &ranges), line)
        }
        guard let (headerColumns, headerLine) = first else {
            throw DeviceLogProblemAtLine(line: 1, problem: .emptyFile)
        }
        guard let columns = headerColumns else {
            // A blank first line: an empty file when nothing but blanks follows, else no header.
            let isBlank = try lines.restSatisfies { [0x20, 0x09, 0x0D, 0x0A, 0xEF, 0xBB, 0xBF].contains($0) }
            throw DeviceLogProblemAtLine(line: headerLine, problem: isBlank ? .emptyFile : .missingHeader)
        }
        var assumedAccuracy_m: Double?
        if let map {
            builder.ingest.columns = map
            builder.ingest.ignoredColumns = ignored
            if !map.hasAccuracy {
                guard let m = builder.options.assumedAccuracy_m else {
                    throw DeviceLogProblemAtLine(
                        line: headerLine, problem: .noAccuracy("CSV: --columns names no accuracy column, so a fix"))
                }
                assumedAccuracy_m = m
            }
        }
        var lastLine = headerLine
        while let line = try lines.next({ (bytes, line) throws(DeviceLogProblemAtLine) -> Int in
            let row = try validated(bytes, line)
            if !row.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
                try readRow(
                    row, columns: columns, line: line, ranges: &ranges, assumedAccuracy_m: assumedAccuracy_m,
                    timeFormat: map?.timeFormat ?? .auto, into: &builder)
            }
            return line
        }) {
            lastLine = line
        }
        if builder.isEmpty { throw DeviceLogProblemAtLine(line: lastLine, problem: .noData) }
    }

    /// The bytes of a line, checked to be UTF-8 (fast path for ASCII).
    private static func validated(
        _ bytes: UnsafeBufferPointer<UInt8>, _ line: Int
    ) throws(DeviceLogProblemAtLine) -> UnsafeBufferPointer<UInt8> {
        if bytes.contains(where: { $0 >= 0x80 }), String(validating: bytes, as: UTF8.self) == nil {
            throw DeviceLogProblemAtLine(line: line, problem: .invalidUTF8)
        }
        return bytes
    }

    private static func text(_ b: UnsafeBufferPointer<UInt8>) -> String { String(decoding: b, as: UTF8.self) }

    /// Maps each header position to the field `map` names it for (nil: ignored, listed in `ignored`).
    private static func mappedHeader(
        _ bytes: UnsafeBufferPointer<UInt8>, _ map: DeviceLogColumns, line: Int, ranges: inout [Range<Int>],
        ignored: inout [String]
    ) throws(DeviceLogProblemAtLine) -> [DeviceLogField?] {
        try fields(bytes, line: line, into: &ranges)
        var columns: [DeviceLogField?] = []
        var names: [String] = []
        for range in ranges {
            let name = text(UnsafeBufferPointer(rebasing: bytes[range]))
            guard !names.contains(name) else {
                throw DeviceLogProblemAtLine(line: line, problem: .duplicateColumn(DeviceLogLexical.shown(name)))
            }
            names.append(name)
            let field = map.field(ofColumn: name)
            if field == nil { ignored.append(name) }
            columns.append(field)
        }
        for (key, column) in map.names where !names.contains(column) {
            throw DeviceLogProblemAtLine(
                line: line, problem: .mappedColumnMissing(key: key, column: DeviceLogLexical.shown(column)))
        }
        return columns
    }

    /// Maps each header position to its field.
    private static func header(
        _ bytes: UnsafeBufferPointer<UInt8>, line: Int, ranges: inout [Range<Int>]
    ) throws(DeviceLogProblemAtLine) -> [DeviceLogField] {
        try fields(bytes, line: line, into: &ranges)
        var columns: [DeviceLogField] = []
        for range in ranges {
            let name = text(UnsafeBufferPointer(rebasing: bytes[range]))
            guard let field = DeviceLogField(rawValue: name) else {
                throw DeviceLogProblemAtLine(line: line, problem: .unknownColumn(DeviceLogLexical.shown(name)))
            }
            guard !columns.contains(field) else {
                throw DeviceLogProblemAtLine(line: line, problem: .duplicateColumn(field.rawValue))
            }
            columns.append(field)
        }
        for field in DeviceLogField.required where !columns.contains(field) {
            throw DeviceLogProblemAtLine(line: line, problem: .missingColumn(field.rawValue))
        }
        return columns
    }

    private static func readRow(
        _ bytes: UnsafeBufferPointer<UInt8>, columns: [DeviceLogField?], line: Int, ranges: inout [Range<Int>],
        assumedAccuracy_m: Double?, timeFormat: DeviceLogTimeFormat, into builder: inout DeviceLogBuilder
    ) throws(DeviceLogProblemAtLine) {
        try fields(bytes, line: line, into: &ranges)
        guard ranges.count == columns.count else {
            throw DeviceLogProblemAtLine(
                line: line, problem: .columnCount(expected: columns.count, found: ranges.count))
        }
        var timestamp_s = 0.0
        var latitude: Double?
        var longitude: Double?
        var accuracy_m: Double?
        var speed_mps: Double?
        var course_deg: Double?
        var event: SystemEventKind?
        var place: String?
        for (mapped, range) in zip(columns, ranges) {
            guard let field = mapped else { continue }  // a column --columns does not name
            let value = UnsafeBufferPointer(rebasing: bytes[range])
            switch field {
            case .timestamp:
                switch timeFormat.timestamp(value) {
                case .success(let t): timestamp_s = t
                case .failure(let p):
                    throw DeviceLogProblemAtLine(
                        line: line, problem: .badTimestamp(value: DeviceLogLexical.shown(text(value)), reason: p.reason)
                    )
                }
            case .event:
                event = try DeviceLogLexical.event(value, line: line)
            case .place:
                if !value.isEmpty { place = text(value) }
            case .latitude, .longitude, .horizontalAccuracy, .speed, .course:
                if value.isEmpty { continue }
                guard let number = DeviceLogLexical.number(value) else {
                    throw DeviceLogProblemAtLine(
                        line: line,
                        problem: .notANumber(column: field.rawValue, value: DeviceLogLexical.shown(text(value))))
                }
                switch field {
                case .latitude: latitude = number
                case .longitude: longitude = number
                case .horizontalAccuracy: accuracy_m = number
                case .speed: speed_mps = number
                default: course_deg = number
                }
            }
        }
        if let assumed = assumedAccuracy_m, latitude != nil || longitude != nil {
            // The map names no accuracy column: every fix (not an event-only row) takes the assumption.
            accuracy_m = assumed
            builder.ingest.assume(.assumedAccuracy(m: assumed))
        }
        try builder.add(
            line: line, timestamp_s: timestamp_s, latitude: latitude, longitude: longitude,
            accuracy_m: accuracy_m, speed_mps: speed_mps, course_deg: course_deg, event: event, place: place)
    }

    /// Splits one line into trimmed field ranges; a quoted field's range excludes its quotes.
    static func fields(
        _ b: UnsafeBufferPointer<UInt8>, line: Int, into result: inout [Range<Int>]
    ) throws(DeviceLogProblemAtLine) {
        result.removeAll(keepingCapacity: true)
        let quote = UInt8(ascii: "\"")
        let comma = UInt8(ascii: ",")
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 }
        var i = 0
        while true {
            while i < b.count, isSpace(b[i]) { i += 1 }
            if i < b.count, b[i] == quote {
                let start = i + 1
                var j = start
                // A doubled quote stays inside the value (and makes it invalid).
                while j < b.count, !(b[j] == quote && (j + 1 == b.count || b[j + 1] != quote)) {
                    j += b[j] == quote ? 2 : 1
                }
                guard j < b.count else { throw DeviceLogProblemAtLine(line: line, problem: .badQuoting) }
                result.append(start..<j)
                i = j + 1
                while i < b.count, isSpace(b[i]) { i += 1 }
                if i == b.count { return }
                guard b[i] == comma else { throw DeviceLogProblemAtLine(line: line, problem: .badQuoting) }
                i += 1
            } else {
                let start = i
                while i < b.count, b[i] != comma { i += 1 }
                var end = i
                while end > start, isSpace(b[end - 1]) { end -= 1 }
                result.append(start..<end)
                if i == b.count { return }
                i += 1
            }
        }
    }
}
