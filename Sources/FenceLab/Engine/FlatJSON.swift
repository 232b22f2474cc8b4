/// A value of a flat JSON object: what one protocol line may hold.
public enum FlatJSONValue: Sendable, Hashable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null

    /// The number, accepting the protocol's string forms of non-finite values.
    public var double: Double? {
        switch self {
        case let .number(v): return v
        case let .string(s):
            switch s {
            case "NaN": return .nan
            case "Infinity": return .infinity
            case "-Infinity": return -.infinity
            default: return nil
            }
        default: return nil
        }
    }

    public var string: String? {
        if case let .string(s) = self { return s }
        return nil
    }
}

/// Why a line is not a flat JSON object.
public struct FlatJSONError: Error, Sendable, Hashable, CustomStringConvertible {
    public var offset: Int
    public var reason: String
    public var description: String { "\(reason) at byte \(offset)" }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension FlatJSON {
    /// The double spelled by `bytes[range]` (already restricted to `0-9 + - . e E`), or nil unless
    /// the whole range is one number. Same acceptance as `Double(String)`, without building a
    /// String (numbers of 16+ characters would need a heap allocation each).
    static func parseDouble(_ bytes: [UInt8], _ range: Range<Int>) -> Double? {
        bytes.withUnsafeBufferPointer { parseDouble(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    static func parseDouble(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        if let v = fastDouble(text) { return v }
        #if canImport(Glibc) || canImport(Darwin)
        // strtod follows LC_NUMERIC: use it only while the decimal point is '.' (the C locale,
        // which a Swift process keeps unless something calls setlocale).
        if text.count < 64, let point = localeconv()?.pointee.decimal_point, point[0] == 0x2E, point[1] == 0 {
            return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buf -> Double? in
                for k in 0..<text.count { buf[k] = CChar(bitPattern: text[k]) }
                buf[text.count] = 0
                var end: UnsafeMutablePointer<CChar>? = nil
                let v = strtod(buf.baseAddress!, &end)
                guard let end, end - buf.baseAddress! == text.count else { return nil }
                return v
            }
        }
        #endif
        return Double(String(decoding: text, as: UTF8.self))
    }

    /// Exact powers of ten 10⁰ … 10²² (all representable as doubles).
    static let exactPowersOfTen: [Double] = (0...22).map { k in (0..<k).reduce(1.0) { p, _ in p * 10 } }

    /// Clinger's fast path (W. D. Clinger, "How to Read Floating Point Numbers Accurately",
    /// PLDI 1990): for `-?d+(.d+)?([eE][+-]?d+)?` whose digits form an integer m ≤ 2⁵³ and whose
    /// decimal exponent e has |e| ≤ 22, m and 10^|e| are exact doubles, so one IEEE multiplication
    /// or division gives the correctly rounded value — the same double as strtod. Nil for anything
    /// else (the caller then asks strtod).
    static func fastDouble(_ t: UnsafeBufferPointer<UInt8>) -> Double? {
        let n = t.count
        var i = 0
        var negative = false
        if i < n, t[i] == 0x2D { negative = true; i += 1 }
        var mantissa: UInt64 = 0
        var digits = 0, fractionDigits = 0
        let intStart = i
        while i < n, t[i] >= 0x30, t[i] <= 0x39 {
            if digits < 19 { mantissa = mantissa * 10 + UInt64(t[i] - 0x30) }
            digits += mantissa == 0 ? 0 : 1
            i += 1
        }
        guard i > intStart else { return nil }
        if i < n, t[i] == 0x2E {
            i += 1
            let fracStart = i
            while i < n, t[i] >= 0x30, t[i] <= 0x39 {
                if digits < 19 { mantissa = mantissa * 10 + UInt64(t[i] - 0x30) }
                digits += mantissa == 0 ? 0 : 1
                fractionDigits += 1
                i += 1
            }
            guard i > fracStart else { return nil }
        }
        var exponent = 0
        if i < n, t[i] == 0x65 || t[i] == 0x45 {
            i += 1
            var expNegative = false
            if i < n, t[i] == 0x2B || t[i] == 0x2D { expNegative = t[i] == 0x2D; i += 1 }
            let expStart = i
            while i < n, t[i] >= 0x30, t[i] <= 0x39, exponent < 10_000 {
                exponent = exponent * 10 + Int(t[i] - 0x30)
                i += 1
            }
            guard i > expStart, i == n else { return nil }
            if expNegative { exponent = -exponent }
        }
        guard i == n, digits <= 16, mantissa <= 1 << 53 else { return nil }
        let e = exponent - fractionDigits
        guard e >= -22, e <= 22 else { return nil }
        var v = Double(mantissa)
        v = e < 0 ? v / exactPowersOfTen[-e] : v * exactPowersOfTen[e]
        return negative ? -v : v
    }
}

/// A small, strict parser for one-line JSON objects whose values are scalars
/// (strings, numbers, booleans, null). Nested values are refused. It exists
/// because the engine protocol moves ~10⁵ lines per second and Foundation's
/// JSONSerialization costs several microseconds per line.
public enum FlatJSON {
    public static func parseObject(_ line: Substring.UTF8View) throws(FlatJSONError) -> [String: FlatJSONValue] {
        var p = Parser(bytes: Array(line))
        return try p.object()
    }

    public static func parseObject(_ line: String) throws(FlatJSONError) -> [String: FlatJSONValue] {
        var p = Parser(bytes: Array(line.utf8))
        return try p.object()
    }

    /// Escapes a string for a JSON string literal (without the quotes).
    public static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 {
                    let hex = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out
    }

    /// A number for the protocol: shortest round-trip text, non-finite values as strings.
    public static func number(_ v: Double) -> String {
        if v.isNaN { return "\"NaN\"" }
        if v.isInfinite { return v > 0 ? "\"Infinity\"" : "\"-Infinity\"" }
        return "\(v)"
    }

    struct Parser {
        let bytes: [UInt8]
        var i = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        func fail(_ reason: String) -> FlatJSONError { FlatJSONError(offset: i, reason: reason) }

        mutating func skipSpace() {
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0D || bytes[i] == 0x0A { i += 1 }
        }

        mutating func expect(_ b: UInt8, _ what: String) throws(FlatJSONError) {
            skipSpace()
            guard i < bytes.count, bytes[i] == b else { throw fail("expected \(what)") }
            i += 1
        }

        mutating func object() throws(FlatJSONError) -> [String: FlatJSONValue] {
            try expect(0x7B, "'{'")
            var result: [String: FlatJSONValue] = [:]
            result.reserveCapacity(8)  // a fix line has 7 members: one allocation, no rehash
            skipSpace()
            if i < bytes.count, bytes[i] == 0x7D {
                i += 1
            } else {
                while true {
                    skipSpace()
                    let key = try string()
                    try expect(0x3A, "':'")
                    skipSpace()
                    if result[key] != nil { throw fail("duplicate key '\(key)'") }
                    result[key] = try value()
                    skipSpace()
                    guard i < bytes.count else { throw fail("unterminated object") }
                    if bytes[i] == 0x2C { i += 1; continue }
                    if bytes[i] == 0x7D { i += 1; break }
                    throw fail("expected ',' or '}'")
                }
            }
            skipSpace()
            guard i == bytes.count else { throw fail("trailing characters after the object") }
            return result
        }

        mutating func value() throws(FlatJSONError) -> FlatJSONValue {
            guard i < bytes.count else { throw fail("missing value") }
            switch bytes[i] {
            case 0x22: return .string(try string())
            case 0x74: try literal("true"); return .bool(true)
            case 0x66: try literal("false"); return .bool(false)
            case 0x6E: try literal("null"); return .null
            case 0x7B, 0x5B: throw fail("nested values are not allowed")
            default: return .number(try number())
            }
        }

        mutating func literal(_ word: String) throws(FlatJSONError) {
            let w = Array(word.utf8)
            guard i + w.count <= bytes.count, Array(bytes[i..<(i + w.count)]) == w else { throw fail("invalid literal") }
            i += w.count
        }

        mutating func number() throws(FlatJSONError) -> Double {
            let start = i
            while i < bytes.count {
                let b = bytes[i]
                if (b >= 0x30 && b <= 0x39) || b == 0x2D || b == 0x2B || b == 0x2E || b == 0x65 || b == 0x45 {
                    i += 1
                } else { break }
            }
            guard i > start, let v = FlatJSON.parseDouble(bytes, start..<i), v.isFinite else {
                i = start
                throw fail("invalid number")
            }
            return v
        }

        mutating func string() throws(FlatJSONError) -> String {
            guard i < bytes.count, bytes[i] == 0x22 else { throw fail("expected a string") }
            i += 1
            // Fast path: no escape before the closing quote, so the bytes are the string.
            var j = i
            while j < bytes.count, bytes[j] != 0x22, bytes[j] != 0x5C, bytes[j] >= 0x20 { j += 1 }
            if j < bytes.count, bytes[j] == 0x22 {
                defer { i = j + 1 }
                return String(decoding: bytes[i..<j], as: UTF8.self)
            }
            var out: [UInt8] = []
            while i < bytes.count {
                let b = bytes[i]
                i += 1
                if b == 0x22 { return String(decoding: out, as: UTF8.self) }
                if b < 0x20 { throw fail("control character in string") }
                if b != 0x5C { out.append(b); continue }
                guard i < bytes.count else { break }
                let e = bytes[i]
                i += 1
                switch e {
                case 0x22, 0x5C, 0x2F: out.append(e)
                case 0x6E: out.append(0x0A)
                case 0x72: out.append(0x0D)
                case 0x74: out.append(0x09)
                case 0x62: out.append(0x08)
                case 0x66: out.append(0x0C)
                case 0x75:
                    guard i + 4 <= bytes.count,
                          let code = UInt32(String(decoding: bytes[i..<(i + 4)], as: UTF8.self), radix: 16),
                          let scalar = Unicode.Scalar(code) else { throw fail("invalid \\u escape") }
                    i += 4
                    out.append(contentsOf: Array(String(Character(scalar)).utf8))
                default: throw fail("invalid escape")
                }
            }
            throw fail("unterminated string")
        }
    }
}

/// A reusable fast reader for protocol lines with known member names (`fix`, answer lines).
///
/// `scan` accepts only the plain form — members among `keys`, each at most once, numbers or
/// escape-free strings, no nesting — and then fills `values` without building a dictionary or
/// heap strings for the keys. Anything else (an unknown key, a duplicate, an escape, a literal,
/// malformed text) returns false and the caller parses the line with `FlatJSON.parseObject`,
/// which accepts or rejects it with its usual message. So both paths give the same values.
struct FlatJSONFields {
    let keys: [[UInt8]]
    /// `values[i]` is the value of member `keys[i]`, or nil when absent (valid after `scan` returned true).
    private(set) var values: [FlatJSONValue?]

    init(keys: [String]) {
        self.keys = keys.map { Array($0.utf8) }
        values = Array(repeating: nil, count: keys.count)
    }

    mutating func scan(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        for k in values.indices { values[k] = nil }
        let n = b.count
        var i = 0
        @inline(__always) func skipSpace() {
            while i < n, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0D || b[i] == 0x0A { i += 1 }
        }
        /// The range of an escape-free string's contents, i at the opening quote.
        @inline(__always) func plainString() -> Range<Int>? {
            guard i < n, b[i] == 0x22 else { return nil }
            let start = i + 1
            var j = start
            while j < n, b[j] != 0x22 {
                if b[j] == 0x5C || b[j] < 0x20 { return nil }
                j += 1
            }
            guard j < n else { return nil }
            i = j + 1
            return start..<j
        }
        skipSpace()
        guard i < n, b[i] == 0x7B else { return false }
        i += 1
        skipSpace()
        if i < n, b[i] == 0x7D {
            i += 1
        } else {
            while true {
                skipSpace()
                guard let keyRange = plainString() else { return false }
                var slot = -1
                let keyLength = keyRange.count, first = keyLength > 0 ? b[keyRange.lowerBound] : 0
                for k in 0..<keys.count where keys[k].count == keyLength && (keyLength == 0 || keys[k][0] == first) {
                    if keyLength == 0 || memcmp(keys[k], b.baseAddress! + keyRange.lowerBound, keyLength) == 0 { slot = k; break }
                }
                guard slot >= 0, values[slot] == nil else { return false }
                skipSpace()
                guard i < n, b[i] == 0x3A else { return false }
                i += 1
                skipSpace()
                guard i < n else { return false }
                if b[i] == 0x22 {
                    guard let r = plainString() else { return false }
                    values[slot] = .string(String(decoding: UnsafeBufferPointer(rebasing: b[r]), as: UTF8.self))
                } else {
                    let start = i
                    while i < n {
                        let c = b[i]
                        if (c >= 0x30 && c <= 0x39) || c == 0x2D || c == 0x2B || c == 0x2E || c == 0x65 || c == 0x45 { i += 1 } else { break }
                    }
                    guard i > start, let v = FlatJSON.parseDouble(UnsafeBufferPointer(rebasing: b[start..<i])), v.isFinite else {
                        return false
                    }
                    values[slot] = .number(v)
                }
                skipSpace()
                guard i < n else { return false }
                if b[i] == 0x2C { i += 1; continue }
                if b[i] == 0x7D { i += 1; break }
                return false
            }
        }
        skipSpace()
        return i == n
    }
}
