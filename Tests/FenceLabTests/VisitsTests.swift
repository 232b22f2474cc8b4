import DriveSim
import FenceLab
import Foundation
import GSLKit
import GeoPolicy
import Testing
import _TestSupport

/// Visit-level scoring on hand-built timelines with known answers (docs/metrics.md "Visits").
@Suite struct VisitsTests {
    static let timeTolerance_s = 1e-9
    static let rateTolerance_perHour = 1e-9

    /// States at the given times; `nil` = unknown, true = inside, false = outside.
    static func states(_ items: [(Double, Bool?)]) -> [StateSample] {
        items.map { StateSample(time_s: $0.0, state: $0.1.map { $0 ? .inside : .outside } ?? .unknown) }
    }

    /// The worked example of docs/metrics.md: merge, minimum dwell, a fragment, a false visit,
    /// an early entry and a visit open at the end of the drive.
    @Test func workedExampleOfTheDocs() throws {
        let place = PlaceSpec(radius_m: 100, minDwell_s: 30, mergeGap_s: 60)
        // Truth every 10 s over 2000 s: inside 100–390, outside 400–420 (30 s < mergeGap), inside 430–690,
        // inside 1000–1010 (a 20 s span < minDwell), inside from 1500 to the end.
        let times = stride(from: 0.0, to: 2000, by: 10).map { $0 }
        let inside = times.map { t in
            (t >= 100 && t < 400) || (t >= 430 && t < 700) || (t >= 1000 && t < 1020) || t >= 1500
        }
        let truth = Visits.trueVisits(time_s: times, inside: inside, place: place, end_s: 2000)
        #expect(truth == [Visit(start_s: 100, end_s: 700), Visit(start_s: 1500, end_s: 2000, openAtEnd: true)])

        let observed = Visits.observedVisits(
            of: Self.states([
                (0, nil), (50, false), (130, true), (350, false), (380, true), (720, false),
                (1005, true), (1030, false), (1480, true), (1990, true),
            ]), end_s: 2000)
        #expect(
            observed == [
                Visit(start_s: 130, end_s: 350), Visit(start_s: 380, end_s: 720), Visit(start_s: 1005, end_s: 1030),
                Visit(start_s: 1480, end_s: 2000, openAtEnd: true),
            ])

        let v = try Visits.measure(truth: truth, observed: observed, duration_s: 2000, matchSlack_s: 60)
        #expect(v.trueVisits == 2 && v.matchedVisits == 2 && v.missedVisits == 0)
        #expect(v.recall == 1)
        #expect(v.fragments == 1, "380–720 splits the first stay")
        #expect(v.falseVisits == 1, "1005–1030 overlaps no widened true visit (the 20 s stay was dropped)")
        #expect(v.earlyEntries == 1)
        #expect(v.entryLatencies_s == [30, -20])
        #expect(v.exitLatencies_s == [20], "exit of the last fragment 720 − 700; the open visit has no exit")
        #expect(isClose(v.falsePerHour, 1.8, absoluteTolerance: Self.rateTolerance_perHour))
        #expect(isClose(v.fragmentsPerHour, 1.8, absoluteTolerance: Self.rateTolerance_perHour))
        // Type-7 quantiles of [−20, 30]: median 5, p95 −20 + 0.95·50 = 27.5; early counted as 0: [0, 30] → 28.5.
        #expect(isClose(try #require(v.entryLatencyMedian_s), 5, absoluteTolerance: Self.timeTolerance_s))
        #expect(isClose(try #require(v.entryLatencyP95_s), 27.5, absoluteTolerance: Self.timeTolerance_s))
        #expect(isClose(try #require(v.lateEntryP95_s), 28.5, absoluteTolerance: Self.timeTolerance_s))
        #expect(isClose(try #require(v.exitLatencyP95_s), 20, absoluteTolerance: Self.timeTolerance_s))
    }

    /// A drive that starts inside: the true visit starts at t = 0 and the rule's first `inside`
    /// determination is its entry. One-to-one, earliest first: an observed visit overlapping two
    /// true visits takes the first; the next observed visit takes the second instead of being a fragment.
    @Test func startInsideOneToOneAndMissedVisits() throws {
        let place = PlaceSpec(radius_m: 50, minDwell_s: 0, mergeGap_s: 0)
        let times = (0..<100).map { Double($0) * 10 }
        let inside = times.map { $0 < 100 || ($0 >= 300 && $0 < 400) || ($0 >= 800 && $0 < 850) }
        let truth = Visits.trueVisits(time_s: times, inside: inside, place: place, end_s: 1000)
        #expect(
            truth == [Visit(start_s: 0, end_s: 100), Visit(start_s: 300, end_s: 400), Visit(start_s: 800, end_s: 850)])

        let observed = Visits.observedVisits(
            of: Self.states([(0, nil), (5, true), (350, false), (360, true), (380, nil), (390, false)]),
            end_s: 1000)
        #expect(observed == [Visit(start_s: 5, end_s: 350), Visit(start_s: 360, end_s: 390)])
        let v = try Visits.measure(truth: truth, observed: observed, duration_s: 1000, matchSlack_s: 60)
        #expect(v.trueVisits == 3 && v.matchedVisits == 2 && v.missedVisits == 1)
        #expect(isClose(try #require(v.recall), 2.0 / 3, absoluteTolerance: 1e-12))
        #expect(v.fragments == 0 && v.falseVisits == 0)
        #expect(v.entryLatencies_s == [5, 60])
        #expect(v.exitLatencies_s == [250, -10])
        #expect(v.earlyEntries == 0)
    }

    /// Matching slack: a visit observed 61 s after a true exit with 60 s slack is false; with 61 s it matches.
    @Test func slackIsInclusiveAndBounded() throws {
        let truth = [Visit(start_s: 100, end_s: 200)]
        let observed = [Visit(start_s: 261, end_s: 300)]
        let tight = try Visits.measure(truth: truth, observed: observed, duration_s: 3600, matchSlack_s: 60)
        #expect(tight.falseVisits == 1 && tight.matchedVisits == 0)
        #expect(tight.recall == 0)
        #expect(tight.entryLatencyP95_s == nil && tight.lateEntryP95_s == nil)
        let loose = try Visits.measure(truth: truth, observed: observed, duration_s: 3600, matchSlack_s: 61)
        #expect(loose.matchedVisits == 1 && loose.falseVisits == 0)
        #expect(loose.entryLatencies_s == [161])
    }

    /// No true visit: recall is nil (not 0, not 1); every observed visit is false.
    @Test func noTrueVisitMeansNilRecallAndFalseVisits() throws {
        let observed = Visits.observedVisits(of: Self.states([(0, true), (10, false), (20, true)]), end_s: 30)
        let v = try Visits.measure(truth: [], observed: observed, duration_s: 1800)
        #expect(v.recall == nil)
        #expect(v.falseVisits == 2)
        #expect(isClose(v.falsePerHour, 4, absoluteTolerance: Self.rateTolerance_perHour))
    }

    @Test func badInputsAreRefused() {
        #expect(throws: MetricsError.self) { try Visits.measure(truth: [], observed: [], duration_s: 0) }
        #expect(throws: MetricsError.self) {
            try Visits.measure(truth: [], observed: [], duration_s: 10, matchSlack_s: -1)
        }
        #expect(throws: MetricsError.self) {
            try Visits.measure(truth: [], observed: [], duration_s: 10, matchSlack_s: .nan)
        }
        #expect(throws: MetricsError.self) {
            try Visits.measure(
                truth: [Visit(start_s: 10, end_s: 20), Visit(start_s: 15, end_s: 30)], observed: [], duration_s: 100)
        }
    }

    /// The place decides with the WGS84 distance: a point inside the radius on the sphere but
    /// outside it on the ellipsoid is outside.
    @Test func placeUsesTheEllipsoidNearItsEdge() throws {
        let center = try Coordinate(latitude: 60, longitude: 10)
        // Due north 0.0009°: about 100.08 m on the sphere, about 0.2 % more on WGS84 (the meridian
        // radius of curvature at 60° exceeds R), within the margin where the ellipsoid decides.
        let p = try Coordinate(latitude: 60.0009, longitude: 10)
        let sphere = Haversine().distance_m(center, p)
        let ellipsoid = WGS84().distance_m(center, p)
        #expect(sphere < ellipsoid)
        let radius = (sphere + ellipsoid) / 2
        let visits = Visits.trueVisits(
            time_s: [0, 1], truth: [p, center], center: center,
            place: PlaceSpec(radius_m: radius), end_s: 2)
        #expect(
            visits == [Visit(start_s: 1, end_s: 2, openAtEnd: true)],
            "outside by WGS84 at t = 0 although inside on the sphere")
    }
}

/// The closed form: a stationary user at distance d with isotropic Gaussian σ under a
/// hysteresis rule is a two-state Markov chain (p_in = P(D ≤ enter), p_out = P(D ≥ exit), D Rice);
/// observed entries per fix are p_in·p_out/(p_in + p_out), half the flip rate of `FlipRatePrediction`.
/// Outside the place every observed visit is false; inside, all but the first are fragments.
@Suite struct VisitsMarkovTests {
    /// Runs DriveSim's stationary route through the engine and scores visits against a place of `radius_m`.
    static func simulate(
        d: Double, sigma: Double, radius_m: Double, seed: UInt64
    ) throws -> (visits: VisitMetrics, steps: Int) {
        let json = """
            {"name": "markov", "description": "stationary visits check",
             "rulesVersion": "hysteresis-80-120-acc1000000000", "seed": \(seed), "replicates": 1,
             "fence": {"center": [48.1, 11.5], "rule": {"kind": "hysteresis", "enter_m": 80, "exit_m": 120, "maxAccuracy_m": 1000000000}},
             "place": {"radius_m": \(radius_m)},
             "route": {"kind": "stationary", "distance_m": \(d), "bearing_deg": 30},
             "sampling": {"rate_hz": 1, "duration_s": 100000},
             "noise": {"model": "gaussian", "sigma_m": \(sigma)},
             "accuracy": {"model": "drms"}}
            """
        let spec = try ScenarioSpec.decode(Array(json.utf8), file: "markov.json")
        var generator = try ScenarioGenerator(spec: spec, replicate: 0)
        let samples = generator.collect()
        var monitor = try FenceMonitor(
            center: spec.fence.center, evaluator: RuleSpec.parse("hysteresis:80:120:1000000000").evaluator(),
            maxAge_s: .infinity, logging: .off)
        var states: [StateSample] = []
        var steps = 0
        for s in samples {
            guard let fix = s.fix else { continue }
            let next = monitor.process(fix, now_s: s.time_s).newState
            if states.last.map({ $0.state != .unknown }) ?? false { steps += 1 }
            states.append(StateSample(time_s: s.time_s, state: next))
        }
        let place = try #require(spec.place)
        let end = spec.sampling.duration_s
        let truth = Visits.trueVisits(samples: samples, center: spec.fence.center, place: place, end_s: end)
        let visits = try Visits.measure(
            truth: truth, observed: Visits.observedVisits(of: states, end_s: end), duration_s: end)
        return (visits, steps)
    }

    /// The entry-count interval: the flip interval at 99 % halved, widened by 1 for the first
    /// determination (which opens a visit without an entry when it is `inside`).
    static func entryInterval(
        d: Double, sigma: Double, steps: Int
    ) throws -> (lower: Double, upper: Double, perFix: Double) {
        let prediction = try FlipRatePrediction(model: RiceModel(nu_m: d, sigma_m: sigma), enter_m: 80, exit_m: 120)
        let flips = try prediction.countInterval(steps: steps, level: 0.99)
        let perFix = prediction.pInside * prediction.pOutside / (prediction.pInside + prediction.pOutside)
        #expect(isClose(2 * perFix, prediction.flipsPerFix, relativeTolerance: 1e-12))
        return (flips.lower / 2 - 1, flips.upper / 2 + 1, perFix)
    }

    @Test(arguments: [(100.0, 10.0, 31 as UInt64), (90, 15, 32)])
    func outsideThePlaceEveryObservedVisitIsFalse(d: Double, sigma: Double, seed: UInt64) throws {
        let (v, steps) = try Self.simulate(d: d, sigma: sigma, radius_m: d - 30, seed: seed)
        #expect(v.trueVisits == 0 && v.fragments == 0 && v.recall == nil)
        let interval = try Self.entryInterval(d: d, sigma: sigma, steps: steps)
        #expect(
            Double(v.falseVisits) >= interval.lower && Double(v.falseVisits) <= interval.upper,
            "d \(d) σ \(sigma): \(v.falseVisits) false visits in \(steps) steps, interval \(interval)")
    }

    @Test(arguments: [(100.0, 10.0, 33 as UInt64), (90, 15, 34)])
    func insideThePlaceAllButOneObservedVisitAreFragments(d: Double, sigma: Double, seed: UInt64) throws {
        let (v, steps) = try Self.simulate(d: d, sigma: sigma, radius_m: d + 30, seed: seed)
        #expect(v.trueVisits == 1 && v.matchedVisits == 1 && v.falseVisits == 0)
        let interval = try Self.entryInterval(d: d, sigma: sigma, steps: steps)
        #expect(
            Double(v.fragments) >= interval.lower && Double(v.fragments) <= interval.upper,
            "d \(d) σ \(sigma): \(v.fragments) fragments in \(steps) steps, interval \(interval)")
    }

    /// The interval is not vacuous: the 80/120 prediction at σ 10 excludes the count at σ 20.
    @Test func intervalRejectsAWrongNoiseLevel() throws {
        let (v, steps) = try Self.simulate(d: 100, sigma: 20, radius_m: 70, seed: 35)
        let interval = try Self.entryInterval(d: 100, sigma: 10, steps: steps)
        #expect(Double(v.falseVisits) > interval.upper)
    }

    /// The true visits from the drive's truth distances (computed once per slot for the fence's
    /// true states too) are the visits from the samples, on every catalog and tuning drive with a
    /// place, with the place's radius moved onto the truth's closest approach so that the WGS84
    /// edge check runs; and the distances are Haversine's from the centre, either way round.
    @Test func trueVisitsFromTruthDistancesEqualFromSamples() throws {
        let root = TestPaths.packageRoot.appendingPathComponent("scenarios")
        let names =
            try FileManager.default.contentsOfDirectory(atPath: root.path).filter { $0.hasSuffix(".json") }
            + FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("tuning").path)
            .filter { $0.hasSuffix(".json") }.map { "tuning/" + $0 }
        var checked = 0
        for name in names.sorted() {
            let spec = try ScenarioSpec.load(path: root.appendingPathComponent(name).path)
            var generator = try ScenarioGenerator(spec: spec, replicate: 0)
            let samples = generator.collect()
            let center = spec.fence.center
            let truth = TruthDistances(samples: samples, center: center)
            let closest = truth.distance_m.min() ?? 0
            for place in [spec.place, PlaceSpec(radius_m: max(closest, 1))].compactMap({ $0 }) {
                let end_s = spec.sampling.duration_s
                let expected = Visits.trueVisits(samples: samples, center: center, place: place, end_s: end_s)
                let actual = Visits.trueVisits(
                    truth: truth, samples: samples, center: center, place: place, end_s: end_s)
                #expect(actual == expected, "\(name) radius \(place.radius_m) m")
                checked += 1
            }
            var k = 0
            var lastSlot = -1
            for s in samples where s.sampleIndex > lastSlot {
                lastSlot = s.sampleIndex
                #expect(truth.distance_m[k] == Haversine().distance_m(s.truth, center), "\(name) slot \(k)")
                k += 1
            }
        }
        #expect(checked >= 16, "too few drives (\(checked))")
    }
}
