import FenceLab
import Foundation
import GeoPolicy
import Testing
import _TestSupport

@Suite struct ExternalEngineTests {
    static let fence = EngineFence(
        center: try! Coordinate(latitude: 0, longitude: 0),
        rule: [
            "kind": .string("hysteresis"), "enter_m": .number(80), "exit_m": .number(120), "maxAccuracy_m": .number(30),
        ],
        rulesVersion: "hysteresis-80-120-acc30")

    /// Fixes due north of (0, 0) at the given distances (sphere, R = 6 371 000 m).
    static func fixes(_ distances_m: [Double], accuracy_m: Double = 5) -> [Fix] {
        distances_m.enumerated().map { i, d in
            Fix(
                timestamp_s: Double(i), latitude: d / EarthModel.sphereRadius_m * EarthModel.degreesPerRadian,
                longitude: 0, horizontalAccuracy_m: accuracy_m)
        }
    }

    static var pythonEngine: String {
        "python3 '" + TestPaths.packageRoot.appendingPathComponent("Examples/engines/seed_rules.py").path + "'"
    }

    /// The `fence` message carries every confirmation, both keys for fixes and seconds together,
    /// and the built-in engine reads back the same rule.
    @Test(arguments: [
        "threshold:100", "threshold:100+confirm3", "threshold:100+confirm10s", "threshold:100+confirm3+confirm10s",
    ])
    func fenceMessageRoundTripsTheConfirmation(spec: String) throws {
        let rule = try RuleSpec.parse(spec)
        let fence = try EngineFence(center: try Coordinate(latitude: 1, longitude: 2), spec: rule)
        #expect(try fence.ruleSpec() == rule)
        #expect((fence.rule["confirm_n"] != nil) == spec.contains("confirm3"))
        #expect((fence.rule["confirm_s"] != nil) == spec.contains("confirm10s"))
    }

    @Test func pythonReferenceEngineFollowsTheSeedRules() throws {
        let fixes = Self.fixes([150, 79, 85, 110, 119.9, 121, 100, 70])
        let answers = try ExternalEngine(command: Self.pythonEngine)
            .run(fence: Self.fence, fixes: fixes, now_s: fixes.map(\.timestamp_s))
        #expect(answers.map(\.state) == [.outside, .inside, .inside, .inside, .inside, .outside, .outside, .inside])
        #expect(answers.map(\.index) == Array(0..<8))
    }

    @Test func nonFiniteValuesTravelAsStringsAndAreRejected() throws {
        var fixes = Self.fixes([10, 10])
        fixes[1].latitude = .nan
        let answers = try ExternalEngine(command: Self.pythonEngine)
            .run(fence: Self.fence, fixes: fixes, now_s: [0, 1])
        #expect(answers[1].rejected == "invalidCoordinate")
        #expect(answers[1].state == .inside)
    }

    @Test func largeBatchDoesNotDeadlock() throws {
        let fixes = Self.fixes((0..<20_000).map { Double($0 % 300) })
        let answers = try ExternalEngine(command: Self.pythonEngine)
            .run(fence: Self.fence, fixes: fixes, now_s: fixes.map(\.timestamp_s))
        #expect(answers.count == 20_000)
    }

    @Test func crashingEngineIsReportedWithStatusAndStderr() {
        let engine = ExternalEngine(command: "echo '{\"type\":\"ready\",\"protocol\":1}'; echo boom >&2; exit 3")
        #expect {
            _ = try engine.run(fence: Self.fence, fixes: Self.fixes([1, 2]), now_s: [0, 1])
        } throws: { error in
            guard case ExternalEngineError.exited(let status, let answered, let expected, let tail) = error else {
                return false
            }
            return status == 3 && answered == 0 && expected == 2 && tail.contains("boom")
        }
    }

    @Test func hangingEngineIsStoppedAtTheDeadline() {
        // Silent from the start: stopped when the ready line is overdue, grace 0.2 s + 0.1 s.
        let silent = ExternalEngine(command: "exec sleep 60", perFixTimeout_s: 0.1, startupGrace_s: 0.2)
        let start = Date()
        #expect {
            _ = try silent.run(fence: Self.fence, fixes: Self.fixes([1]), now_s: [0])
        } throws: { error in
            guard case ExternalEngineError.readyTimeout(let seconds, _) = error else { return false }
            return abs(seconds - 0.3) < 1e-9
        }
        let elapsed_s = Date().timeIntervalSince(start)
        #expect(elapsed_s >= 0.3 - 0.01, "stopped before its deadline (grace 0.2 s + 0.1 s): \(elapsed_s) s")
        #expect(elapsed_s < 15)
        // Ready, then silent: stopped 0.1 s after the ready line, naming fix 0.
        let stalled = ExternalEngine(
            command: "echo '{\"type\":\"ready\",\"protocol\":1}'; exec sleep 60", perFixTimeout_s: 0.1,
            startupGrace_s: 0.2)
        #expect {
            _ = try stalled.run(fence: Self.fence, fixes: Self.fixes([1]), now_s: [0])
        } throws: { error in
            guard case ExternalEngineError.timeout(_, let index, _) = error else { return false }
            return index == 0
        }
    }

    @Test func garbageAndWrongIndexAreNamed() {
        let garbage = ExternalEngine(command: "cat >/dev/null; echo '{\"type\":\"ready\",\"protocol\":1}'; echo hello")
        #expect {
            _ = try garbage.run(fence: Self.fence, fixes: Self.fixes([1]), now_s: [0])
        } throws: { error in
            guard case ExternalEngineError.garbage(let line, let text, _) = error else { return false }
            return line == 2 && text == "hello"
        }
        let wrong = ExternalEngine(
            command:
                "cat >/dev/null; echo '{\"type\":\"ready\",\"protocol\":1}'; echo '{\"index\":1,\"state\":\"inside\"}'")
        #expect(throws: ExternalEngineError.wrongIndex(line: 2, expected: 0, got: 1)) {
            _ = try wrong.run(fence: Self.fence, fixes: Self.fixes([1]), now_s: [0])
        }
        let version = ExternalEngine(command: "cat >/dev/null; echo '{\"type\":\"ready\",\"protocol\":2}'")
        #expect(throws: ExternalEngineError.self) {
            _ = try version.run(fence: Self.fence, fixes: Self.fixes([1]), now_s: [0])
        }
    }

    /// A decoded string the engine sent (a JSON "\n" inside an unknown state) is echoed escaped:
    /// the error stays one line (found by the engine_answers fuzz target in a 10-minute run).
    @Test func unknownStateWithAnEscapedLineBreakIsEchoedOnOneLine() {
        let engine = ExternalEngine(
            command:
                "cat >/dev/null; printf '%s\\n' '{\"type\":\"ready\",\"protocol\":1}' '{\"index\":0,\"state\":\"i\\nside\\u001b[2J\"}'"
        )
        #expect {
            _ = try engine.run(fence: Self.fence, fixes: Self.fixes([1]), now_s: [0])
        } throws: { error in
            guard let e = error as? ExternalEngineError, case .garbage(line: 2, _, _) = e else { return false }
            let text = e.description
            return !text.contains("\n") && !text.contains("\u{1B}")
                && text.contains("unknown state 'i\\nside\\u{1B}[2J'")
        }
    }

    @Test func flatJSONIsStrict() throws {
        let o = try FlatJSON.parseObject(#"{"index": 3, "state":"inside", "x":"NaN", "e":"a\"b\u00e9"}"#)
        #expect(o["index"] == .number(3))
        #expect(o["x"]?.double?.isNaN == true)
        #expect(o["e"] == .string("a\"bé"))
        for bad in [
            "", "{", "{\"a\":1,}", "{\"a\":[1]}", "{\"a\":1} x", "{\"a\":1,\"a\":2}", "{\"a\":NaN}", "{\"a\":1e999}",
        ] {
            #expect(throws: FlatJSONError.self, "\(bad)") { _ = try FlatJSON.parseObject(bad) }
        }
    }
}
