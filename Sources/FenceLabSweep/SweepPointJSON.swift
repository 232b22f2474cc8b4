import GeoPolicy
import _FenceLabSupport

/// The manifest's `points` elements written directly, byte for byte as `JSONEncoder` writes them
/// with FenceLab's options (`SweepManifest.encoder`: sorted keys, slashes unescaped, non-finite
/// numbers as the strings `Infinity`, `-Infinity`, `NaN`; nil fields left out). `JSONEncoder`
/// builds a dictionary per point and costs ≈ 59 000 instructions per grid point, the largest
/// serial part of writing the resume file's header on a large grid; the whole line costs ≈ 7 500 per
/// point this way (the points appended to one byte buffer per piece of 1024).
///
/// Numbers are Swift's shortest round-trip `description` with a trailing `.0` dropped, as the
/// encoder spells them. A point whose strings need escaping (anything outside printable ASCII,
/// `"` or `\`) is not written here: `append` returns false and the caller encodes with
/// `JSONEncoder`. `SweepPointJSONTests` compares the bytes with `JSONEncoder` over random points.
enum SweepPointJSON {
    /// Appends `points` as the elements of a JSON array (no brackets), compact or, when `pretty`,
    /// as `JSONEncoder`'s pretty output of a top-level array re-indented one level deeper.
    /// Returns false, leaving `out` as it was, when a point needs `JSONEncoder`.
    static func append(_ points: ArraySlice<SweepPoint>, pretty: Bool, to out: inout String) -> Bool {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(points.count * (pretty ? 260 : 160))
        var first = true
        let table = pretty ? Self.prettyKeys : Self.compactKeys
        let written = table.withKeys { keys in
            for p in points {
                guard plain(p.sampling), plain(p.notify) else { return false }
                if !first {
                    if pretty {
                        bytes.append(contentsOf: Self.prettySeparator)
                    } else {
                        bytes.append(UInt8(ascii: ","))
                    }
                }
                first = false
                appendPoint(p, keys: keys, pretty: pretty, to: &bytes)
            }
            return true
        }
        guard written else { return false }
        out += String(decoding: bytes, as: UTF8.self)
        return true
    }

    static let prettySeparator = Array(",\n".utf8), compactSeparator = Array(",".utf8)

    /// The fields a point may have, in the encoder's (sorted) key order.
    enum Field: Int, CaseIterable {
        case confirm_n, confirm_s, enter_m, exit_m, input, kind, maxAccuracy_m, notify, q_m2s3, sampling

        /// The JSON key (the `SweepPoint` property's name).
        var name: String {
            [
                "confirm_n", "confirm_s", "enter_m", "exit_m", "input", "kind", "maxAccuracy_m", "notify", "q_m2s3",
                "sampling",
            ][rawValue]
        }
    }

    /// Each field's key with what comes before it and the colon: `,"enter_m":` compact,
    /// `,\n      "enter_m" : ` pretty; the first field (`confirm_n`, always there) opens the
    /// object instead of a comma. One append per field.
    static let compactKeys = KeyPrefixes(
        Field.allCases.map { f in Array(((f == .confirm_n ? "{" : ",") + "\"\(f.name)\":").utf8) })
    static let prettyKeys = KeyPrefixes(
        Field.allCases.map { f in Array(((f == .confirm_n ? "    {\n" : ",\n") + "      \"\(f.name)\" : ").utf8) })

    /// One point as an object; pretty: opened at four spaces, fields at six.
    static func appendPoint(_ p: SweepPoint, pretty: Bool, to out: inout [UInt8]) {
        (pretty ? prettyKeys : compactKeys).withKeys { appendPoint(p, keys: $0, pretty: pretty, to: &out) }
    }

    /// `appendPoint` with the keys borrowed by the caller (once per piece, not per point).
    static func appendPoint(_ p: SweepPoint, keys: KeyPrefixes.Keys, pretty: Bool, to out: inout [UInt8]) {
        func key(_ field: Field) { out.append(contentsOf: keys[field.rawValue]) }
        func string(_ s: String) {
            out.append(UInt8(ascii: "\""))
            if s.utf8.withContiguousStorageIfAvailable({ out.append(contentsOf: $0) }) == nil {
                out.append(contentsOf: s.utf8)
            }
            out.append(UInt8(ascii: "\""))
        }
        key(.confirm_n)
        DecimalDigits.append(p.confirm_n, to: &out)
        if let s = p.confirm_s {
            key(.confirm_s)
            number(s, to: &out)
        }
        key(.enter_m)
        number(p.enter_m, to: &out)
        key(.exit_m)
        number(p.exit_m, to: &out)
        key(.input)
        string(p.input.rawValue)
        key(.kind)
        string(p.kind.rawValue)
        key(.maxAccuracy_m)
        number(p.maxAccuracy_m, to: &out)
        if let n = p.notify {
            key(.notify)
            string(n)
        }
        key(.q_m2s3)
        number(p.q_m2s3, to: &out)
        if let s = p.sampling {
            key(.sampling)
            string(s)
        }
        if pretty {
            out.append(contentsOf: Self.prettyClose)
        } else {
            out.append(UInt8(ascii: "}"))
        }
    }

    static let prettyClose = Array("\n    }".utf8)

    /// A Double as the encoder writes it: the non-finite values as FenceLab's strings, else the
    /// shortest round-trip digits without a trailing `.0`.
    static func number(_ x: Double) -> String {
        var out: [UInt8] = []
        number(x, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func number(_ x: Double, to out: inout [UInt8]) {
        if x.isNaN { return out.append(contentsOf: "\"NaN\"".utf8) }
        if x.isInfinite { return out.append(contentsOf: x > 0 ? "\"Infinity\"".utf8 : "\"-Infinity\"".utf8) }
        let start = out.count
        DecimalDigits.append(x, to: &out)
        if out.count - start >= 2, out[out.count - 2] == UInt8(ascii: "."), out[out.count - 1] == UInt8(ascii: "0") {
            out.removeLast(2)
        }
    }

    /// A string that needs no escaping in JSON (printable ASCII other than `"` and `\`), or nil.
    static func plain(_ s: String?) -> Bool {
        guard let s else { return true }
        return s.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
    }
}
