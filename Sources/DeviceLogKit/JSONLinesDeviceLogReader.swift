import _FenceLabSupport

/// Reads the JSON Lines device-log format: one flat JSON object per line with the CSV names
/// as keys (`timestamp`, `latitude`, `longitude`, `horizontal_accuracy`, optional `speed`,
/// `course`, `event`, and `place`, a string naming the event's place).
///
/// `timestamp` is a number (Unix seconds) or a string (ISO-8601 with zone, or Unix seconds).
/// Numeric fields are JSON numbers or strings in the CSV number grammar, which is how
/// NaN and ±Infinity are written (JSON has no literal for them). `null` means absent.
/// Unknown, duplicate or nested keys are errors; blank lines are skipped.
enum JSONLinesDeviceLogReader {
    static func read(_ lines: inout DeviceLogLines, into builder: inout DeviceLogBuilder) throws(DeviceLogProblemAtLine)
    {
        var lastLine = 1
        var sawContent = false
        while let line = try lines.next({ (slice, line) throws(DeviceLogProblemAtLine) -> Int in
            if slice.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return line }
            sawContent = true
            let parser = FlatJSONParser(bytes: slice, line: line)
            let object = try parser.object()
            try readObject(object, line: line, into: &builder)
            return line
        }) {
            lastLine = line
        }
        if !sawContent { throw DeviceLogProblemAtLine(line: lastLine, problem: .emptyFile) }
        if builder.isEmpty { throw DeviceLogProblemAtLine(line: lastLine, problem: .noData) }
    }

    private static func readObject(
        _ object: [(key: String, value: FlatJSONValue)], line: Int, into builder: inout DeviceLogBuilder
    ) throws(DeviceLogProblemAtLine) {
        func fail(_ p: DeviceLogProblem) -> DeviceLogProblemAtLine { DeviceLogProblemAtLine(line: line, problem: p) }
        var seen: Set<DeviceLogField> = []
        var timestamp_s: Double?
        var numbers: [DeviceLogField: Double] = [:]
        var event: SystemEventKind?
        var place: String?
        for (key, value) in object {
            guard let field = DeviceLogField(rawValue: key) else {
                throw fail(.unknownColumn(DeviceLogLexical.shown(key)))
            }
            guard seen.insert(field).inserted else { throw fail(.duplicateColumn(key)) }
            switch (field, value) {
            case (_, .null):
                continue
            case (.timestamp, let .number(text)), (.timestamp, let .string(text)):
                switch DeviceLogLexical.timestamp(text[...]) {
                case .success(let t): timestamp_s = t
                case .failure(let p): throw fail(.badTimestamp(value: DeviceLogLexical.shown(text), reason: p.reason))
                }
            case (.event, let .string(text)):
                event = try DeviceLogLexical.event(text[...], line: line)
            case (.event, _):
                throw fail(.badEvent("non-string value"))
            case (.place, let .string(text)):
                if !text.isEmpty { place = text }
            case (.place, _):
                throw fail(.json("place: not a string"))
            case (.timestamp, .bool):
                throw fail(.badTimestamp(value: "boolean", reason: "must be a number or a string"))
            case (_, let .number(text)):
                // A JSON number literal is finite by grammar; one beyond the double range (1e999)
                // is refused rather than read as ±∞ (non-finite values are spelt as strings).
                guard let number = DeviceLogLexical.number(text[...]), number.isFinite else {
                    throw fail(.outOfRange(column: key, value: DeviceLogLexical.shown(text)))
                }
                numbers[field] = number
            case (_, let .string(text)):
                guard let number = DeviceLogLexical.number(text[...]) else {
                    throw fail(.notANumber(column: key, value: DeviceLogLexical.shown(text)))
                }
                numbers[field] = number
            case (_, .bool):
                throw fail(.notANumber(column: key, value: "boolean"))
            }
        }
        guard let timestamp_s else {
            throw fail(seen.contains(.timestamp) ? .missingValue(column: "timestamp") : .missingColumn("timestamp"))
        }
        if event == nil {
            for field in DeviceLogField.required where !seen.contains(field) {
                throw fail(.missingColumn(field.rawValue))
            }
        }
        try builder.add(
            line: line, timestamp_s: timestamp_s, latitude: numbers[.latitude], longitude: numbers[.longitude],
            accuracy_m: numbers[.horizontalAccuracy], speed_mps: numbers[.speed], course_deg: numbers[.course],
            event: event, place: place)
    }
}

/// A scalar JSON value; numbers keep their source text.
enum FlatJSONValue: Equatable {
    case string(String)
    case number(String)
    case bool(Bool)
    case null
}

/// One flat JSON object (scalar values only) on one line, read by the one strict reader
/// (`StrictJSON`: RFC 8259, duplicate keys refused); numbers keep their source text.
struct FlatJSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let line: Int

    /// Parses `{ "key": scalar, ... }` followed only by spaces.
    func object() throws(DeviceLogProblemAtLine) -> [(key: String, value: FlatJSONValue)] {
        func fail(_ what: String) -> DeviceLogProblemAtLine {
            DeviceLogProblemAtLine(line: line, problem: .json(what))
        }
        let root: StrictJSON.Value
        do {
            root = try StrictJSON.parse(Array(bytes), limits: StrictJSON.Limits(maxBytes: bytes.count, maxDepth: 2))
        } catch {
            if error.kind == .duplicateKey {
                throw DeviceLogProblemAtLine(
                    line: line, problem: .duplicateColumn(DeviceLogLexical.shown(error.keyPath)))
            }
            if error.kind == .tooDeep {
                throw fail("nested value for key '\(DeviceLogLexical.shown(error.keyPath))' (only scalars are allowed)")
            }
            throw fail("\(error.reason) at column \(error.column)")
        }
        guard case .object(let members, _) = root else { throw fail("expected '{' at column 1") }
        var out: [(key: String, value: FlatJSONValue)] = []
        out.reserveCapacity(members.count)
        for (key, value) in members {
            switch value {
            case .string(let s, _): out.append((key, .string(s)))
            case .number(_, let text, _): out.append((key, .number(text)))
            case .bool(let b, _): out.append((key, .bool(b)))
            case .null: out.append((key, .null))
            case .object, .array:
                throw fail("nested value for key '\(DeviceLogLexical.shown(key))' (only scalars are allowed)")
            }
        }
        return out
    }
}
