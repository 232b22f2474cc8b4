import GeoPolicy
import Testing

/// Distances and accuracies that every rule must handle: a grid plus the special values.
private let distanceGrid_m: [Double] =
    stride(from: -5.0, through: 600, by: 0.25).map { $0 }
    + [0, -0.0, 80, 120, 100, 500, .nan, .infinity, -.infinity, .ulpOfOne, .greatestFiniteMagnitude]
private let accuracyGrid_m: [Double] = [0, 1, 10, 29.999, 30, 30.01, 100, 1000, -1, .nan, .infinity, -.infinity]

@Suite struct HysteresisTests {
    let rule = Hysteresis.seedDefault

    @Test func seed000Sequence() {
        var state = FenceState.outside
        let inputs_m = [79.0, 85, 110, 119.9, 120, 100, 80]
        let expected: [FenceState] = [.inside, .inside, .inside, .inside, .outside, .outside, .inside]
        for (d, e) in zip(inputs_m, expected) {
            state = rule.next(previous: state, distance_m: d, accuracy_m: 10)
            #expect(state == e, "distance \(d) m")
        }
    }

    @Test(arguments: [-1.0, 30.01, .nan, .infinity, -.infinity])
    func seed000RejectedAccuracies(accuracy_m: Double) {
        for previous in FenceState.allCases {
            #expect(rule.next(previous: previous, distance_m: 20, accuracy_m: accuracy_m) == previous)
        }
    }

    @Test func seed000UnknownStaysUnknownInBandAndBoundaryAccuracyCounts() {
        #expect(rule.next(previous: .unknown, distance_m: 100, accuracy_m: 10) == .unknown)
        #expect(rule.next(previous: .outside, distance_m: 80, accuracy_m: 30) == .inside)
        #expect(rule.next(previous: .inside, distance_m: 120, accuracy_m: 0) == .outside)
    }

    @Test(arguments: [-1.0, -0.001, .nan, .infinity, -.infinity])
    func invalidDistancesChangeNothing(distance_m: Double) {
        for previous in FenceState.allCases {
            #expect(rule.next(previous: previous, distance_m: distance_m, accuracy_m: 10) == previous)
        }
    }

    /// Property over the grid: the result is either the previous state (band or invalid fix)
    /// or the state the thresholds dictate, and never `unknown` out of a known state.
    @Test func gridProperty() {
        for d in distanceGrid_m {
            for a in accuracyGrid_m {
                for p in FenceState.allCases {
                    let n = rule.next(previous: p, distance_m: d, accuracy_m: a)
                    let counts = d.isFinite && d >= 0 && a.isFinite && a >= 0 && a <= 30
                    if !counts {
                        #expect(n == p)
                        continue
                    }
                    if d <= 80 {
                        #expect(n == .inside)
                    } else if d >= 120 {
                        #expect(n == .outside)
                    } else {
                        #expect(n == p)
                    }
                }
            }
        }
    }

    @Test func rulesVersionFromParameters() throws {
        #expect(rule.rulesVersion == "hysteresis-80-120-acc30")
        #expect(
            try Hysteresis(enter_m: 75.5, exit_m: 130, maxAccuracy_m: 25).rulesVersion == "hysteresis-75.5-130-acc25")
    }

    @Test func invalidParametersThrowTheReason() {
        #expect(throws: FenceRuleError.exitNotAboveEnter(enter_m: 120, exit_m: 80)) {
            try Hysteresis(enter_m: 120, exit_m: 80, maxAccuracy_m: 30)
        }
        #expect(throws: FenceRuleError.exitNotAboveEnter(enter_m: 80, exit_m: 80)) {
            try Hysteresis(enter_m: 80, exit_m: 80, maxAccuracy_m: 30)
        }
        #expect(throws: FenceRuleError.negative(parameter: "enter_m", value: -1)) {
            try Hysteresis(enter_m: -1, exit_m: 80, maxAccuracy_m: 30)
        }
        #expect(throws: FenceRuleError.notFinite(parameter: "exit_m", value: .infinity)) {
            try Hysteresis(enter_m: 80, exit_m: .infinity, maxAccuracy_m: 30)
        }
        #expect(throws: FenceRuleError.self) { try Hysteresis(enter_m: 80, exit_m: 120, maxAccuracy_m: .nan) }
    }
}

@Suite struct ThresholdTests {
    @Test func seed001IsInside() {
        #expect(Threshold.isInside(distance_m: 499.9, radius_m: 500))
        #expect(Threshold.isInside(distance_m: 500, radius_m: 500))
        #expect(!Threshold.isInside(distance_m: 500.1, radius_m: 500))
        #expect(!Threshold.isInside(distance_m: .nan, radius_m: 500))
        #expect(!Threshold.isInside(distance_m: 0, radius_m: -1))
        #expect(!Threshold.isInside(distance_m: -1, radius_m: 500))
        #expect(!Threshold.isInside(distance_m: .infinity, radius_m: 500))
        #expect(!Threshold.isInside(distance_m: 0, radius_m: .infinity))
    }

    @Test func ruleAgreesWithIsInsideForValidFixes() throws {
        let rule = try Threshold(radius_m: 500)
        for d in distanceGrid_m {
            for p in FenceState.allCases {
                let n = rule.next(previous: p, distance_m: d, accuracy_m: 1000)
                if d.isFinite, d >= 0 {
                    #expect(n == (Threshold.isInside(distance_m: d, radius_m: 500) ? .inside : .outside))
                } else {
                    #expect(n == p, "invalid distance \(d) must change nothing")
                }
            }
        }
    }

    @Test(arguments: [-1.0, .nan, .infinity])
    func invalidAccuracyChangesNothing(accuracy_m: Double) throws {
        let rule = try Threshold(radius_m: 500)
        #expect(rule.next(previous: .outside, distance_m: 10, accuracy_m: accuracy_m) == .outside)
    }

    @Test func versionAndErrors() throws {
        #expect(try Threshold(radius_m: 500).rulesVersion == "threshold-500")
        #expect(try Threshold(radius_m: 0).rulesVersion == "threshold-0")
        #expect(throws: FenceRuleError.negative(parameter: "radius_m", value: -1)) { try Threshold(radius_m: -1) }
        #expect(throws: FenceRuleError.self) { try Threshold(radius_m: .nan) }
    }
}

@Suite struct ConservativeTests {
    @Test func seed001Classification() {
        let r_m = 100.0
        #expect(Conservative.classify(distance_m: 70, accuracy_m: 30, radius_m: r_m) == .inside)  // d + a == r
        #expect(Conservative.classify(distance_m: 70.5, accuracy_m: 30, radius_m: r_m) == .unknown)
        #expect(Conservative.classify(distance_m: 130, accuracy_m: 30, radius_m: r_m) == .unknown)  // d − a == r
        #expect(Conservative.classify(distance_m: 130.5, accuracy_m: 30, radius_m: r_m) == .outside)
        #expect(Conservative.classify(distance_m: 50, accuracy_m: -1, radius_m: r_m) == .unknown)
        #expect(Conservative.classify(distance_m: .nan, accuracy_m: 1, radius_m: r_m) == .unknown)
    }

    /// The state machine takes the classification when it is determined and holds otherwise.
    @Test func ruleFollowsClassification() throws {
        let rule = try Conservative(radius_m: 100)
        for d in distanceGrid_m {
            for a in accuracyGrid_m {
                let c = Conservative.classify(distance_m: d, accuracy_m: a, radius_m: 100)
                for p in FenceState.allCases {
                    #expect(rule.next(previous: p, distance_m: d, accuracy_m: a) == (c == .unknown ? p : c))
                }
            }
        }
    }

    /// With accuracy 0 the conservative rule is the threshold rule (same boundary, equality inside).
    @Test func zeroAccuracyEqualsThreshold() throws {
        let c = try Conservative(radius_m: 100)
        let t = try Threshold(radius_m: 100)
        for d in distanceGrid_m {
            for p in FenceState.allCases {
                #expect(
                    c.next(previous: p, distance_m: d, accuracy_m: 0)
                        == t.next(previous: p, distance_m: d, accuracy_m: 0))
            }
        }
    }

    @Test func versionAndErrors() throws {
        #expect(try Conservative(radius_m: 100).rulesVersion == "conservative-100")
        #expect(throws: FenceRuleError.notFinite(parameter: "radius_m", value: .infinity)) {
            try Conservative(radius_m: .infinity)
        }
    }
}

@Suite struct FenceEvaluatorTests {
    /// Without confirmation, the evaluator is the rule iterated.
    @Test func withoutConfirmationItIsTheRule() throws {
        var e = try FenceEvaluator(rule: Hysteresis.seedDefault)
        var state = FenceState.unknown
        for (i, d) in distanceGrid_m.enumerated() {
            let a = accuracyGrid_m[i % accuracyGrid_m.count]
            state = Hysteresis.seedDefault.next(previous: state, distance_m: d, accuracy_m: a)
            #expect(e.update(distance_m: d, accuracy_m: a, timestamp_s: Double(i)) == state)
        }
        #expect(e.rulesVersion == "hysteresis-80-120-acc30")
    }

    @Test func oneFixConfirmationIsNoConfirmation() throws {
        var plain = try FenceEvaluator(rule: Hysteresis.seedDefault)
        var one = try FenceEvaluator(rule: Hysteresis.seedDefault, confirmation: .fixes(1))
        for (i, d) in distanceGrid_m.reversed().enumerated() {
            #expect(
                plain.update(distance_m: d, accuracy_m: 5, timestamp_s: Double(i))
                    == one.update(distance_m: d, accuracy_m: 5, timestamp_s: Double(i)))
        }
    }

    @Test func countConfirmation() throws {
        var e = try FenceEvaluator(rule: Hysteresis.seedDefault, confirmation: .fixes(3), initial: .outside)
        #expect(e.update(distance_m: 50, accuracy_m: 5, timestamp_s: 0) == .outside)
        #expect(e.pendingState == .inside)
        #expect(e.update(distance_m: 50, accuracy_m: .nan, timestamp_s: 1) == .outside)  // does not count
        #expect(e.update(distance_m: 50, accuracy_m: 5, timestamp_s: 2) == .outside)
        #expect(e.update(distance_m: 50, accuracy_m: 5, timestamp_s: 3) == .inside)
        #expect(e.pendingState == nil)
        #expect(e.rulesVersion == "hysteresis-80-120-acc30+confirm3")
    }

    @Test func timeConfirmation() throws {
        var e = try FenceEvaluator(rule: try Threshold(radius_m: 100), confirmation: .seconds(10), initial: .outside)
        #expect(e.update(distance_m: 50, accuracy_m: 5, timestamp_s: 100) == .outside)
        #expect(e.update(distance_m: 50, accuracy_m: 5, timestamp_s: 109.5) == .outside)
        #expect(e.update(distance_m: 50, accuracy_m: 5, timestamp_s: 110) == .inside)
        #expect(e.rulesVersion == "threshold-100+confirm10s")
        #expect(
            try FenceEvaluator(rule: Hysteresis.seedDefault, confirmation: .seconds(2.5)).rulesVersion
                == "hysteresis-80-120-acc30+confirm2.5s")
    }

    /// Fixes and seconds together: the change waits for whichever of the two comes last.
    @Test func fixesAndSecondsConfirmation() throws {
        let rule = try Threshold(radius_m: 100)
        let both = Confirmation.fixesAndSeconds(fixes: 3, seconds: 10)
        // Fixes come fast (every 1 s): 3 fixes after 2 s, the clock decides at t = 10.
        var fast = try FenceEvaluator(rule: rule, confirmation: both, initial: .outside)
        for t in 0..<10 { #expect(fast.update(distance_m: 50, accuracy_m: 5, timestamp_s: Double(t)) == .outside) }
        #expect(fast.update(distance_m: 50, accuracy_m: 5, timestamp_s: 10) == .inside)
        // Fixes come slowly (every 20 s): 10 s pass after 2 fixes, the third fix decides at t = 40.
        var slow = try FenceEvaluator(rule: rule, confirmation: both, initial: .outside)
        #expect(slow.update(distance_m: 50, accuracy_m: 5, timestamp_s: 0) == .outside)
        #expect(slow.update(distance_m: 50, accuracy_m: 5, timestamp_s: 20) == .outside)
        #expect(slow.update(distance_m: 50, accuracy_m: 5, timestamp_s: 40) == .inside)
        // A disagreeing fix restarts both the count and the clock.
        var broken = try FenceEvaluator(rule: rule, confirmation: both, initial: .outside)
        for t in [0.0, 5, 9] { _ = broken.update(distance_m: 50, accuracy_m: 5, timestamp_s: t) }
        #expect(broken.update(distance_m: 500, accuracy_m: 5, timestamp_s: 11) == .outside)
        #expect(broken.pendingState == nil)
        for t in [12.0, 13, 14] { #expect(broken.update(distance_m: 50, accuracy_m: 5, timestamp_s: t) == .outside) }
        #expect(broken.update(distance_m: 50, accuracy_m: 5, timestamp_s: 21.5) == .outside)
        #expect(broken.update(distance_m: 50, accuracy_m: 5, timestamp_s: 22) == .inside)
        #expect(fast.rulesVersion == "threshold-100+confirm3+confirm10s")
        #expect(both.description == "confirm3+confirm10s")
    }

    /// The degenerate combinations decide exactly as the single kinds on the same fixes.
    @Test func fixesAndSecondsReduceToOneKind() throws {
        let rule = Hysteresis.seedDefault
        var a = try FenceEvaluator(rule: rule, confirmation: .fixesAndSeconds(fixes: 3, seconds: 0))
        var b = try FenceEvaluator(rule: rule, confirmation: .fixes(3))
        var c = try FenceEvaluator(rule: rule, confirmation: .fixesAndSeconds(fixes: 1, seconds: 7))
        var d = try FenceEvaluator(rule: rule, confirmation: .seconds(7))
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        for i in 0..<5000 {
            x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let dist = Double(x >> 40) / Double(1 << 24) * 200  // 0 ... 200 m
            let t = Double(i) * 1.5
            #expect(
                a.update(distance_m: dist, accuracy_m: 10, timestamp_s: t)
                    == b.update(distance_m: dist, accuracy_m: 10, timestamp_s: t))
            #expect(
                c.update(distance_m: dist, accuracy_m: 10, timestamp_s: t)
                    == d.update(distance_m: dist, accuracy_m: 10, timestamp_s: t))
        }
    }

    @Test func invalidConfirmationThrows() {
        #expect(throws: FenceRuleError.confirmationCount(0)) {
            try FenceEvaluator(rule: Hysteresis.seedDefault, confirmation: .fixesAndSeconds(fixes: 0, seconds: 5))
        }
        #expect(throws: FenceRuleError.self) {
            try FenceEvaluator(
                rule: Hysteresis.seedDefault, confirmation: .fixesAndSeconds(fixes: 2, seconds: .infinity))
        }
        #expect(throws: FenceRuleError.confirmationCount(0)) {
            try FenceEvaluator(rule: Hysteresis.seedDefault, confirmation: .fixes(0))
        }
        #expect(throws: FenceRuleError.self) {
            try FenceEvaluator(rule: Hysteresis.seedDefault, confirmation: .seconds(-1))
        }
        #expect(throws: FenceRuleError.self) {
            try FenceEvaluator(rule: Hysteresis.seedDefault, confirmation: .seconds(.nan))
        }
    }

    @Test func resetDropsPendingChange() throws {
        var e = try FenceEvaluator(rule: Hysteresis.seedDefault, confirmation: .fixes(2), initial: .outside)
        _ = e.update(distance_m: 10, accuracy_m: 1, timestamp_s: 0)
        e.reset()
        #expect(e.state == .unknown && e.pendingState == nil)
    }
}

@Suite struct RuleSpecTests {
    @Test(arguments: [
        ("hysteresis:80:120:30", "hysteresis-80-120-acc30"),
        ("hysteresis", "hysteresis-80-120-acc30"),
        ("hysteresis:75.5:130:25+confirm3", "hysteresis-75.5-130-acc25+confirm3"),
        ("threshold:500", "threshold-500"),
        ("conservative:100+confirm10s", "conservative-100+confirm10s"),
        ("threshold:500+confirm3+confirm10s", "threshold-500+confirm3+confirm10s"),
        ("threshold:500+confirm10s+confirm3", "threshold-500+confirm3+confirm10s"),
    ])
    func parsesAndVersions(text: String, version: String) throws {
        let spec = try RuleSpec.parse(text)
        #expect(try spec.rulesVersion() == version)
        #expect(try RuleSpec.parse(spec.description) == spec, "description must round-trip")
    }

    @Test func defaultIsSeed000() throws {
        #expect(try RuleSpec.default.rule() == .hysteresis(Hysteresis.seedDefault))
    }

    @Test func errorsNameTheBadPart() {
        func message(_ text: String) -> String {
            do {
                _ = try RuleSpec.parse(text)
                return ""
            } catch { return error.description }
        }
        #expect(message("hysteresis:80:x:30").contains("'x'"))
        #expect(message("hysteresis:80:x:30").contains("EXIT_M"))
        #expect(message("circle:5").contains("'circle'"))
        #expect(message("threshold").contains("RADIUS_M"))
        #expect(message("threshold:1:2").contains("got 2"))
        #expect(message("threshold:-1").contains("radius_m"))
        #expect(message("hysteresis:120:80:30").contains("exit_m"))
        #expect(message("threshold:5+confirmx").contains("'confirmx'"))
        #expect(message("threshold:5+confirm0").contains("at least 1"))
        #expect(message("threshold:5+confirm1+confirm2").contains("+confirm2"))
        #expect(message("threshold:5+confirm1s+confirm2s").contains("+confirm2s"))
        #expect(message("threshold:5+confirm3+confirm-1s").contains("confirmation seconds"))
        #expect(message("threshold:5+confirm3+confirm2s+confirm4").contains("+confirm4"))
        #expect(throws: RuleSpecError.notANumber(spec: "threshold:abc", parameter: "RADIUS_M", part: "abc")) {
            try RuleSpec.parse("threshold:abc")
        }
    }

    @Test func anyRuleDispatchesToTheConcreteRule() throws {
        let h = Hysteresis.seedDefault
        let c = try Conservative(radius_m: 100)
        let any: [(AnyFenceRule, any FenceRule)] = [(.hysteresis(h), h), (.conservative(c), c)]
        for (wrapped, rule) in any {
            #expect(wrapped.rulesVersion == rule.rulesVersion && wrapped.maxAccuracy_m == rule.maxAccuracy_m)
            for d in distanceGrid_m {
                for p in FenceState.allCases {
                    #expect(
                        wrapped.next(previous: p, distance_m: d, accuracy_m: 20)
                            == rule.next(previous: p, distance_m: d, accuracy_m: 20))
                }
            }
        }
    }
}
