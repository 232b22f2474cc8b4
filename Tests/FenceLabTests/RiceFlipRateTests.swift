import DriveSim
import FenceLab
import Foundation
import GSLKit
import GeoPolicy
import Testing
import _TestSupport

/// Rice CDF against SciPy 1.17 (`stats.rice.cdf(x/σ, ν/σ)`, `stats.rice.sf`), an
/// independent implementation (Marcum-Q based, not integration).
@Suite struct RiceModelTests {
    @Test(arguments: [
        (100.0, 10.0, 80.0, 0.01989579035794967, 0.9801042096420504),
        (100.0, 10.0, 120.0, 0.974670525702058, 0.025329474297941967),
        (90.0, 15.0, 80.0, 0.22498089844038643, 0.7750191015596135),
        (110.0, 12.0, 120.0, 0.7826081886858618, 0.2173918113141382),
        (1000.0, 5.0, 990.0, 0.02261481496391441, 0.9773851850360856),
        (1000.0, 5.0, 1012.0, 0.9917466445357678, 0.008253355464232226),
        (20000.0, 3.0, 19995.0, 0.047782891020992556, 0.9522171089790075),
        (0.0, 10.0, 15.0, 0.6753475326416503, 0.32465246735834974),
        (30.0, 10.0, 30.0, 0.4325202377091385, 0.5674797622908615),
    ])
    func cdfAndSurvivalMatchSciPy(nu: Double, sigma: Double, x: Double, cdf: Double, sf: Double) throws {
        let tolerance = 1e-9  // absolute, probability
        let model = try RiceModel(nu_m: nu, sigma_m: sigma)
        let c = try model.cdf(x)
        let s = try model.survival(x)
        #expect(isClose(c, cdf, absoluteTolerance: tolerance), "cdf(\(x)) = \(c)")
        #expect(isClose(s, sf, absoluteTolerance: tolerance), "sf(\(x)) = \(s)")
        // The smaller tail is computed directly, so it is also relatively accurate.
        #expect(isClose(min(c, s), min(cdf, sf), relativeTolerance: 1e-7))
    }

    @Test func rayleighClosedFormWhenNuIsZero() throws {
        let tolerance = 1e-10
        let model = try RiceModel(nu_m: 0, sigma_m: 4)
        for r in [0.5, 4, 9, 20] {
            #expect(isClose(try model.cdf(r), 1 - exp(-r * r / 32), absoluteTolerance: tolerance))
        }
        #expect(try model.cdf(0) == 0 && model.survival(0) == 1)
    }

    @Test func densityIsFiniteForLargeNuOverSigma() throws {
        // ν/σ = 10⁶: the unscaled I₀(rν/σ²) would overflow; the scaled form is a Gaussian peak.
        let model = try RiceModel(nu_m: 1e6, sigma_m: 1)
        let peak = try model.density(1e6)
        let gaussianPeak = 1 / (2 * Double.pi).squareRoot()
        #expect(isClose(peak, gaussianPeak, relativeTolerance: 1e-5))
    }

    @Test func badParametersAreRefused() {
        #expect(throws: MetricsError.self) { try RiceModel(nu_m: -1, sigma_m: 1) }
        #expect(throws: MetricsError.self) { try RiceModel(nu_m: 1, sigma_m: 0) }
        #expect(throws: MetricsError.self) { try RiceModel(nu_m: .nan, sigma_m: 1) }
        #expect(throws: MetricsError.self) { try FlipRatePrediction(pInside: 1.5, pOutside: 0.1) }
    }

    @Test func predictionFormula() throws {
        let tolerance = 1e-15
        let p = try FlipRatePrediction(pInside: 0.2, pOutside: 0.05)
        #expect(isClose(p.flipsPerFix, 2 * 0.2 * 0.05 / 0.25, absoluteTolerance: tolerance))
        let none = try FlipRatePrediction(pInside: 0, pOutside: 0.3)
        #expect(none.flipsPerFix == 0 && none.countVariancePerFix == 0)
    }
}

/// The statistical test of the Rice model: measured flip rates of a stationary user
/// against the Rice prediction.
@Suite struct RiceFlipRateTests {
    /// The engine's hysteresis rule with the accuracy gate effectively off (fixes here carry accuracy 0).
    static func hysteresis(_ previous: FenceState, distance_m: Double, enter_m: Double, exit_m: Double) -> FenceState {
        let rule = try! Hysteresis(enter_m: enter_m, exit_m: exit_m, maxAccuracy_m: 1e9)
        return rule.next(previous: previous, distance_m: distance_m, accuracy_m: 0)
    }

    struct Count {
        var flips = 0
        var steps = 0
        var batchFlips: [Double] = []
    }

    /// Simulates `fixes` fixes at true distance d (east offset) with N(0, σ²) noise per axis,
    /// counts inside↔outside flips between consecutive fixes after the first determination.
    static func simulate(d: Double, sigma: Double, fixes: Int, seed: UInt64, batch: Int) throws -> Count {
        let rng = try RandomSource(kind: .mt19937, seed: seed)
        var state = FenceState.unknown
        var count = Count()
        var inBatch = 0
        var batchCount = 0
        for _ in 0..<fixes {
            let east = d + rng.gaussian(sigma: sigma)
            let north = rng.gaussian(sigma: sigma)
            let next = hysteresis(
                state, distance_m: (east * east + north * north).squareRoot(), enter_m: 80, exit_m: 120)
            if state != .unknown {
                count.steps += 1
                if next != state {
                    count.flips += 1
                    batchCount += 1
                }
                inBatch += 1
                if inBatch == batch {
                    count.batchFlips.append(Double(batchCount))
                    inBatch = 0
                    batchCount = 0
                }
            }
            state = next
        }
        return count
    }

    /// Interval: the two-state chain's renewal variance 4·s²/μ³ per step (see
    /// `FlipRatePrediction`), normal approximation at 99 %, ±1 flip boundary slack.
    /// Counting starts at the first determined state, which is drawn from the chain's
    /// stationary law (P(inside | determined) = p_in/(p_in + p_out)), so no burn-in bias.
    /// Cross-check: the batch-means variance (batches of 1000 steps) of the measured flips
    /// must agree with the chain variance within a factor 0.6…1.6 (100 batches: the
    /// estimate's relative s.d. is ≈ 14 %, so this is a ≈ 3σ band).
    @Test(arguments: [(100.0, 10.0, 11 as UInt64), (100, 20, 12), (90, 15, 13), (110, 12, 14), (60, 30, 15)])
    func measuredFlipRateLiesInThe99PercentInterval(d: Double, sigma: Double, seed: UInt64) throws {
        let fixes = 100_000
        let prediction = try FlipRatePrediction(model: RiceModel(nu_m: d, sigma_m: sigma), enter_m: 80, exit_m: 120)
        let batch = 1000
        let measured = try Self.simulate(d: d, sigma: sigma, fixes: fixes, seed: seed, batch: batch)
        #expect(measured.steps >= fixes - 1000)
        let interval = try prediction.countInterval(steps: measured.steps, level: 0.99)
        #expect(
            Double(measured.flips) >= interval.lower && Double(measured.flips) <= interval.upper,
            "d \(d) σ \(sigma): \(measured.flips) flips in \(measured.steps) steps, 99 % interval \(interval), rate \(prediction.flipsPerFix)"
        )
        let batchVariance = try Statistics.variance(measured.batchFlips) / Double(batch)
        let ratio = batchVariance / prediction.countVariancePerFix
        #expect(ratio > 0.6 && ratio < 1.6, "batch-means variance / chain variance = \(ratio)")
    }

    /// The interval is not vacuous: a rule with other radii (70/130) flips at a clearly
    /// different rate and falls outside the 80/120 interval.
    @Test func intervalRejectsAWrongModel() throws {
        let prediction = try FlipRatePrediction(model: RiceModel(nu_m: 100, sigma_m: 20), enter_m: 70, exit_m: 130)
        let measured = try Self.simulate(d: 100, sigma: 20, fixes: 100_000, seed: 12, batch: 1000)
        let interval = try prediction.countInterval(steps: measured.steps, level: 0.99)
        #expect(Double(measured.flips) > interval.upper)
    }

    /// The same prediction checked end to end: DriveSim's stationary route with isotropic
    /// Gaussian noise (GSL), delivered fixes through the engine's `FenceMonitor` (Haversine,
    /// accuracy gate off), flips counted from the monitor's states after the first determination.
    @Test(arguments: [(100.0, 10.0, 21 as UInt64), (90, 15, 22)])
    func generatorAndMonitorFlipAtThePredictedRate(d: Double, sigma: Double, seed: UInt64) throws {
        let json = """
            {"name": "rice-\(Int(d))-\(Int(sigma))", "description": "stationary Rice check",
             "rulesVersion": "hysteresis-80-120-acc1000000000", "seed": \(seed), "replicates": 1,
             "fence": {"center": [48.1, 11.5], "rule": {"kind": "hysteresis", "enter_m": 80, "exit_m": 120, "maxAccuracy_m": 1000000000}},
             "route": {"kind": "stationary", "distance_m": \(d), "bearing_deg": 30},
             "sampling": {"rate_hz": 1, "duration_s": 100000},
             "noise": {"model": "gaussian", "sigma_m": \(sigma)},
             "accuracy": {"model": "drms"}}
            """
        let spec = try ScenarioSpec.decode(Array(json.utf8), file: "rice.json")
        var generator = try ScenarioGenerator(spec: spec, replicate: 0)
        var monitor = try FenceMonitor(
            center: spec.fence.center, evaluator: RuleSpec.parse("hysteresis:80:120:1000000000").evaluator(),
            maxAge_s: .infinity, logging: .off)
        var state = FenceState.unknown
        var flips = 0
        var steps = 0
        while let sample = generator.next() {
            guard let fix = sample.fix else { continue }
            let next = monitor.process(fix, now_s: sample.time_s).newState
            if state != .unknown {
                steps += 1
                if next != state { flips += 1 }
            }
            state = next
        }
        #expect(steps >= 99_000)
        let prediction = try FlipRatePrediction(model: RiceModel(nu_m: d, sigma_m: sigma), enter_m: 80, exit_m: 120)
        let interval = try prediction.countInterval(steps: steps, level: 0.99)
        #expect(
            Double(flips) >= interval.lower && Double(flips) <= interval.upper,
            "d \(d) σ \(sigma): \(flips) flips in \(steps) steps, 99 % interval \(interval)")
    }
}
