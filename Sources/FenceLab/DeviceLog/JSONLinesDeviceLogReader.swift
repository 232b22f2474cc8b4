/// Reads the JSON Lines device-log format: one flat JSON object per line with the CSV names
/// as keys (`timestamp`, `latitude`, `longitude`, `horizontal_accuracy`, optional `speed`,
/// `course`, `event`).
///
/// `timestamp` is a number (Unix seconds) or a string (ISO-8601 with zone, or Unix seconds).
/// Numeric fields are JSON numbers or strings in the CSV number grammar, which is how
/// NaN and ±Infinity are written (JSON has no literal for them). `null` means absent.
/// Unknown, duplicate or nested keys are errors; blank lines are skipped.
enum JSONLinesDeviceLogReader {
    static func read(
        _ buffer: UnsafeBufferPointer<UInt8>, limits: DeviceLogLimits, into builder: inout DeviceLogBuilder
    ) throws(DeviceLogProblemAtLine) {
        var lines = DeviceLogLines(buffer, maxLineLength_bytes: limits.maxLineLength_bytes)
        var lastLine = 1
        var sawContent = false
        while let next = lines.next() {
            let (range, line) = try next.get()
            lastLine = line
            let slice = UnsafeBufferPointer(rebasing: buffer[range])
            if slice.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            sawContent = true
            var parser = FlatJSONParser(bytes: slice, line: line)
            let object = try parser.object()
            try readObject(object, line: line, into: &builder)
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
        for (key, value) in object {
            guard let field = DeviceLogField(rawValue: key) else { throw fail(.unknownColumn(DeviceLogLexical.shown(key))) }
            guard seen.insert(field).inserted else { throw fail(.duplicateColumn(key)) }
            switch (field, value) {
            case (_, .null):
                continue
            case (.timestamp, let .number(text)), (.timestamp, let .string(text)):
                switch DeviceLogLexical.timestamp(text[...]) {
                case let .success(t): timestamp_s = t
                case let .failure(p): throw fail(.badTimestamp(value: DeviceLogLexical.shown(text), reason: p.reason))
                }
            case (.event, let .string(text)):
                event = try DeviceLogLexical.event(text[...], line: line)
            case (.event, _):
                throw fail(.badEvent("non-string value"))
            case (.timestamp, .bool):
                throw fail(.badTimestamp(value: "boolean", reason: "must be a number or a string"))
            case (_, let .number(text)), (_, let .string(text)):
                guard let number = DeviceLogLexical.number(text[...]) else {
                    throw fail(.notANumber(column: key, value: DeviceLogLexical.shown(text)))
                }
                numbers[field] = number
            case (_, .bool):
                throw fail(.notANumber(column: key, value: "boolean"))
            }
        }
        guard let timestamp_s else { throw fail(seen.contains(.timestamp) ? .missingValue(column: "timestamp") : .missingColumn("timestamp")) }
        if event == nil {
            for field in DeviceLogField.required where !seen.contains(field) { throw fail(.missingColumn(field.rawValue)) }
        }
        try builder.add(
            line: line, timestamp_s: timestamp_s, latitude: numbers[.latitude], longitude: numbers[.longitude],
            accuracy_m: numbers[.horizontalAccuracy], speed_mps: numbers[.speed], course_deg: numbers[.course],
            event: event)
    }
}

/// A scalar JSON value; numbers keep their source text.
enum FlatJSONValue: Equatable {
    case string(String)
    case number(String)
    case bool(Bool)
    case null
}

/// A strict RFC 8259 parser for one flat object (scalar values only) on one line.
struct FlatJSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let line: Int
    var i = 0

    init(bytes: UnsafeBufferPointer<UInt8>, line: Int) {
        self.bytes = bytes
        self.line = line
    }

    private func fail(_ what: String) -> DeviceLogProblemAtLine {
        DeviceLogProblemAtLine(line: line, problem: .json("\(what) at column \(i + 1)"))
    }

    private mutating func skipSpace() {
        while i < bytes.count, [0x20, 0x09].contains(bytes[i]) { i += 1 }
    }

    private mutating func expect(_ c: UInt8, _ what: String) throws(DeviceLogProblemAtLine) {
        skipSpace()
        guard i < bytes.count, bytes[i] == c else { throw fail("expected \(what)") }
        i += 1
    }

    /// Parses `{ "key": scalar, ... }` followed only by spaces.
    mutating func object() throws(DeviceLogProblemAtLine) -> [(key: String, value: FlatJSONValue)] {
        var members: [(key: String, value: FlatJSONValue)] = []
        try expect(UInt8(ascii: "{"), "'{'")
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
            i += 1
        } else {
            while true {
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a key string") }
                let key = try string()
                try expect(UInt8(ascii: ":"), "':'")
                skipSpace()
                members.append((key, try value(key: key)))
                skipSpace()
                guard i < bytes.count else { throw fail("expected ',' or '}' (line ends early)") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "}") { i += 1; break }
                throw fail("expected ',' or '}'")
            }
        }
        skipSpace()
        guard i == bytes.count else { throw fail("unexpected text after the object") }
        return members
    }

    private mutating func value(key: String) throws(DeviceLogProblemAtLine) -> FlatJSONValue {
        guard i < bytes.count else { throw fail("expected a value") }
        switch bytes[i] {
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            throw fail("nested value for key '\(DeviceLogLexical.shown(key))' (only scalars are allowed)")
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: return .number(try number())
        }
    }

    private mutating func literal(_ word: String) throws(DeviceLogProblemAtLine) {
        for c in word.utf8 {
            guard i < bytes.count, bytes[i] == c else { throw fail("expected '\(word)'") }
            i += 1
        }
    }

    /// JSON number grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func number() throws(DeviceLogProblemAtLine) -> String {
        let start = i
        func digit() -> Bool { i < bytes.count && bytes[i] >= 0x30 && bytes[i] <= 0x39 }
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard digit() else { throw fail("expected a value") }
        if bytes[i] == 0x30 { i += 1 } else { while digit() { i += 1 } }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard digit() else { throw fail("expected a digit after '.'") }
            while digit() { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard digit() else { throw fail("expected an exponent digit") }
            while digit() { i += 1 }
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
    }

    /// A JSON string at `i` (which holds the opening quote), with escapes resolved.
    private mutating func string() throws(DeviceLogProblemAtLine) -> String {
        i += 1
        var out: [UInt8] = []
        while true {
            guard i < bytes.count else { throw fail("unterminated string") }
            let b = bytes[i]
            i += 1
            switch b {
            case UInt8(ascii: "\""):
                guard let text = String(validating: out, as: UTF8.self) else {
                    throw DeviceLogProblemAtLine(line: line, problem: .invalidUTF8)
                }
                return text
            case UInt8(ascii: "\\"):
                guard i < bytes.count else { throw fail("unterminated escape") }
                let e = bytes[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"): out.append(contentsOf: try unicodeEscape())
                default: throw fail("invalid escape")
                }
            case 0x00..<0x20:
                throw fail("control character in string")
            default:
                out.append(b)
            }
        }
    }

    private mutating func hex4() throws(DeviceLogProblemAtLine) -> UInt32 {
        guard i + 4 <= bytes.count else { throw fail("truncated \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[i]
            let d: UInt32
            switch b {
            case 0x30...0x39: d = UInt32(b - 0x30)
            case 0x41...0x46: d = UInt32(b - 0x41 + 10)
            case 0x61...0x66: d = UInt32(b - 0x61 + 10)
            default: throw fail("invalid \\u escape")
            }
            v = v * 16 + d
            i += 1
        }
        return v
    }

    /// The UTF-8 bytes of a `\uXXXX` escape (after the `u`), joining surrogate pairs.
    private mutating func unicodeEscape() throws(DeviceLogProblemAtLine) -> [UInt8] {
        var scalar = try hex4()
        if (0xD800...0xDBFF).contains(scalar) {
            guard i + 2 <= bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                throw fail("unpaired surrogate")
            }
            i += 2
            let low = try hex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw fail("unpaired surrogate") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(scalar) {
            throw fail("unpaired surrogate")
        }
        guard let u = Unicode.Scalar(scalar) else { throw fail("invalid \\u escape") }
        return Array(String(Character(u)).utf8)
    }
}
