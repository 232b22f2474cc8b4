import _FenceLabSupport

/// Reads Google Takeout location history (`Records.json`): every element of the top-level
/// `locations` array is a fix, read one element at a time (the document is never held whole).
///
/// Per element: `latitudeE7`, `longitudeE7` (degrees × 10⁷) required; the time from `timestamp`
/// (ISO-8601 with zone) or `timestampMs` (Unix milliseconds, a string or a number); `accuracy`
/// (metres; absent: `--assume-accuracy`, counted, else refused naming it); `velocity` (m/s) and
/// `heading` (degrees) when present; `source` (`GPS`, `WIFI`, `CELL`, …) kept as the fix's
/// provider. Other keys and nested values (`activity`) are ignored; other top-level keys are
/// skipped. A malformed element or one without a position or time is an error naming its line.
enum GoogleRecordsDeviceLogReader {
    /// Where the scanner is in the document.
    struct Scanner {
        var depth = 0
        var inString = false
        var escaped = false
        /// The last string closed at depth 1 (the key being read) and whether `locations` is open.
        var string: [UInt8] = []
        var lastKey: [UInt8] = []
        var inLocations = false
        var element: [UInt8] = []
        var elementLine = 0
        var sawRoot = false
    }

    static func read(_ lines: inout DeviceLogLines, into builder: inout DeviceLogBuilder) throws(DeviceLogProblemAtLine)
    {
        try scan(&lines, arrayKey: "locations", into: &builder) {
            (bytes, line, builder) throws(DeviceLogProblemAtLine) in
            try element(bytes, line: line, into: &builder)
        }
        if builder.isEmpty {
            throw DeviceLogProblemAtLine(line: 1, problem: .googleRecords("no element in \"locations\""))
        }
    }

    /// Scans a JSON document `{…, "KEY": [ELEMENT, …], …}` as its lines arrive and hands each
    /// element of the top-level array `arrayKey` (its bytes and first line) to `handle`.
    static func scan(
        _ lines: inout DeviceLogLines, arrayKey: String, into builder: inout DeviceLogBuilder,
        _ handle: ([UInt8], Int, inout DeviceLogBuilder) throws(DeviceLogProblemAtLine) -> Void
    ) throws(DeviceLogProblemAtLine) {
        var s = Scanner()
        var lastLine = 1
        let locations = Array(arrayKey.utf8)
        // One element may span lines; it is bounded like a line.
        let limit_bytes = lines.maxLineLength_bytes
        while let line = try lines.next({ (bytes, line) throws(DeviceLogProblemAtLine) -> Int in
            for b in bytes {
                let collecting = s.inLocations && s.depth >= 3
                if collecting { s.element.append(b) }
                if s.inString {
                    if s.escaped {
                        s.escaped = false
                    } else if b == UInt8(ascii: "\\") {
                        s.escaped = true
                    } else if b == UInt8(ascii: "\"") {
                        s.inString = false
                        if s.depth == 1 { s.lastKey = s.string }
                    } else if s.depth == 1 {
                        s.string.append(b)
                    }
                    continue
                }
                switch b {
                case UInt8(ascii: "\""):
                    s.inString = true
                    s.string.removeAll(keepingCapacity: true)
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    if s.depth == 0 {
                        guard b == UInt8(ascii: "{") else {
                            throw DeviceLogProblemAtLine(
                                line: line, problem: .json("expected '{' (a Records.json object)"))
                        }
                        s.sawRoot = true
                    }
                    if s.depth == 1, b == UInt8(ascii: "["), s.lastKey == locations { s.inLocations = true }
                    s.depth += 1
                    if s.inLocations, s.depth == 3 {
                        s.element = [b]
                        s.elementLine = line
                    }
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    s.depth -= 1
                    guard s.depth >= 0 else {
                        throw DeviceLogProblemAtLine(
                            line: line, problem: .json("unbalanced '\(Character(UnicodeScalar(b)))'"))
                    }
                    if s.inLocations, s.depth == 2, !s.element.isEmpty {
                        try handle(s.element, s.elementLine, &builder)
                        s.element.removeAll(keepingCapacity: true)
                    }
                    if s.depth == 1 { s.inLocations = false }
                default: break
                }
                if s.element.count > limit_bytes {
                    throw DeviceLogProblemAtLine(
                        line: s.elementLine, problem: .lineTooLong(limit_bytes: limit_bytes))
                }
            }
            // A line break separates JSON tokens: keep it as a space inside an element.
            if s.inLocations, s.depth >= 3 { s.element.append(0x20) }
            return line
        }) {
            lastLine = line
        }
        guard s.sawRoot else { throw DeviceLogProblemAtLine(line: lastLine, problem: .emptyFile) }
        guard s.depth == 0, !s.inString else {
            throw DeviceLogProblemAtLine(line: lastLine, problem: .json("unexpected end of file (truncated file?)"))
        }
    }

    static func element(
        _ bytes: [UInt8], line: Int, into builder: inout DeviceLogBuilder
    ) throws(DeviceLogProblemAtLine) {
        func fail(_ p: DeviceLogProblem) -> DeviceLogProblemAtLine { DeviceLogProblemAtLine(line: line, problem: p) }
        let root = try StreamedJSONElement.parse(bytes, line: line, what: "a \"locations\" element")
        guard case .object(let members, _) = root else { throw fail(.json("a \"locations\" element is not an object")) }
        func value(_ key: String) -> StrictJSON.Value? { members.first { $0.key == key }?.value }
        func number(_ key: String) throws(DeviceLogProblemAtLine) -> Double? {
            switch value(key) {
            case .none, .null: return nil
            case .number(let v, _, _): return v
            case .string(let text, _):
                guard let v = DeviceLogLexical.number(text[...]) else {
                    throw fail(.notANumber(column: key, value: DeviceLogLexical.shown(text)))
                }
                return v
            default: throw fail(.notANumber(column: key, value: "a non-scalar value"))
            }
        }
        guard let latE7 = try number("latitudeE7") else { throw fail(.missingValue(column: "latitudeE7")) }
        guard let lonE7 = try number("longitudeE7") else { throw fail(.missingValue(column: "longitudeE7")) }
        let timestamp_s: Double
        if case .string(let text, _) = value("timestamp") {
            switch DeviceLogLexical.timestamp(text[...]) {
            case .success(let t): timestamp_s = t
            case .failure(let p): throw fail(.badTimestamp(value: DeviceLogLexical.shown(text), reason: p.reason))
            }
        } else if let ms = try number("timestampMs") {
            if let p = DeviceLogProblem.nonFiniteTime(value("timestampMs"), read: ms, unit: "milliseconds") {
                throw fail(p)
            }
            timestamp_s = ms / 1000
        } else {
            throw fail(.missingValue(column: "timestamp"))
        }
        var provider: DeviceLogProvider?
        if case .string(let source, _) = value("source") {
            switch source.uppercased() {
            case "GPS": provider = .gps
            case "WIFI", "CELL": provider = .network
            default: provider = .other
            }
        }
        guard builder.selects(provider, line: line) else { return }
        var accuracy = try number("accuracy")
        if accuracy == nil {
            guard let m = builder.options.assumedAccuracy_m else {
                throw fail(.noAccuracy("Google Records: location (no \"accuracy\")"))
            }
            accuracy = m
            builder.ingest.assume(.assumedAccuracy(m: m))
        }
        try builder.add(
            line: line, timestamp_s: timestamp_s, latitude: latE7 / 1e7, longitude: lonE7 / 1e7, accuracy_m: accuracy,
            speed_mps: try number("velocity"), course_deg: try number("heading"), event: nil, provider: provider)
    }
}
