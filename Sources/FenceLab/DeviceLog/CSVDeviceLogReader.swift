/// Reads the CSV device-log format (contract):
/// header `timestamp,latitude,longitude,horizontal_accuracy[,speed][,course][,event]`.
///
/// Columns are matched by name in any order; the four required ones must be present,
/// an unknown or repeated name is an error. Fields may be quoted (RFC 4180, no line breaks
/// inside quotes); spaces and tabs around a field are ignored; blank lines are skipped.
enum CSVDeviceLogReader {
    static func read(
        _ buffer: UnsafeBufferPointer<UInt8>, limits: DeviceLogLimits, into builder: inout DeviceLogBuilder
    ) throws(DeviceLogProblemAtLine) {
        var lines = DeviceLogLines(buffer, maxLineLength_bytes: limits.maxLineLength_bytes)
        guard let first = lines.next() else {
            throw DeviceLogProblemAtLine(line: 1, problem: .emptyFile)
        }
        let (headerRange, headerLine) = try first.get()
        let isBlank = buffer.allSatisfy { [0x20, 0x09, 0x0D, 0x0A, 0xEF, 0xBB, 0xBF].contains($0) }
        let columns = try header(text(lines, headerRange, headerLine), line: headerLine, isBlank: isBlank)
        var lastLine = headerLine
        while let next = lines.next() {
            let (range, line) = try next.get()
            lastLine = line
            let row = try text(lines, range, line)
            if row.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            try readRow(row, columns: columns, line: line, into: &builder)
        }
        if builder.isEmpty { throw DeviceLogProblemAtLine(line: lastLine, problem: .noData) }
    }

    private static func text(_ lines: DeviceLogLines, _ range: Range<Int>, _ line: Int) throws(DeviceLogProblemAtLine) -> String {
        guard let text = lines.text(range) else { throw DeviceLogProblemAtLine(line: line, problem: .invalidUTF8) }
        return text
    }

    /// Maps each header position to its field.
    private static func header(_ text: String, line: Int, isBlank: Bool) throws(DeviceLogProblemAtLine) -> [DeviceLogField] {
        if text.allSatisfy({ $0 == " " || $0 == "\t" }) {
            throw DeviceLogProblemAtLine(line: line, problem: isBlank ? .emptyFile : .missingHeader)
        }
        let names = try fields(text, line: line)
        var columns: [DeviceLogField] = []
        for name in names {
            guard let field = DeviceLogField(rawValue: String(name)) else {
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
        _ text: String, columns: [DeviceLogField], line: Int, into builder: inout DeviceLogBuilder
    ) throws(DeviceLogProblemAtLine) {
        let values = try fields(text, line: line)
        guard values.count == columns.count else {
            throw DeviceLogProblemAtLine(line: line, problem: .columnCount(expected: columns.count, found: values.count))
        }
        var timestamp_s = 0.0
        var numbers: [DeviceLogField: Double] = [:]
        var event: SystemEventKind?
        for (field, value) in zip(columns, values) {
            switch field {
            case .timestamp:
                switch DeviceLogLexical.timestamp(value) {
                case let .success(t): timestamp_s = t
                case let .failure(p):
                    throw DeviceLogProblemAtLine(line: line, problem: .badTimestamp(value: DeviceLogLexical.shown(value), reason: p.reason))
                }
            case .event:
                event = try DeviceLogLexical.event(value, line: line)
            case .latitude, .longitude, .horizontalAccuracy, .speed, .course:
                if value.isEmpty { continue }
                guard let number = DeviceLogLexical.number(value) else {
                    throw DeviceLogProblemAtLine(line: line, problem: .notANumber(column: field.rawValue, value: DeviceLogLexical.shown(value)))
                }
                numbers[field] = number
            }
        }
        try builder.add(
            line: line, timestamp_s: timestamp_s, latitude: numbers[.latitude], longitude: numbers[.longitude],
            accuracy_m: numbers[.horizontalAccuracy], speed_mps: numbers[.speed], course_deg: numbers[.course],
            event: event)
    }

    /// Splits one line into trimmed fields, removing RFC 4180 quotes.
    static func fields(_ text: String, line: Int) throws(DeviceLogProblemAtLine) -> [Substring] {
        var result: [Substring] = []
        var rest = text[...]
        while true {
            rest = rest.drop { $0 == " " || $0 == "\t" }
            if rest.first == "\"" {
                var value = ""
                var i = rest.index(after: rest.startIndex)
                var closed = false
                while i < rest.endIndex {
                    let ch = rest[i]
                    i = rest.index(after: i)
                    if ch == "\"" {
                        if i < rest.endIndex, rest[i] == "\"" { value.append("\""); i = rest.index(after: i) }
                        else { closed = true; break }
                    } else {
                        value.append(ch)
                    }
                }
                guard closed else { throw DeviceLogProblemAtLine(line: line, problem: .badQuoting) }
                rest = rest[i...].drop { $0 == " " || $0 == "\t" }
                result.append(value[...])
                if rest.isEmpty { return result }
                guard rest.first == "," else { throw DeviceLogProblemAtLine(line: line, problem: .badQuoting) }
                rest = rest.dropFirst()
            } else if let comma = rest.firstIndex(of: ",") {
                result.append(trimmed(rest[..<comma]))
                rest = rest[rest.index(after: comma)...]
            } else {
                result.append(trimmed(rest))
                return result
            }
        }
    }

    private static func trimmed(_ s: Substring) -> Substring {
        var s = s
        while let last = s.last, last == " " || last == "\t" { s = s.dropLast() }
        return s
    }
}
