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
            guard i > start, let v = Double(String(decoding: bytes[start..<i], as: UTF8.self)), v.isFinite else {
                i = start
                throw fail("invalid number")
            }
            return v
        }

        mutating func string() throws(FlatJSONError) -> String {
            guard i < bytes.count, bytes[i] == 0x22 else { throw fail("expected a string") }
            i += 1
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
