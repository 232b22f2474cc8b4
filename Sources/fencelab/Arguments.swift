/// A tiny hand-written argument scanner (swift-argument-parser cannot be fetched here).
///
/// Commands take what they know (`flag`, `option`, `options`), then call
/// `positionals()` which refuses any option left over.
struct Arguments {
    private var items: [String]
    let command: String

    init(_ items: [String], command: String) {
        self.items = items
        self.command = command
    }

    /// Removes `--name` and returns whether it was there.
    mutating func flag(_ name: String) -> Bool {
        guard let i = items.firstIndex(of: name) else { return false }
        items.remove(at: i)
        return true
    }

    /// Removes `--name VALUE` (or `--name=VALUE`) and returns VALUE; the last one wins.
    mutating func option(_ name: String) throws -> String? {
        try options(name).last
    }

    /// Removes every `--name VALUE` (or `--name=VALUE`) and returns the values in order.
    /// `--name A B C` collects values up to the next option.
    mutating func options(_ name: String, greedy: Bool = false) throws -> [String] {
        var values: [String] = []
        var i = 0
        while i < items.count {
            if items[i] == name {
                guard i + 1 < items.count, !isOption(items[i + 1]) else {
                    throw CLIError.usage("\(command): \(name) needs a value")
                }
                values.append(items[i + 1])
                items.removeSubrange(i...(i + 1))
                while greedy, i < items.count, !isOption(items[i]) {
                    values.append(items.remove(at: i))
                }
            } else if items[i].hasPrefix(name + "=") {
                values.append(String(items[i].dropFirst(name.count + 1)))
                items.remove(at: i)
            } else {
                i += 1
            }
        }
        return values
    }

    /// Parses an integer option within `range`; a malformed or out-of-range value is a usage error.
    mutating func intOption(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = try option(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw CLIError.usage("\(command): \(name) must be an integer in \(range.lowerBound)...\(range.upperBound), got '\(text)'")
        }
        return value
    }

    /// What remains; any leftover `--option` is a usage error naming it.
    mutating func positionals() throws -> [String] {
        if let unknown = items.first(where: isOption) {
            throw CLIError.usage("\(command): unknown option '\(unknown)'; see `fencelab \(command) --help`")
        }
        defer { items.removeAll() }
        return items
    }

    private func isOption(_ s: String) -> Bool {
        // "-12.5" (a western longitude) and "-16.8,180" (a southern fence centre) are values, not options.
        guard s.hasPrefix("-"), s.count > 1 else { return false }
        let second = s[s.index(after: s.startIndex)]
        return !(second.isNumber || second == ".")
    }
}

/// Parses a finite Double argument; the error names the argument.
func parseDouble(_ text: String, name: String) throws -> Double {
    guard let v = Double(text) else {
        throw CLIError.badInput("\(name): not a number: '\(text)'")
    }
    guard v.isFinite else { throw CLIError.badInput("\(name): must be finite, got \(text)") }
    return v
}
