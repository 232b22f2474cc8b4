import DriveSim
import Foundation
import GeoPolicy
import Testing
import _TestSupport

@testable import FenceLab

/// Hand-built two-place timelines with known attribution, ordering and oscillation errors
/// (docs/metrics.md "Places").
@Suite struct PlaceSetMetricsTests {
    static let countTolerance = 1e-12
    static let duration_s = 3600.0

    static func v(_ a: Double, _ b: Double) -> Visit { Visit(start_s: a, end_s: b) }

    static func measure(
        truth: [[Visit]], observed: [[Visit]], weights: [Double] = [1, 1], window_s: Double = 60
    ) throws -> (PlaceSetMetrics, [String: Double]) {
        let m = try PlaceSetScoring.measure(
            truth: truth, observed: observed, weights: weights, duration_s: duration_s, matchSlack_s: 60,
            window_s: window_s)
        var out: [String: Double] = [:]
        m.flattened(into: &out)
        return (m, out)
    }

    /// The truth is in A; the rule reports B and never A: one attribution error at B, A missed.
    @Test func attributionError() throws {
        let (m, f) = try Self.measure(truth: [[Self.v(100, 400)], []], observed: [[], [Self.v(150, 350)]])
        #expect(m.perPlace[1].falseVisits == 1 && m.perPlace[1].attributionErrors == 1)
        #expect(m.perPlace[0].attributionErrors == 0 && m.perPlace[0].matchedVisits == 0)
        #expect(abs((f["places.attributionErrors"] ?? -1) - 1) < Self.countTolerance)
        #expect(abs((f["places.attributionErrorsPerHour"] ?? -1) - 1) < Self.countTolerance)  // 1 per 1 h
        #expect(abs((f["places.recall"] ?? -1) - 0) < Self.countTolerance)
        #expect(f["places.byPlace.1.recall"] == nil)  // B has no true visit
        // A false visit far from any true visit is not an attribution error.
        let (far, _) = try Self.measure(truth: [[Self.v(100, 400)], []], observed: [[], [Self.v(1000, 1100)]])
        #expect(far.perPlace[1].falseVisits == 1 && far.perPlace[1].attributionErrors == 0)
        // Weights: B weighs 3, A 1 (mean 2): the weighted total is 3·1/2.
        let (_, w) = try Self.measure(
            truth: [[Self.v(100, 400)], []], observed: [[], [Self.v(150, 350)]], weights: [1, 3])
        #expect(abs((w["places.attributionErrors"] ?? -1) - 1.5) < Self.countTolerance)
    }

    /// The truth leaves A at 400 s and enters B at 420 s; the rule reports B's entry (430 s)
    /// before A's exit (450 s): one ordering error at B. Exiting A at 425 s is in order.
    @Test func orderingError() throws {
        let truth = [[Self.v(100, 400)], [Self.v(420, 800)]]
        let (m, f) = try Self.measure(truth: truth, observed: [[Self.v(110, 450)], [Self.v(430, 790)]])
        #expect(m.perPlace[1].orderingErrors == 1 && m.perPlace[0].orderingErrors == 0)
        #expect(abs((f["places.orderingErrors"] ?? -1) - 1) < Self.countTolerance)
        #expect(abs((f["places.recall"] ?? -1) - 1) < Self.countTolerance)
        let (inOrder, _) = try Self.measure(truth: truth, observed: [[Self.v(110, 425)], [Self.v(430, 790)]])
        #expect(inOrder.perPlace.allSatisfy { $0.orderingErrors == 0 })
        // B entered more than W after A was left: A was not "left first" for B.
        let (late, _) = try Self.measure(
            truth: [[Self.v(100, 400)], [Self.v(470, 800)]], observed: [[Self.v(110, 480)], [Self.v(475, 790)]],
            window_s: 60)
        #expect(late.perPlace[1].orderingErrors == 0)
    }

    /// Observed entries A (100 s), B (140 s), A (160 s): one oscillation within a 60 s window,
    /// none within 59 s; the user stayed in A, so no true oscillation.
    @Test func oscillation() throws {
        let truth = [[Self.v(100, 300)], []]
        let observed = [[Self.v(100, 130), Self.v(160, 200)], [Self.v(140, 150)]]
        let (m, f) = try Self.measure(truth: truth, observed: observed, window_s: 60)
        #expect(m.oscillations == 1 && m.trueOscillations == 0)
        #expect(abs((f["places.oscillationsPerHour"] ?? -1) - 1) < Self.countTolerance)
        #expect(m.perPlace[0].fragments == 1 && m.perPlace[1].attributionErrors == 1)
        let (narrow, _) = try Self.measure(truth: truth, observed: observed, window_s: 59)
        #expect(narrow.oscillations == 0)
        // A, B, B is no oscillation; A, B, A, B is two (ABA and BAB).
        #expect(PlaceSetScoring.oscillations([[Self.v(0, 1)], [Self.v(2, 3), Self.v(4, 5)]], window_s: 60) == 0)
        #expect(
            PlaceSetScoring.oscillations([[Self.v(0, 1), Self.v(4, 5)], [Self.v(2, 3), Self.v(6, 7)]], window_s: 60)
                == 2)
    }
}

/// The place-set stage inside `fencelab run` (ScenarioRunner), end to end.
@Suite struct PlaceSetRunTests {
    static func scenario(_ tail: String) -> String {
        #"""
        {"name":"p","description":"d","rulesVersion":"hysteresis-80-120-acc30","seed":5,"replicates":4,
         "fence":{"center":[52.52,13.405],"rule":{"kind":"hysteresis","enter_m":80,"exit_m":120,"maxAccuracy_m":30}},
         "sampling":{"rate_hz":1,"duration_s":1800},
         "noise":{"model":"gaussian","sigma_m":8},
         "accuracy":{"model":"drms"},
        """# + tail + "}"
    }

    static func run(_ files: [String: String]) throws -> RunReport {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("placeset-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var request = RunRequest()
        for (name, text) in files.sorted(by: { $0.key < $1.key }) {
            try text.write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8)
            request.paths.append(dir.appendingPathComponent(name).path)
        }
        request.paths.removeFirst()  // the default `scenarios`
        request.jobs = 2
        return try ScenarioRunner.run(try ScenarioRunner.prepare(request), request: request)
    }

    /// A set of one place at the fence centre scores exactly as `place` does, and every other
    /// figure of the run is the same bits.
    @Test func onePlaceSetEqualsThePlace() throws {
        let route = #""route":{"kind":"loiter","distance_m":100,"radialSigma_m":30,"tau_s":120,"tangentialSigma_m":1}"#
        let report = try Self.run([
            "a.json": Self.scenario(route + #","place":{"radius_m":100,"mergeGap_s":30}"#),
            "b.json": Self.scenario(
                route
                    + #","places":{"list":[{"name":"only","center":[52.52,13.405],"radius_m":100}],"mergeGap_s":30}"#
            ).replacingOccurrences(of: #""name":"p""#, with: #""name":"q""#),
        ])
        let one = report.scenarios[0].metrics
        let set = report.scenarios[1].metrics
        for name in ["trueVisits", "recall", "falseVisits", "fragments"] {
            let a = try #require(one.estimate("visits.\(name)"))
            let b = try #require(set.estimate("places.byPlace.0.\(name)"))
            #expect(a == b, "\(name)")
        }
        #expect((one.estimate("visits.trueVisits")?.mean ?? 0) > 1)  // the loiter crosses the edge
        for (path, e) in one.estimates where !path.hasPrefix("throughput.") && !path.hasPrefix("visits.") {
            #expect(set.estimate(path) == e, "\(path)")
        }
        #expect(set.estimate("places.attributionErrors")?.mean == 0)
        #expect(set.estimate("places.oscillations")?.mean == 0)
        #expect(report.scenarios[1].placeNames == ["only"])
    }

    /// A tour through three places 300 m apart with a 20/40 m hysteresis and 3 m noise: every
    /// true visit is found, at its own place, in order, without oscillation.
    @Test func tourThroughThreePlaces() throws {
        let text = Self.scenario(
            #"""
            "places":{"list":[{"name":"A","center":[52.52,13.405],"radius_m":30,"enter_m":20,"exit_m":40},
                              {"name":"B","center":[52.5227,13.405],"radius_m":30,"enter_m":20,"exit_m":40},
                              {"name":"C","center":[52.5227,13.4094],"radius_m":30,"enter_m":20,"exit_m":40}],
                      "minDwell_s":60},
            "route":{"kind":"tour","speed_kmh":5,"stops":[{"place":"A","dwell_s":300},{"place":"B","dwell_s":300},{"place":"C"}]}
            """#
        ).replacingOccurrences(of: #""sigma_m":8"#, with: #""sigma_m":3"#)
        let m = try Self.run(["t.json": text]).scenarios[0].metrics
        let tolerance = 1e-12
        #expect(abs((m.estimate("places.trueVisits")?.mean ?? 0) - 3) < tolerance)
        #expect(abs((m.estimate("places.recall")?.mean ?? 0) - 1) < tolerance)
        #expect(m.estimate("places.attributionErrors")?.mean == 0)
        #expect(m.estimate("places.orderingErrors")?.mean == 0)
        #expect(m.estimate("places.oscillations")?.mean == 0)
        for i in 0..<3 { #expect(abs((m.estimate("places.byPlace.\(i).trueVisits")?.mean ?? 0) - 1) < tolerance) }
    }

    /// The budget: a walk past 60 places 100 m apart with the 20 nearest registered. Chosen again
    /// only every 3000 m, places are passed before they are registered (`notMonitored`, with a
    /// 95 % interval above 0); chosen again every 50 m — far less than the 900 m between a place
    /// entering the set and the walker reaching it — no visit is missed for want of a region.
    @Test func budgetMissesAreNotMonitored() throws {
        func scenario(_ strategy: String, _ suffix: String) -> String {
            Self.scenario(
                #"""
                "places":{"generate":{"kind":"grid","origin":[52.5,13.4],"bearing_deg":90,"rows":1,"columns":60,
                                      "spacing_m":100,"radius_m":20,"enter_m":15,"exit_m":30},
                          "monitoring":"\#(strategy)"},
                "route":{"kind":"tour","speed_kmh":5,"stops":[{"place":"shop-01","dwell_s":0},{"place":"shop-60"}]}
                """#
            )
            .replacingOccurrences(of: #""sigma_m":8"#, with: #""sigma_m":3"#)
            .replacingOccurrences(of: #""duration_s":1800"#, with: #""duration_s":4300"#)
            .replacingOccurrences(of: "acc30\"", with: "acc30\(suffix)\"")
        }
        let report = try Self.run([
            "a.json": scenario("nearest:20+refresh:3000", "+nearest20-refresh3000"),
            "b.json": scenario("nearest:20+refresh:50", "+nearest20-refresh50").replacingOccurrences(
                of: #""name":"p""#, with: #""name":"q""#),
        ])
        let large = report.scenarios[0].metrics
        let small = report.scenarios[1].metrics
        let tolerance = 1e-12
        #expect(abs((large.estimate("places.trueVisits")?.mean ?? 0) - 60) < tolerance)
        let notMonitored = try #require(large.estimate("places.notMonitored"))
        #expect(notMonitored.lower > 0, "95 % interval \(notMonitored.lower)…\(notMonitored.upper)")
        #expect(abs((large.estimate("places.swaps")?.mean ?? -1) - 1) < tolerance)  // one refresh at 3000 m
        #expect(small.estimate("places.notMonitored")?.mean == 0 && small.estimate("places.notMonitored")?.upper == 0)
        #expect((small.estimate("places.recall")?.mean ?? 0) > (large.estimate("places.recall")?.mean ?? 1))
        #expect((small.estimate("places.swapsPerHour")?.mean ?? 0) > 10)
        #expect(report.scenarios[0].rulesVersion == "hysteresis-80-120-acc30+nearest20-refresh3000")
    }
}
