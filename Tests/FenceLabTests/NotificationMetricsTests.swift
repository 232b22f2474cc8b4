import DriveSim
import FenceLab
import Foundation
import GSLKit
import GeoPolicy
import Testing
import _TestSupport

/// Notification figures on hand-built timelines with known answers (docs/metrics.md "Notifications").
@Suite struct NotificationMetricsTests {
    static let timeTolerance_s = 1e-9
    static let rateTolerance_perHour = 1e-9

    static func entry(_ t: Double) -> FenceNotification { FenceNotification(time_s: t, kind: .entry) }
    static func exit(_ t: Double) -> FenceNotification { FenceNotification(time_s: t, kind: .exit) }
    static func dwell(_ t: Double) -> FenceNotification { FenceNotification(time_s: t, kind: .dwell) }

    /// Without a policy the notifications are the observed visits: wanted entries are the matched
    /// visits, unwanted entries the fragments plus the false visits, as `Visits.measure` counts them.
    @Test func withoutAPolicyTheCountsAreThoseOfTheVisits() throws {
        let truth = [Visit(start_s: 100, end_s: 700), Visit(start_s: 1500, end_s: 2000, openAtEnd: true)]
        let states: [(Double, FenceState)] = [
            (0, .unknown), (10, .outside), (90, .inside), (300, .outside), (320, .inside), (710, .outside),
            (1000, .inside), (1010, .unknown), (1020, .outside), (1490, .inside),
        ]
        let samples = states.map { StateSample(time_s: $0.0, state: $0.1) }
        let changes = NotificationMetrics.changes(of: samples)
        #expect(changes.map(\.time_s) == [10, 90, 300, 320, 710, 1000, 1020, 1490])
        let notes = NotificationPolicy.none.notifications(of: changes, end_s: 2000)
        let n = try NotificationMetrics.measure(truth: truth, notifications: notes, duration_s: 2000, dwell_s: nil)
        let v = try Visits.measure(
            truth: truth, observed: Visits.observedVisits(of: samples, end_s: 2000), duration_s: 2000)
        #expect(n.entries == 4 && n.exits == 3 && n.dwells == 0)
        #expect(n.unwantedEntries == v.fragments + v.falseVisits)
        #expect(n.entries - n.unwantedEntries == v.matchedVisits)
        // Unwanted: the fragment's entry (320) and the flap's exit before it (300), the false
        // visit's entry and exit (1000, 1020). The fragment's exit at 710 is the true exit.
        #expect(n.unwantedEntries == 2 && n.unwantedExits == 2 && n.unwanted == 4)
        #expect(isClose(n.unwantedPerHour, 4 / (2000.0 / 3600), absoluteTolerance: Self.rateTolerance_perHour))
        #expect(isClose(try #require(n.entriesPerTrueVisit), 2, absoluteTolerance: 1e-12))
        #expect(n.dwellRecall == nil && n.falseDwellsPerHour == nil && n.dwellLatencyP95_s == nil)
    }

    /// Dwells: a matched one with its latency, a false one in a visit shorter than T, a repeat
    /// from a fragment of a long visit.
    @Test func dwellsAreMatchedFalseOrRepeated() throws {
        let truth = [Visit(start_s: 100, end_s: 1000), Visit(start_s: 2000, end_s: 2100)]
        let notes = [
            Self.entry(110), Self.dwell(410), Self.exit(500),  // matched, latency 410 − (100 + 300) = 10 s
            Self.entry(520), Self.dwell(820), Self.exit(990),  // a fragment of the first visit: repeat dwell
            Self.entry(1990), Self.dwell(2290), Self.exit(2300),  // a 100 s visit: the dwell is false
            Self.entry(5000),  // open at the end, a false visit, no dwell yet
        ]
        let n = try NotificationMetrics.measure(truth: truth, notifications: notes, duration_s: 5100, dwell_s: 300)
        #expect(n.dwellVisits == 1 && n.matchedDwells == 1)
        #expect(isClose(try #require(n.dwellRecall), 1, absoluteTolerance: 1e-12))
        #expect(n.falseDwells == 1 && n.repeatDwells == 1)
        #expect(isClose(try #require(n.dwellLatencyMedian_s), 10, absoluteTolerance: Self.timeTolerance_s))
        // Unwanted: entries 520 and 5000, the flap's exit 500, dwells 820 and 2290.
        #expect(n.unwantedEntries == 2 && n.unwantedExits == 1 && n.unwanted == 5)
        #expect(
            isClose(
                try #require(n.falseDwellsPerHour), 1 / (5100.0 / 3600), absoluteTolerance: Self.rateTolerance_perHour)
        )
    }

    /// An exit is wanted only as a visit's true exit: not while the user is still inside.
    @Test func exitsWhileInsideAreUnwanted() throws {
        let truth = [Visit(start_s: 100, end_s: 1000), Visit(start_s: 3000, end_s: 4000, openAtEnd: true)]
        // Visit 1: entered on time, a flap out at 400 with the cooldown silencing the re-entry: the
        // exit at 400 is unwanted and the true exit is never told. Visit 2 is open: its exit is unwanted.
        let notes = [Self.entry(100), Self.exit(400), Self.entry(3000), Self.exit(3500), Self.entry(3600)]
        let n = try NotificationMetrics.measure(truth: truth, notifications: notes, duration_s: 4000, dwell_s: nil)
        #expect(n.unwantedEntries == 1 && n.unwantedExits == 2 && n.unwanted == 3)
        // Told at 990, within the slack before the true exit: wanted.
        let onTime = try NotificationMetrics.measure(
            truth: [truth[0]], notifications: [Self.entry(100), Self.exit(990)], duration_s: 4000, dwell_s: nil)
        #expect(onTime.unwanted == 0)
    }

    @Test func inconsistentSequencesAndBadParametersAreRefused() {
        let truth: [Visit] = []
        for notes in [
            [Self.exit(5)], [Self.entry(1), Self.entry(2)], [Self.dwell(3)],
            [Self.entry(5), Self.exit(4)], [Self.entry(.nan)],
        ] {
            #expect(throws: MetricsError.self) {
                try NotificationMetrics.measure(truth: truth, notifications: notes, duration_s: 100, dwell_s: 10)
            }
        }
        #expect(throws: MetricsError.self) {
            try NotificationMetrics.measure(
                truth: truth, notifications: [Self.entry(1), Self.dwell(2)], duration_s: 100, dwell_s: nil)
        }
        for (duration, slack, dwell) in [(0.0, 60.0, 10.0), (100, -1, 10), (100, 60, 0), (100, 60, .infinity)] {
            #expect(throws: MetricsError.self) {
                try NotificationMetrics.measure(
                    truth: truth, notifications: [], duration_s: duration, matchSlack_s: slack, dwell_s: dwell)
            }
        }
    }

    /// A noiseless walk through the place three times (200 s inside each): a 60 s loitering delay
    /// dwells in every visit on time (recall 1, latency within one 1 s fix of 0); 300 s, longer
    /// than every visit, never dwells.
    @Test(arguments: [(60.0, true), (300.0, false)])
    func noiselessVisitsDwellExactlyWhenLongEnough(dwell_s: Double, long: Bool) throws {
        let m = EarthModel.sphereRadius_m * .pi / 180
        let east = 300 / m
        let json = """
            {"name": "walk-through", "description": "noiseless walks through the place", "rulesVersion": "threshold-100",
             "seed": 3, "replicates": 2,
             "fence": {"center": [0, 0], "rule": {"kind": "threshold", "radius_m": 100}},
             "place": {"radius_m": 100, "mergeGap_s": 0},
             "route": {"kind": "waypoints", "points": [[0, \(east)], [0, \(-east)], [0, \(east)], [0, \(-east)]],
                       "speed": {"profile": "constant", "speed_kmh": 3.6}},
             "sampling": {"rate_hz": 1, "duration_s": 1800},
             "noise": {"model": "gaussian", "sigma_m": 0}, "accuracy": {"model": "fixed", "value_m": 5}}
            """
        let scenario = try RuleLab.scenario(json: json)
        let result = try RuleLab().run(
            scenario: scenario, rule: try Threshold(radius_m: 100),
            notification: try NotificationPolicy(dwell_s: dwell_s),
            rulesVersion: .override(scenarioRecordedFor: "threshold-100"))
        #expect(result.rulesVersion == "threshold-100+dwell\(Int(dwell_s))")
        #expect(try result.mean("visits.trueVisits") == 3)
        #expect(try result.mean("notify.entriesPerTrueVisit") == 1)
        #expect(try result.mean("notify.unwanted") == 0)
        #expect(try result.mean("notify.falseDwells") == 0)
        if long {
            #expect(try result.mean("notify.dwells") == 3)
            #expect(try result.mean("notify.dwellRecall") == 1)
            let latency = try result.estimate("notify.dwellLatency_s.p95")
            #expect(abs(latency.mean) <= 1 && abs(latency.lower) <= 1 && abs(latency.upper) <= 1)
        } else {
            #expect(try result.mean("notify.dwells") == 0)
            #expect(throws: LabError.self) { try result.mean("notify.dwellRecall") }  // no visit as long as T
        }
    }
}

/// The Markov closed form for false dwells: a stationary user outside the place under a
/// threshold rule at radius R decides inside on each 1 s fix independently with p = P(D ≤ R),
/// D Rice(ν = d, σ) (white noise, no accuracy gate: the decisions are i.i.d.). A dwell with
/// delay T fires for every run of at least k = ⌈T/Δt⌉ consecutive inside decisions (the stay
/// lasts from its first inside fix to the first outside one). Over N fixes the expected count
/// is pᵏ + (N − k)(1 − p)pᵏ (a run may open at the first fix); the run starts are k + 1 apart at
/// least, so with q = (1 − p)pᵏ the count's variance is (N − k)(q(1 − q) − 2kq²) plus O(1).
@Suite struct FalseDwellMarkovTests {
    static let radius_m = 100.0
    static let duration_s = 4000.0

    /// False dwells per replicate of a stationary user at `d` with white noise σ.
    static func simulate(
        d: Double, sigma: Double, dwell_s: Double, replicates: Int, seed: UInt64
    ) throws -> (counts: [Int], fixes: Int) {
        let json = """
            {"name": "false-dwell", "description": "stationary false dwells", "rulesVersion": "threshold-100",
             "seed": \(seed), "replicates": \(replicates),
             "fence": {"center": [48.1, 11.5], "rule": {"kind": "threshold", "radius_m": \(radius_m)}},
             "place": {"radius_m": \(d - 40)},
             "route": {"kind": "stationary", "distance_m": \(d), "bearing_deg": 75},
             "sampling": {"rate_hz": 1, "duration_s": \(duration_s)},
             "noise": {"model": "gaussian", "sigma_m": \(sigma)},
             "accuracy": {"model": "drms"}}
            """
        let spec = try ScenarioSpec.decode(Array(json.utf8), file: "false-dwell.json")
        let place = try #require(spec.place)
        let policy = try NotificationPolicy(dwell_s: dwell_s)
        var counts: [Int] = []
        var fixesPerDrive = 0
        var notes: [FenceNotification] = []
        for r in 0..<replicates {
            var generator = try ScenarioGenerator(spec: spec, replicate: r)
            let samples = generator.collect()
            var monitor = try FenceMonitor(
                center: spec.fence.center, evaluator: RuleSpec.parse("threshold:\(radius_m)").evaluator(),
                maxAge_s: .infinity, logging: .off)
            var tracker = NotificationTracker(policy: policy)
            notes.removeAll(keepingCapacity: true)
            var fixes = 0
            for s in samples {
                guard let fix = s.fix else { continue }
                fixes += 1
                let decision = monitor.process(fix, now_s: s.time_s)
                if decision.newState != .unknown {
                    tracker.change(time_s: s.time_s, inside: decision.newState == .inside, into: &notes)
                }
            }
            tracker.finish(end_s: duration_s, into: &notes)
            #expect(r == 0 || fixes == fixesPerDrive)
            fixesPerDrive = fixes
            let truth = Visits.trueVisits(samples: samples, center: spec.fence.center, place: place, end_s: duration_s)
            #expect(truth.isEmpty)
            let m = try NotificationMetrics.measure(
                truth: truth, notifications: notes, duration_s: duration_s, dwell_s: dwell_s)
            #expect(m.falseDwells == m.dwells && m.repeatDwells == 0)
            counts.append(m.falseDwells)
        }
        return (counts, fixesPerDrive)
    }

    /// The closed-form mean and the 99.9 % interval of the mean of `replicates` counts.
    static func interval(
        d: Double, sigma: Double, k: Int, fixes: Int, replicates: Int
    ) throws -> (lower: Double, upper: Double) {
        let p = try RiceModel(nu_m: d, sigma_m: sigma).cdf(radius_m)
        let n = Double(fixes - k)
        let q = (1 - p) * pow(p, Double(k))
        let mean = pow(p, Double(k)) + n * q
        let variance = n * (q * (1 - q) - 2 * Double(k) * q * q) + 1
        let half = 3.29 * (variance / Double(replicates)).squareRoot()
        return (mean - half, mean + half)
    }

    @Test(arguments: [(110.0, 15.0, 3.0, 3, 41 as UInt64), (105, 20, 4.5, 5, 42), (100, 10, 2.5, 3, 43)])
    func falseDwellsFollowTheRunsOfInsideDecisions(
        d: Double, sigma: Double, dwell_s: Double, k: Int, seed: UInt64
    ) throws {
        #expect(Int((dwell_s / 1).rounded(.up)) == k)
        let replicates = 60
        let (counts, fixes) = try Self.simulate(
            d: d, sigma: sigma, dwell_s: dwell_s, replicates: replicates, seed: seed)
        #expect(abs(Double(fixes) - Self.duration_s) <= 1)
        let mean = Double(counts.reduce(0, +)) / Double(replicates)
        let i = try Self.interval(d: d, sigma: sigma, k: k, fixes: fixes, replicates: replicates)
        #expect(
            mean >= i.lower && mean <= i.upper, "d \(d) σ \(sigma) T \(dwell_s): mean \(mean) per drive, interval \(i)")
    }

    /// The interval is not vacuous: the count for T = 3 s lies outside the interval of k = 2 and of k = 4.
    @Test func intervalRejectsTheNeighbouringRunLengths() throws {
        let replicates = 60
        let (counts, fixes) = try Self.simulate(d: 110, sigma: 15, dwell_s: 3, replicates: replicates, seed: 44)
        let mean = Double(counts.reduce(0, +)) / Double(replicates)
        for k in [2, 4] {
            let i = try Self.interval(d: 110, sigma: 15, k: k, fixes: fixes, replicates: replicates)
            #expect(mean < i.lower || mean > i.upper, "k \(k): mean \(mean) inside \(i)")
        }
    }
}

/// The scenario keys: `notification.policy` and both confirmations in `fence.rule`.
@Suite struct NotificationScenarioTests {
    static func json(rule: String = #""kind": "threshold", "radius_m": 100"#, extra: String = "") -> String {
        """
        {"name": "keys", "description": "scenario keys", "rulesVersion": "threshold-100",
         "seed": 1, "replicates": 1,
         "fence": {"center": [0, 0], "rule": {\(rule)}},
         "route": {"kind": "stationary", "distance_m": 10, "bearing_deg": 0},
         "sampling": {"rate_hz": 1, "duration_s": 60},
         "noise": {"model": "gaussian", "sigma_m": 0}, "accuracy": {"model": "fixed", "value_m": 5}\(extra)}
        """
    }

    @Test func notificationPolicyIsDecoded() throws {
        let spec = try ScenarioSpec.decode(
            Array(Self.json(extra: #", "notification": {"policy": "cooldown:600+dwell:300"}"#).utf8), file: "k.json")
        #expect(spec.notification == (try NotificationPolicy(dwell_s: 300, cooldown_s: 600)))
        #expect(try ScenarioSpec.decode(Array(Self.json().utf8), file: "k.json").notification == .none)
    }

    @Test(arguments: [
        (#"{"policy": "dwell:0"}"#, "notification.policy"), (#"{"policy": "linger:5"}"#, "unknown part 'linger:5'"),
        (#"{}"#, "policy"), (#"{"policy": "dwell:5", "extra": 1}"#, "extra"),
    ])
    func badNotificationIsRefusedNamingTheKey(object: String, named: String) {
        do {
            _ = try ScenarioSpec.decode(Array(Self.json(extra: #", "notification": "# + object).utf8), file: "k.json")
            Issue.record("\(object) was accepted")
        } catch {
            #expect(error.description.hasPrefix("k.json: notification"), "\(error)")
            #expect(error.description.contains(named), "\(error)")
        }
    }

    /// Both `confirm_n` and `confirm_s`: both apply (before, `confirm_s` was ignored).
    @Test func bothConfirmationKeysConfirmTogether() throws {
        let spec = try ScenarioSpec.decode(
            Array(Self.json(rule: #""kind": "threshold", "radius_m": 100, "confirm_n": 3, "confirm_s": 10"#).utf8),
            file: "k.json")
        #expect(spec.fence.rule.ruleSpec.confirmation == .fixesAndSeconds(fixes: 3, seconds: 10))
        #expect(try spec.fence.rule.ruleSpec.rulesVersion() == "threshold-100+confirm3+confirm10s")
        let one = try ScenarioSpec.decode(
            Array(Self.json(rule: #""kind": "threshold", "radius_m": 100, "confirm_s": 10"#).utf8), file: "k.json")
        #expect(one.fence.rule.ruleSpec.confirmation == .seconds(10))
    }
}
