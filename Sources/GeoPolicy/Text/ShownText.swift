/// Text from input files, engines or arguments made safe to echo (in GeoPolicy, the lowest
/// module, so that every layer's errors use the same rule): bounded length and no
/// control characters, so an error line stays one short line and cannot drive the terminal
/// (ESC sequences, BEL, NUL) or break a Markdown table.
public enum ShownText {
    /// Characters of an offending value echoed in an error message before the ellipsis.
    public static let defaultLimit = 80

    /// `value` with control characters escaped (newline as `\n`, tab as `\t`, any other
    /// C0/C1 control or DEL as `\u{1B}`), cut so that the result holds at most `limit`
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

    public static func isControl(_ s: Unicode.Scalar) -> Bool {
        s.value < 0x20 || (s.value >= 0x7F && s.value < 0xA0)
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
