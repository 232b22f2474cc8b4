import Foundation
import _FenceLabSupport

/// One command-line option, declared once. Parsing (`ParsedOptions`), the OPTIONS section of
/// `--help` (`OptionDeclaration.helpSection`), the usage synopsis and "did you mean"
/// suggestions are all derived from the declarations, so they cannot drift apart (the idea of
/// swift-argument-parser, written here because the package takes no dependencies).
package struct OptionDeclaration: Sendable {
    /// What follows the option name, and how its text is validated.
    package enum Value: Sendable, Equatable {
        /// No value: present or absent.
        case flag
        /// Free text (a path, a command, a spec parsed later); the placeholder shown in help.
        case text(String)
        /// A whole number within a range; a malformed or out-of-range value is a usage error.
        case integer(String, ClosedRange<Int>)
        /// A finite real number with a bound; a violation is a bad value (the number was well-formed).
        case number(String, NumberBound)
        /// One word of a fixed list; anything else is a usage error.
        case choice([String])
    }

    /// The bound a `.number` value must satisfy.
    package enum NumberBound: Sendable, Equatable {
        case any, positive, nonNegative
        case within(ClosedRange<Double>)

        var requirement: String? {
            switch self {
            case .any: return nil
            case .positive: return "> 0"
            case .nonNegative: return ">= 0"
            case .within(let r):
                return
                    "within \(OptionDeclaration.defaultText(r.lowerBound))...\(OptionDeclaration.defaultText(r.upperBound))"
            }
        }

        func admits(_ v: Double) -> Bool {
            switch self {
            case .any: return true
            case .positive: return v > 0
            case .nonNegative: return v >= 0
            case .within(let r): return r.contains(v)
            }
        }
    }

    /// How often the option may be given.
    package enum Repetition: Sendable, Equatable {
        /// The last occurrence wins.
        case last
        /// Every occurrence is kept, in order.
        case each
        /// Every occurrence is kept, and `--name A B C` takes values up to the next option.
        case greedy
    }

    /// `--name`, with the dashes.
    package let name: String
    package let value: Value
    package let repetition: Repetition
    /// The value used when the option is absent, shown in help as "(default X)"; nil when the
    /// default is not a value (described in `help` instead).
    package let defaultValue: String?
    /// Help text; `\n` starts a new help line. When `defaultValue` is set, "(default X)." is appended.
    package let help: String
    /// Another option that must be given with this one (e.g. `--engine-timeout` needs `--engine`).
    package let requires: String?
    /// Shown without brackets in the synopsis and refused when absent ("--fence LAT,LON is required").
    package let isRequired: Bool
    /// Accepted but left out of help and synopsis (an option one process passes to another).
    package let isHidden: Bool

    package init(
        _ name: String, _ value: Value, repetition: Repetition = .last, default defaultValue: String? = nil,
        requires: String? = nil, required isRequired: Bool = false, hidden isHidden: Bool = false, help: String
    ) {
        precondition(name.hasPrefix("--") && !name.contains("="), "option names are --word: \(name)")
        precondition(
            value != .flag || (defaultValue == nil && repetition == .last),
            "\(name): a flag has no default and is not repeated")
        self.name = name
        self.value = value
        self.repetition = repetition
        self.defaultValue = defaultValue
        self.help = help
        self.requires = requires
        self.isRequired = isRequired
        self.isHidden = isHidden
    }

    /// The placeholder after the name in help: `DIR`, `N`, `a|b|c`; empty for a flag.
    package var placeholder: String {
        switch value {
        case .flag: return ""
        case .text(let p), .integer(let p, _), .number(let p, _): return repetition == .greedy ? p + "..." : p
        case .choice(let words): return words.joined(separator: "|")
        }
    }

    /// `--name PLACEHOLDER` (or `--name` for a flag).
    package var signature: String { placeholder.isEmpty ? name : "\(name) \(placeholder)" }

    /// The help lines, the default appended.
    var helpLines: [String] {
        var lines = help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if let defaultValue, let last = lines.popLast() { lines.append(last + " (default \(defaultValue)).") }
        return lines
    }
}

extension OptionDeclaration {
    /// The OPTIONS section: `  --name PLACEHOLDER   help`, help aligned in one column.
    package static func helpSection(_ all: [OptionDeclaration]) -> String {
        let options = all.filter { !$0.isHidden }
        let column = min(max(options.map(\.signature.count).max() ?? 0, 8) + 2, 26)
        var lines: [String] = []
        for o in options {
            let sig = o.signature
            var help = o.helpLines
            if sig.count + 2 > column, !help.isEmpty {
                lines.append("  " + sig)
            } else {
                let first = help.isEmpty ? "" : help.removeFirst()
                lines.append("  " + sig.padding(toLength: column, withPad: " ", startingAt: 0) + first)
            }
            for h in help { lines.append("  " + String(repeating: " ", count: column) + h) }
        }
        return lines.joined(separator: "\n")
    }

    /// `USAGE: TOOL ARGS [--a X] --b Y [--c]`, wrapped under the first word after `USAGE: ` at ~96 columns.
    package static func synopsis(tool: String, arguments: String, options: [OptionDeclaration]) -> String {
        let head = "USAGE: \(tool)"
        let indent = String(repeating: " ", count: head.count + 1)
        var lines: [String] = []
        var line = head
        let shown = options.filter { !$0.isHidden }
        let words =
            (arguments.isEmpty ? [] : [arguments]) + shown.map { $0.isRequired ? $0.signature : "[\($0.signature)]" }
        for w in words {
            if line.count + 1 + w.count > 96, line != head {
                lines.append(line)
                line = indent + w
            } else {
                line += " " + w
            }
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }

    /// The declared name closest to `typed` (at most two edits, or a prefix), for "did you mean".
    package static func suggestion(for typed: String, among options: [OptionDeclaration]) -> String? {
        let names = options.filter { !$0.isHidden }.map(\.name)
        if let prefixed = names.first(where: { typed.count >= 4 && $0.hasPrefix(typed) }) { return prefixed }
        return names.first { Spelling.isNearMiss($0, typed) }
    }
}

extension OptionDeclaration {
    /// A default shown and parsed as text: whole numbers without ".0" (`5`, `2.5`).
    package static func defaultText(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : "\(value)"
    }
}
