import Foundation
import GeoPolicy

/// Human-readable number formatting for report.md, index.html and summaries.
/// Locale-independent ("." decimals: `CFormat`, the C library's printf in the "C" locale).
/// report.json never uses this: it writes unrounded values.
package enum ReportText {
    /// Three significant digits, plain notation for 0.001 ≤ |x| < 10⁶.
    package static func short(_ x: Double) -> String {
        guard x.isFinite else { return x.isNaN ? "–" : (x > 0 ? "∞" : "−∞") }
        if x == 0 { return "0" }
        let a = abs(x)
        if a >= 1e6 || a < 1e-3 { return CFormat.scientific2(x) }
        let decimals = max(0, 2 - Int(floor(log10(a))))
        var s = CFormat.fixed(x, decimals: decimals)
        // Trailing zeros (and then the point) dropped as bytes: `contains(".")` on a String is
        // Foundation's substring search, `removeLast()` a grapheme step per character.
        return s.withUTF8 { bytes in
            guard bytes.contains(UInt8(ascii: ".")) else { return nil }
            var end = bytes.count
            while end > 0, bytes[end - 1] == UInt8(ascii: "0") { end -= 1 }
            if end > 0, bytes[end - 1] == UInt8(ascii: ".") { end -= 1 }
            return end == bytes.count
                ? nil : String(decoding: UnsafeBufferPointer(rebasing: bytes[..<end]), as: UTF8.self)
        } ?? s
    }

    /// "23.135 s" / "60 s": seconds rounded to milliseconds (`DurationText`).
    package static func seconds(_ x: Double) -> String { DurationText.seconds(x) }

    /// "4 912 km" / "120 m": a distance for messages, three significant digits.
    package static func distance(_ metres: Double) -> String {
        metres >= 10_000 ? "\(short(metres / 1000)) km" : "\(short(metres)) m"
    }

    /// Explains a negative latency where latencies are shown.
    package static let negativeLatencyNote =
        "A negative latency means the observed transition came before the true one "
        + "(noise carried the fix across the boundary early)."

    /// Escapes `|` and line breaks for a Markdown table cell.
    package static func cell(_ s: String) -> String {
        s.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }

    /// A Markdown document with no raw HTML and no control characters: `&` and `<` become
    /// entities (names, engine reasons and file paths are data, never markup) and every control
    /// character but the line breaks is escaped as `\u{1B}`.
    package static func markdownSafe(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case "\n": out.unicodeScalars.append(scalar)
            default: out += ShownText.escaped(scalar)
            }
        }
        return out
    }

    /// Escapes text for XML/HTML content and attribute values.
    package static func xml(_ s: String) -> String {
        // Most text (numbers, labels, settings) has nothing to escape or replace: returned as it is.
        func special(_ b: UInt8) -> Bool { b < 0x20 ? (b != 0x0A && b != 0x09 && b != 0x0D) : Self.xmlSpecial(b) }
        // Over the contiguous bytes when there are (native and small strings), not the generic view.
        if !(s.utf8.withContiguousStorageIfAvailable { $0.contains(where: special) } ?? s.utf8.contains(where: special))
        {
            return s
        }
        var out = ""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                // XML 1.0 forbids most control characters even escaped; replace them.
                if scalar.value < 0x20 && scalar != "\n" && scalar != "\t" && scalar != "\r" {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// `&`, `<`, `>`, `"` or `'`.
    @inline(__always)
    private static func xmlSpecial(_ b: UInt8) -> Bool {
        b == UInt8(ascii: "&") || b == UInt8(ascii: "<") || b == UInt8(ascii: ">") || b == UInt8(ascii: "\"")
            || b == UInt8(ascii: "'")
    }
}
