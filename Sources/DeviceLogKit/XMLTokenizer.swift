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

    let bytes: UnsafeBufferPointer<UInt8>
    let maxToken_bytes: Int
    private(set) var i: Int
    /// 1-based line of the current position.
    private(set) var line = 1
    /// Line where the last returned token started.
    private(set) var tokenLine = 1

    init(_ bytes: UnsafeBufferPointer<UInt8>, maxToken_bytes: Int) {
        self.bytes = bytes
        self.maxToken_bytes = maxToken_bytes
        i = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
    }

    private func fail(_ problem: DeviceLogProblem) -> DeviceLogProblemAtLine {
        DeviceLogProblemAtLine(line: line, problem: problem)
    }

    private func truncated(_ inside: String) -> DeviceLogProblemAtLine {
        fail(.xml("unexpected end of file inside \(inside) (truncated file?)"))
    }

    private mutating func advance() {
        if bytes[i] == 0x0A { line += 1 }
        i += 1
    }

    private func starts(with text: String) -> Bool {
        var k = i
        for c in text.utf8 {
            guard k < bytes.count, bytes[k] == c else { return false }
            k += 1
        }
        return true
    }

    /// Skips to just past `terminator`; `inside` names the construct for the truncation error.
    private mutating func skip(past terminator: String, inside: String) throws(DeviceLogProblemAtLine) {
        while i < bytes.count {
            if starts(with: terminator) {
                for _ in terminator.utf8 { advance() }
                return
            }
            advance()
        }
        throw truncated(inside)
    }

    /// The next token. Comments and processing instructions are skipped in a loop, never by
    /// recursion: 30 000 `<!---->` in a row must not grow the stack.
    mutating func next() throws(DeviceLogProblemAtLine) -> Token {
        while true {
            tokenLine = line
            guard i < bytes.count else { return .endOfFile }
            guard bytes[i] == UInt8(ascii: "<") else { return .text(try text()) }
            if starts(with: "<?") {
                try skip(past: "?>", inside: "a processing instruction")
            } else if starts(with: "<!--") {
                try skip(past: "-->", inside: "a comment")
            } else {
                return try markup()
            }
        }
    }

    /// A CDATA section, start tag or end tag at `i` (which holds '<').
    private mutating func markup() throws(DeviceLogProblemAtLine) -> Token {
        if starts(with: "<![CDATA[") {
            for _ in 0..<9 { advance() }
            let start = i
            while i < bytes.count, !starts(with: "]]>") {
                advance()
                if i - start > maxToken_bytes { throw fail(.xmlTokenTooLong(limit_bytes: maxToken_bytes)) }
            }
            guard i < bytes.count else { throw truncated("CDATA") }
            let content = UnsafeBufferPointer(rebasing: bytes[start..<i])
            for _ in 0..<3 { advance() }
            guard let s = String(validating: content, as: UTF8.self) else { throw fail(.invalidUTF8) }
            return .text(s)
        }
        if starts(with: "<!DOCTYPE") || starts(with: "<!doctype") {
            throw fail(.xmlDeclarationRefused("DOCTYPE declaration"))
        }
        if starts(with: "<!ENTITY") { throw fail(.xmlDeclarationRefused("entity declaration")) }
        if starts(with: "<!") { throw fail(.xml("unexpected markup '<!'")) }
        if starts(with: "</") {
            advance(); advance()
            let name = try self.name()
            skipSpace()
            guard i < bytes.count else { throw truncated("the end tag </\(DeviceLogLexical.shown(name))>") }
            guard bytes[i] == UInt8(ascii: ">") else { throw fail(.xml("expected '>' to close </\(DeviceLogLexical.shown(name))")) }
            advance()
            return .end(name: name)
        }
        advance()
        let name = try self.name()
        var attributes: [Attribute] = []
        while true {
            let hadSpace = skipSpace()
            guard i < bytes.count else { throw truncated("the start tag <\(DeviceLogLexical.shown(name))>") }
            if bytes[i] == UInt8(ascii: ">") {
                advance()
                return .start(name: name, attributes: attributes, selfClosing: false)
            }
            if starts(with: "/>") {
                advance(); advance()
                return .start(name: name, attributes: attributes, selfClosing: true)
            }
            guard hadSpace else { throw fail(.xml("expected a space, '>' or '/>' in <\(DeviceLogLexical.shown(name))>")) }
            let attributeName = try self.name()
            skipSpace()
            guard i < bytes.count else { throw truncated("the start tag <\(DeviceLogLexical.shown(name))>") }
            guard bytes[i] == UInt8(ascii: "=") else { throw fail(.xml("expected '=' after attribute \(DeviceLogLexical.shown(attributeName))")) }
            advance()
            skipSpace()
            guard i < bytes.count else { throw truncated("the start tag <\(DeviceLogLexical.shown(name))>") }
            let quote = bytes[i]
            guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
                throw fail(.xml("attribute \(DeviceLogLexical.shown(attributeName)) value must be quoted"))
            }
            advance()
            let value = try characters(until: quote, inside: "attribute \(DeviceLogLexical.shown(attributeName))")
            advance()
            guard !attributes.contains(where: { $0.name == attributeName }) else {
                throw fail(.xml("duplicate attribute \(DeviceLogLexical.shown(attributeName)) in <\(DeviceLogLexical.shown(name))>"))
            }
            attributes.append(Attribute(name: attributeName, value: value))
        }
    }

    @discardableResult
    private mutating func skipSpace() -> Bool {
        let start = i
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x09, 0x0A, 0x0D: advance()
            default: return i > start
            }
        }
        return i > start
    }

    private mutating func name() throws(DeviceLogProblemAtLine) -> String {
        let start = i
        nameLoop: while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ">"), UInt8(ascii: "/"), UInt8(ascii: "="),
                 UInt8(ascii: "<"), UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "&"):
                break nameLoop
            default:
                advance()
            }
            if i - start > maxToken_bytes { throw fail(.xmlTokenTooLong(limit_bytes: maxToken_bytes)) }
        }
        guard i > start else {
            if i >= bytes.count { throw truncated("a tag") }
            throw fail(.xml("expected a name"))
        }
        guard let s = String(validating: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self) else {
            throw fail(.invalidUTF8)
        }
        return s
    }

    private mutating func text() throws(DeviceLogProblemAtLine) -> String {
        try characters(until: UInt8(ascii: "<"), inside: nil)
    }

    /// Character data up to (not including) `terminator`, with references resolved.
    /// `inside` non-nil means the terminator is required (attribute value) and `<` is refused.
    private mutating func characters(until terminator: UInt8, inside: String?) throws(DeviceLogProblemAtLine) -> String {
        var out: [UInt8] = []
        while true {
            guard i < bytes.count else {
                if let inside { throw truncated(inside) }
                break
            }
            let b = bytes[i]
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
        while end < bytes.count, end - start < 16, bytes[end] != UInt8(ascii: ";") { end += 1 }
        guard end < bytes.count, bytes[end] == UInt8(ascii: ";") else {
            throw fail(.xml("'&' is not part of a reference"))
        }
        let body = String(decoding: UnsafeBufferPointer(rebasing: bytes[(start + 1)..<end]), as: UTF8.self)
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
