/// A parsed JSON value that remembers the line it started on, so scenario errors can
/// point at a line; objects keep key order and duplicates (which the reader refuses).
///
/// A small recursive-descent parser of RFC 8259 text. Written here rather than using
/// `JSONSerialization` because that one silently accepts duplicate keys, turns `1e999`
/// into an error without a key path, and bridges `true` to the number 1 on Linux.
indirect enum JSONValue: Sendable {
    case object([(key: String, value: JSONValue)], line: Int)
    case array([JSONValue], line: Int)
    case number(Double, text: String, line: Int)
    case string(String, line: Int)
    case bool(Bool, line: Int)
    case null(line: Int)

    /// A short description for error messages: `string "7"`, `number 3`, `an object`.
    var kindDescription: String {
        switch self {
        case .object: return "an object"
        case .array: return "an array"
        case let .number(_, text, _): return "number \(text)"
        case let .string(s, _): return "string \"\(ShownText.shown(s, limit: 40))\""
        case let .bool(b, _): return "\(b)"
        case .null: return "null"
        }
    }
}

struct JSONParseError: Error {
    var line: Int
    var reason: String
}

/// Parses UTF-8 JSON text into a `JSONValue`.
struct JSONParser {
    private let bytes: [UInt8]
    private var i = 0
    private var line = 1

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        var p = JSONParser(bytes)
        p.skipWhitespace()
        let v = try p.value(depth: 0)
        p.skipWhitespace()
        guard p.i == p.bytes.count else { throw p.fail("unexpected text after the JSON value") }
        return v
    }

    private func fail(_ reason: String) -> JSONParseError { JSONParseError(line: line, reason: reason) }

    private mutating func skipWhitespace() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x0A: line += 1; i += 1
            case 0x20, 0x09, 0x0D: i += 1
            default: return
            }
        }
    }

    private mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth < 64 else { throw fail("nesting deeper than 64 levels") }
        guard i < bytes.count else { throw fail("unexpected end of file") }
        let start = line
        switch bytes[i] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string(), line: start)
        case UInt8(ascii: "t"): try literal("true"); return .bool(true, line: start)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false, line: start)
        case UInt8(ascii: "n"): try literal("null"); return .null(line: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw fail("unexpected character '\(Character(Unicode.Scalar(bytes[i])))'")
        }
    }

    private mutating func literal(_ word: String) throws(JSONParseError) {
        let w = Array(word.utf8)
        guard i + w.count <= bytes.count, Array(bytes[i..<(i + w.count)]) == w else {
            throw fail("invalid literal (expected \(word))")
        }
        i += w.count
    }

    private mutating func object(depth: Int) throws(JSONParseError) -> JSONValue {
        let start = line
        i += 1
        var members: [(key: String, value: JSONValue)] = []
        skipWhitespace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members, line: start) }
        while true {
            skipWhitespace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a key string") }
            let key = try string()
            skipWhitespace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':' after key \"\(key)\"") }
            i += 1
            skipWhitespace()
            members.append((key, try value(depth: depth + 1)))
            skipWhitespace()
            guard i < bytes.count else { throw fail("unexpected end of file in an object") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members, line: start) }
            throw fail("expected ',' or '}' in an object")
        }
    }

    private mutating func array(depth: Int) throws(JSONParseError) -> JSONValue {
        let start = line
        i += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items, line: start) }
        while true {
            skipWhitespace()
            items.append(try value(depth: depth + 1))
            skipWhitespace()
            guard i < bytes.count else { throw fail("unexpected end of file in an array") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items, line: start) }
            throw fail("expected ',' or ']' in an array")
        }
    }

    private mutating func string() throws(JSONParseError) -> String {
        i += 1
        var out: [UInt8] = []
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "\"") { i += 1; return String(decoding: out, as: UTF8.self) }
            if c < 0x20 { throw fail("control character in a string") }
            if c == UInt8(ascii: "\\") {
                guard i + 1 < bytes.count else { break }
                let e = bytes[i + 1]
                i += 2
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    guard i + 4 <= bytes.count, let code = UInt32(String(decoding: bytes[i..<(i + 4)], as: UTF8.self), radix: 16)
                    else { throw fail("invalid \\u escape") }
                    i += 4
                    // Surrogate pairs are not needed in scenario files; a lone one becomes U+FFFD.
                    let scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
                    out.append(contentsOf: Array(String(Character(scalar)).utf8))
                default: throw fail("invalid escape in a string")
                }
                continue
            }
            out.append(c)
            i += 1
        }
        throw fail("unterminated string")
    }

    private mutating func number() throws(JSONParseError) -> JSONValue {
        let start = i
        func digits(_ p: inout JSONParser) -> Int {
            let s = p.i
            while p.i < p.bytes.count, p.bytes[p.i] >= UInt8(ascii: "0"), p.bytes[p.i] <= UInt8(ascii: "9") { p.i += 1 }
            return p.i - s
        }
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard digits(&self) > 0 else { throw fail("invalid number") }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard digits(&self) > 0 else { throw fail("invalid number: digits expected after '.'") }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard digits(&self) > 0 else { throw fail("invalid number: exponent digits expected") }
        }
        let text = String(decoding: bytes[start..<i], as: UTF8.self)
        // Double(text) overflows to ±inf for 1e999; the reader reports that with its key path.
        guard let v = Double(text) else { throw fail("invalid number \(text)") }
        return .number(v, text: text, line: line)
    }
}
