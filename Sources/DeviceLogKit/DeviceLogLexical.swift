import GeoPolicy

/// Lexical rules shared by the device-log importers: numbers, timestamps, events, lines.
///
/// Hand-written over UTF-8 bytes so that the grammar is exactly the documented one
/// (docs/device-logs.md) and no platform parser widens it. Public: the timestamp grammar
/// (`export --start`) and the shortened echo of a value.
public enum DeviceLogLexical {
    /// At most this many characters of an offending value are echoed in an error message.
    static let shownValueLimit = 40

    /// An offending value shortened for an error message (one line, bounded length, controls escaped).
    public static func shown(_ value: some StringProtocol) -> String {
        ShownText.shown(value, limit: shownValueLimit)
    }

    /// Parses a decimal number or a non-finite marker.
    ///
    /// Grammar: `[+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?`, or, case-insensitive,
    /// `[+-]? (nan | inf | infinity)`; at most 400 bytes. Hex floats, empty strings and spaces
    /// inside are refused. Returns `nil` when the text is not in the grammar.
    static func number(_ text: Substring) -> Double? {
        var copy = String(text)
        return copy.withUTF8 { number($0) }
    }

    /// `number(_:)` on UTF-8 bytes (the importers' fast path; allocates nothing for short numbers).
    static func number(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        guard !b.isEmpty, b.count <= 400 else { return nil }
        var i = 0
        var negative = false
        if b[0] == UInt8(ascii: "+") || b[0] == UInt8(ascii: "-") {
            negative = b[0] == UInt8(ascii: "-")
            i = 1
        }
        let rest = UnsafeBufferPointer(rebasing: b[i...])
        if matchesIgnoringCase(rest, "nan") { return .nan }
        if matchesIgnoringCase(rest, "inf") || matchesIgnoringCase(rest, "infinity") {
            return negative ? -.infinity : .infinity
        }
        guard isDecimal(rest) else { return nil }
        return Double(String(decoding: b, as: UTF8.self))
    }

    private static func matchesIgnoringCase(_ b: UnsafeBufferPointer<UInt8>, _ word: StaticString) -> Bool {
        guard b.count == word.utf8CodeUnitCount else { return false }
        let w = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for k in 0..<b.count where b[k] | 0x20 != w[k] { return false }
        return true
    }

    private static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    private static func isDecimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let end = bytes.count
        var mantissaDigits = 0
        while i < end, isDigit(bytes[i]) {
            i += 1
            mantissaDigits += 1
        }
        if i < end, bytes[i] == UInt8(ascii: ".") {
            i += 1
            while i < end, isDigit(bytes[i]) {
                i += 1
                mantissaDigits += 1
            }
        }
        guard mantissaDigits > 0 else { return false }
        if i < end, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < end, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            var expDigits = 0
            while i < end, isDigit(bytes[i]) {
                i += 1
                expDigits += 1
            }
            guard expDigits > 0 else { return false }
        }
        return i == end
    }

    /// Parses a timestamp: finite Unix seconds (decimal) or ISO-8601 / RFC 3339 with a zone.
    ///
    /// ISO form: `YYYY-MM-DDThh:mm:ss[.fraction](Z|±hh:mm|±hhmm|±hh)`; `T`/`t` or one space between
    /// date and time. A missing zone is refused (local time is ambiguous). Leap second 60 is refused.
    /// - Returns: seconds since 1970-01-01T00:00:00Z, or the reason the text is not a timestamp.
    public static func timestamp(_ text: Substring) -> Result<Double, TimestampProblem> {
        var copy = String(text)
        return copy.withUTF8 { timestamp($0) }
    }

    /// `timestamp(_:)`, except that an ISO time without a zone is read as UTC and `zoneless` is set
    /// (GPX: the schema says `xsd:dateTime` in UTC).
    static func timestamp(_ text: Substring, zonelessAsUTC zoneless: inout Bool) -> Result<Double, TimestampProblem> {
        var copy = String(text)
        return copy.withUTF8 { b in
            if b.isEmpty { return .failure(TimestampProblem("empty")) }
            guard b.count >= 11, b.count <= 64, b[4] == UInt8(ascii: "-") else { return timestamp(b) }
            return isoTimestamp(b, zonelessAsUTC: &zoneless)
        }
    }

    /// `timestamp(_:)` on UTF-8 bytes.
    static func timestamp(_ b: UnsafeBufferPointer<UInt8>) -> Result<Double, TimestampProblem> {
        if b.isEmpty { return .failure(TimestampProblem("empty")) }
        if let seconds = number(b) {
            guard seconds.isFinite else { return .failure(notFinite(unit: "seconds")) }
            return .success(seconds)
        }
        guard b.count >= 11, b.count <= 64, b[4] == UInt8(ascii: "-") else {
            return .failure(TimestampProblem("neither ISO-8601 with zone nor Unix seconds"))
        }
        var zoneless = false
        return isoTimestamp(b, zonelessAsUTC: &zoneless, allowed: false)
    }

    /// Why a timestamp text was refused.
    public struct TimestampProblem: Error {
        public var reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// Why a Unix time that is not finite is no time (`unit`: `seconds` or `milliseconds`).
    static func notFinite(unit: String) -> TimestampProblem { TimestampProblem("Unix \(unit) must be finite") }

    private static func isoTimestamp(
        _ b: UnsafeBufferPointer<UInt8>, zonelessAsUTC zoneless: inout Bool, allowed: Bool = true
    ) -> Result<Double, TimestampProblem> {
        func digits(_ at: Int, _ count: Int) -> Int? {
            guard at + count <= b.count else { return nil }
            var value = 0
            for k in at..<(at + count) {
                guard isDigit(b[k]) else { return nil }
                value = value * 10 + Int(b[k] - 0x30)
            }
            return value
        }
        func at(_ i: Int, _ c: UInt8) -> Bool { i < b.count && b[i] == c }
        let bad = TimestampProblem("not ISO-8601 YYYY-MM-DDThh:mm:ss[.fff](Z|±hh:mm)")
        guard let year = digits(0, 4), at(4, UInt8(ascii: "-")), let month = digits(5, 2), at(7, UInt8(ascii: "-")),
            let day = digits(8, 2),
            at(10, UInt8(ascii: "T")) || at(10, UInt8(ascii: "t")) || at(10, UInt8(ascii: " ")),
            let hour = digits(11, 2), at(13, UInt8(ascii: ":")), let minute = digits(14, 2), at(16, UInt8(ascii: ":")),
            let second = digits(17, 2)
        else { return .failure(bad) }
        var i = 19
        var fraction = 0.0
        if at(i, UInt8(ascii: ".")) || at(i, UInt8(ascii: ",")) {
            i += 1
            var scale = 0.1
            let start = i
            while i < b.count, isDigit(b[i]) {
                fraction += Double(b[i] - 0x30) * scale
                scale /= 10
                i += 1
            }
            guard i > start else { return .failure(TimestampProblem("fraction has no digits")) }
        }
        var offset_s = 0
        if at(i, UInt8(ascii: "Z")) || at(i, UInt8(ascii: "z")) {
            i += 1
        } else if at(i, UInt8(ascii: "+")) || at(i, UInt8(ascii: "-")) {
            let sign = at(i, UInt8(ascii: "-")) ? -1 : 1
            guard let oh = digits(i + 1, 2) else { return .failure(bad) }
            i += 3
            var om = 0
            if at(i, UInt8(ascii: ":")) {
                guard let m = digits(i + 1, 2) else { return .failure(bad) }
                om = m
                i += 3
            } else if let m = digits(i, 2) {
                om = m
                i += 2
            }
            guard oh <= 23, om <= 59 else { return .failure(TimestampProblem("zone offset out of range")) }
            offset_s = sign * (oh * 3600 + om * 60)
        } else if allowed, i == b.count {
            zoneless = true
        } else {
            return .failure(TimestampProblem("missing zone (Z or ±hh:mm); local time is ambiguous"))
        }
        guard i == b.count else { return .failure(TimestampProblem("unexpected text after the zone")) }
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month),
            hour <= 23, minute <= 59, second <= 59
        else { return .failure(TimestampProblem("date or time field out of range")) }
        let days = daysFromCivil(year: year, month: month, day: day)
        let whole = days * 86_400 + hour * 3600 + minute * 60 + second - offset_s
        return .success(Double(whole) + fraction)
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2:
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            return leap ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date
    /// (the era-based "days from civil" algorithm, H. Hinnant, "chrono-Compatible Low-Level Date Algorithms").
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01 (Hinnant's "civil from days",
    /// the inverse of `daysFromCivil`).
    static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// `event(_:line:)` on UTF-8 bytes.
    static func event(_ b: UnsafeBufferPointer<UInt8>, line: Int) throws(DeviceLogProblemAtLine) -> SystemEventKind? {
        if b.isEmpty { return nil }
        if b.elementsEqual("enter".utf8) { return .enter }
        if b.elementsEqual("exit".utf8) { return .exit }
        throw DeviceLogProblemAtLine(line: line, problem: .badEvent(shown(String(decoding: b, as: UTF8.self))))
    }

    /// Parses the `event` field: empty → `nil`, `enter`/`exit` (exact, lower case) → the kind.
    static func event(_ text: Substring, line: Int) throws(DeviceLogProblemAtLine) -> SystemEventKind? {
        if text.isEmpty { return nil }
        guard let kind = SystemEventKind(rawValue: String(text)) else {
            throw DeviceLogProblemAtLine(line: line, problem: .badEvent(shown(text)))
        }
        return kind
    }
}

/// A problem together with the line it was found on (internal plumbing before the file name is known).
struct DeviceLogProblemAtLine: Error {
    var line: Int?
    var problem: DeviceLogProblem
}
