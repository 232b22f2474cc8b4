import DriveSim
import GSLKit
import GeoPolicy
import Testing
import _TestSupport

@testable import FenceLab

/// `adaptive`, `rampup` and the elastic distance filter against closed forms on noiseless
/// routes, with the phases drawn as the harness draws them (`SamplingStage.phases`).
@Suite struct SamplingPoliciesClosedFormTests {
    static let metresPerDegree = EarthModel.sphereRadius_m * .pi / 180

    /// A noiseless scenario (`route` and optional `place` JSON) at 1 Hz for `duration_s`.
    static func scenario(
        route: String, place: String? = nil, enter_m: Double = 80, duration_s: Double, policy: String,
        seed: Int = 11
    ) throws -> ScenarioSpec {
        let json = """
            {"name": "noiseless", "description": "noiseless route", "rulesVersion": "hysteresis-\(enter_m)-200-acc30",
             "seed": \(seed), "replicates": 1000,
             "fence": {"center": [0, 0], "rule": {"kind": "hysteresis", "enter_m": \(enter_m), "exit_m": 200, "maxAccuracy_m": 30}},
             \(place.map { "\"place\": \($0)," } ?? "")
             "route": \(route),
             "sampling": {"rate_hz": 1, "duration_s": \(duration_s), "policy": "\(policy)"},
             "noise": {"model": "gaussian", "sigma_m": 0}, "accuracy": {"model": "fixed", "value_m": 5}}
            """
        return try ScenarioSpec.decode(Array(json.utf8), file: "noiseless.json")
    }

    /// A straight west→east route through the centre (offset 0), `length_m` long at `speed_mps`.
    static func straightRoute(length_m: Double, speed_mps: Double) -> String {
        let half = length_m / 2 / metresPerDegree
        return """
            {"kind": "waypoints", "points": [[0, \(-half)], [0, \(half)]],
             "speed": {"profile": "constant", "speed_kmh": \(speed_mps * 3.6)}}
            """
    }

    /// The measured fixes of replicate `replicate` and their device times.
    static func measured(_ spec: ScenarioSpec, replicate: Int) throws -> (fixes: [Fix], now_s: [Double]) {
        var generator = try ScenarioGenerator(spec: spec, replicate: replicate)
        let samples = generator.collect()
        return (samples.compactMap(\.fix), samples.filter { $0.fix != nil }.map(\.time_s))
    }

    /// The fixes the app is given and when, for the scenario's own policy.
    static func delivered(_ spec: ScenarioSpec, replicate: Int) throws -> (fixes: [Fix], now_s: [Double]) {
        let m = try measured(spec, replicate: replicate)
        let d = try SamplingStage.deliveries(spec: spec, replicate: replicate, fixes: m.fixes, now_s: m.now_s)
        return (d.indices.map { m.fixes[$0] }, d.now_s)
    }

    static func distance_m(_ a: Fix, _ b: Fix) -> Double {
        Haversine().distance_m(
            try! Coordinate(latitude: a.latitude, longitude: a.longitude),
            try! Coordinate(latitude: b.latitude, longitude: b.longitude))
    }

    /// A stationary noiseless user with `adaptive:30:300:50:120`: MOVING_S spacing until the
    /// detector's T (the fifth fix, 120 s after the anchor), then STOPPED_S spacing, so the hour
    /// holds 5 + (3600 − t_stop)/300 fixes within ±1 — in every one of 40 replicates (phases).
    @Test func stationaryUserGetsOneFixPerStoppedPeriodAfterT() throws {
        let spec = try Self.scenario(
            route: #"{"kind": "stationary", "distance_m": 300, "bearing_deg": 30}"#, duration_s: 3600,
            policy: "adaptive:30:300:50:120")
        for k in 0..<40 {
            let d = try Self.delivered(spec, replicate: k).now_s
            try #require(d.count > 5)
            let gaps = zip(d.dropFirst(), d).map { $0 - $1 }
            #expect(gaps.prefix(4).allSatisfy { abs($0 - 30) <= 1e-9 }, "moving gaps \(gaps.prefix(4)) s")
            let stop_s = d[4]
            #expect(abs(stop_s - d[0] - 120) <= 1e-9)
            #expect(gaps[4] > 0 && gaps[4] <= 300 + 1, "first stopped gap \(gaps[4]) s")
            #expect(gaps.dropFirst(5).allSatisfy { abs($0 - 300) <= 1e-9 }, "stopped gaps \(gaps.dropFirst(5)) s")
            let expected = 5 + (3600 - stop_s) / 300
            #expect(abs(Double(d.count) - expected) <= 1, "\(d.count) fixes in the hour, closed form \(expected)")
        }
    }

    /// With MOVING_S = STOPPED_S and a stop radius no moving user stays within, `adaptive` is the
    /// interval timer: same phase (the first draw of the stream), same deliveries.
    @Test func adaptiveThatNeverStopsIsTheIntervalTimer() throws {
        let route = Self.straightRoute(length_m: 6000, speed_mps: 10)
        let a = try Self.scenario(route: route, duration_s: 600, policy: "adaptive:60:60:1:30")
        let b = try Self.scenario(route: route, duration_s: 600, policy: "interval:60")
        for k in 0..<10 {
            let m = try Self.measured(a, replicate: k)
            let da = try SamplingStage.deliveries(spec: a, replicate: k, fixes: m.fixes, now_s: m.now_s)
            let db = try SamplingStage.deliveries(spec: b, replicate: k, fixes: m.fixes, now_s: m.now_s)
            #expect(da.indices == db.indices && da.now_s == db.now_s)
        }
    }

    /// A straight drive at 2 m/s through a place of 100 m with `rampup:50:5:30`: inside the ring
    /// (50…150 m from the centre) fixes come every NEAR_S = 5 s, outside every FAR_S = 30 s (a gap
    /// after a change of ring is at most the new period); the 850 m before the ring (425 s) hold
    /// ⌊425/30⌋ or one more fix, and each of the two crossings of the ring (100 m, 50 s) holds from
    /// ⌊(50 − 31)/5⌋ + 1 = 4 near fixes (the first one up to FAR_S + 1 s late) to 50/5 + 1 = 11.
    @Test func rampupSamplesNearSInsideTheRingAndFarSOutside() throws {
        let spec = try Self.scenario(
            route: Self.straightRoute(length_m: 2000, speed_mps: 2), place: #"{"radius_m": 100}"#,
            duration_s: 1000, policy: "rampup:50:5:30")
        let center = try Coordinate(latitude: 0, longitude: 0)
        for k in 0..<40 {
            let d = try Self.delivered(spec, replicate: k)
            let near = d.fixes.map { f in
                abs(Haversine().distance_m(center, try! Coordinate(latitude: f.latitude, longitude: f.longitude)) - 100)
                    <= 50
            }
            for i in 1..<(d.now_s.count - 1) {
                let gap = d.now_s[i + 1] - d.now_s[i]
                if near[i] == near[i - 1] {
                    #expect(abs(gap - (near[i] ? 5 : 30)) <= 1e-9, "gap \(gap) s after fix \(i), near \(near[i])")
                } else {
                    #expect(gap > 0 && gap <= (near[i] ? 5 : 30), "gap \(gap) s after a change at fix \(i)")
                }
            }
            let before = d.now_s.filter { $0 < 425 }.count
            #expect(before == 14 || before == 15, "\(before) fixes before the ring")
            // Runs of near fixes: one per crossing of the ring (in, and out again).
            var runs: [Int] = []
            for (i, n) in near.enumerated() where n {
                if i > 0, near[i - 1] { runs[runs.count - 1] += 1 } else { runs.append(1) }
            }
            #expect(runs.count == 2 && runs.allSatisfy { $0 >= 4 && $0 <= 11 }, "near runs \(runs)")
        }
    }

    /// The edge is the place's radius, not the rule's: with a place, changing `fence.rule`'s radii
    /// changes no delivery; without one, the enter radius is the edge.
    @Test func rampupEdgeIsThePlaceRadiusElseTheEnterRadius() throws {
        let route = Self.straightRoute(length_m: 2000, speed_mps: 2)
        let place = #"{"radius_m": 100}"#
        let a = try Self.scenario(route: route, place: place, enter_m: 80, duration_s: 1000, policy: "rampup:50:5:30")
        let b = try Self.scenario(route: route, place: place, enter_m: 40, duration_s: 1000, policy: "rampup:50:5:30")
        let c = try Self.scenario(route: route, enter_m: 100, duration_s: 1000, policy: "rampup:50:5:30")
        let e = try Self.scenario(route: route, enter_m: 40, duration_s: 1000, policy: "rampup:50:5:30")
        var differs = false
        for k in 0..<5 {
            let m = try Self.measured(a, replicate: k)
            let run = { (s: ScenarioSpec) in
                try SamplingStage.deliveries(spec: s, replicate: k, fixes: m.fixes, now_s: m.now_s).indices
            }
            #expect(try run(a) == run(b) && run(a) == run(c))
            if try run(a) != run(e) { differs = true }
        }
        #expect(differs, "an edge of 40 m gives other deliveries than 100 m")
    }

    /// At a constant speed v, `distance:20:elastic:K` keeps fixes D · max(1, K · round(v / 5 m/s))
    /// apart, within one base sample (v · 1 s) above it, once two fixes give the speed; the
    /// first step is D (no speed yet).
    @Test(arguments: [(3.0, 1.0), (12.0, 1.0), (27.0, 1.0), (27.0, 0.5), (12.0, 0.25)])
    func elasticSpacingFollowsTheFormula(speed_mps v: Double, multiplier k: Double) throws {
        let spec = try Self.scenario(
            route: Self.straightRoute(length_m: 30 * v * 60, speed_mps: v), duration_s: 30 * 60,
            policy: "distance:20:elastic:\(k)")
        let expected = SamplingPolicy.elasticDistance_m(distance_m: 20, multiplier: k, speed_mps: v)
        let d = try Self.delivered(spec, replicate: 0).fixes
        try #require(d.count > 10)
        let first = Self.distance_m(d[0], d[1])
        #expect(first >= 20 - 0.05 && first < 20 + v + 0.05, "first step \(first) m")
        for i in 1..<(d.count - 1) {
            let step = Self.distance_m(d[i], d[i + 1])
            #expect(
                step >= expected - 0.05 && step < expected + v + 0.05,
                "step \(i): \(step) m, formula \(expected) m at \(v) m/s")
        }
    }

    /// A policy never reads the truth: the same fixes under a different truth (another route, the
    /// same fence, place and seed) give identical deliveries, for every policy.
    @Test(arguments: [
        "interval:30", "distance:25", "distance:25:elastic:1", "adaptive:10:60:20:60", "rampup:40:5:30",
        "adaptive:10:60:20:60+batch:90", "rampup:40:5:30+batch:60", "distance:25+batch:45",
    ])
    func policiesNeverReadTheTruth(policy: String) throws {
        let place = #"{"radius_m": 100}"#
        let drive = try Self.scenario(
            route: Self.straightRoute(length_m: 1200, speed_mps: 2), place: place, duration_s: 600, policy: policy)
        let other = try Self.scenario(
            route: #"{"kind": "stationary", "distance_m": 500, "bearing_deg": 90}"#, place: place, duration_s: 600,
            policy: policy)
        try #require(drive.route != other.route)
        for k in 0..<5 {
            let m = try Self.measured(drive, replicate: k)
            let a = try SamplingStage.deliveries(spec: drive, replicate: k, fixes: m.fixes, now_s: m.now_s)
            let b = try SamplingStage.deliveries(spec: other, replicate: k, fixes: m.fixes, now_s: m.now_s)
            #expect(a.indices == b.indices && a.now_s == b.now_s)
            #expect(a.indices.count < m.fixes.count, "the policy drops fixes")
        }
    }

    /// Existing policies draw the phase they always drew (one uniform, the batch sharing it);
    /// `adaptive` and `rampup` draw one per timer in spec order, then the batch's.
    @Test func phasesComeFromTheStreamInSpecOrder() throws {
        let route = #"{"kind": "stationary", "distance_m": 300, "bearing_deg": 30}"#
        let spec = try Self.scenario(route: route, duration_s: 60, policy: "all")
        let seed = SeedDerivation.replicateSeed(scenarioSeed: spec.seed, replicate: 3)
        let rng = try RandomSource(
            kind: spec.generator,
            seed: SeedDerivation.streamSeed(replicateSeed: seed, stream: SamplingStage.phaseStream))
        let u = (0..<3).map { _ in rng.uniform() }
        func phases(_ text: String) throws -> SamplingPhases {
            try SamplingStage.phases(try SamplingPolicy.parse(text), spec: spec, replicate: 3)
        }
        #expect(try phases("interval:60+batch:300") == SamplingPhases(all: u[0] * 60))
        #expect(try phases("distance:40+batch:120") == SamplingPhases(all: u[0] * 120))
        #expect(
            try phases("adaptive:30:300+batch:600")
                == SamplingPhases(timer_s: u[0] * 30, slowTimer_s: u[1] * 300, batch_s: u[2] * 600))
        #expect(try phases("rampup:50:10:60") == SamplingPhases(timer_s: u[0] * 10, slowTimer_s: u[1] * 60, batch_s: 0))
        #expect(try phases("distance:40:elastic") == SamplingPhases(all: 0))
        #expect(
            try SamplingStage.phase_s(try SamplingPolicy.parse("adaptive:30:300"), spec: spec, replicate: 3) == u[0]
                * 30)
    }

    /// The existing policies deliver exactly as before the two-period timers: the gate's
    /// `interval`, `distance` and `batch` against a transcription of their rules (one phase φ for
    /// the timer and the batch, drawn as `phase_s` draws it), on a noisy loiter at 1 Hz.
    @Test(arguments: ["interval:45", "distance:12", "interval:30+batch:120", "distance:12+batch:60", "all+batch:90"])
    func existingPoliciesDeliverAsTheirRulesSay(policy text: String) throws {
        var spec = try Self.scenario(
            route: """
                {"kind": "loiter", "distance_m": 100, "bearing_deg": 45, "radialSigma_m": 6, "tau_s": 120,
                 "tangentialSigma_m": 0.5, "maxDeviation_m": 15}
                """, place: #"{"radius_m": 100}"#, duration_s: 1800, policy: text)
        spec.noise = NoiseSpec(white: .gaussian(sigma_m: 8))
        let policy = spec.sampling.policy
        for k in 0..<4 {
            let m = try Self.measured(spec, replicate: k)
            let phase = try SamplingStage.phase_s(policy, spec: spec, replicate: k)
            var indices: [Int] = []
            var times: [Double] = []
            var nextTick = phase
            var last: Coordinate?
            for (i, f) in m.fixes.enumerated() {
                let now = m.now_s[i]
                switch policy.selection {
                case .interval(let p):
                    guard now >= nextTick else { continue }
                    nextTick = phase + ((now - phase) / p).rounded(.down) * p + p
                case .distance(let d):
                    guard let here = try? Coordinate(latitude: f.latitude, longitude: f.longitude) else { continue }
                    if let l = last, Haversine().distance_m(l, here) < d { continue }
                    last = here
                default: break
                }
                indices.append(i)
                if let b = policy.batch_s {
                    times.append(max(phase + ((now - phase) / b).rounded(.up) * b, now))
                } else {
                    times.append(now)
                }
            }
            let d = try SamplingStage.deliveries(spec: spec, replicate: k, fixes: m.fixes, now_s: m.now_s)
            #expect(d.indices == indices && d.now_s == times)
            #expect(indices.count < m.fixes.count || times != m.now_s, "the policy drops or delays fixes")
        }
    }
}
