import DriveSim
import GeoPolicy
import ReportKit
import _FenceLabSupport

/// A scalar value of an engine-protocol line (numbers as doubles; the protocol's string forms of non-finite values are read by `double`).
package enum EngineValue: Sendable, Hashable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null

    /// The number, accepting the protocol's string forms of non-finite values.
    package var double: Double? {
        switch self {
        case .number(let v): return v
        case .string(let s):
            switch s {
            case "NaN": return .nan
            case "Infinity": return .infinity
            case "-Infinity": return -.infinity
            default: return nil
            }
        default: return nil
        }
    }

    package var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }
}

/// Why a line is not a flat JSON object.
package struct FlatJSONError: Error, Sendable, Hashable, CustomStringConvertible {
    package var offset: Int
    package var reason: String
    package var description: String { "\(reason) at byte \(offset)" }
}

extension FlatJSON {
    /// The double spelled by `text` (RFC 8259 number syntax), or nil unless all of it is one
    /// number: the same value as `Double(String)`, without building a String (numbers of 16+
    /// characters would cost a heap allocation each).
    static func parseDouble(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        if let v = fastDouble(text) { return v }
        // strtod follows LC_NUMERIC: it is used only while the decimal point is '.' (the C
        // locale, which a Swift process keeps unless something calls setlocale).
        if let parsed = Syscalls.parseDouble(text) { return parsed }
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
        if i < n, t[i] == 0x2D {
            negative = true
            i += 1
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var fractionDigits = 0
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
            if i < n, t[i] == 0x2B || t[i] == 0x2D {
                expNegative = t[i] == 0x2D
                i += 1
            }
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

/// Protocol lines: parsing through the one strict reader (`StrictJSON`, RFC 8259, duplicate
/// keys refused), plus the encoding helpers.
package enum FlatJSON {
    package static func parseObject(_ line: Substring.UTF8View) throws(FlatJSONError) -> [String: EngineValue] {
        try parse(Array(line))
    }

    package static func parseObject(_ line: String) throws(FlatJSONError) -> [String: EngineValue] {
        try parse(Array(line.utf8))
    }

    /// One flat object through the one strict reader (`StrictJSON`): the fast scanner
    /// (`FlatJSONFields`) is only a front end; whatever it does not take comes here.
    static func parse(_ bytes: [UInt8]) throws(FlatJSONError) -> [String: EngineValue] {
        let root: StrictJSON.Value
        do {
            root = try StrictJSON.parse(bytes, limits: StrictJSON.Limits(maxBytes: max(bytes.count, 1), maxDepth: 2))
        } catch {
            let reason =
                error.kind == .duplicateKey
                ? "duplicate key '\(ShownText.shown(error.keyPath))'"
                : error.kind == .tooDeep
                    ? "nested value for '\(ShownText.shown(error.keyPath))' (a protocol line is a flat object)"
                    : error.reason
            throw FlatJSONError(offset: error.column - 1, reason: reason)
        }
        guard case .object(let members, _) = root else {
            throw FlatJSONError(offset: 0, reason: "expected a JSON object")
        }
        var result: [String: EngineValue] = [:]
        for (key, value) in members {
            switch value {
            case .string(let s, _): result[key] = .string(s)
            case .bool(let b, _): result[key] = .bool(b)
            case .null: result[key] = .null
            case .number(let v, let text, _):
                guard v.isFinite else {
                    throw FlatJSONError(offset: 0, reason: "number out of range: \(ShownText.shown(text))")
                }
                result[key] = .number(v)
            case .object, .array:
                throw FlatJSONError(
                    offset: 0, reason: "nested value for '\(ShownText.shown(key))' (a protocol line is a flat object)")
            }
        }
        return result
    }

    /// Escapes a string for a JSON string literal (without the quotes); the report writer's escaping.
    package static func escape(_ s: String) -> String {
        String(JSONValue.quoted(s).dropFirst().dropLast())
    }

    /// A number for the protocol: shortest round-trip text, non-finite values as strings.
    package static func number(_ v: Double) -> String {
        if v.isNaN { return "\"NaN\"" }
        if v.isInfinite { return v > 0 ? "\"Infinity\"" : "\"-Infinity\"" }
        return "\(v)"
    }
}

/// A reusable fast reader for protocol lines with known member names (`fix`, answer lines).
///
/// `scan` accepts only the plain form — members among `keys`, each at most once, RFC 8259
/// numbers or ASCII strings without escapes, spaces/tabs between tokens, no nesting — and then
/// fills `values` without building a dictionary or heap strings for the keys. Anything else (an
/// unknown key, a duplicate, an escape, non-ASCII, a literal, malformed text) returns false and
/// the caller parses the line with `FlatJSON.parseObject`, which accepts or rejects it with its
/// usual message. So both paths give the same values.
struct FlatJSONFields {
    let keys: [[UInt8]]
    /// `values[i]` is the value of member `keys[i]`, or nil when absent (valid after `scan` returned true).
    private(set) var values: [EngineValue?]

    init(keys: [String]) {
        self.keys = keys.map { Array($0.utf8) }
        values = Array(repeating: nil, count: keys.count)
    }

    mutating func scan(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        for k in values.indices { values[k] = nil }
        let n = b.count
        var i = 0
        @inline(__always) func skipSpace() {
            while i < n, b[i] == 0x20 || b[i] == 0x09 { i += 1 }
        }
        /// The range of an escape-free string's contents, i at the opening quote.
        @inline(__always) func plainString() -> Range<Int>? {
            guard i < n, b[i] == 0x22 else { return nil }
            let start = i + 1
            var j = start
            while j < n, b[j] != 0x22 {
                // escapes, controls, non-ASCII: full parser
                if b[j] == 0x5C || b[j] < 0x20 || b[j] >= 0x80 { return nil }
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
                let keyLength = keyRange.count
                let first = keyLength > 0 ? b[keyRange.lowerBound] : 0
                for k in 0..<keys.count where keys[k].count == keyLength && (keyLength == 0 || keys[k][0] == first) {
                    if keys[k].elementsEqual(UnsafeBufferPointer(rebasing: b[keyRange])) {
                        slot = k
                        break
                    }
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
                    // RFC 8259 number, as FlatJSONParser: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
                    let start = i
                    @inline(__always) func digit() -> Bool { i < n && b[i] >= 0x30 && b[i] <= 0x39 }
                    if i < n, b[i] == 0x2D { i += 1 }
                    guard digit() else { return false }
                    if b[i] == 0x30 { i += 1 } else { while digit() { i += 1 } }
                    if i < n, b[i] == 0x2E {
                        i += 1
                        guard digit() else { return false }
                        while digit() { i += 1 }
                    }
                    if i < n, b[i] == 0x65 || b[i] == 0x45 {
                        i += 1
                        if i < n, b[i] == 0x2B || b[i] == 0x2D { i += 1 }
                        guard digit() else { return false }
                        while digit() { i += 1 }
                    }
                    guard let v = FlatJSON.parseDouble(UnsafeBufferPointer(rebasing: b[start..<i])), v.isFinite else {
                        return false
                    }
                    values[slot] = .number(v)
                }
                skipSpace()
                guard i < n else { return false }
                if b[i] == 0x2C {
                    i += 1
                    continue
                }
                if b[i] == 0x7D {
                    i += 1
                    break
                }
                return false
            }
        }
        skipSpace()
        return i == n
    }
}
