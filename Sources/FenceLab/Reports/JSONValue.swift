/// A JSON document with ordered object keys, serialized to deterministic bytes.
public indirect enum JSONValue: Sendable, Hashable {
    case object([(String, JSONValue)])
    case array([JSONValue])
    /// Written in Swift's shortest round-trip form (`Double.description`); non-finite → `null`.
    case number(Double)
    case integer(Int)
    case string(String)
    case bool(Bool)
    case null

    public static func == (a: JSONValue, b: JSONValue) -> Bool { a.serialized() == b.serialized() }
    public func hash(into hasher: inout Hasher) { hasher.combine(serialized()) }

    /// Pretty-printed text, two-space indent, keys in the given order, `\n` line ends,
    /// no locale involved. Identical values give identical bytes.
    public func serialized() -> String {
        var out = ""
        write(into: &out, indent: 0)
        return out
    }

    private func write(into out: inout String, indent: Int) {
        let pad = String(repeating: "  ", count: indent + 1), closePad = String(repeating: "  ", count: indent)
        switch self {
        case let .object(pairs):
            if pairs.isEmpty { out += "{}"; return }
            if pairs.count <= 4, pairs.allSatisfy({ $0.1.isFlat }) {
                // Small leaf objects such as estimates stay on one line.
                var parts: [String] = []
                for (key, value) in pairs { var v = ""; value.write(into: &v, indent: 0); parts.append(Self.quoted(key) + ": " + v) }
                out += "{" + parts.joined(separator: ", ") + "}"
                return
            }
            out += "{\n"
            for (i, (key, value)) in pairs.enumerated() {
                out += pad + Self.quoted(key) + ": "
                value.write(into: &out, indent: indent + 1)
                out += i + 1 < pairs.count ? ",\n" : "\n"
            }
            out += closePad + "}"
        case let .array(items):
            if items.isEmpty { out += "[]"; return }
            if items.allSatisfy(\.isScalar) {
                var parts: [String] = []
                for item in items { var s = ""; item.write(into: &s, indent: 0); parts.append(s) }
                out += "[" + parts.joined(separator: ", ") + "]"
                return
            }
            out += "[\n"
            for (i, item) in items.enumerated() {
                out += pad
                item.write(into: &out, indent: indent + 1)
                out += i + 1 < items.count ? ",\n" : "\n"
            }
            out += closePad + "]"
        case let .number(x): out += x.isFinite ? x.description : "null"
        case let .integer(i): out += String(i)
        case let .string(s): out += Self.quoted(s)
        case let .bool(b): out += b ? "true" : "false"
        case .null: out += "null"
        }
    }

    /// A scalar, or an array of scalars.
    private var isFlat: Bool {
        if case let .array(items) = self { return items.allSatisfy(\.isScalar) }
        return isScalar
    }

    private var isScalar: Bool {
        switch self {
        case .object, .array: return false
        default: return true
        }
    }

    /// JSON string literal (RFC 8259 §7): escapes quote, backslash and control characters.
    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
