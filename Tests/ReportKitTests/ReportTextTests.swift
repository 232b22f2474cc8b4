import Testing

@testable import ReportKit

/// `ReportText.xml` against the definition applied scalar by scalar.
@Suite struct ReportTextTests {
    /// The escape of the definition: the five XML specials as entities, control characters but
    /// tab, line feed and carriage return as U+FFFD, everything else as it is.
    static func oracle(_ s: String) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                if scalar.value < 0x20 && !["\n", "\t", "\r"].contains(scalar) {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    @Test func xmlEscapesExactlyTheDefinition() {
        let fixed = [
            "", "plain 87/120 acc20", "a&b", "<td>", "x > 3", "\"quoted\"", "it's", "tab\there", "line\nend",
            "cr\rlf", "bell\u{07}", "nul\u{00}end", "\u{1F}", "µ ≥ 0.95 · 100 %", "emoji 🛰️ & <", "&amp;",
        ]
        for s in fixed { #expect(ReportText.xml(s) == Self.oracle(s), "\(s.debugDescription)") }
        // Random strings over an alphabet with every class of character.
        let alphabet: [Unicode.Scalar] = [
            "a", "Z", "0", " ", "&", "<", ">", "\"", "'", "\n", "\t", "\r", "\u{01}", "\u{1F}", "é", "≥", "🛰",
        ]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<2000 {
            var s = ""
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let length = Int(state >> 59)
            for _ in 0..<length {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                s.unicodeScalars.append(alphabet[Int(state >> 33) % alphabet.count])
            }
            #expect(Array(ReportText.xml(s).utf8) == Array(Self.oracle(s).utf8), "\(s.debugDescription)")
        }
    }
}
