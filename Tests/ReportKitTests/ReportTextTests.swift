import Foundation
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

    /// `short` as it was written with String operations: the oracle of the byte version.
    static func shortOracle(_ x: Double) -> String {
        guard x.isFinite else { return x.isNaN ? "–" : (x > 0 ? "∞" : "−∞") }
        if x == 0 { return "0" }
        let a = abs(x)
        if a >= 1e6 || a < 1e-3 { return CFormat.scientific2(x) }
        let decimals = max(0, 2 - Int(floor(log10(a))))
        var s = CFormat.fixed(x, decimals: decimals)
        if s.unicodeScalars.contains(".") {
            while s.hasSuffix("0") { s.removeLast() }
            if s.hasSuffix(".") { s.removeLast() }
        }
        return s
    }

    @Test func shortTrimsAsTheStringVersion() {
        let fixed: [Double] = [
            0, -0.0, 1, -1, 10, 100, 120, 999.5, 1000, 123_456, 999_999, 0.001, 0.00123, 0.0015, 0.1, 0.5, 0.25,
            1.05, 2.5, 12.35, 99.95, 3600, 1e6, 1e-4, .nan, .infinity, -.infinity, 1.0 / 3, 2.0 / 3,
        ]
        for v in fixed {
            #expect(ReportText.short(v) == Self.shortOracle(v), "\(v)")
            #expect(ReportText.short(-v) == Self.shortOracle(-v), "\(v)")
        }
        #expect(ReportText.short(12.35) == "12.3" || ReportText.short(12.35) == "12.4")
        #expect(ReportText.short(2.5) == "2.5")
        #expect(ReportText.short(3600) == "3600")
        #expect(ReportText.short(0.1) == "0.1")
        var g = SystemRandomNumberGenerator()
        for _ in 0..<5000 {
            let v = Double.random(in: -2e6...2e6, using: &g) / [1.0, 10, 1000, 1e5][Int.random(in: 0...3, using: &g)]
            #expect(ReportText.short(v) == Self.shortOracle(v), "\(v)")
            let r = Double(Int.random(in: -100_000...100_000, using: &g)) / 100
            #expect(ReportText.short(r) == Self.shortOracle(r), "\(r)")
        }
    }
}
