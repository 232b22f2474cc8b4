import GeoPolicy

/// FenceLab's one strict JSON reader (RFC 8259), used by every JSON input: scenario files,
/// rules fixtures, the `engine-serve` fence line and, behind their fast paths, engine answers.
///
/// Strict where platform parsers are lenient: duplicate keys are refused (with the key path),
/// numbers follow the RFC grammar exactly (no `020`, `+1`, `.5`, `1.`, `NaN`, `Infinity`),
/// strings must be valid UTF-8 without raw control characters, lone surrogate escapes are
/// refused, and nothing may follow the value. Bounded: at most `Limits.maxBytes` of input
/// and `Limits.maxDepth` levels of nesting, parsed in one linear pass; errors carry
/// line:column and the key path (`noise.sigma_m`, `route.points[2]`).
///
/// Non-finite numbers have no JSON spelling. Where a format must carry them (engine protocol,
/// fixtures, JSON Lines device logs) they are the strings `"NaN"`, `"Infinity"`, `"-Infinity"`
/// (docs/engine-protocol.md). A number too large for a Double (`1e999`) parses to ±∞ with its
/// text kept, so the caller can refuse it naming the key.
package enum StrictJSON {
    /// Size and nesting limits.
    package struct Limits: Sendable, Hashable {
        /// Largest input accepted, in bytes.
        package var maxBytes: Int
        /// Deepest nesting of arrays and objects accepted.
        package var maxDepth: Int
        /// Most values (scalars, arrays, objects) in one document: bounds memory at ~50 bytes a
        /// value however the bytes are spent (a scenario holds a few hundred).
        package var maxValues: Int

        package init(maxBytes: Int = 16 << 20, maxDepth: Int = 64, maxValues: Int = 1_000_000) {
            self.maxBytes = maxBytes
            self.maxDepth = maxDepth
            self.maxValues = maxValues
        }

        /// 16 MiB, 64 levels, 10⁶ values.
        package static let standard = Limits()
    }

    /// A parsed value with the 1-based line it starts on; objects keep key order.
    package enum Value: Sendable {
        case object([(key: String, value: Value)], line: Int)
        case array([Value], line: Int)
        case number(Double, text: String, line: Int)
        case string(String, line: Int)
        case bool(Bool, line: Int)
        case null(line: Int)

        /// A short description for error messages: `string "7"`, `number 3`, `an object`.
        package var kindDescription: String {
            switch self {
            case .object: return "an object"
            case .array: return "an array"
            case .number(_, let text, _): return "number \(ShownText.shown(text, limit: 40))"
            case .string(let s, _): return "string \"\(ShownText.shown(s, limit: 40))\""
            case .bool(let b, _): return "\(b)"
            case .null: return "null"
            }
        }

        /// A string's or number's text as written (a number's literal, e.g. `1e999`); nil otherwise.
        package var scalarText: String? {
            switch self {
            case .number(_, let text, _): return text
            case .string(let s, _): return s
            default: return nil
            }
        }

        /// The member `key` of an object (nil for a missing key or a non-object).
        package subscript(key: String) -> Value? {
            guard case .object(let members, _) = self else { return nil }
            return members.first { $0.key == key }?.value
        }
    }

    /// Why the input is not accepted, and where.
    package struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        package enum Kind: Sendable, Hashable {
            case syntax, duplicateKey, tooDeep, tooLarge, tooManyValues
        }
        package var kind: Kind
        /// 1-based line and column (in bytes) of the offending byte.
        package var line: Int
        package var column: Int
        /// Key path of the value being read (`""` at the top level).
        package var keyPath: String
        package var reason: String

        package var description: String {
            "line \(line), column \(column)\(keyPath.isEmpty ? "" : " (at \(ShownText.shown(keyPath)))"): \(reason)"
        }
    }

    /// Parses one JSON text (optionally surrounded by whitespace).
    package static func parse(_ bytes: [UInt8], limits: Limits = .standard) throws(ParseError) -> Value {
        var p = Parser(bytes: bytes, limits: limits)
        guard bytes.count <= limits.maxBytes else {
            throw p.fail(.tooLarge, "input of \(bytes.count) bytes exceeds the limit of \(limits.maxBytes)")
        }
        return try p.document()
    }

    /// Parses UTF-8 text.
    package static func parse(_ text: some StringProtocol, limits: Limits = .standard) throws(ParseError) -> Value {
        try parse(Array(text.utf8), limits: limits)
    }
}

extension StrictJSON {
    package struct Parser {
        let bytes: [UInt8]
        let limits: Limits
        var i = 0
        var line = 1
        var lineStart = 0
        var values = 0
        /// Keys and indices from the root to the value being read.
        var path: [PathComponent] = []

        enum PathComponent {
            case key(String)
            case index(Int)
        }

        init(bytes: [UInt8], limits: Limits) {
            self.bytes = bytes
            self.limits = limits
        }

        var keyPath: String {
            var out = ""
            for c in path {
                switch c {
                case .key(let k): out += out.isEmpty ? k : "." + k
                case .index(let n): out += "[\(n)]"
                }
            }
            return out
        }

        func fail(_ kind: ParseError.Kind, _ reason: String) -> ParseError {
            ParseError(kind: kind, line: line, column: i - lineStart + 1, keyPath: keyPath, reason: reason)
        }

        func fail(_ reason: String) -> ParseError { fail(.syntax, reason) }

        mutating func document() throws(ParseError) -> Value {
            skipWhitespace()
            let v = try value(depth: 0)
            skipWhitespace()
            guard i == bytes.count else { throw fail("unexpected text after the JSON value") }
            return v
        }

        mutating func skipWhitespace() {
            while i < bytes.count {
                switch bytes[i] {
                case 0x0A:
                    i += 1
                    line += 1
                    lineStart = i
                case 0x20, 0x09, 0x0D: i += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) throws(ParseError) -> Value {
            guard depth < limits.maxDepth else { throw fail(.tooDeep, "nesting deeper than \(limits.maxDepth) levels") }
            values += 1
            guard values <= limits.maxValues else { throw fail(.tooManyValues, "more than \(limits.maxValues) values") }
            guard i < bytes.count else { throw fail("unexpected end of input") }
            let start = line
            switch bytes[i] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string(), line: start)
            case UInt8(ascii: "t"):
                try literal("true")
                return .bool(true, line: start)
            case UInt8(ascii: "f"):
                try literal("false")
                return .bool(false, line: start)
            case UInt8(ascii: "n"):
                try literal("null")
                return .null(line: start)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            default:
                let b = bytes[i]
                let shown =
                    b >= 0x20 && b < 0x7F ? "'\(Character(Unicode.Scalar(b)))'" : "byte 0x\(String(b, radix: 16))"
                throw fail("unexpected \(shown)")
            }
        }

        mutating func literal(_ word: StaticString) throws(ParseError) {
            let n = word.utf8CodeUnitCount
            let w = UnsafeBufferPointer(start: word.utf8Start, count: n)
            guard i + n <= bytes.count, bytes[i..<(i + n)].elementsEqual(w) else {
                throw fail("invalid literal (expected \(word))")
            }
            i += n
        }

        mutating func object(depth: Int) throws(ParseError) -> Value {
            let start = line
            i += 1
            var members: [(key: String, value: Value)] = []
            var seen = Set<String>()
            skipWhitespace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
                i += 1
                return .object(members, line: start)
            }
            while true {
                skipWhitespace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a key string") }
                let key = try string()
                path.append(.key(key))
                guard seen.insert(key).inserted else { throw fail(.duplicateKey, "duplicate key") }
                skipWhitespace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':' after the key") }
                i += 1
                skipWhitespace()
                members.append((key, try value(depth: depth + 1)))
                path.removeLast()
                skipWhitespace()
                guard i < bytes.count else { throw fail("unexpected end of input in an object") }
                if bytes[i] == UInt8(ascii: ",") {
                    i += 1
                    continue
                }
                if bytes[i] == UInt8(ascii: "}") {
                    i += 1
                    return .object(members, line: start)
                }
                throw fail("expected ',' or '}' in an object")
            }
        }

        mutating func array(depth: Int) throws(ParseError) -> Value {
            let start = line
            i += 1
            var items: [Value] = []
            skipWhitespace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") {
                i += 1
                return .array(items, line: start)
            }
            while true {
                skipWhitespace()
                path.append(.index(items.count))
                items.append(try value(depth: depth + 1))
                path.removeLast()
                skipWhitespace()
                guard i < bytes.count else { throw fail("unexpected end of input in an array") }
                if bytes[i] == UInt8(ascii: ",") {
                    i += 1
                    continue
                }
                if bytes[i] == UInt8(ascii: "]") {
                    i += 1
                    return .array(items, line: start)
                }
                throw fail("expected ',' or ']' in an array")
            }
        }

        mutating func hex4() throws(ParseError) -> UInt32 {
            guard i + 4 <= bytes.count else { throw fail("invalid \\u escape") }
            var v: UInt32 = 0
            for k in i..<(i + 4) {
                let b = bytes[k]
                let d: UInt32
                switch b {
                case 0x30...0x39: d = UInt32(b - 0x30)
                case 0x41...0x46: d = UInt32(b - 0x41 + 10)
                case 0x61...0x66: d = UInt32(b - 0x61 + 10)
                default: throw fail("invalid \\u escape")
                }
                v = v << 4 | d
            }
            i += 4
            return v
        }

        mutating func string() throws(ParseError) -> String {
            i += 1
            let start = i
            // Fast path: no escape — one validating conversion of the bytes in place.
            while i < bytes.count, bytes[i] != UInt8(ascii: "\""), bytes[i] != UInt8(ascii: "\\"), bytes[i] >= 0x20 {
                i += 1
            }
            if i < bytes.count, bytes[i] == UInt8(ascii: "\"") {
                defer { i += 1 }
                return try validated(bytes[start..<i])
            }
            var out = Array(bytes[start..<i])
            while i < bytes.count {
                let c = bytes[i]
                if c == UInt8(ascii: "\"") {
                    i += 1
                    return try validated(out[...])
                }
                if c < 0x20 { throw fail("control character in a string (escape it)") }
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
                        var code = try hex4()
                        if (0xD800..<0xDC00).contains(code) {
                            guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u")
                            else {
                                throw fail("lone surrogate \\u escape")
                            }
                            i += 2
                            let low = try hex4()
                            guard (0xDC00..<0xE000).contains(low) else { throw fail("lone surrogate \\u escape") }
                            code = 0x10000 + (code - 0xD800) << 10 + (low - 0xDC00)
                        } else if (0xDC00..<0xE000).contains(code) {
                            throw fail("lone surrogate \\u escape")
                        }
                        guard let scalar = Unicode.Scalar(code) else { throw fail("invalid \\u escape") }
                        out.append(contentsOf: String(scalar).utf8)
                    default: throw fail("invalid escape in a string")
                    }
                    continue
                }
                out.append(c)
                i += 1
            }
            throw fail("unterminated string")
        }

        func validated(_ s: ArraySlice<UInt8>) throws(ParseError) -> String {
            guard let text = String(validating: s, as: UTF8.self) else { throw fail("invalid UTF-8 in a string") }
            return text
        }

        /// RFC 8259: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
        mutating func number() throws(ParseError) -> Value {
            let start = i
            func digits(_ p: inout Parser) -> Int {
                let s = p.i
                while p.i < p.bytes.count, p.bytes[p.i] >= UInt8(ascii: "0"), p.bytes[p.i] <= UInt8(ascii: "9") {
                    p.i += 1
                }
                return p.i - s
            }
            if bytes[i] == UInt8(ascii: "-") { i += 1 }
            let intStart = i
            let intDigits = digits(&self)
            guard intDigits > 0 else { throw fail("invalid number: digits expected") }
            if intDigits > 1, bytes[intStart] == UInt8(ascii: "0") { throw fail("invalid number: leading zero") }
            if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
                i += 1
                guard digits(&self) > 0 else { throw fail("invalid number: digits expected after '.'") }
            }
            if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
                i += 1
                if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
                guard digits(&self) > 0 else { throw fail("invalid number: exponent digits expected") }
            }
            guard i - start <= 400 else { throw fail("number longer than 400 characters") }
            let text = String(decoding: bytes[start..<i], as: UTF8.self)
            // Double(text) overflows to ±inf for 1e999; the caller refuses that naming the key.
            guard let v = Double(text) else { throw fail("invalid number") }
            return .number(v, text: text, line: line)
        }
    }
}
