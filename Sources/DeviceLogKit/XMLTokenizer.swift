/// A minimal, strict, non-validating XML 1.0 tokenizer for GPX files.
///
/// It reports start tags (with attributes), end tags and text, skipping the XML declaration,
/// processing instructions and comments. It never processes a DOCTYPE or entity declaration:
/// `<!DOCTYPE` and `<!ENTITY` are errors, and the only references resolved are the five
/// predefined entities (`&lt; &gt; &amp; &quot; &apos;`) and character references
/// (`&#NN;`, `&#xHH;`); any other `&name;` is an error. So entity expansion ("billion laughs",
/// external entities) cannot happen. Every name, attribute value and text node is bounded
/// by `maxToken_bytes`.
struct XMLTokenizer {
    enum Token: Equatable {
        case start(name: String, attributes: [Attribute], selfClosing: Bool)
        case end(name: String)
        case text(String)
        case endOfFile
    }

    struct Attribute: Equatable {
        var name: String
        var value: String
    }

    private let source: DeviceLogByteSource
    let maxToken_bytes: Int
    /// The bytes read and still needed: `window[0]` is byte `base` of the input. Bytes before
    /// the current position (or before `pin`, the start of a name or CDATA being read) are
    /// dropped when the next piece is read, so memory is one piece plus one token.
    private var window: [UInt8] = []
    private var base = 0
    private var pin: Int?
    private var exhausted = false
    private var begun = false
    /// Input offset of the current position.
    private(set) var i = 0
    /// 1-based line of the current position.
    private(set) var line = 1
    /// Line where the last returned token started.
    private(set) var tokenLine = 1
    /// Whether every byte read so far is a space, a line break or a byte of a UTF-8 BOM
    /// (an input that is all of those is empty).
    private(set) var onlySpaceSoFar = true

    init(_ source: DeviceLogByteSource, maxToken_bytes: Int) {
        self.source = source
        self.maxToken_bytes = maxToken_bytes
    }

    /// Whether input byte `k` (≥ `i`) exists, reading pieces until it is in the window.
    private mutating func has(_ k: Int) throws(DeviceLogProblemAtLine) -> Bool {
        while k >= base + window.count, !exhausted {
            let keep = min(i, pin ?? i) - base
            if keep > 0, keep >= window.count / 2 {
                window.removeSubrange(0..<keep)
                base += keep
            }
            if try source.read(appendingTo: &window) == 0 { exhausted = true }
        }
        return k < base + window.count
    }

    /// Input byte `k`; `has(k)` must have been true.
    private func at(_ k: Int) -> UInt8 { window[k - base] }

    /// Input bytes `start..<end`, all in the window.
    private func slice(_ start: Int, _ end: Int) -> ArraySlice<UInt8> { window[(start - base)..<(end - base)] }

    private func fail(_ problem: DeviceLogProblem) -> DeviceLogProblemAtLine {
        DeviceLogProblemAtLine(line: line, problem: problem)
    }

    private func truncated(_ inside: String) -> DeviceLogProblemAtLine {
        fail(.xml("unexpected end of file inside \(inside) (truncated file?)"))
    }

    /// Moves past byte `i` (which `has(i)` made available).
    private mutating func advance() {
        let b = at(i)
        if b == 0x0A { line += 1 }
        if onlySpaceSoFar {
            switch b {
            case 0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF: break
            default: onlySpaceSoFar = false
            }
        }
        i += 1
    }

    private mutating func starts(with text: StaticString) throws(DeviceLogProblemAtLine) -> Bool {
        var k = i
        for c in UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount) {
            guard try has(k), at(k) == c else { return false }
            k += 1
        }
        return true
    }

    /// Advances past `count` bytes known to be there (a matched `starts(with:)`).
    private mutating func advance(_ count: Int) {
        for _ in 0..<count { advance() }
    }

    /// Skips to just past `terminator`; `inside` names the construct for the truncation error.
    private mutating func skip(past terminator: StaticString, inside: String) throws(DeviceLogProblemAtLine) {
        while try has(i) {
            if try starts(with: terminator) {
                advance(terminator.utf8CodeUnitCount)
                return
            }
            advance()
        }
        throw truncated(inside)
    }

    /// The next token. Comments and processing instructions are skipped in a loop, never by
    /// recursion: 30 000 `<!---->` in a row must not grow the stack.
    mutating func next() throws(DeviceLogProblemAtLine) -> Token {
        if !begun {
            begun = true
            if try has(2), at(0) == 0xEF, at(1) == 0xBB, at(2) == 0xBF { i = 3 }
        }
        while true {
            tokenLine = line
            guard try has(i) else { return .endOfFile }
            guard at(i) == UInt8(ascii: "<") else { return .text(try text()) }
            if try starts(with: "<?") {
                try skip(past: "?>", inside: "a processing instruction")
            } else if try starts(with: "<!--") {
                try skip(past: "-->", inside: "a comment")
            } else {
                return try markup()
            }
        }
    }

    /// A CDATA section, start tag or end tag at `i` (which holds '<').
    private mutating func markup() throws(DeviceLogProblemAtLine) -> Token {
        if try starts(with: "<![CDATA[") {
            advance(9)
            let start = i
            pin = start
            defer { pin = nil }
            while try has(i), !(try starts(with: "]]>")) {
                advance()
                if i - start > maxToken_bytes { throw fail(.xmlTokenTooLong(limit_bytes: maxToken_bytes)) }
            }
            guard try has(i) else { throw truncated("CDATA") }
            let content = slice(start, i)
            advance(3)
            guard let s = content.withUnsafeBufferPointer({ String(validating: $0, as: UTF8.self) }) else {
                throw fail(.invalidUTF8)
            }
            return .text(s)
        }
        if try starts(with: "<!DOCTYPE") { throw fail(.xmlDeclarationRefused("DOCTYPE declaration")) }
        if try starts(with: "<!doctype") {
            throw fail(.xmlDeclarationRefused("DOCTYPE declaration"))
        }
        if try starts(with: "<!ENTITY") { throw fail(.xmlDeclarationRefused("entity declaration")) }
        if try starts(with: "<!") { throw fail(.xml("unexpected markup '<!'")) }
        if try starts(with: "</") {
            advance(2)
            let name = try self.name()
            try skipSpace()
            guard try has(i) else { throw truncated("the end tag </\(DeviceLogLexical.shown(name))>") }
            guard at(i) == UInt8(ascii: ">") else {
                throw fail(.xml("expected '>' to close </\(DeviceLogLexical.shown(name))"))
            }
            advance()
            return .end(name: name)
        }
        advance()
        let name = try self.name()
        var attributes: [Attribute] = []
        while true {
            let hadSpace = try skipSpace()
            guard try has(i) else { throw truncated("the start tag <\(DeviceLogLexical.shown(name))>") }
            if at(i) == UInt8(ascii: ">") {
                advance()
                return .start(name: name, attributes: attributes, selfClosing: false)
            }
            if try starts(with: "/>") {
                advance(2)
                return .start(name: name, attributes: attributes, selfClosing: true)
            }
            guard hadSpace else {
                throw fail(.xml("expected a space, '>' or '/>' in <\(DeviceLogLexical.shown(name))>"))
            }
            let attributeName = try self.name()
            try skipSpace()
            guard try has(i) else { throw truncated("the start tag <\(DeviceLogLexical.shown(name))>") }
            guard at(i) == UInt8(ascii: "=") else {
                throw fail(.xml("expected '=' after attribute \(DeviceLogLexical.shown(attributeName))"))
            }
            advance()
            try skipSpace()
            guard try has(i) else { throw truncated("the start tag <\(DeviceLogLexical.shown(name))>") }
            let quote = at(i)
            guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
                throw fail(.xml("attribute \(DeviceLogLexical.shown(attributeName)) value must be quoted"))
            }
            advance()
            let value = try characters(until: quote, inside: "attribute \(DeviceLogLexical.shown(attributeName))")
            advance()
            guard !attributes.contains(where: { $0.name == attributeName }) else {
                throw fail(
                    .xml(
                        "duplicate attribute \(DeviceLogLexical.shown(attributeName)) in <\(DeviceLogLexical.shown(name))>"
                    ))
            }
            attributes.append(Attribute(name: attributeName, value: value))
        }
    }

    @discardableResult
    private mutating func skipSpace() throws(DeviceLogProblemAtLine) -> Bool {
        let start = i
        while try has(i) {
            switch at(i) {
            case 0x20, 0x09, 0x0A, 0x0D: advance()
            default: return i > start
            }
        }
        return i > start
    }

    private mutating func name() throws(DeviceLogProblemAtLine) -> String {
        let start = i
        pin = start
        defer { pin = nil }
        nameLoop: while try has(i) {
            switch at(i) {
            case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ">"), UInt8(ascii: "/"), UInt8(ascii: "="),
                UInt8(ascii: "<"), UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "&"):
                break nameLoop
            default:
                advance()
            }
            if i - start > maxToken_bytes { throw fail(.xmlTokenTooLong(limit_bytes: maxToken_bytes)) }
        }
        guard i > start else {
            if !(try has(i)) { throw truncated("a tag") }
            throw fail(.xml("expected a name"))
        }
        guard let s = slice(start, i).withUnsafeBufferPointer({ String(validating: $0, as: UTF8.self) }) else {
            throw fail(.invalidUTF8)
        }
        return s
    }

    private mutating func text() throws(DeviceLogProblemAtLine) -> String {
        try characters(until: UInt8(ascii: "<"), inside: nil)
    }

    /// Character data up to (not including) `terminator`, with references resolved.
    /// `inside` non-nil means the terminator is required (attribute value) and `<` is refused.
    private mutating func characters(until terminator: UInt8, inside: String?) throws(DeviceLogProblemAtLine) -> String
    {
        var out: [UInt8] = []
        while true {
            guard try has(i) else {
                if let inside { throw truncated(inside) }
                break
            }
            let b = at(i)
            if b == terminator { break }
            if b == UInt8(ascii: "<") { throw fail(.xml("'<' inside \(inside ?? "text")")) }
            if b == UInt8(ascii: "&") {
                out.append(contentsOf: try reference())
            } else {
                out.append(b)
                advance()
            }
            if out.count > maxToken_bytes { throw fail(.xmlTokenTooLong(limit_bytes: maxToken_bytes)) }
        }
        guard let s = String(validating: out, as: UTF8.self) else { throw fail(.invalidUTF8) }
        return s
    }

    /// Resolves a reference at `&`: predefined entity or character reference, else an error.
    private mutating func reference() throws(DeviceLogProblemAtLine) -> [UInt8] {
        let start = i
        var end = i + 1
        while try has(end), end - start < 16, at(end) != UInt8(ascii: ";") { end += 1 }
        guard try has(end), at(end) == UInt8(ascii: ";") else {
            throw fail(.xml("'&' is not part of a reference"))
        }
        let body = String(decoding: slice(start + 1, end), as: UTF8.self)
        let resolved: [UInt8]
        switch body {
        case "lt": resolved = [UInt8(ascii: "<")]
        case "gt": resolved = [UInt8(ascii: ">")]
        case "amp": resolved = [UInt8(ascii: "&")]
        case "quot": resolved = [UInt8(ascii: "\"")]
        case "apos": resolved = [UInt8(ascii: "'")]
        default:
            guard body.hasPrefix("#") else { throw fail(.xmlEntityRefused("&" + DeviceLogLexical.shown(body) + ";")) }
            let digits = body.dropFirst()
            let value: UInt32?
            if digits.hasPrefix("x") {
                value = digits.count > 1 && digits.count <= 7 ? UInt32(digits.dropFirst(), radix: 16) : nil
            } else {
                value = !digits.isEmpty && digits.count <= 8 ? UInt32(digits, radix: 10) : nil
            }
            guard let value, value != 0, let scalar = Unicode.Scalar(value) else {
                throw fail(.xml("invalid character reference &\(DeviceLogLexical.shown(body));"))
            }
            resolved = Array(String(Character(scalar)).utf8)
        }
        while i <= end { advance() }
        return resolved
    }
}
