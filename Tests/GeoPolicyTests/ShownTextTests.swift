import GeoPolicy
import Testing

/// What an error may echo of input text: controls and the characters that reorder or break a
/// terminal line are escaped; everything else, including non-ASCII letters, is kept.
@Suite struct ShownTextTests {
    @Test(arguments: [
        ("a\u{1B}[31mb", "a\\u{1B}[31mb"), ("x\ny\tz\r", "x\\ny\\tz\\r"), ("\u{7F}\u{85}", "\\u{7F}\\u{85}"),
        ("abc\u{202E}fed", "abc\\u{202E}fed"),
        ("\u{202A}\u{202B}\u{202C}\u{202D}", "\\u{202A}\\u{202B}\\u{202C}\\u{202D}"),
        ("\u{2066}i\u{2069}", "\\u{2066}i\\u{2069}"), ("\u{200E}\u{200F}\u{061C}", "\\u{200E}\\u{200F}\\u{61C}"),
        ("line\u{2028}next\u{2029}", "line\\u{2028}next\\u{2029}"),
    ])
    func unsafeCharactersAreEscaped(text: String, shown: String) {
        #expect(ShownText.shown(text) == shown)
        #expect(ShownText.escapingControls(text) == shown)
    }

    @Test func ordinaryTextIsKept() {
        for text in ["Zürich Hbf", "東京駅", "café ☕︎", "a\u{200B}b", "\u{00A0}", "Ω"] {
            #expect(ShownText.shown(text) == text)
        }
        #expect(!ShownText.isControl(" ") && !ShownText.isControl("\u{A0}") && !ShownText.isControl("\u{2030}"))
    }

    @Test func escapesCountTowardsTheLimit() {
        let text = String(repeating: "\u{202E}", count: 40)
        let shown = ShownText.shown(text, limit: 20)
        #expect(shown == String(repeating: "\\u{202E}", count: 2) + "…")
    }
}
