import _FenceLabSupport

/// A JSON document with ordered object keys, serialized to deterministic bytes.
package indirect enum JSONValue: Sendable, Hashable {
    case object([(String, JSONValue)])
    case array([JSONValue])
    /// Written in Swift's shortest round-trip form (`Double.description`); non-finite → `null`.
    case number(Double)
    case integer(Int)
    case string(String)
    case bool(Bool)
    case null
    /// An object or array already serialized on one line, written as it is. Like the object or
    /// array it stands for it is neither a scalar nor flat, so a parent holding it spans lines.
    case oneLine(String)

    package static func == (a: JSONValue, b: JSONValue) -> Bool { a.serialized() == b.serialized() }
    package func hash(into hasher: inout Hasher) { hasher.combine(serialized()) }

    /// Pretty-printed text, two-space indent, keys in the given order, `\n` line ends,
    /// no locale involved. Identical values give identical bytes.
    package func serialized() -> String {
        var out = ""
        write(into: &out, indent: 0)
        return out
    }

    package func write(into out: inout some TextSink, indent: Int) {
        // Appends in place (no per-node padding strings, parts arrays or joins): sweep.json has
        // tens of thousands of estimates, each a small one-line object.
        switch self {
        case .object(let pairs):
            if pairs.isEmpty {
                out.append("{}")
                return
            }
            if pairs.count <= 4, pairs.allSatisfy({ $0.1.isFlat }) {
                // Small leaf objects such as estimates stay on one line.
                out.append("{")
                for (i, (key, value)) in pairs.enumerated() {
                    if i > 0 { out.append(", ") }
                    Self.appendQuoted(key, to: &out)
                    out.append(": ")
                    value.write(into: &out, indent: 0)
                }
                out.append("}")
                return
            }
            out.append("{\n")
            for (i, (key, value)) in pairs.enumerated() {
                Self.pad(&out, indent + 1)
                Self.appendQuoted(key, to: &out)
                out.append(": ")
                value.write(into: &out, indent: indent + 1)
                out.append(i + 1 < pairs.count ? ",\n" : "\n")
            }
            Self.pad(&out, indent)
            out.append("}")
        case .array(let items):
            if items.isEmpty {
                out.append("[]")
                return
            }
            if items.allSatisfy(\.isScalar) {
                out.append("[")
                for (i, item) in items.enumerated() {
                    if i > 0 { out.append(", ") }
                    item.write(into: &out, indent: 0)
                }
                out.append("]")
                return
            }
            out.append("[\n")
            for (i, item) in items.enumerated() {
                Self.pad(&out, indent + 1)
                item.write(into: &out, indent: indent + 1)
                out.append(i + 1 < items.count ? ",\n" : "\n")
            }
            Self.pad(&out, indent)
            out.append("]")
        case .number(let x):
            if x.isFinite { out.append(number: x) } else { out.append("null") }
        case .integer(let i): out.append(integer: i)
        case .string(let s): Self.appendQuoted(s, to: &out)
        case .bool(let b): out.append(b ? "true" : "false")
        case .null: out.append("null")
        case .oneLine(let text): out.append(text)
        }
    }

    /// Two spaces per level.
    package static func pad(_ out: inout some TextSink, _ levels: Int) {
        for _ in 0..<levels { out.append("  ") }
    }

    /// Appends `quoted(s)`; a string with nothing to escape is appended as it is.
    package static func appendQuoted(_ s: String, to out: inout some TextSink) {
        func plain(_ b: UInt8) -> Bool { b >= 0x20 && b != UInt8(ascii: "\"") && b != UInt8(ascii: "\\") }
        if s.utf8.withContiguousStorageIfAvailable({ $0.allSatisfy(plain) }) ?? s.utf8.allSatisfy(plain) {
            out.append("\"")
            out.append(s)
            out.append("\"")
        } else {
            out.append(quoted(s))
        }
    }

    /// A scalar, or an array of scalars.
    private var isFlat: Bool {
        if case .array(let items) = self { return items.allSatisfy(\.isScalar) }
        return isScalar
    }

    private var isScalar: Bool {
        switch self {
        case .object, .array, .oneLine: return false
        default: return true
        }
    }

    /// JSON string literal (RFC 8259 §7): escapes quote, backslash and control characters.
    package static func quoted(_ s: String) -> String {
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
