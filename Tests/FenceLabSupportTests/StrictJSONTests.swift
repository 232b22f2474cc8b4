import Testing
import _FenceLabSupport

/// The one strict JSON reader: RFC 8259 grammar, duplicate keys refused, limits, positions.
@Suite struct StrictJSONTests {
    @Test(arguments: ["020", "-01", "+1", ".5", "1.", "1e", "1e+", "NaN", "Infinity", "-", "0x10", "01.5"])
    func numbersOutsideTheRFCGrammarAreRefused(text: String) {
        #expect(throws: StrictJSON.ParseError.self) { _ = try StrictJSON.parse(text) }
    }

    @Test func numbersInTheGrammarKeepValueAndText() throws {
        let v = try StrictJSON.parse("[0, -0.5, 1e2, 2E-3, 1e999, -0]")
        guard case .array(let items, _) = v else {
            Issue.record("not an array")
            return
        }
        let values: [Double] = items.compactMap { if case .number(let x, _, _) = $0 { return x } else { return nil } }
        #expect(values.count == 6)
        #expect(values[0] == 0 && values[1] == -0.5 && values[2] == 100 && values[3] == 0.002)
        #expect(values[4] == .infinity, "overflow is kept (as text 1e999) for the caller to refuse by key")
        if case .number(_, let text, _) = items[4] { #expect(text == "1e999") }
        #expect(items.map(\.scalarText) == ["0", "-0.5", "1e2", "2E-3", "1e999", "-0"])
        let others = try StrictJSON.parse("[\"inf\", true, null, {}, []]")
        guard case .array(let rest, _) = others else {
            Issue.record("not an array")
            return
        }
        #expect(rest.map(\.scalarText) == ["inf", nil, nil, nil, nil], "a string's text; nothing for the rest")
    }

    @Test func duplicateKeysAreRefusedWithTheKeyPath() {
        #expect {
            _ = try StrictJSON.parse("{\"noise\": {\"sigma_m\": 1,\n \"sigma_m\": 2}}")
        } throws: { error in
            guard let e = error as? StrictJSON.ParseError else { return false }
            return e.kind == .duplicateKey && e.keyPath == "noise.sigma_m" && e.line == 2
        }
    }

    @Test func errorsCarryLineColumnAndKeyPath() {
        #expect {
            _ = try StrictJSON.parse("{\"route\": {\"points\": [[1, 2],\n   [3, x]]}}")
        } throws: { error in
            guard let e = error as? StrictJSON.ParseError else { return false }
            return e.line == 2 && e.column == 8 && e.keyPath == "route.points[1][1]"
                && e.description.contains("line 2, column 8")
        }
    }

    @Test func depthAndSizeAreBounded() throws {
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect { _ = try StrictJSON.parse(deep) } throws: { ($0 as? StrictJSON.ParseError)?.kind == .tooDeep }
        _ = try StrictJSON.parse(String(repeating: "[", count: 64) + String(repeating: "]", count: 64))
        // 100 000 levels: refused at level 64, no stack overflow.
        let hostile = String(repeating: "[", count: 100_000)
        #expect { _ = try StrictJSON.parse(hostile) } throws: { ($0 as? StrictJSON.ParseError)?.kind == .tooDeep }
        #expect {
            _ = try StrictJSON.parse("[1, 2, 3]", limits: .init(maxBytes: 8))
        } throws: { ($0 as? StrictJSON.ParseError)?.kind == .tooLarge }
        #expect {
            _ = try StrictJSON.parse("[1, 2, 3]", limits: .init(maxValues: 3))
        } throws: { ($0 as? StrictJSON.ParseError)?.kind == .tooManyValues }
        _ = try StrictJSON.parse("[1, 2]", limits: .init(maxValues: 3))
    }

    @Test func stringsAreStrict() throws {
        guard case .string(let s, _) = try StrictJSON.parse(#""\ud83d\ude00 \u00e9 \n""#) else {
            Issue.record("not a string")
            return
        }
        #expect(s == "😀 é \n")
        for bad in [#""\ud83d""#, #""\ude00""#, "\"a\u{01}b\"", #""\x""#, "\"abc", "\"\u{7F}\"x"] {
            #expect(throws: StrictJSON.ParseError.self, "\(bad)") { _ = try StrictJSON.parse(bad) }
        }
        // invalid UTF-8
        #expect(throws: StrictJSON.ParseError.self) { _ = try StrictJSON.parse([0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test func trailingTextAndEmptyInputAreRefused() {
        for bad in ["", " ", "{} {}", "1 2", "[1,]", "{\"a\":1,}", "{'a':1}", "tru", "nul"] {
            #expect(throws: StrictJSON.ParseError.self, "\(bad)") { _ = try StrictJSON.parse(bad) }
        }
    }

    @Test func longFlatInputIsLinear() throws {
        // 200 000 elements: parses (no per-element recursion, no quadratic work).
        let text = "[" + Array(repeating: "1", count: 200_000).joined(separator: ",") + "]"
        guard case .array(let items, _) = try StrictJSON.parse(text) else {
            Issue.record("not an array")
            return
        }
        #expect(items.count == 200_000)
    }
}
