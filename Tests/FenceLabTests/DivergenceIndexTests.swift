import DeviceLogKit
import GeoPolicy
import ReportKit
import Testing

@testable import FenceLab

/// The divergence classifier's indexed searches (binary search, prefix counts, union–find) give
/// exactly the report of the definition scanned linearly: every pair of transitions and events,
/// every accepted fix for every reversal. `QuadraticClassifier` is that definition as the
/// classifier computed it before it was indexed (O(n²)–O(n³)), kept here as the oracle; random
/// logs with tied times, unknown states, rejections, duplicates, non-finite times and windows
/// of 0, a few seconds and infinity must give equal reports.
@Suite struct DivergenceIndexTests {
    /// SplitMix64 (Steele, Lea & Flood 2014): a seeded stream for the random logs.
    struct SplitMix64: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// A random log: times on a coarse grid (ties are common), states that flip often, some
    /// rejections (stale among them), distances around an 80/120 band, events near the flips.
    static func randomLog(
        seed: UInt64, fixes: Int, events: Int
    ) -> (decisions: [EngineDecision], events: [SystemEvent]) {
        var rng = SplitMix64(state: seed)
        let step = [0.0, 0.5, 1, 1, 2, 5, 30][Int.random(in: 0..<7, using: &rng)]
        var t = Double(Int.random(in: -50...50, using: &rng))
        var state = FenceState.unknown
        var decisions: [EngineDecision] = []
        let reasons: [RejectionReason?] = [nil, nil, nil, nil, nil, .stale, .inaccurate, .outOfOrder]
        for i in 0..<fixes {
            t += Double(Int.random(in: 0...3, using: &rng)) * step
            var time = t
            if Int.random(in: 0..<40, using: &rng) == 0 { time = [Double.nan, .infinity, t - 40][i % 3] }
            let rejection = reasons[Int.random(in: 0..<reasons.count, using: &rng)]
            let old = state
            if rejection == nil, Int.random(in: 0..<3, using: &rng) == 0 {
                state = [FenceState.inside, .outside, .outside, .inside, .unknown][Int.random(in: 0..<5, using: &rng)]
            }
            let distance: Double? =
                Int.random(in: 0..<10, using: &rng) == 0 ? nil : Double.random(in: 40...170, using: &rng)
            let accuracy: Double? =
                Int.random(in: 0..<10, using: &rng) == 0 ? nil : Double.random(in: 0...25, using: &rng)
            decisions.append(
                EngineDecision(
                    index: i, timestamp_s: time, oldState: old, newState: rejection == nil ? state : old,
                    rejection: rejection, distance_m: distance, accuracy_m: accuracy))
        }
        let span = max(1, t)
        var list: [SystemEvent] = []
        for k in 0..<events {
            var time =
                (Double(Int.random(in: -60...Int(span) + 60, using: &rng)) / max(step, 0.5)).rounded() * max(step, 0.5)
            if Int.random(in: 0..<50, using: &rng) == 0 { time = .nan }
            let kind: SystemEventKind = Bool.random(using: &rng) ? .enter : .exit
            list.append(SystemEvent(kind: kind, timestamp_s: time, line: k + 1))
            if Int.random(in: 0..<8, using: &rng) == 0 {
                list.append(SystemEvent(kind: kind, timestamp_s: time + 3, line: k + 1))
            }
        }
        return (decisions, list)
    }

    /// The first matched pair or divergence that differs, for a readable failure.
    static func firstDifference(_ a: DivergenceReport, _ b: DivergenceReport) -> String {
        if let k = (0..<min(a.matched.count, b.matched.count)).first(where: { "\(a.matched[$0])" != "\(b.matched[$0])" }
        ) {
            return "matched[\(k)]: \(a.matched[k]) vs \(b.matched[k])"
        }
        if a.matched.count != b.matched.count { return "matched: \(a.matched.count) vs \(b.matched.count)" }
        if let k = (0..<min(a.divergences.count, b.divergences.count)).first(where: {
            "\(a.divergences[$0])" != "\(b.divergences[$0])"
        }) {
            return "divergences[\(k)]: \(a.divergences[k]) vs \(b.divergences[k]); settings \(a.settings)"
        }
        return "divergences: \(a.divergences.count) vs \(b.divergences.count)"
    }

    static let settings: [DivergenceSettings] = {
        var zero = DivergenceSettings(
            matchWindow_s: 0, flutterWindow_s: 0, duplicateWindow_s: 0, supportWindow_s: 0, staleWindow_s: 0)
        zero.band_m = FlutterBand(inner_m: 80, outer_m: 120)
        var banded = DivergenceSettings()
        banded.band_m = FlutterBand(inner_m: 80, outer_m: 120)
        var short = DivergenceSettings(
            matchWindow_s: 5, flutterWindow_s: 7.5, duplicateWindow_s: 2, supportWindow_s: 3, staleWindow_s: 4)
        short.band_m = FlutterBand(inner_m: 100, outer_m: 100)
        let endless = DivergenceSettings(
            matchWindow_s: .infinity, flutterWindow_s: .infinity, duplicateWindow_s: .infinity,
            supportWindow_s: .infinity, staleWindow_s: .infinity)
        return [DivergenceSettings(), banded, zero, short, endless]
    }()

    @Test(arguments: 0..<60)
    func indexedClassifierGivesTheDefinitionsReport(seed: Int) {
        let log = Self.randomLog(seed: UInt64(seed) &* 7919 &+ 1, fixes: 20 + seed * 7, events: seed % 13 * 3)
        for settings in Self.settings {
            let fast = DivergenceClassifier.classify(decisions: log.decisions, events: log.events, settings: settings)
            let slow = QuadraticClassifier.classify(decisions: log.decisions, events: log.events, settings: settings)
            // NaN times (events without one) make `==` false for equal reports: compare the texts.
            #expect("\(fast)" == "\(slow)", "seed \(seed): \(Self.firstDifference(fast, slow))")
        }
    }

    /// The oracle is not blind: a log where the nearest match, the flutter partner and the
    /// stale event each have a tie or a nearer consumed candidate gives the classes the
    /// definition names (hand-checked), so equal reports are not equal for an empty reason.
    @Test func theOracleSeesEveryClass() {
        var seen = Set<DivergenceClass>()
        for seed in 0..<60 {
            let log = Self.randomLog(seed: UInt64(seed) &* 7919 &+ 1, fixes: 20 + seed * 7, events: seed % 13 * 3)
            for settings in Self.settings {
                let report = QuadraticClassifier.classify(
                    decisions: log.decisions, events: log.events, settings: settings)
                seen.formUnion(report.divergences.map(\.kind))
            }
        }
        #expect(
            seen == Set(DivergenceClass.allCases),
            "classes never produced: \(Set(DivergenceClass.allCases).subtracting(seen))")
    }
}

/// The classifier as it was before its searches were indexed: the oracle of `DivergenceIndexTests`.
enum QuadraticClassifier {
    /// The accepted decisions with finite times, in time order, as a view of the decisions.
    private struct AcceptedDecisions: RandomAccessCollection {
        let decisions: [EngineDecision]
        let order: [Int]
        var startIndex: Int { 0 }
        var endIndex: Int { order.count }
        subscript(position: Int) -> EngineDecision { decisions[order[position]] }
    }

    private struct Transition {
        var decisionIndex: Int
        var timestamp_s: Double
        var to: FenceState
        var isCrossing: Bool
        var consumed = false
    }

    static func classify(
        decisions: [EngineDecision], events: [SystemEvent], settings: DivergenceSettings = DivergenceSettings()
    ) -> DivergenceReport {
        // Positions of the accepted decisions in time order (ties in the given order): positions,
        // not copies, so a long log costs 8 bytes per accepted fix here.
        var order = decisions.indices.filter { decisions[$0].isAccepted && decisions[$0].timestamp_s.isFinite }
        if zip(order, order.dropFirst()).contains(where: { decisions[$0].timestamp_s > decisions[$1].timestamp_s }) {
            order.sort { (decisions[$0].timestamp_s, $0) < (decisions[$1].timestamp_s, $1) }
        }
        let accepted = AcceptedDecisions(decisions: decisions, order: order)
        var transitions = accepted.filter { $0.newState != $0.oldState && $0.newState != .unknown }.map {
            Transition(
                decisionIndex: $0.index, timestamp_s: $0.timestamp_s, to: $0.newState,
                isCrossing: $0.oldState != .unknown)
        }
        var divergences: [Divergence] = []
        var matched: [MatchedPair] = []

        let finiteEvents = events.indices.filter { events[$0].timestamp_s.isFinite }
            .sorted { (events[$0].timestamp_s, $0) < (events[$1].timestamp_s, $1) }
        for e in events.indices where !events[e].timestamp_s.isFinite {
            divergences.append(
                Divergence(
                    kind: .unsupportedSystemEvent, timestamp_s: events[e].timestamp_s, eventIndex: e,
                    detail: "\(events[e].kind) event has no finite time"))
        }
        let primary = separateDuplicates(finiteEvents, events: events, settings: settings, into: &divergences)

        var unmatchedEvents: [Int] = []
        for e in primary {
            let event = events[e]
            let target = event.kind.claimedState
            var best: Int?
            for k in transitions.indices where !transitions[k].consumed && transitions[k].to == target {
                let gap = abs(transitions[k].timestamp_s - event.timestamp_s)
                if gap <= settings.matchWindow_s,
                    best.map({ gap < abs(transitions[$0].timestamp_s - event.timestamp_s) }) ?? true
                {
                    best = k
                }
            }
            if let k = best {
                transitions[k].consumed = true
                matched.append(
                    MatchedPair(
                        eventIndex: e, decisionIndex: transitions[k].decisionIndex,
                        delay_s: event.timestamp_s - transitions[k].timestamp_s))
            } else {
                unmatchedEvents.append(e)
            }
        }
        for e in unmatchedEvents {
            divergences.append(
                lateOrUnsupported(e, events: events, transitions: &transitions, accepted: accepted, settings: settings))
        }
        divergences += unmatchedCrossings(transitions, accepted: accepted, settings: settings)
        divergences += staleFixes(decisions, events: events, eventOrder: finiteEvents, settings: settings)
        divergences.sort { ($0.timestamp_s, $0.kind.rawValue) < ($1.timestamp_s, $1.kind.rawValue) }
        matched.sort { $0.eventIndex < $1.eventIndex }
        return DivergenceReport(matched: matched, divergences: divergences, settings: settings)
    }

    /// Step 2: returns the kept events (in time order) and records duplicates.
    private static func separateDuplicates(
        _ order: [Int], events: [SystemEvent], settings: DivergenceSettings, into divergences: inout [Divergence]
    ) -> [Int] {
        var kept: [Int] = []
        for e in order {
            if let last = kept.last, events[last].kind == events[e].kind,
                events[e].timestamp_s - events[last].timestamp_s <= settings.duplicateWindow_s
            {
                let gap = events[e].timestamp_s - events[last].timestamp_s
                divergences.append(
                    Divergence(
                        kind: .duplicateSystemEvent, timestamp_s: events[e].timestamp_s, eventIndex: e,
                        relatedEventIndex: last,
                        delay_s: gap,
                        detail:
                            "\(events[e].kind) delivered again \(DurationText.seconds(gap)) after the first delivery"))
            } else {
                kept.append(e)
            }
        }
        return kept
    }

    /// Step 4.
    private static func lateOrUnsupported(
        _ e: Int, events: [SystemEvent], transitions: inout [Transition], accepted: AcceptedDecisions,
        settings: DivergenceSettings
    ) -> Divergence {
        let event = events[e]
        let target = event.kind.claimedState
        if let k = transitions.lastIndex(where: { $0.timestamp_s <= event.timestamp_s }),
            transitions[k].to == target, transitions[k].isCrossing, !transitions[k].consumed,
            event.timestamp_s - transitions[k].timestamp_s > settings.matchWindow_s
        {
            transitions[k].consumed = true
            let delay = event.timestamp_s - transitions[k].timestamp_s
            return Divergence(
                kind: .lateSystemEvent, timestamp_s: event.timestamp_s, decisionIndex: transitions[k].decisionIndex,
                eventIndex: e, delay_s: delay,
                detail:
                    "\(event.kind) arrived \(DurationText.seconds(delay)) after the engine went \(target) (window \(DurationText.seconds(settings.matchWindow_s)))"
            )
        }
        let state = accepted.last(where: { $0.timestamp_s <= event.timestamp_s })?.newState ?? .unknown
        let nearby = accepted.reduce(0) {
            $0 + (abs($1.timestamp_s - event.timestamp_s) <= settings.supportWindow_s ? 1 : 0)
        }
        let detail: String
        if nearby == 0 {
            detail =
                "\(event.kind) with no accepted fix within ±\(DurationText.seconds(settings.supportWindow_s)) (engine \(state))"
        } else if state == target {
            detail = "\(event.kind) while the engine was already \(state); its transition is reported by another event"
        } else {
            detail =
                "\(event.kind) but the engine is \(state) with \(nearby) accepted fixes within ±\(DurationText.seconds(settings.supportWindow_s))"
        }
        return Divergence(
            kind: .unsupportedSystemEvent, timestamp_s: event.timestamp_s, eventIndex: e,
            engineState: state, acceptedFixesNearby: nearby, detail: detail)
    }

    /// Step 5 (transitions and `accepted` are in time order).
    private static func unmatchedCrossings(
        _ transitions: [Transition], accepted: AcceptedDecisions,
        settings: DivergenceSettings
    ) -> [Divergence] {
        let crossings = transitions.filter(\.isCrossing)
        /// Every accepted fix between the two crossings (inclusive) admitted by the widened band.
        func noiseLike(_ a: Transition, _ b: Transition) -> Bool {
            guard let band = settings.band_m else { return true }
            let t0 = min(a.timestamp_s, b.timestamp_s)
            let t1 = max(a.timestamp_s, b.timestamp_s)
            return accepted.allSatisfy { d in
                d.timestamp_s < t0 || d.timestamp_s > t1
                    || band.admits(distance_m: d.distance_m, accuracy_m: d.accuracy_m)
            }
        }
        var result: [Divergence] = []
        for (k, c) in crossings.enumerated() where !c.consumed {
            var flutterWith: Transition?
            var reversal: Transition?
            var j = k - 1
            while flutterWith == nil, j >= 0, c.timestamp_s - crossings[j].timestamp_s <= settings.flutterWindow_s {
                if crossings[j].to != c.to {
                    reversal = reversal ?? crossings[j]
                    if noiseLike(crossings[j], c) { flutterWith = crossings[j] }
                }
                j -= 1
            }
            j = k + 1
            while flutterWith == nil, j < crossings.count,
                crossings[j].timestamp_s - c.timestamp_s <= settings.flutterWindow_s
            {
                if crossings[j].to != c.to {
                    reversal = reversal ?? crossings[j]
                    if noiseLike(c, crossings[j]) { flutterWith = crossings[j] }
                }
                j += 1
            }
            if let other = flutterWith {
                result.append(
                    Divergence(
                        kind: .ruleFlutter, timestamp_s: c.timestamp_s, decisionIndex: c.decisionIndex,
                        detail:
                            "engine went \(c.to) with no system event, \(DurationText.seconds(abs(other.timestamp_s - c.timestamp_s))) from an opposite crossing"
                    ))
            } else if let other = reversal {
                result.append(
                    Divergence(
                        kind: .missingSystemEvent, timestamp_s: c.timestamp_s, decisionIndex: c.decisionIndex,
                        detail:
                            "engine went \(c.to) with no system event, \(DurationText.seconds(abs(other.timestamp_s - c.timestamp_s))) from an opposite crossing; "
                            + "a fix lies clearly beyond the band (distance ± accuracy), so this is a short genuine \(c.to == .inside ? "visit" : "absence"), not flutter"
                    ))
            } else {
                result.append(
                    Divergence(
                        kind: .missingSystemEvent, timestamp_s: c.timestamp_s, decisionIndex: c.decisionIndex,
                        detail:
                            "engine went \(c.to) and stayed; no system event within ±\(DurationText.seconds(settings.matchWindow_s))"
                    ))
            }
        }
        return result
    }

    /// Step 6.
    private static func staleFixes(
        _ decisions: [EngineDecision], events: [SystemEvent], eventOrder: [Int], settings: DivergenceSettings
    ) -> [Divergence] {
        var result: [Divergence] = []
        var frontier_s = -Double.infinity
        for d in decisions where d.timestamp_s.isFinite {
            frontier_s = max(frontier_s, d.timestamp_s)
            guard let reason = d.rejectionReason, settings.staleReasons.contains(reason) else { continue }
            var nearest: (index: Int, gap: Double)?
            for e in eventOrder {
                let gap = abs(events[e].timestamp_s - frontier_s)
                if gap <= settings.staleWindow_s, gap < (nearest?.gap ?? .infinity) { nearest = (e, gap) }
            }
            if let nearest {
                result.append(
                    Divergence(
                        kind: .staleFix, timestamp_s: frontier_s, decisionIndex: d.index,
                        relatedEventIndex: nearest.index,
                        detail:
                            "fix rejected as \(reason) \(DurationText.seconds(nearest.gap)) from an \(events[nearest.index].kind) event"
                    ))
            }
        }
        return result
    }
}
