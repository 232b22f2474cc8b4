import DeviceLogKit
import GeoPolicy
import Testing

@testable import FenceLab

/// Hand-made decision/event sequences, one per divergence class (docs/device-logs.md).
@Suite struct DivergenceClassifierTests {
    /// Accepted decisions from (time, new state) pairs; old state chains from `.unknown`.
    static func engine(_ steps: [(Double, FenceState)], startIndex: Int = 0) -> [EngineDecision] {
        var previous = FenceState.unknown
        var decisions: [EngineDecision] = []
        for (k, step) in steps.enumerated() {
            decisions.append(
                EngineDecision(index: startIndex + k, timestamp_s: step.0, oldState: previous, newState: step.1))
            previous = step.1
        }
        return decisions
    }

    /// Accepted fixes every 10 s from `from` to `to`, all ending in `state` (first one from unknown).
    static func steady(_ state: FenceState, from: Double, to: Double) -> [(Double, FenceState)] {
        stride(from: from, through: to, by: 10).map { ($0, state) }
    }

    static func enter(_ t: Double) -> SystemEvent { SystemEvent(kind: .enter, timestamp_s: t, line: 0) }
    static func exit(_ t: Double) -> SystemEvent { SystemEvent(kind: .exit, timestamp_s: t, line: 0) }

    let delayTolerance_s = 1e-9

    @Test func matchedCrossingIsNoDivergence() {
        let decisions = Self.engine(Self.steady(.outside, from: 0, to: 90) + Self.steady(.inside, from: 100, to: 200))
        let report = DivergenceClassifier.classify(decisions: decisions, events: [Self.enter(120)])
        #expect(report.divergences.isEmpty)
        #expect(report.matched.count == 1)
        #expect(report.matched.first?.decisionIndex == 10)
        #expect(abs((report.matched.first?.delay_s ?? .nan) - 20) <= delayTolerance_s)
        #expect(report.status == .passed)
    }

    @Test func togglingWithoutEventsIsRuleFlutter() {
        // outside → inside (matched by the enter event) → outside → inside within 20 s, no events for the toggles.
        let decisions = Self.engine(
            Self.steady(.outside, from: 0, to: 90) + [(100, .inside), (110, .outside), (120, .inside)]
                + Self.steady(.inside, from: 130, to: 200))
        let report = DivergenceClassifier.classify(decisions: decisions, events: [Self.enter(101)])
        #expect(report.matched.map(\.decisionIndex) == [10])
        #expect(report.count(.ruleFlutter) == 2)
        #expect(report.divergences.filter { $0.kind == .ruleFlutter }.compactMap(\.decisionIndex) == [11, 12])
        #expect(report.divergences.count == 2)
        #expect(report.status == .failed)
    }

    /// Accepted fixes every 2 s with distances (accuracy 10 m) through an 80/120 fence.
    static func drive(_ distances: [Double]) -> [EngineDecision] {
        var rule = try! FenceEvaluator(rule: Hysteresis(enter_m: 80, exit_m: 120, maxAccuracy_m: 30))
        var previous = FenceState.unknown
        return distances.enumerated().map { k, d in
            let next = rule.update(distance_m: d, accuracy_m: 10, timestamp_s: Double(k) * 2)
            defer { previous = next }
            return EngineDecision(
                index: k, timestamp_s: Double(k) * 2, oldState: previous, newState: next,
                distance_m: d, accuracy_m: 10)
        }
    }

    /// A genuine 22 s drive through the fence, fixes clearly inside (distance + accuracy < enter):
    /// with no system event it is a missing event (a short visit), never rule flutter.
    @Test func shortGenuineVisitIsNotRuleFlutter() {
        let outside = Array(repeating: 300.0, count: 10)
        let through = [150.0, 70, 50, 30, 20, 15, 20, 30, 50, 65, 70, 125]  // inside at 2 s … 22 s, exit at 24 s
        let decisions = Self.drive(outside + through + outside)
        var settings = DivergenceSettings()
        settings.band_m = FlutterBand(inner_m: 80, outer_m: 120)
        let report = DivergenceClassifier.classify(decisions: decisions, events: [], settings: settings)
        #expect(report.count(.ruleFlutter) == 0, "\(report.divergences.map(\.detail))")
        #expect(report.count(.missingSystemEvent) == 2)
        #expect(
            report.divergences.allSatisfy {
                $0.detail.contains("short genuine visit") || $0.detail.contains("short genuine absence")
            })
        // Without a band (timing alone) the same reversal counts as flutter: the band is what decides.
        #expect(DivergenceClassifier.classify(decisions: decisions, events: []).count(.ruleFlutter) == 2)
    }

    /// A reversal whose fixes all stay within the band widened by their accuracy is rule flutter.
    @Test func reversalWithinTheWidenedBandIsRuleFlutter() {
        let outside = Array(repeating: 300.0, count: 10)
        let edge = [125.0, 79, 95, 110, 125]  // 79 ≥ 80 − 10: consistent with a position in the band
        var settings = DivergenceSettings()
        settings.band_m = FlutterBand(inner_m: 80, outer_m: 120)
        let report = DivergenceClassifier.classify(
            decisions: Self.drive(outside + edge + outside), events: [], settings: settings)
        #expect(report.count(.ruleFlutter) == 2)
        #expect(FlutterBand(inner_m: 80, outer_m: 120).admits(distance_m: 69.9, accuracy_m: 10) == false)
        #expect(FlutterBand(inner_m: 80, outer_m: 120).admits(distance_m: .nan, accuracy_m: 10) == true)
    }

    @Test func eventContradictedByFixesIsUnsupported() {
        let decisions = Self.engine(Self.steady(.outside, from: 0, to: 300))
        let report = DivergenceClassifier.classify(decisions: decisions, events: [Self.enter(150)])
        #expect(report.divergences.count == 1)
        let d = report.divergences.first
        #expect(d?.kind == .unsupportedSystemEvent)
        #expect(d?.eventIndex == 0)
        #expect(d?.engineState == .outside)
        #expect(d?.acceptedFixesNearby == 13)  // fixes at 90...210 s, every 10 s
        #expect(report.status == .failed)
    }

    @Test func eventWithNoFixesNearbyIsUnsupported() {
        let decisions = Self.engine(Self.steady(.outside, from: 0, to: 50))
        let report = DivergenceClassifier.classify(decisions: decisions, events: [Self.exit(500)])
        #expect(report.divergences.map(\.kind) == [.unsupportedSystemEvent])
        #expect(report.divergences.first?.acceptedFixesNearby == 0)
    }

    @Test func eventLongAfterTheTransitionIsLate() {
        let decisions = Self.engine(Self.steady(.outside, from: 0, to: 90) + Self.steady(.inside, from: 100, to: 400))
        let report = DivergenceClassifier.classify(decisions: decisions, events: [Self.enter(300)])
        #expect(report.matched.isEmpty)
        #expect(report.divergences.map(\.kind) == [.lateSystemEvent])
        #expect(report.divergences.first?.decisionIndex == 10)
        #expect(abs((report.divergences.first?.delay_s ?? .nan) - 200) <= delayTolerance_s)
        #expect(report.status == .failed)
        // A wider match window turns the same event into a match.
        let wide = DivergenceClassifier.classify(
            decisions: decisions, events: [Self.enter(300)],
            settings: DivergenceSettings(matchWindow_s: 250))
        #expect(wide.divergences.isEmpty)
        #expect(wide.matched.count == 1)
    }

    @Test func lateNeedsTheEngineStillInTheClaimedState() {
        // The engine went inside at 100 and left at 200; an enter at 300 is not late, it is unsupported.
        let decisions = Self.engine(
            Self.steady(.outside, from: 0, to: 90) + Self.steady(.inside, from: 100, to: 190)
                + Self.steady(.outside, from: 200, to: 400))
        let report = DivergenceClassifier.classify(
            decisions: decisions, events: [Self.enter(110), Self.exit(205), Self.enter(300)])
        #expect(report.matched.count == 2)
        #expect(report.divergences.map(\.kind) == [.unsupportedSystemEvent])
        #expect(report.divergences.first?.eventIndex == 2)
    }

    @Test func repeatedDeliveryIsDuplicateAndTolerated() {
        let decisions = Self.engine(Self.steady(.outside, from: 0, to: 90) + Self.steady(.inside, from: 100, to: 200))
        let events = [Self.enter(105), Self.enter(106.5), Self.enter(110)]
        let report = DivergenceClassifier.classify(decisions: decisions, events: events)
        #expect(report.matched.map(\.eventIndex) == [0])
        #expect(report.count(.duplicateSystemEvent) == 2)
        #expect(report.divergences.compactMap(\.relatedEventIndex) == [0, 0])
        #expect(report.status == .passed)
        var strict = DivergenceSettings()
        strict.failingClasses.insert(.duplicateSystemEvent)
        #expect(DivergenceClassifier.classify(decisions: decisions, events: events, settings: strict).status == .failed)
    }

    @Test func repeatAfterAnOppositeEventIsNotDuplicate() {
        let decisions = Self.engine(
            Self.steady(.outside, from: 0, to: 90) + [(100, .inside), (110, .outside), (120, .inside)]
                + Self.steady(.inside, from: 130, to: 200))
        let report = DivergenceClassifier.classify(
            decisions: decisions, events: [Self.enter(100), Self.exit(110), Self.enter(120)])
        #expect(report.count(.duplicateSystemEvent) == 0)
        #expect(report.matched.count == 3)
        #expect(report.divergences.isEmpty)
    }

    @Test func staleFixNearAnEventIsReportedAndTolerated() {
        var decisions = Self.engine(Self.steady(.outside, from: 0, to: 90) + Self.steady(.inside, from: 100, to: 110))
        // Delivered after the fix at 110 s with a 40 s old timestamp; rejected as stale.
        decisions.append(
            EngineDecision(index: 12, timestamp_s: 40, oldState: .inside, newState: .inside, rejection: .stale))
        decisions += Self.engine(Self.steady(.inside, from: 120, to: 200), startIndex: 13).map {
            var d = $0
            d.oldState = .inside
            return d
        }
        // Another stale fix far from any event: not reported.
        decisions.append(
            EngineDecision(index: 22, timestamp_s: 150, oldState: .inside, newState: .inside, rejection: .stale))
        // An inaccurate fix near the event: not a stale fix.
        decisions.append(
            EngineDecision(index: 23, timestamp_s: 111, oldState: .inside, newState: .inside, rejection: .inaccurate))
        let report = DivergenceClassifier.classify(decisions: decisions, events: [Self.enter(105), Self.exit(400)])
        let stale = report.divergences.filter { $0.kind == .staleFix }
        #expect(stale.map(\.decisionIndex) == [12])
        #expect(stale.first?.relatedEventIndex == 0)
        #expect(abs((stale.first?.timestamp_s ?? .nan) - 110) <= delayTolerance_s)
        // The exit at 400 s has no fix near it: unsupported; the stale fix itself is tolerated.
        #expect(
            report.divergences.map(\.kind).sorted { $0.rawValue < $1.rawValue } == [.staleFix, .unsupportedSystemEvent])
        var lenient = DivergenceSettings()
        lenient.failingClasses.remove(.unsupportedSystemEvent)
        #expect(
            DivergenceClassifier.classify(
                decisions: decisions, events: [Self.enter(105), Self.exit(400)], settings: lenient
            ).status == .passed)
    }

    @Test func stableCrossingWithoutEventIsMissing() {
        let decisions = Self.engine(Self.steady(.outside, from: 0, to: 90) + Self.steady(.inside, from: 100, to: 300))
        let report = DivergenceClassifier.classify(decisions: decisions, events: [])
        #expect(report.divergences.map(\.kind) == [.missingSystemEvent])
        #expect(report.divergences.first?.decisionIndex == 10)
        #expect(report.status == .failed)
    }

    @Test func firstDeterminationNeedsNoEvent() {
        let decisions = Self.engine(Self.steady(.inside, from: 0, to: 100))
        let report = DivergenceClassifier.classify(decisions: decisions, events: [])
        #expect(report.divergences.isEmpty)
        #expect(report.status == .passed)
        // …but an enter event at start matches it.
        #expect(DivergenceClassifier.classify(decisions: decisions, events: [Self.enter(3)]).matched.count == 1)
    }

    @Test func earlySystemEventIsUnsupportedAndItsCrossingMissing() {
        let decisions = Self.engine(Self.steady(.outside, from: 0, to: 290) + Self.steady(.inside, from: 300, to: 500))
        let report = DivergenceClassifier.classify(decisions: decisions, events: [Self.enter(100)])
        #expect(report.divergences.map(\.kind) == [.unsupportedSystemEvent, .missingSystemEvent])
    }

    @Test func rejectedFixesNeverMakeTransitions() {
        var decisions = Self.engine(Self.steady(.outside, from: 0, to: 100))
        decisions.append(
            EngineDecision(index: 11, timestamp_s: 105, oldState: .outside, newState: .outside, rejection: .inaccurate))
        let report = DivergenceClassifier.classify(decisions: decisions, events: [Self.enter(105)])
        #expect(report.divergences.map(\.kind) == [.unsupportedSystemEvent])
    }

    @Test func degenerateInputsDoNotTrap() {
        #expect(DivergenceClassifier.classify(decisions: [], events: []).status == .passed)
        let nanEvent = SystemEvent(kind: .exit, timestamp_s: .nan, line: 7)
        let nanDecision = EngineDecision(index: 0, timestamp_s: .nan, oldState: .unknown, newState: .inside)
        let report = DivergenceClassifier.classify(decisions: [nanDecision], events: [nanEvent])
        #expect(report.divergences.map(\.kind) == [.unsupportedSystemEvent])
        #expect(report.matched.isEmpty)
    }
}
