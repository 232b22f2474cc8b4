import _FenceLabSupport

/// A refused command line, as the tools report it.
package enum OptionError: Error, Equatable, CustomStringConvertible {
    /// Wrong usage: unknown option, missing value, missing companion option, malformed integer or
    /// unknown choice. The tools exit 64.
    case usage(String)
    /// A well-formed value out of its bound (a negative timeout, a non-finite number). The tools exit 2.
    case badValue(String)

    package var description: String {
        switch self {
        case .usage(let m), .badValue(let m): return m
        }
    }
}

/// A command line parsed against a command's `OptionDeclaration`s, all at once: an option that
/// is not declared, a value that is missing or malformed, a companion option that is absent are
/// refused here, before the command reads anything. Reading an undeclared name is a programming
/// error (it traps), so a command cannot accept an option its help does not list.
package struct ParsedOptions: Sendable {
    package let declarations: [OptionDeclaration]
    /// Arguments that are not options or option values, in order.
    package let positionals: [String]
    private let given: [String: [String]]
    private let context: String
    /// The names a command has read, so `unread` can name an option it accepted and ignored.
    private let reads = Locked<Set<String>>([])

    /// - Parameters:
    ///   - context: prefixed to messages (`"run"` gives `run: --jobs must be ...`); empty for none.
    ///   - helpHint: what the unknown-option message sends the user to, e.g. "`fencelab run --help`".
    ///   - refused: options that are deliberately not supported, with the reason given instead of "unknown".
    package init(
        _ argv: [String], declarations: [OptionDeclaration], context: String, helpHint: String,
        refused: [String: String] = [:]
    ) throws(OptionError) {
        self.declarations = declarations
        self.context = context
        let prefix = context.isEmpty ? "" : context + ": "
        var given: [String: [String]] = [:]
        var positionals: [String] = []
        var i = 0
        while i < argv.count {
            let token = argv[i]
            i += 1
            guard Self.isOption(token) else {
                positionals.append(token)
                continue
            }
            let (name, inline) = Self.split(token)
            guard let d = declarations.first(where: { $0.name == name }) else {
                if let reason = refused[name] { throw .usage("\(prefix)\(name) is not supported; \(reason)") }
                let hint =
                    OptionDeclaration.suggestion(for: name, among: declarations).map { " (did you mean \($0)?)" } ?? ""
                throw .usage("\(prefix)unknown option '\(token)'\(hint); see \(helpHint)")
            }
            if d.value == .flag {
                guard inline == nil else { throw .usage("\(prefix)\(name) takes no value, got '\(token)'") }
                given[name, default: []].append("")
                continue
            }
            if let inline {
                given[name, default: []].append(inline)
                continue
            }
            guard i < argv.count, !Self.isOption(argv[i]) else { throw .usage("\(prefix)\(name) needs a value") }
            given[name, default: []].append(argv[i])
            i += 1
            while d.repetition == .greedy, i < argv.count, !Self.isOption(argv[i]) {
                given[name, default: []].append(argv[i])
                i += 1
            }
        }
        for d in declarations {
            if let other = d.requires, given[d.name] != nil, given[other] == nil {
                let companion = declarations.first { $0.name == other }?.signature ?? other
                throw .usage("\(prefix)\(d.name) needs \(companion)")
            }
            if d.isRequired, given[d.name] == nil { throw .usage("\(prefix)\(d.signature) is required") }
        }
        self.given = given
        self.positionals = positionals
        for d in declarations {
            for text in given[d.name] ?? [] { try validate(text, d) }
        }
    }

    private func declaration(_ name: String) -> OptionDeclaration {
        guard let d = declarations.first(where: { $0.name == name }) else {
            preconditionFailure("\(context): \(name) is read but not declared")
        }
        reads.withLock { _ = $0.insert(name) }
        return d
    }

    /// Options given on the command line that the command has not read (in declaration order):
    /// after a successful run this must be empty, else an option is accepted and ignored.
    package var unread: [String] {
        let read = reads.withLock { $0 }
        return declarations.map(\.name).filter { given[$0] != nil && !read.contains($0) }
    }

    /// Whether the option was given (a flag: present).
    package func isGiven(_ name: String) -> Bool { given[declaration(name).name] != nil }

    /// Whether `--name` (a declared flag) is present.
    package func flag(_ name: String) -> Bool { isGiven(name) }

    /// The value of the last `--name VALUE` or `--name=VALUE`, else the declared default, else nil.
    package func option(_ name: String) -> String? {
        let d = declaration(name)
        return given[name]?.last ?? d.defaultValue
    }

    /// Every value given, in order (for repeated and greedy options).
    package func options(_ name: String) -> [String] {
        _ = declaration(name)
        return given[name] ?? []
    }

    /// An `.integer` option's value (validated against its declared range at parse time).
    package func integer(_ name: String) -> Int? { option(name).flatMap { Int($0) } }

    /// A `.number` option's value (finite and within its bound, validated at parse time).
    package func number(_ name: String) -> Double? { option(name).flatMap { Double($0) } }

    private func validate(_ text: String, _ d: OptionDeclaration) throws(OptionError) {
        let prefix = context.isEmpty ? "" : context + ": "
        switch d.value {
        case .flag, .text:
            return
        case .integer(_, let range):
            guard let v = Int(text), range.contains(v) else {
                throw .usage(
                    "\(prefix)\(d.name) must be an integer in \(range.lowerBound)...\(range.upperBound), got '\(text)'")
            }
        case .number(_, let bound):
            guard let v = Double(text) else { throw .badValue("\(d.name): not a number: '\(text)'") }
            guard v.isFinite else { throw .badValue("\(d.name): must be finite, got \(text)") }
            if let requirement = bound.requirement, !bound.admits(v) {
                throw .badValue("\(d.name): must be \(requirement), got \(text)")
            }
        case .choice(let words):
            guard words.contains(text) else {
                throw .usage("\(prefix)\(d.name) must be \(Self.alternatives(words)), got '\(text)'")
            }
        }
    }

    /// "a, b or c".
    static func alternatives(_ words: [String]) -> String {
        words.count <= 1 ? words.joined() : words.dropLast().joined(separator: ", ") + " or " + words[words.count - 1]
    }

    /// `--name=value` → ("--name", "value"); `--name` → ("--name", nil).
    static func split(_ token: String) -> (String, String?) {
        guard token.hasPrefix("--"), let eq = token.firstIndex(of: "=") else { return (token, nil) }
        return (String(token[..<eq]), String(token[token.index(after: eq)...]))
    }

    /// "-12.5" (a western longitude) and "-16.8,180" (a southern fence centre) are values, not options.
    package static func isOption(_ s: String) -> Bool {
        guard s.hasPrefix("-"), s.count > 1 else { return false }
        let second = s[s.index(after: s.startIndex)]
        return !(second.isNumber || second == ".")
    }
}
