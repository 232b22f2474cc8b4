import Foundation
import GeoPolicy

/// The protocol version FenceLab speaks (docs/engine-protocol.md).
package enum EngineProtocol {
    package static let version = 1
}

/// The fence an external engine is told about in the `fence` message.
package struct EngineFence: Sendable, Hashable {
    package var center: Coordinate
    /// The `rule` object, e.g. `["kind": .string("hysteresis"), "enter_m": .number(80), ...]`.
    package var rule: [String: EngineValue]
    package var rulesVersion: String

    package init(center: Coordinate, rule: [String: EngineValue], rulesVersion: String) {
        self.center = center
        self.rule = rule
        self.rulesVersion = rulesVersion
    }
}

/// One answer of an external engine to one fix.
package struct EngineAnswer: Sendable, Hashable {
    package var index: Int
    package var state: FenceState
    /// Why the engine did not count the fix, as the engine named it (nil when it counted).
    package var rejected: String?
}

/// What went wrong with an external engine, with the place it went wrong.
package enum ExternalEngineError: Error, Sendable, Hashable, CustomStringConvertible {
    case startFailed(command: String, reason: String)
    case exited(status: Int32, answered: Int, expected: Int, stderrTail: String)
    case timeout(seconds: Double, firstUnanswered: Int, stderrTail: String)
    /// Every fix was answered, but the engine's stdout stayed open (`outputOpen`: a process it
    /// started still holds it) or the engine did not exit within `seconds` of its last answer.
    case lingered(seconds: Double, answered: Int, outputOpen: Bool, stderrTail: String)
    /// The engine exited (with `status`) after answering `answered` of `expected` fixes, but its
    /// stdout stayed open for `seconds` more without another answer: a process it started holds it.
    case outputHeldOpen(status: Int32, answered: Int, expected: Int, seconds: Double, stderrTail: String)
    case garbage(line: Int, text: String, reason: String)
    case wrongIndex(line: Int, expected: Int, got: Int)
    case protocolMismatch(expected: Int, got: String)
    case noReady(status: Int32?, stderrTail: String)
    case readyTimeout(seconds: Double, stderrTail: String)

    package var description: String {
        func tail(_ s: String) -> String { s.isEmpty ? "" : "; engine stderr: \(s)" }
        func last(_ answered: Int) -> String { answered > 0 ? " (the last was fix \(answered - 1))" : "" }
        switch self {
        case .startFailed(let command, let reason):
            return "engine '\(ShownText.escapingControls(command))' could not start: \(reason)"
        case .exited(let status, let answered, let expected, let stderr):
            return "engine exited with status \(status) after answering \(answered) of \(expected) fixes\(tail(stderr))"
        case .timeout(let seconds, let index, let stderr):
            return "engine gave no answer for fix \(index) within \(seconds) s; it was stopped\(tail(stderr))"
        case .lingered(let seconds, let answered, true, let stderr):
            return
                "engine answered all \(answered) fixes\(last(answered)), but its standard output stayed open \(seconds) s after the last answer (a process it started still holds it?); it was stopped\(tail(stderr))"
        case .outputHeldOpen(let status, let answered, let expected, let seconds, let stderr):
            return
                "engine exited with status \(status) after answering \(answered) of \(expected) fixes\(last(answered)), but its standard output stayed open \(seconds) s after without another answer (a process it started still holds it); it was stopped\(tail(stderr))"
        case .lingered(let seconds, let answered, false, let stderr):
            return
                "engine answered all \(answered) fixes, but did not exit within \(seconds) s of its last answer; it was stopped\(tail(stderr))"
        case .garbage(let line, let text, let reason):
            return "engine output line \(line) is not a valid answer (\(reason)): \(text)"
        case .wrongIndex(let line, let expected, let got):
            return "engine output line \(line) answers fix \(got), expected fix \(expected)"
        case .protocolMismatch(let expected, let got):
            return "engine speaks protocol \(got), FenceLab speaks protocol \(expected)"
        case .noReady(let status?, let stderr):
            return "engine exited with status \(status) without sending the ready line\(tail(stderr))"
        case .noReady(nil, let stderr):
            return "engine closed its output without the ready line; it was stopped\(tail(stderr))"
        case .readyTimeout(let seconds, let stderr):
            return "engine sent no ready line within \(seconds) s; it was stopped\(tail(stderr))"
        }
    }
}

/// Runs an external engine process over the JSON Lines protocol for one work item.
package struct ExternalEngine: Sendable {
    /// Default `startupGrace_s`: time for `/bin/sh` and an interpreter such as Python to start
    /// and print `ready` on a loaded machine, seconds.
    package static let defaultStartupGrace_s = 5.0

    package var command: String
    /// Seconds allowed for each answer after the line before it, and for the engine to exit
    /// after its last answer (> 0): the timeout is per answer, whatever the number of fixes.
    package var perFixTimeout_s: Double
    /// Extra seconds, once per work item, for the engine to start (≥ 0): the ready line must
    /// arrive within `startupGrace_s + perFixTimeout_s` of the start.
    package var startupGrace_s: Double

    package init(
        command: String, perFixTimeout_s: Double = 5,
        startupGrace_s: Double = ExternalEngine.defaultStartupGrace_s
    ) {
        self.command = command
        self.perFixTimeout_s = perFixTimeout_s
        self.startupGrace_s = startupGrace_s
    }

    /// Sends the fence and every fix (with its injected `now`), returns one answer per fix.
    package func run(fence: EngineFence, fixes: [Fix], now_s: [Double]) throws(ExternalEngineError) -> [EngineAnswer] {
        precondition(fixes.count == now_s.count, "one now per fix")
        // Encoded in chunks on the writer thread: the engine starts on the first lines while
        // the rest are still being encoded (the two overlap on a multi-core machine).
        let chunk = 4096
        return try EngineProcess.exchange(
            command: command, expected: fixes.count, timeout_s: perFixTimeout_s,
            readyTimeout_s: startupGrace_s + perFixTimeout_s
        ) { fd in
            var start = 0
            repeat {
                let end = min(start + chunk, fixes.count)
                let bytes = EngineRequests.encode(fence: fence, fixes: fixes, now_s: now_s, range: start..<end)
                guard EngineProcess.writeAll(fd: fd, bytes) else { return }
                start = end
            } while start < fixes.count
        }
    }
}

/// A byte buffer that numbers print into (`TextOutputStream`), for the request encoder.
struct ByteSink: TextOutputStream {
    var bytes: [UInt8] = []

    mutating func write(_ string: String) {
        var s = string
        s.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// Appends a literal without building a String.
    mutating func append(_ literal: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// A number as `FlatJSON.number` spells it (shortest round-trip text; non-finite as strings).
    mutating func number(_ v: Double) {
        if v.isFinite { v.write(to: &self) } else { write(FlatJSON.number(v)) }
    }
}

/// Encoding of the requests.
enum EngineRequests {
    static func encode(fence: EngineFence, fixes: [Fix], now_s: [Double]) -> [UInt8] {
        encode(fence: fence, fixes: fixes, now_s: now_s, range: 0..<fixes.count)
    }

    /// The lines of fixes `range`, preceded by the fence line when the range starts at 0.
    static func encode(fence: EngineFence, fixes: [Fix], now_s: [Double], range: Range<Int>) -> [UInt8] {
        var out = ""
        if range.lowerBound == 0 {
            let rule = fence.rule.keys.sorted().map { key -> String in
                let value: String
                switch fence.rule[key]! {
                case .string(let s): value = "\"\(FlatJSON.escape(s))\""
                case .number(let v): value = FlatJSON.number(v)
                case .bool(let b): value = b ? "true" : "false"
                case .null: value = "null"
                }
                return "\"\(FlatJSON.escape(key))\":\(value)"
            }.joined(separator: ",")
            out +=
                "{\"type\":\"fence\",\"protocol\":\(EngineProtocol.version),\"center\":[\(fence.center.latitude),\(fence.center.longitude)],"
            out += "\"rule\":{\(rule)},\"rulesVersion\":\"\(FlatJSON.escape(fence.rulesVersion))\"}\n"
        }
        // The fix lines (~10⁵ per run) go straight into bytes: no String building per line.
        var bytes = ByteSink()
        bytes.bytes.reserveCapacity(out.utf8.count + 170 * range.count)
        bytes.bytes.append(contentsOf: out.utf8)
        for i in range {
            let f = fixes[i]
            bytes.append("{\"type\":\"fix\",\"index\":")
            bytes.write(String(i))  // ≤ 15 digits: a small string, no allocation
            bytes.append(",\"timestamp\":")
            bytes.number(f.timestamp_s)
            bytes.append(",\"latitude\":")
            bytes.number(f.latitude)
            bytes.append(",\"longitude\":")
            bytes.number(f.longitude)
            bytes.append(",\"horizontal_accuracy\":")
            bytes.number(f.horizontalAccuracy_m)
            bytes.append(",\"now\":")
            bytes.number(now_s[i])
            bytes.append("}\n")
        }
        return bytes.bytes
    }

    /// Parses the answer on output line `line` (1-based; line 1 is `ready`).
    static func decodeAnswer(
        _ text: Substring, line: Int, expectedIndex: Int
    ) throws(ExternalEngineError) -> EngineAnswer {
        let object: [String: EngineValue]
        do { object = try FlatJSON.parseObject(text.utf8) } catch {
            throw .garbage(line: line, text: shorten(text), reason: error.description)
        }
        // Int(exactly:) refuses NaN, ±∞, fractions and magnitudes beyond Int: no trap on 1e300.
        guard let indexValue = object["index"]?.double, let index = Int(exactly: indexValue), index >= 0 else {
            throw .garbage(line: line, text: shorten(text), reason: "missing or non-integer \"index\"")
        }
        guard let stateText = object["state"]?.string else {
            throw .garbage(line: line, text: shorten(text), reason: "missing \"state\"")
        }
        guard let state = FenceState(rawValue: stateText) else {
            throw .garbage(line: line, text: shorten(text), reason: "unknown state '\(ShownText.shown(stateText))'")
        }
        guard index == expectedIndex else { throw .wrongIndex(line: line, expected: expectedIndex, got: index) }
        var rejected: String? = nil
        if let r = object["rejected"] {
            switch r {
            case .string(let s): rejected = s
            case .null: rejected = nil
            default: throw .garbage(line: line, text: shorten(text), reason: "\"rejected\" must be a string")
            }
        }
        return EngineAnswer(index: index, state: state, rejected: rejected)
    }

    static func decodeReady(_ text: Substring) throws(ExternalEngineError) {
        let object: [String: EngineValue]
        do { object = try FlatJSON.parseObject(text.utf8) } catch {
            throw .garbage(line: 1, text: shorten(text), reason: "expected the ready message: \(error.description)")
        }
        guard object["type"]?.string == "ready" else {
            throw .garbage(line: 1, text: shorten(text), reason: "expected {\"type\":\"ready\",...}")
        }
        guard let v = object["protocol"]?.double, Int(exactly: v) == EngineProtocol.version else {
            throw .protocolMismatch(expected: EngineProtocol.version, got: object["protocol"].map { "\($0)" } ?? "none")
        }
    }

    static func shorten(_ s: Substring) -> String {
        s.count <= 120 ? String(s) : String(s.prefix(117)) + "..."
    }
}
