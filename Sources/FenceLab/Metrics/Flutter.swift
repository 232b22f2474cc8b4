import GSLKit
import GeoPolicy

/// Direction of an inside/outside transition.
package enum TransitionDirection: String, Sendable, Hashable, Codable, CaseIterable {
    /// outside → inside.
    case entered
    /// inside → outside.
    case exited

    /// The other direction.
    package var opposite: TransitionDirection { self == .entered ? .exited : .entered }
}

/// One inside/outside transition at a time.
package struct Transition: Sendable, Hashable {
    /// Time of the fix that caused the transition, in seconds (scenario-relative).
    package var time_s: Double
    package var direction: TransitionDirection

    package init(time_s: Double, direction: TransitionDirection) {
        self.time_s = time_s
        self.direction = direction
    }
}

/// The fence state after one fix.
package struct StateSample: Sendable, Hashable {
    /// Time of the fix in seconds.
    package var time_s: Double
    package var state: FenceState

    package init(time_s: Double, state: FenceState) {
        self.time_s = time_s
        self.state = state
    }
}

/// An observed transition matched to a true one.
package struct TransitionMatch: Sendable, Hashable {
    /// Index into the observed transitions.
    package var observedIndex: Int
    /// Index into the true transitions.
    package var truthIndex: Int
    /// observed.time_s − truth.time_s (negative: the observation switched early).
    package var latency_s: Double

    package init(observedIndex: Int, truthIndex: Int, latency_s: Double) {
        self.observedIndex = observedIndex
        self.truthIndex = truthIndex
        self.latency_s = latency_s
    }
}

/// Flutter figures of one replicate (docs/metrics.md, `flutter`).
package struct FlutterMetrics: Sendable, Hashable {
    /// Observed transitions.
    package var transitions: Int
    /// Transitions of the rule run on the noiseless truth.
    package var truthTransitions: Int
    /// Observed transitions without a true match.
    package var spurious: Int
    /// True transitions without an observed match.
    package var missed: Int
    /// Observed transitions followed by an opposite observed transition within the window.
    package var flaps: Int
    /// Median of matched latencies in seconds; nil when nothing matched.
    package var latencyMedian_s: Double?
    /// 95th percentile (type 7) of matched latencies in seconds; nil when nothing matched.
    package var latencyP95_s: Double?
    /// Fixes where the WGS84 and Haversine distances would decide differently; set by the runner.
    package var modelDisagreements: Int?
    /// The matched pairs, in observed order.
    package var matches: [TransitionMatch]

    package init(
        transitions: Int, truthTransitions: Int, spurious: Int, missed: Int, flaps: Int,
        latencyMedian_s: Double?, latencyP95_s: Double?, modelDisagreements: Int? = nil,
        matches: [TransitionMatch] = []
    ) {
        self.transitions = transitions
        self.truthTransitions = truthTransitions
        self.spurious = spurious
        self.missed = missed
        self.flaps = flaps
        self.latencyMedian_s = latencyMedian_s
        self.latencyP95_s = latencyP95_s
        self.modelDisagreements = modelDisagreements
        self.matches = matches
    }
}

/// Flutter measurement: matching observed transitions to the true ones.
package enum Flutter {
    /// Default matching window (docs/metrics.md), seconds.
    package static let defaultWindow_s = 60.0

    /// Inside/outside transitions of a state sequence.
    ///
    /// `unknown` is skipped: a transition is recorded when a determined state differs
    /// from the last determined state (so inside → unknown → outside is one `exited` at the
    /// time of the `outside` sample; the first determination is not a transition).
    package static func transitions(of states: [StateSample]) -> [Transition] {
        var last: FenceState?
        var result: [Transition] = []
        for sample in states where sample.state != .unknown {
            if let previous = last, previous != sample.state {
                result.append(
                    Transition(time_s: sample.time_s, direction: sample.state == .inside ? .entered : .exited))
            }
            last = sample.state
        }
        return result
    }

    /// Matches `observed` to `truth` and counts spurious, missed and flapping transitions.
    ///
    /// Matching (greedy in time order): observed transitions are visited in order; each is
    /// matched to the earliest not-yet-matched true transition of the same direction with
    /// |observed − truth| ≤ `window_s` (inclusive). Each true transition is matched at most
    /// once. For points on a line with a symmetric window this greedy order yields a maximum
    /// matching. A flap is an observed transition followed by an observed transition of the
    /// opposite direction at most `window_s` later.
    /// - Parameters:
    ///   - truth, observed: sorted by time (non-decreasing), finite times.
    ///   - window_s: finite, > 0.
    package static func measure(
        truth: [Transition], observed: [Transition],
        window_s: Double = defaultWindow_s
    ) throws(MetricsError) -> FlutterMetrics {
        var buffers = Buffers()
        return try measure(truth: truth, observed: observed, window_s: window_s, buffers: &buffers)
    }

    /// The arrays `measure` works in, kept by a caller that measures many rules (a sweep's
    /// worker): filled afresh at each call, so that once they are large enough a call allocates
    /// nothing. The metrics share `matches`' storage until they are dropped.
    package struct Buffers: Sendable {
        var truthUsed: [Bool] = []
        var matches: [TransitionMatch] = []
        package init() {}
    }

    /// `measure(truth:observed:window_s:)` in `buffers` (the same metrics).
    package static func measure(
        truth: [Transition], observed: [Transition], window_s: Double = defaultWindow_s,
        buffers: inout Buffers
    ) throws(MetricsError) -> FlutterMetrics {
        guard window_s.isFinite, window_s > 0 else {
            throw .invalidValue(key: "window_s", value: "\(window_s)", reason: "must be finite and > 0")
        }
        try checkSorted(truth, key: "truth")
        try checkSorted(observed, key: "observed")
        buffers.truthUsed.removeAll(keepingCapacity: true)
        buffers.truthUsed.append(contentsOf: repeatElement(false, count: truth.count))
        buffers.matches.removeAll(keepingCapacity: true)
        var firstCandidate = 0
        for (i, o) in observed.enumerated() {
            while firstCandidate < truth.count, truth[firstCandidate].time_s < o.time_s - window_s {
                firstCandidate += 1
            }
            var j = firstCandidate
            while j < truth.count, truth[j].time_s <= o.time_s + window_s {
                if !buffers.truthUsed[j], truth[j].direction == o.direction {
                    buffers.truthUsed[j] = true
                    buffers.matches.append(
                        TransitionMatch(observedIndex: i, truthIndex: j, latency_s: o.time_s - truth[j].time_s))
                    break
                }
                j += 1
            }
        }
        var flaps = 0
        for (i, o) in observed.enumerated() {
            var k = i + 1
            while k < observed.count, observed[k].time_s - o.time_s <= window_s {
                if observed[k].direction == o.direction.opposite {
                    flaps += 1
                    break
                }
                k += 1
            }
        }
        // Selected in a temporary copy of the latencies (no array made).
        let q = try Visits.medianP95(buffers.matches.lazy.map(\.latency_s))
        return FlutterMetrics(
            transitions: observed.count, truthTransitions: truth.count,
            spurious: observed.count - buffers.matches.count, missed: truth.count - buffers.matches.count,
            flaps: flaps, latencyMedian_s: q?.median, latencyP95_s: q?.p95,
            modelDisagreements: nil, matches: buffers.matches)
    }

    private static func checkSorted(_ list: [Transition], key: String) throws(MetricsError) {
        for (i, t) in list.enumerated() {
            guard t.time_s.isFinite else {
                throw .invalidValue(key: "\(key)[\(i)].time_s", value: "\(t.time_s)", reason: "must be finite")
            }
            if i > 0, t.time_s < list[i - 1].time_s {
                throw .invalidValue(
                    key: "\(key)[\(i)].time_s", value: "\(t.time_s)",
                    reason: "transitions must be sorted by time; previous is \(list[i - 1].time_s)")
            }
        }
    }
}
