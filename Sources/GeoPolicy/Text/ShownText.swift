/// Text from input files, engines or arguments made safe to echo (in GeoPolicy, the lowest
/// module, so that every layer's errors use the same rule): bounded length and no
/// control characters, so an error line stays one short line and cannot drive the terminal
/// (ESC sequences, BEL, NUL) or break a Markdown table.
public enum ShownText {
    /// Characters of an offending value echoed in an error message before the ellipsis.
    public static let defaultLimit = 80

    /// `value` with control characters escaped (newline as `\n`, tab as `\t`, any other
    /// character `isControl` names as `\u{1B}`, `\u{202E}`), cut so that the result holds at most `limit`
    /// characters before the "…" — escapes count at their written length (found by the gpx
    /// fuzz target: 40 NULs made 240 characters). Reads at most `limit + 1` scalars of `value`.
    public static func shown(_ value: some StringProtocol, limit: Int = defaultLimit) -> String {
        var out = ""
        var written = 0
        for scalar in value.unicodeScalars {
            let piece = escaped(scalar)
            let length = piece.unicodeScalars.count
            if written + length > limit {
                out += "…"
                break
            }
            out += piece
            written += length
        }
        return out
    }

    /// `value` with every control character escaped as in `shown`, without a length limit;
    /// with `keepingLineBreaks`, `\n` stays a line break (multi-line terminal output).
    public static func escapingControls(_ value: some StringProtocol, keepingLineBreaks: Bool = false) -> String {
        func needs(_ s: Unicode.Scalar) -> Bool { isControl(s) && !(keepingLineBreaks && s == "\n") }
        guard value.unicodeScalars.contains(where: needs) else { return String(value) }
        var out = ""
        for s in value.unicodeScalars { out += needs(s) ? escaped(s) : String(s) }
        return out
    }

    /// True for the characters an echo escapes: C0 and C1 controls and DEL, and the Unicode
    /// formatting characters that reorder or break a terminal line — the bidirectional marks,
    /// embeddings, overrides and isolates (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069;
    /// Unicode Standard Annex #9) and the line and paragraph separators (U+2028, U+2029).
    public static func isControl(_ s: Unicode.Scalar) -> Bool {
        let v = s.value
        if v < 0x20 || (v >= 0x7F && v < 0xA0) { return true }
        return v == 0x061C || v == 0x200E || v == 0x200F || (0x202A...0x202E).contains(v)
            || (0x2066...0x2069).contains(v) || v == 0x2028 || v == 0x2029
    }

    public static func escaped(_ s: Unicode.Scalar) -> String {
        guard isControl(s) else { return String(s) }
        switch s {
        case "\n": return "\\n"
        case "\t": return "\\t"
        case "\r": return "\\r"
        default:
            let hex = String(s.value, radix: 16, uppercase: true)
            return "\\u{" + (hex.count < 2 ? "0" + hex : hex) + "}"
        }
    }
}
