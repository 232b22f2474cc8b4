import DriveSim
import Foundation
import GSLKit
import GeoPolicy
import Testing
import _TestSupport

@testable import FenceLab

/// The sampling stage against closed forms, on noiseless straight routes, with the timer phase
/// drawn as the harness draws it (`SamplingStage.phase_s`: its own GSL stream per replicate).
@Suite struct SamplingClosedFormTests {
    /// A scenario whose fixes are the truth (σ = 0): a straight west→east pass at `speed_mps`,
    /// `offset_m` north of the centre, `length_m` long, sampled at `rate_hz`.
    static func straightPass(
        offset_m: Double, length_m: Double, speed_mps: Double, rate_hz: Double, policy: String, seed: Int = 5
    ) throws -> ScenarioSpec {
        let metresPerDegree = EarthModel.sphereRadius_m * .pi / 180
        let lat = offset_m / metresPerDegree
        let halfLon = length_m / 2 / metresPerDegree
        let json = """
            {"name": "straight-pass", "description": "noiseless straight pass", "rulesVersion": "hysteresis-80-120-acc30",
             "seed": \(seed), "replicates": 1000,
             "fence": {"center": [0, 0], "rule": {"kind": "hysteresis", "enter_m": 80, "exit_m": 120, "maxAccuracy_m": 30}},
             "route": {"kind": "waypoints", "points": [[\(lat), \(-halfLon)], [\(lat), \(halfLon)]],
                       "speed": {"profile": "constant", "speed_kmh": \(speed_mps * 3.6)}},
             "sampling": {"rate_hz": \(rate_hz), "duration_s": \(length_m / speed_mps), "policy": "\(policy)"},
             "noise": {"model": "gaussian", "sigma_m": 0}, "accuracy": {"model": "fixed", "value_m": 5}}
            """
        return try ScenarioSpec.decode(Array(json.utf8), file: "straight-pass.json")
    }

    /// The fixes the app is given in replicate `replicate`, with their delivery times.
    static func delivered(_ spec: ScenarioSpec, replicate: Int) throws -> (fixes: [Fix], now_s: [Double], all: [Fix]) {
        var generator = try ScenarioGenerator(spec: spec, replicate: replicate)
        let samples = generator.collect()
        let fixes = samples.compactMap(\.fix)
        let now = samples.filter { $0.fix != nil }.map(\.time_s)
        let d = try SamplingStage.deliveries(spec: spec, replicate: replicate, fixes: fixes, now_s: now)
        return (d.indices.map { fixes[$0] }, d.now_s, fixes)
    }

    /// P(no delivered fix inside a circle of radius r) for a straight pass at offset b and speed v
    /// sampled every Δt with a uniform phase: max(0, 1 − 2√(r² − b²)/(v·Δt)). 600 replicates; the
    /// tolerance is 4 binomial standard errors plus 1/(rate·Δt), the base rate's quantisation of
    /// the tick (the first fix at or after a tick).
    @Test(arguments: [(60.0, 10.0, 60.0), (90.0, 5.0, 30.0), (0.0, 20.0, 20.0)])
    func intervalMissesACircleAsTheClosedFormSays(
        offset_m b: Double, speed_mps v: Double, interval_s dt: Double
    )
        throws
    {
        let r = 100.0
        let rate = 10.0
        let n = 600
        let spec = try Self.straightPass(
            offset_m: b, length_m: 2000, speed_mps: v, rate_hz: rate, policy: "interval:\(dt)")
        let center = try Coordinate(latitude: 0, longitude: 0)
        var misses = 0
        for k in 0..<n {
            let fixes = try Self.delivered(spec, replicate: k).fixes
            let inside = fixes.contains { f in
                Haversine().distance_m(center, try! Coordinate(latitude: f.latitude, longitude: f.longitude)) < r
            }
            if !inside { misses += 1 }
        }
        let p = max(0, 1 - 2 * (r * r - b * b).squareRoot() / (v * dt))
        let observed = Double(misses) / Double(n)
        let tolerance = 4 * (max(p * (1 - p), 1e-4) / Double(n)).squareRoot() + 1 / (rate * dt)
        #expect(
            abs(observed - p) <= tolerance, "P(miss) observed \(observed), closed form \(p), tolerance \(tolerance)")
    }

    /// A distance filter D on a straight path of length L delivers ⌊L/D⌋ + 1 fixes. The path is
    /// sampled every 0.01 m (1 m/s at 100 Hz), so each kept step overshoots D by less than 0.01 m;
    /// the cases satisfy ⌊L/D⌋·(D + 0.01) ≤ L − 0.01, where the sampled count equals the closed form.
    @Test(arguments: [(1000.0, 48.0), (1000.0, 300.0), (500.0, 7.0)])
    func distanceFilterDeliversFloorLOverDPlusOne(length_m: Double, distance_m: Double) throws {
        let step_m = 0.01
        let steps = (length_m / distance_m).rounded(.down)
        try #require(steps * (distance_m + step_m) <= length_m - step_m, "case outside the closed form's validity")
        let spec = try Self.straightPass(
            offset_m: 0, length_m: length_m, speed_mps: 1, rate_hz: 1 / step_m, policy: "distance:\(distance_m)")
        let d = try Self.delivered(spec, replicate: 0)
        #expect(d.fixes.count == Int(steps) + 1, "\(d.fixes.count) fixes delivered of \(d.all.count) measured")
    }

    /// Batching every S adds a delay uniform on [0, S) to each fix: the delay of the first fix
    /// measured at or after t = 100 s, one per replicate over 400 replicates, against the uniform
    /// distribution by Kolmogorov–Smirnov (critical value 1.63/√n, α = 0.01), and its mean S/2
    /// within 4 standard errors (S/√(12n)).
    @Test func batchingDelayIsUniformOnZeroToS() throws {
        let batch_s = 30.0
        let n = 400
        let spec = try Self.straightPass(offset_m: 0, length_m: 300, speed_mps: 1, rate_hz: 1, policy: "all+batch:30")
        var delays: [Double] = []
        for k in 0..<n {
            let d = try Self.delivered(spec, replicate: k)
            let i = try #require(d.fixes.firstIndex { $0.timestamp_s >= 100 })
            let delay = d.now_s[i] - d.fixes[i].timestamp_s
            #expect(delay >= 0 && delay < batch_s)
            delays.append(delay)
        }
        delays.sort()
        var ks = 0.0
        for (i, x) in delays.enumerated() {
            let f = x / batch_s
            ks = max(ks, abs(f - Double(i) / Double(n)), abs(f - Double(i + 1) / Double(n)))
        }
        #expect(ks <= 1.63 / Double(n).squareRoot(), "KS D = \(ks)")
        let mean = delays.reduce(0, +) / Double(n)
        #expect(abs(mean - batch_s / 2) <= 4 * batch_s / (12 * Double(n)).squareRoot(), "mean delay \(mean) s")
    }

    /// The phase comes from its own stream: the same replicate gives the same phase, the policy
    /// leaves the measured fixes untouched (same noise), and `all` draws nothing.
    @Test func phaseIsSeededAndLeavesTheNoiseAlone() throws {
        let a = try Self.straightPass(offset_m: 0, length_m: 300, speed_mps: 1, rate_hz: 1, policy: "interval:60")
        var b = a
        b.sampling.policy = .all
        #expect(
            try SamplingStage.phase_s(a.sampling.policy, spec: a, replicate: 3)
                == SamplingStage.phase_s(a.sampling.policy, spec: a, replicate: 3))
        let phases = try (0..<50).map { try SamplingStage.phase_s(a.sampling.policy, spec: a, replicate: $0) }
        #expect(phases.allSatisfy { $0 >= 0 && $0 < 60 } && Set(phases).count == 50)
        #expect(try SamplingStage.phase_s(.all, spec: b, replicate: 3) == 0)
        #expect(try Self.delivered(a, replicate: 3).all == Self.delivered(b, replicate: 3).all)
    }
}
