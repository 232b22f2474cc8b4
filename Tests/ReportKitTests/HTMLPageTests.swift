import Testing

@testable import ReportKit

/// The shared page frame's table rules: tables of estimates stay narrow, long text wraps.
@Suite struct HTMLPageTests {
    @Test func anEstimateCellPutsItsIntervalOnALineOfItsOwn() {
        #expect(HTMLPage.stacked("82.8 [33.3, 132]") == "82.8<br><small>[33.3, 132]</small>")
        #expect(HTMLPage.stacked("1 <x> [0, 2]") == "1 &lt;x&gt;<br><small>[0, 2]</small>")
        #expect(HTMLPage.stacked("–") == "–")
        #expect(HTMLPage.stacked("a & b") == "a &amp; b")
    }

    @Test func headersAndWrapCellsMayBreakLines() {
        // Every header wraps (a long heading never widens its column past its figures), and a
        // `wrap` cell (a recommendation's reason, a setting's label) breaks anywhere it must.
        #expect(HTMLPage.css.contains("th{white-space:normal;vertical-align:bottom}"))
        #expect(HTMLPage.css.contains("td.wrap{white-space:normal;overflow-wrap:anywhere;"))
    }
}
