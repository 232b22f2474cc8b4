import DriveSim
import Foundation
import _FenceLabSupport

/// A parsed JSON value. Numbers stay `Double`; NaN and ±∞ cannot appear in JSON,
/// so fixtures write them as the strings "NaN", "Infinity", "-Infinity".
enum ParsedJSON: Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([ParsedJSON])
    case object([String: ParsedJSON])

    /// The strict reader's value as a fixture value (duplicate keys were refused by the reader).
    init(_ v: StrictJSON.Value) {
        switch v {
        case .null: self = .null
        case .bool(let b, _): self = .bool(b)
        case .number(let n, _, _): self = .number(n)
        case .string(let s, _): self = .string(s)
        case .array(let items, _): self = .array(items.map(ParsedJSON.init))
        case .object(let members, _):
            var o: [String: ParsedJSON] = [:]
            for (k, value) in members { o[k] = ParsedJSON(value) }
            self = .object(o)
        }
    }

    var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string(let s): return "the string \"\(s)\""
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// Parses a whole file with the one strict reader (RFC 8259, duplicate keys refused);
    /// a syntax error becomes `.malformedJSON` naming the file, line:column and key path.
    static func parse(_ bytes: [UInt8], file: String) throws(FixtureError) -> ParsedJSON {
        do { return ParsedJSON(try StrictJSON.parse(bytes)) } catch {
            throw .malformedJSON(file: file, reason: error.description)
        }
    }
}

/// A strict view of one JSON object: refuses unknown keys at construction and
/// names the file and key path in every error.
struct JSONObject {
    let file: String
    let path: String
    let fields: [String: ParsedJSON]

    /// - Parameters:
    ///   - allowed: every key the format defines at this place; anything else is `unknownKey`.
    init(_ value: ParsedJSON, file: String, path: String, allowed: Set<String>) throws(FixtureError) {
        guard case .object(let fields) = value else {
            throw .wrongType(
                file: file, keyPath: path.isEmpty ? "(top level)" : path, expected: "an object", found: value.typeName)
        }
        if let unknown = fields.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw .unknownKey(file: file, keyPath: JSONObject.join(path, unknown))
        }
        self.file = file
        self.path = path
        self.fields = fields
    }

    static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : path + "." + key }

    func keyPath(_ key: String) -> String { JSONObject.join(path, key) }

    func has(_ key: String) -> Bool { fields[key] != nil }

    func value(_ key: String) throws(FixtureError) -> ParsedJSON {
        guard let v = fields[key] else { throw .missingKey(file: file, keyPath: keyPath(key)) }
        return v
    }

    func string(_ key: String) throws(FixtureError) -> String {
        let v = try value(key)
        guard case .string(let s) = v else {
            throw .wrongType(file: file, keyPath: keyPath(key), expected: "a string", found: v.typeName)
        }
        return s
    }

    func optionalString(_ key: String) throws(FixtureError) -> String? {
        has(key) ? try string(key) : nil
    }

    func bool(_ key: String) throws(FixtureError) -> Bool {
        let v = try value(key)
        guard case .bool(let b) = v else {
            throw .wrongType(file: file, keyPath: keyPath(key), expected: "true or false", found: v.typeName)
        }
        return b
    }

    /// A finite number; with `special`, also "NaN", "Infinity", "-Infinity" (JSON has no literals for them).
    func number(_ key: String, special: Bool = false) throws(FixtureError) -> Double {
        try JSONObject.number(try value(key), file: file, keyPath: keyPath(key), special: special)
    }

    func optionalNumber(_ key: String) throws(FixtureError) -> Double? {
        has(key) ? try number(key) : nil
    }

    static func number(_ v: ParsedJSON, file: String, keyPath: String, special: Bool) throws(FixtureError) -> Double {
        switch v {
        case .number(let n) where n.isFinite: return n
        case .number:
            // 1e999 overflows to ±∞: refused, non-finite values are spelled as strings.
            throw .wrongType(
                file: file, keyPath: keyPath, expected: "a finite number (non-finite as \"NaN\"/\"Infinity\")",
                found: "a number out of range")
        case .string(let s) where special:
            switch s {
            case "NaN": return .nan
            case "Infinity": return .infinity
            case "-Infinity": return -.infinity
            default: break
            }
        default: break
        }
        let expected = special ? "a number or \"NaN\"/\"Infinity\"/\"-Infinity\"" : "a finite number"
        throw .wrongType(file: file, keyPath: keyPath, expected: expected, found: v.typeName)
    }

    /// An array of objects, each checked against `allowed`.
    func objects(_ key: String, allowed: Set<String>) throws(FixtureError) -> [JSONObject] {
        let v = try value(key)
        guard case .array(let items) = v else {
            throw .wrongType(file: file, keyPath: keyPath(key), expected: "an array", found: v.typeName)
        }
        var out: [JSONObject] = []
        for (i, item) in items.enumerated() {
            out.append(try JSONObject(item, file: file, path: "\(keyPath(key))[\(i)]", allowed: allowed))
        }
        return out
    }

    /// `[latitude, longitude]` in degrees; entries may be special strings.
    func pair(_ key: String) throws(FixtureError) -> (Double, Double) {
        let v = try value(key)
        guard case .array(let items) = v, items.count == 2 else {
            throw .wrongType(file: file, keyPath: keyPath(key), expected: "[latitude, longitude]", found: v.typeName)
        }
        return (
            try JSONObject.number(items[0], file: file, keyPath: keyPath(key) + "[0]", special: true),
            try JSONObject.number(items[1], file: file, keyPath: keyPath(key) + "[1]", special: true)
        )
    }

    /// A `FenceState` name.
    func state(_ key: String) throws(FixtureError) -> String {
        let s = try string(key)
        guard ["unknown", "inside", "outside"].contains(s) else {
            throw .invalidValue(
                file: file, keyPath: keyPath(key), reason: "expected unknown, inside or outside, got \"\(s)\"")
        }
        return s
    }
}
