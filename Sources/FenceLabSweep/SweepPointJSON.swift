import GeoPolicy

/// The manifest's `points` elements written directly, byte for byte as `JSONEncoder` writes them
/// with FenceLab's options (`SweepManifest.encoder`: sorted keys, slashes unescaped, non-finite
/// numbers as the strings `Infinity`, `-Infinity`, `NaN`; nil fields left out). `JSONEncoder`
/// builds a dictionary per point and costs ≈ 59 000 instructions per grid point, the largest
/// serial part of writing the resume file's header on a large grid; this costs a few hundred.
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
        let start = out.endIndex
        var first = true
        for p in points {
            guard plain(p.sampling), plain(p.notify) else {
                out.removeSubrange(start...)
                return false
            }
            if !first { out += pretty ? ",\n" : "," }
            first = false
            appendPoint(p, pretty: pretty, to: &out)
        }
        return true
    }

    /// One point as an object; pretty: opened at four spaces, fields at six.
    static func appendPoint(_ p: SweepPoint, pretty: Bool, to out: inout String) {
        let open = pretty ? "    {\n" : "{"
        let separator = pretty ? ",\n" : ","
        let close = pretty ? "\n    }" : "}"
        let colon = pretty ? " : " : ":"
        let indent = pretty ? "      " : ""
        out += open
        var first = true
        func field(_ key: String, _ value: String) {
            if !first { out += separator }
            first = false
            out += indent
            out += "\""
            out += key
            out += "\""
            out += colon
            out += value
        }
        field("confirm_n", String(p.confirm_n))
        if let s = p.confirm_s { field("confirm_s", number(s)) }
        field("enter_m", number(p.enter_m))
        field("exit_m", number(p.exit_m))
        field("input", "\"" + p.input.rawValue + "\"")
        field("kind", "\"" + p.kind.rawValue + "\"")
        field("maxAccuracy_m", number(p.maxAccuracy_m))
        if let n = p.notify { field("notify", "\"" + n + "\"") }
        field("q_m2s3", number(p.q_m2s3))
        if let s = p.sampling { field("sampling", "\"" + s + "\"") }
        out += close
    }

    /// A Double as the encoder writes it: the non-finite values as FenceLab's strings, else the
    /// shortest round-trip digits without a trailing `.0`.
    static func number(_ x: Double) -> String {
        if x.isNaN { return "\"NaN\"" }
        if x.isInfinite { return x > 0 ? "\"Infinity\"" : "\"-Infinity\"" }
        var text = x.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    /// A string that needs no escaping in JSON (printable ASCII other than `"` and `\`), or nil.
    static func plain(_ s: String?) -> Bool {
        guard let s else { return true }
        return s.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
    }
}
