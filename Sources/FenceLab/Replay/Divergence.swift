import DeviceLogKit
import GeoPolicy
import ReportKit

/// One decision of the engine for one logged fix, as the divergence classifier needs it.
package struct EngineDecision: Sendable, Hashable {
    // Stored compactly (32 bytes instead of 72 with a `String?` and two `Double?`): a replay keeps
    // one per fix of the log. Absent distance/accuracy are flagged, the reason is a small code.
    /// Time of the fix in seconds (same clock as the system events).
    package var timestamp_s: Double
    private var distanceValue: Double
    private var accuracyValue: Double
    private var indexValue: Int32
    /// Fence state before the fix.
    package var oldState: FenceState
    /// Fence state after the fix (equal to `oldState` when rejected).
    package var newState: FenceState
    /// 0 when accepted, else 1 + the reason's position in `RejectionReason.allCases`.
    private var rejectionCode: UInt8
    private var present: UInt8

    private static let reasons = RejectionReason.allCases

    /// Index of the fix in the device log (`DeviceLog.fixes[index]`); at most `Int32.max`
    /// (logs are limited to 256 MiB, far fewer fixes).
    package var index: Int {
        get { Int(indexValue) }
        set { indexValue = Int32(clamping: newValue) }
    }
    /// Why the engine rejected the fix, `nil` when accepted.
    package var rejection: RejectionReason? {
        get { rejectionCode == 0 ? nil : Self.reasons[Int(rejectionCode) - 1] }
        set { rejectionCode = newValue.flatMap { r in Self.reasons.firstIndex(of: r).map { UInt8($0 + 1) } } ?? 0 }
    }
    /// `rejection` as text (`"stale"`, `"inaccurate"`, …), `nil` when accepted.
    package var rejectionReason: String? { rejection?.rawValue }
    /// Distance of the fix from the fence centre and its reported accuracy, metres; nil when not
    /// known (then a quick reversal is judged by timing alone).
    package var distance_m: Double? {
        get { present & 1 != 0 ? distanceValue : nil }
        set {
            distanceValue = newValue ?? 0
            present = newValue == nil ? present & ~1 : present | 1
        }
    }
    package var accuracy_m: Double? {
        get { present & 2 != 0 ? accuracyValue : nil }
        set {
            accuracyValue = newValue ?? 0
            present = newValue == nil ? present & ~2 : present | 2
        }
    }

    package init(
        index: Int, timestamp_s: Double, oldState: FenceState, newState: FenceState, rejection: RejectionReason? = nil,
        distance_m: Double? = nil, accuracy_m: Double? = nil
    ) {
        self.timestamp_s = timestamp_s
        distanceValue = 0
        accuracyValue = 0
        indexValue = Int32(clamping: index)
        self.oldState = oldState
        self.newState = newState
        rejectionCode = 0
        present = 0
        self.rejection = rejection
        self.distance_m = distance_m
        self.accuracy_m = accuracy_m
    }

    /// True when the engine accepted the fix.
    package var isAccepted: Bool { rejectionCode == 0 }
}

/// The kinds of disagreement between the engine's decisions and the system's events.
package enum DivergenceClass: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// The engine crossed the fence and crossed back within the flutter window, with no system
    /// event for the crossing, and every fix of that reversal lies within the hysteresis band
    /// widened by its accuracy (noise can explain it): the business rules flutter. A reversal with
    /// a fix clearly inside or outside (distance ± accuracy beyond the band) is a genuine short
    /// visit or absence, not flutter.
    case ruleFlutter
    /// A system event that neither matches nor (late) follows an engine transition: the accepted
    /// fixes around it say otherwise, or there are none.
    case unsupportedSystemEvent
    /// A system event whose matching engine transition happened more than the match window before.
    case lateSystemEvent
    /// The same event delivered again within the duplicate window with no opposite event between.
    case duplicateSystemEvent
    /// A fix the engine rejected as stale within the stale window of a system event.
    case staleFix
    /// An engine crossing (inside↔outside) that no system event reports and that does not flutter.
    case missingSystemEvent

    package var description: String { rawValue }
}

/// Windows and pass criteria of the divergence classifier.
package struct DivergenceSettings: Sendable, Hashable {
    /// An event matches an engine transition into its state when |event − transition| ≤ this (s, ≥ 0).
    package var matchWindow_s: Double
    /// An unmatched crossing flutters when an opposite crossing lies within this (s, ≥ 0).
    package var flutterWindow_s: Double
    /// A repeat of the same event within this of the first delivery is a duplicate (s, ≥ 0).
    package var duplicateWindow_s: Double
    /// Accepted fixes within ± this of an unsupported event are counted as its evidence (s, ≥ 0).
    package var supportWindow_s: Double
    /// A stale fix within ± this of an event is reported (s, ≥ 0).
    package var staleWindow_s: Double
    /// Rejection reasons that mean "stale fix".
    package var staleReasons: Set<String>
    /// Classes that make a device log fail; the others are reported but tolerated.
    package var failingClasses: Set<DivergenceClass>
    /// The rule's band (enter and exit radius; one radius twice for single-radius rules), metres;
    /// nil judges reversals by timing alone. `DeviceReplay` sets it from the rule.
    package var band_m: FlutterBand?

    /// Defaults: match 60 s (iOS region monitoring confirms a crossing after roughly 20 s and the
    /// app logs with its own delay), flutter 60 s (the flutter window of docs/metrics.md), duplicate 30 s
    /// (observed re-deliveries come within seconds), support 60 s, stale 60 s; failing classes:
    /// rule flutter, unsupported, late and missing system events. Duplicates are tolerated because
    /// the app must deduplicate (seed 000: the same state never books twice); stale fixes are
    /// tolerated because rejecting them is the engine doing its job.
    package init(
        matchWindow_s: Double = 60, flutterWindow_s: Double = 60, duplicateWindow_s: Double = 30,
        supportWindow_s: Double = 60, staleWindow_s: Double = 60, staleReasons: Set<String> = ["stale"],
        failingClasses: Set<DivergenceClass> = [
            .ruleFlutter, .unsupportedSystemEvent, .lateSystemEvent, .missingSystemEvent,
        ]
    ) {
        self.matchWindow_s = matchWindow_s
        self.flutterWindow_s = flutterWindow_s
        self.duplicateWindow_s = duplicateWindow_s
        self.supportWindow_s = supportWindow_s
        self.staleWindow_s = staleWindow_s
        self.staleReasons = staleReasons
        self.failingClasses = failingClasses
    }
}

/// The radii between which a reversal may be noise (`DivergenceSettings.band_m`), metres.
package struct FlutterBand: Sendable, Hashable {
    /// Enter radius (inner edge), finite, ≥ 0.
    package var inner_m: Double
    /// Exit radius (outer edge), finite, ≥ `inner_m`.
    package var outer_m: Double
    package init(inner_m: Double, outer_m: Double) {
        self.inner_m = inner_m
        self.outer_m = outer_m
    }

    /// True when a fix at `distance_m` with accuracy `accuracy_m` lies within the band widened by
    /// its accuracy: inner − accuracy ≤ distance ≤ outer + accuracy. A fix without a finite
    /// distance or a finite, non-negative accuracy gives no evidence either way (true).
    package func admits(distance_m: Double?, accuracy_m: Double?) -> Bool {
        guard let d = distance_m, let a = accuracy_m, d.isFinite, a.isFinite, a >= 0 else { return true }
        return d >= inner_m - a && d <= outer_m + a
    }
}

/// One classified divergence. Carries indices and times, never coordinates.
package struct Divergence: Sendable, Hashable {
    package var kind: DivergenceClass
    /// Time the divergence is about, seconds: the event's, the transition's, or for a stale fix
    /// its estimated delivery time (the newest fix timestamp seen up to it).
    package var timestamp_s: Double
    /// The engine decision involved (flutter, missing, late, stale), as `EngineDecision.index`.
    package var decisionIndex: Int?
    /// The system event involved, as an index into the `events` array given to the classifier.
    package var eventIndex: Int?
    /// The other event involved: the first delivery for a duplicate, the nearest event for a stale fix.
    package var relatedEventIndex: Int?
    /// For a late event: event time − transition time, seconds (> match window);
    /// for a duplicate: time since the first delivery, seconds.
    package var delay_s: Double?
    /// For an unsupported event: the engine's state at the event time.
    package var engineState: FenceState?
    /// For an unsupported event: accepted fixes within the support window.
    package var acceptedFixesNearby: Int?
    /// One line explaining the classification.
    package var detail: String

    package init(
        kind: DivergenceClass, timestamp_s: Double, decisionIndex: Int? = nil, eventIndex: Int? = nil,
        relatedEventIndex: Int? = nil, delay_s: Double? = nil, engineState: FenceState? = nil,
        acceptedFixesNearby: Int? = nil, detail: String
    ) {
        self.kind = kind
        self.timestamp_s = timestamp_s
        self.decisionIndex = decisionIndex
        self.eventIndex = eventIndex
        self.relatedEventIndex = relatedEventIndex
        self.delay_s = delay_s
        self.engineState = engineState
        self.acceptedFixesNearby = acceptedFixesNearby
        self.detail = detail
    }
}

/// An engine transition and the system event that reports it.
package struct MatchedPair: Sendable, Hashable {
    /// Index into the `events` array given to the classifier.
    package var eventIndex: Int
    /// `EngineDecision.index` of the transition.
    package var decisionIndex: Int
    /// Event time − transition time, seconds (positive: the system was later).
    package var delay_s: Double

    package init(eventIndex: Int, decisionIndex: Int, delay_s: Double) {
        self.eventIndex = eventIndex
        self.decisionIndex = decisionIndex
        self.delay_s = delay_s
    }
}

/// Device-level verdict of one log.
package enum DeviceCheckStatus: String, Sendable, Hashable, Codable {
    case passed
    case failed
}

/// The classifier's result: matched pairs, divergences by time, and the verdict.
package struct DivergenceReport: Sendable, Hashable {
    package var matched: [MatchedPair]
    package var divergences: [Divergence]
    package var settings: DivergenceSettings
    /// `failed` when any divergence belongs to `settings.failingClasses`.
    package var status: DeviceCheckStatus { failing.isEmpty ? .passed : .failed }
    package init(matched: [MatchedPair], divergences: [Divergence], settings: DivergenceSettings) {
        self.matched = matched
        self.divergences = divergences
        self.settings = settings
    }

    /// The divergences that fail the log.
    package var failing: [Divergence] { divergences.filter { settings.failingClasses.contains($0.kind) } }

    /// Number of divergences per class (every class present, zero when none).
    package var counts: [DivergenceClass: Int] {
        Dictionary(uniqueKeysWithValues: DivergenceClass.allCases.map { ($0, count($0)) })
    }

    /// Number of divergences of a class.
    package func count(_ kind: DivergenceClass) -> Int { divergences.reduce(0) { $0 + ($1.kind == kind ? 1 : 0) } }
}

/// Compares the engine's decisions with the system's region events (pure; no I/O, no clock).
///
/// Algorithm (windows from `DivergenceSettings`), all on the events' and decisions' timestamps:
/// 1. Engine transitions are accepted decisions whose state changes to inside or outside;
///    those from inside/outside are crossings, those from unknown are determinations.
/// 2. Events in time order: a repeat of the previous kept event's kind within the duplicate
///    window of it is a duplicate and takes no further part.
/// 3. Each remaining event is matched to the nearest unmatched transition into its claimed
///    state within ± the match window.
/// 4. An unmatched event is late when the latest transition before it is a crossing into its
///    claimed state, is unmatched and lies more than the match window earlier; otherwise it is
///    unsupported (evidence: the engine state at the event and the accepted fixes nearby).
/// 5. An unmatched crossing with an opposite crossing within the flutter window is rule flutter
///    when every accepted fix from the one crossing to the other lies within the band widened by
///    its accuracy (`FlutterBand.admits`; always, without a band); otherwise it is a missing system
///    event (a genuine short visit nobody reported). Unmatched determinations are not divergences
///    (systems need not report the initial state).
/// 6. A decision rejected for a stale reason is a stale fix when an event lies within the stale
///    window of its delivery time. A stale fix's own timestamp is old by definition, so its delivery
///    time is estimated as the newest timestamp among the decisions up to it (in the given order,
///    which is the order the log delivered the fixes).
package enum DivergenceClassifier {
    /// The accepted decisions with finite times, in time order, as a view of the decisions, with
    /// their times and, under a band, how many of them the band does not admit, as prefix counts.
    private struct AcceptedDecisions: RandomAccessCollection {
        let decisions: [EngineDecision]
        let order: [Int]
        let times: SortedTimes
        /// beyondBand[i]: fixes among the first i that the band does not admit (empty without a band).
        let beyondBand: [Int32]

        init(decisions: [EngineDecision], order: [Int], band: FlutterBand?) {
            self.decisions = decisions
            self.order = order
            times = SortedTimes(times: order.map { decisions[$0].timestamp_s })
            var counts: [Int32] = []
            if let band {
                counts.reserveCapacity(order.count + 1)
                var n: Int32 = 0
                counts.append(0)
                for i in order {
                    if !band.admits(distance_m: decisions[i].distance_m, accuracy_m: decisions[i].accuracy_m) { n += 1 }
                    counts.append(n)
                }
            }
            beyondBand = counts
        }

        var startIndex: Int { 0 }
        var endIndex: Int { order.count }
        subscript(position: Int) -> EngineDecision { decisions[order[position]] }

        /// True when every fix from t0 to t1 (inclusive) lies within the band widened by its
        /// accuracy (always without a band).
        func admitted(from t0: Double, through t1: Double) -> Bool {
            guard !beyondBand.isEmpty else { return true }
            let low = times.firstNotBefore(t0)
            let high = Swift.max(low, times.countAtOrBefore(t1))
            return beyondBand[high] == beyondBand[low]
        }
    }

    private struct Transition {
        var decisionIndex: Int
        var timestamp_s: Double
        var to: FenceState
        var isCrossing: Bool
        var consumed = false
    }

    /// The transitions in time order, with the unconsumed ones of each target state indexed for
    /// the nearest-match search.
    private struct Transitions {
        var all: [Transition]
        let times: SortedTimes
        /// Per target state (`slot`: inside 0, outside 1): the positions in `all` and their times.
        let byTarget: [(positions: [Int], times: SortedTimes)]
        /// Per target state, its unconsumed entries (positions into its `byTarget` list).
        var unconsumed: [ShrinkingPositions]
        /// For each transition, its position in its target's list.
        let rank: [Int]

        static func slot(_ state: FenceState) -> Int? {
            switch state {
            case .inside: return 0
            case .outside: return 1
            case .unknown: return nil
            }
        }

        init(_ all: [Transition]) {
            self.all = all
            times = SortedTimes(times: all.map(\.timestamp_s))
            var lists: [[Int]] = [[], []]
            var rank = [Int](repeating: 0, count: all.count)
            for (k, t) in all.enumerated() {
                guard let s = Self.slot(t.to) else { continue }
                rank[k] = lists[s].count
                lists[s].append(k)
            }
            self.rank = rank
            byTarget = lists.map { ($0, SortedTimes(times: $0.map { all[$0].timestamp_s })) }
            unconsumed = lists.map { ShrinkingPositions(count: $0.count) }
        }

        mutating func consume(_ k: Int) {
            all[k].consumed = true
            if let s = Self.slot(all[k].to) { unconsumed[s].remove(rank[k]) }
        }

        /// Step 3: the unconsumed transition into `target` nearest to `t` within `window` (the
        /// first in time order among equally near ones), or nil.
        mutating func nearest(to t: Double, target: FenceState, window: Double) -> Int? {
            guard let s = Self.slot(target) else { return nil }
            let list = byTarget[s]
            let split = list.times.countAtOrBefore(t)
            let before = unconsumed[s].last(atOrBefore: split - 1)
            let after = unconsumed[s].first(atOrAfter: split)
            let found = list.times.nearest(to: t, before: before, after: after) {
                unconsumed[s].first(atOrAfter: $0)
            }
            guard let found, found.gap <= window else { return nil }
            return list.positions[found.position]
        }
    }

    package static func classify(
        decisions: [EngineDecision], events: [SystemEvent], settings: DivergenceSettings = DivergenceSettings()
    ) -> DivergenceReport {
        // Positions of the accepted decisions in time order (ties in the given order): positions,
        // not copies, so a long log costs 20 bytes per accepted fix here (position, time, count).
        var order = decisions.indices.filter { decisions[$0].isAccepted && decisions[$0].timestamp_s.isFinite }
        if zip(order, order.dropFirst()).contains(where: { decisions[$0].timestamp_s > decisions[$1].timestamp_s }) {
            order.sort { (decisions[$0].timestamp_s, $0) < (decisions[$1].timestamp_s, $1) }
        }
        let accepted = AcceptedDecisions(decisions: decisions, order: order, band: settings.band_m)
        var transitions = Transitions(
            accepted.filter { $0.newState != $0.oldState && $0.newState != .unknown }.map {
                Transition(
                    decisionIndex: $0.index, timestamp_s: $0.timestamp_s, to: $0.newState,
                    isCrossing: $0.oldState != .unknown)
            })
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
            if let k = transitions.nearest(
                to: event.timestamp_s, target: event.kind.claimedState, window: settings.matchWindow_s)
            {
                transitions.consume(k)
                matched.append(
                    MatchedPair(
                        eventIndex: e, decisionIndex: transitions.all[k].decisionIndex,
                        delay_s: event.timestamp_s - transitions.all[k].timestamp_s))
            } else {
                unmatchedEvents.append(e)
            }
        }
        for e in unmatchedEvents {
            divergences.append(
                lateOrUnsupported(e, events: events, transitions: &transitions, accepted: accepted, settings: settings))
        }
        divergences += unmatchedCrossings(transitions.all, accepted: accepted, settings: settings)
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
        _ e: Int, events: [SystemEvent], transitions: inout Transitions, accepted: AcceptedDecisions,
        settings: DivergenceSettings
    ) -> Divergence {
        let event = events[e]
        let target = event.kind.claimedState
        let latest = transitions.times.countAtOrBefore(event.timestamp_s) - 1
        if latest >= 0, case let t = transitions.all[latest],
            t.to == target, t.isCrossing, !t.consumed,
            event.timestamp_s - t.timestamp_s > settings.matchWindow_s
        {
            transitions.consume(latest)
            let delay = event.timestamp_s - t.timestamp_s
            return Divergence(
                kind: .lateSystemEvent, timestamp_s: event.timestamp_s, decisionIndex: t.decisionIndex,
                eventIndex: e, delay_s: delay,
                detail:
                    "\(event.kind) arrived \(DurationText.seconds(delay)) after the engine went \(target) (window \(DurationText.seconds(settings.matchWindow_s)))"
            )
        }
        let upTo = accepted.times.countAtOrBefore(event.timestamp_s)
        let state = upTo > 0 ? accepted[upTo - 1].newState : .unknown
        let nearby = accepted.times.within(settings.supportWindow_s, of: event.timestamp_s).count
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
    ///
    /// Of the opposite crossings within the flutter window, the nearest one before is tried
    /// first, then the nearest one after: a farther opposite crossing on the same side spans
    /// every fix the nearer one spans, so it is noise-like only when the nearer one is.
    private static func unmatchedCrossings(
        _ transitions: [Transition], accepted: AcceptedDecisions,
        settings: DivergenceSettings
    ) -> [Divergence] {
        let crossings = transitions.filter(\.isCrossing)
        /// Every accepted fix between the two crossings (inclusive) admitted by the widened band.
        func noiseLike(_ a: Transition, _ b: Transition) -> Bool {
            accepted.admitted(from: min(a.timestamp_s, b.timestamp_s), through: max(a.timestamp_s, b.timestamp_s))
        }
        // The nearest crossing before and after each one whose direction is the opposite.
        var oppositeBefore = [Int?](repeating: nil, count: crossings.count)
        var oppositeAfter = [Int?](repeating: nil, count: crossings.count)
        var lastInto: [FenceState: Int] = [:]
        for (k, c) in crossings.enumerated() {
            oppositeBefore[k] = lastInto[c.to == .inside ? .outside : .inside]
            lastInto[c.to] = k
        }
        lastInto = [:]
        for k in crossings.indices.reversed() {
            oppositeAfter[k] = lastInto[crossings[k].to == .inside ? .outside : .inside]
            lastInto[crossings[k].to] = k
        }
        var result: [Divergence] = []
        for (k, c) in crossings.enumerated() where !c.consumed {
            let before = oppositeBefore[k].map { crossings[$0] }.flatMap {
                c.timestamp_s - $0.timestamp_s <= settings.flutterWindow_s ? $0 : nil
            }
            let after = oppositeAfter[k].map { crossings[$0] }.flatMap {
                $0.timestamp_s - c.timestamp_s <= settings.flutterWindow_s ? $0 : nil
            }
            let reversal = before ?? after
            var flutterWith: Transition?
            if let b = before, noiseLike(b, c) {
                flutterWith = b
            } else if let a = after, noiseLike(c, a) {
                flutterWith = a
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
        let times = SortedTimes(times: eventOrder.map { events[$0].timestamp_s })
        for d in decisions where d.timestamp_s.isFinite {
            frontier_s = max(frontier_s, d.timestamp_s)
            guard let reason = d.rejectionReason, settings.staleReasons.contains(reason) else { continue }
            // The first event in time order at the smallest gap, when that gap is within the window.
            let split = times.countAtOrBefore(frontier_s)
            let found = times.nearest(
                to: frontier_s, before: split > 0 ? split - 1 : nil, after: split < times.count ? split : nil
            ) { $0 }
            var nearest: (index: Int, gap: Double)?
            if let found, found.gap <= settings.staleWindow_s, found.gap < .infinity {
                nearest = (eventOrder[found.position], found.gap)
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
