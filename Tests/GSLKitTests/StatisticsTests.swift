import Foundation
import Testing
import _TestSupport

@testable import GSLKit

/// Reference values come from SciPy 1.17 / NumPy (independent implementations):
/// `stats.t.ppf`, `stats.norm.ppf`, `stats.chi2.ppf`, `np.quantile` (linear, type 7),
/// `np.var(ddof=1)`, `special.i0e`.
@Suite struct StatisticsTests {
    let sample = [3.5, -1.25, 7.0, 2.0, 0.5, 9.75, 4.0]

    @Test func meanVarianceStandardDeviationMatchNumPy() throws {
        let tolerance = 1e-12
        #expect(isClose(try Statistics.mean(sample), 3.642857142857143, absoluteTolerance: tolerance))
        #expect(isClose(try Statistics.variance(sample), 14.205357142857144, absoluteTolerance: tolerance))
        #expect(isClose(try Statistics.standardDeviation(sample), 3.7689994883068296, absoluteTolerance: tolerance))
        #expect(try Statistics.maximum(sample) == 9.75)
    }

    @Test func quantilesOfUnsortedDataMatchNumPyType7() throws {
        let tolerance = 1e-12
        let got = try Statistics.quantiles(sample, probabilities: [0, 0.1, 0.5, 0.95, 1])
        let numpy = [-1.25, -0.2, 3.5, 8.925, 9.75]
        for (g, e) in zip(got, numpy) { #expect(isClose(g, e, absoluteTolerance: tolerance), "\(g) vs \(e)") }
        #expect(try Statistics.quantile([42], probability: 0.95) == 42)
    }

    @Test(arguments: [
        (1.0, 12.706204736174694), (2, 4.302652729749462), (4, 2.7764451051977934),
        (9, 2.262157162798205), (29, 2.045229642132703),
    ])
    func studentTQuantileMatchesSciPy(dof: Double, expected: Double) throws {
        let tolerance = 1e-9
        let t = try Statistics.studentTQuantile(probability: 0.975, degreesOfFreedom: dof)
        #expect(isClose(t, expected, relativeTolerance: tolerance), "t(0.975, \(dof)) = \(t)")
    }

    @Test func normalAndChiSquareQuantilesMatchSciPy() throws {
        let tolerance = 1e-9
        #expect(
            isClose(try Statistics.normalQuantile(probability: 0.995), 2.5758293035489004, relativeTolerance: tolerance)
        )
        #expect(
            isClose(try Statistics.normalQuantile(probability: 0.975), 1.959963984540054, relativeTolerance: tolerance))
        #expect(
            isClose(
                try Statistics.chiSquareQuantile(probability: 0.95, degreesOfFreedom: 1), 3.841458820694124,
                relativeTolerance: tolerance))
        #expect(
            isClose(
                try Statistics.chiSquareQuantile(probability: 0.95, degreesOfFreedom: 10), 18.307038053275146,
                relativeTolerance: tolerance))
    }

    @Test func meanWithConfidenceMatchesSciPyInterval() throws {
        let tolerance = 1e-9
        let ci = try #require(try Statistics.meanWithConfidence([2.1, 2.4, 1.9, 2.6, 2.2]))
        #expect(ci.n == 5)
        #expect(isClose(ci.mean, 2.24, absoluteTolerance: tolerance))
        #expect(isClose(ci.lower, 1.9045208615073341, absoluteTolerance: tolerance))
        #expect(isClose(ci.upper, 2.5754791384926654, absoluteTolerance: tolerance))
    }

    /// The interval uses a table of 95 % t quantiles and gsl_stats_sd_m with the mean it computed
    /// (a sweep asks for millions of intervals); the bits must be those of the unshortened formula
    /// mean ± studentTQuantile((1 + 0.95) / 2, n − 1) · standardDeviation / √n, for every tabulated
    /// n and one beyond the table, and at another level.
    @Test func meanWithConfidenceShortcutsGiveTheSameBits() throws {
        let rng = try RandomSource(seed: 95)
        for n in Array(2...66) + [200] {
            let values = (0..<n).map { _ in rng.uniform() * 1000 - 100 }
            for level in [0.95, 0.9] {
                let ci = try #require(try Statistics.meanWithConfidence(values, level: level))
                let m = try Statistics.mean(values)
                let t = try Statistics.studentTQuantile(probability: (1 + level) / 2, degreesOfFreedom: Double(n - 1))
                let half = t * (try Statistics.standardDeviation(values)) / Double(n).squareRoot()
                #expect(
                    ci.mean.bitPattern == m.bitPattern && ci.lower.bitPattern == (m - half).bitPattern
                        && ci.upper.bitPattern == (m + half).bitPattern, "n \(n), level \(level)")
            }
        }
    }

    /// One value takes a shortcut past GSL: its mean must keep `gsl_stats_mean`'s bits (−0 turns
    /// into +0 there), and a non-finite value is still refused with the general path's error.
    @Test func meanWithConfidenceOfOneValueKeepsGSLBits() throws {
        let values: [Double] = [
            -0.0, 0.0, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude, 1e-300, 3.5, -7.25,
            0.1, 2.0 / 3.0, 123_456.789, 1e308, -.greatestFiniteMagnitude, .greatestFiniteMagnitude,
        ]
        for x in values {
            let ci = try #require(try Statistics.meanWithConfidence([x]))
            let gsl = try Statistics.mean([x])
            #expect(ci.mean.bitPattern == gsl.bitPattern, "\(x)")
            #expect(ci.lower.bitPattern == gsl.bitPattern && ci.upper.bitPattern == gsl.bitPattern && ci.n == 1)
        }
        #expect(try Statistics.mean([-0.0]).bitPattern == (0.0).bitPattern)
        for bad in [Double.nan, .infinity, -.infinity] {
            #expect(throws: GSLError.self) { try Statistics.meanWithConfidence([bad]) }
        }
    }

    @Test func meanWithConfidenceEdgeCounts() throws {
        #expect(try Statistics.meanWithConfidence([]) == nil)
        let one = try #require(try Statistics.meanWithConfidence([7.5]))
        #expect(one.n == 1 && one.mean == 7.5 && one.lower == 7.5 && one.upper == 7.5)
        let constant = try #require(try Statistics.meanWithConfidence([3, 3, 3]))
        #expect(constant.lower == 3 && constant.upper == 3)
    }

    /// The running interval against GSL's two-pass one on the same values in the same order:
    /// the mean has GSL's bits (x86_64: the same extended-precision recurrence), the ends agree
    /// to 1e-13 relative to the spread (Welford's M2 vs the two-pass variance), for tabulated and
    /// untabulated counts, levels, offsets far from zero (cancellation), constants and integers.
    @Test func runningConfidenceMatchesTheTwoPassInterval() throws {
        let rng = try RandomSource(seed: 2026)
        var sets: [[Double]] = []
        for n in [2, 3, 5, 17, 64, 65, 200, 5_000] {
            sets.append((0..<n).map { _ in rng.uniform() * 1000 - 100 })
            sets.append((0..<n).map { _ in 1e6 + rng.gaussian(sigma: 0.01) })  // large offset, tiny spread
            sets.append((0..<n).map { _ in (rng.uniform() * 7).rounded(.down) })  // counts with ties
        }
        sets.append([4.25, 4.25, 4.25, 4.25])
        for values in sets {
            for level in [0.95, 0.9] {
                var running = RunningConfidence()
                for v in values { try running.add(v) }
                let got = try #require(try running.interval(level: level))
                let want = try #require(try Statistics.meanWithConfidence(values, level: level))
                let scale = max(want.upper - want.lower, 1e-300)
                #expect(got.n == want.n && got.level == level)
                #if arch(x86_64)
                    #expect(
                        got.mean.bitPattern == want.mean.bitPattern,
                        "n \(values.count): mean \(got.mean) vs \(want.mean)")
                #else
                    #expect(abs(got.mean - want.mean) <= 1e-13 * max(abs(want.mean), scale))
                #endif
                #expect(abs(got.lower - want.lower) <= 1e-13 * scale + 4 * want.lower.ulp, "n \(values.count) lower")
                #expect(abs(got.upper - want.upper) <= 1e-13 * scale + 4 * want.upper.ulp, "n \(values.count) upper")
            }
        }
    }

    @Test func runningConfidenceEdgeCountsAndBadInput() throws {
        var running = RunningConfidence()
        #expect(try running.interval() == nil)
        try running.add(7.5)
        #expect(try running.interval() == ConfidenceInterval(mean: 7.5, lower: 7.5, upper: 7.5, n: 1, level: 0.95))
        do {
            try running.add(.nan)
            Issue.record("a NaN was added")
        } catch {
            #expect(error.description.contains("index 1"))
        }
        #expect(running.count == 1)
        #expect(throws: GSLError.self) { try running.interval(level: 1) }
    }

    @Test func badInputIsRefusedWithTheReason() {
        #expect(throws: GSLError.self) { try Statistics.mean([]) }
        #expect(throws: GSLError.self) { try Statistics.variance([1]) }
        #expect(throws: GSLError.self) { try Statistics.mean([1, .nan]) }
        #expect(throws: GSLError.self) { try Statistics.quantile([1, 2], probability: 1.5) }
        #expect(throws: GSLError.self) { try Statistics.studentTQuantile(probability: 0.975, degreesOfFreedom: 0) }
        #expect(throws: GSLError.self) { try Statistics.normalQuantile(probability: 1) }
        #expect(throws: GSLError.self) { try Statistics.meanWithConfidence([1, 2], level: 1) }
        do {
            _ = try Statistics.mean([1, .infinity])
            Issue.record("expected an error")
        } catch {
            #expect(error.description.contains("index 1"))
        }
    }

    @Test(arguments: [
        (0.0, 1.0), (1e-3, 0.9990007495835156), (1, 0.46575960759364043),
        (10, 0.1278333371634286), (700, 0.015081295651531355), (1e6, 0.00039894233026924577),
    ])
    func besselI0ScaledMatchesSciPy(x: Double, expected: Double) throws {
        let tolerance = 1e-12
        let got = try SpecialFunctions.besselI0Scaled(x)
        #expect(isClose(got, expected, relativeTolerance: tolerance), "i0e(\(x)) = \(got)")
        #expect(isClose(try SpecialFunctions.besselI0Scaled(-x), got, relativeTolerance: tolerance), "even function")
    }

    @Test func besselRefusesNonFinite() {
        #expect(throws: GSLError.self) { try SpecialFunctions.besselI0Scaled(.nan) }
    }
}

@Suite struct StatisticsIntegrationTests {
    @Test func finiteIntervalClosedForms() throws {
        let tolerance = 1e-10
        let sine = try Integration.integrate(from: 0, to: Double.pi) { x in sin(x) }
        #expect(isClose(sine.value, 2, absoluteTolerance: tolerance))
        #expect(sine.absoluteError < 1e-8)
        // Integrable endpoint singularity: ∫₀¹ x^{-1/2} dx = 2 (needs QAGS' extrapolation).
        let singular = try Integration.integrate(from: 0, to: 1) { x in 1 / x.squareRoot() }
        #expect(isClose(singular.value, 2, absoluteTolerance: 1e-8))
        #expect(try Integration.integrate(from: 3, to: 3) { _ in 1 }.value == 0)
        // Reversed bounds change sign.
        #expect(isClose(try Integration.integrate(from: 1, to: 0) { x in x }.value, -0.5, absoluteTolerance: tolerance))
    }

    @Test func semiInfiniteClosedForms() throws {
        let tolerance = 1e-9
        #expect(
            isClose(
                try Integration.integrateToInfinity(from: 0) { x in exp(-x) }.value, 1, absoluteTolerance: tolerance))
        let gaussianHalf = try Integration.integrateToInfinity(from: 0) { x in exp(-x * x) }
        #expect(isClose(gaussianHalf.value, Double.pi.squareRoot() / 2, absoluteTolerance: tolerance))
        #expect(
            isClose(
                try Integration.integrateToInfinity(from: 1) { x in 1 / (x * x) }.value, 1, absoluteTolerance: tolerance
            ))
    }

    @Test func closureCapturesState() throws {
        let tolerance = 1e-10
        var calls = 0
        let scale = 3.0
        let r = try Integration.integrate(from: 0, to: 2) { x in
            calls += 1
            return scale * x
        }
        #expect(isClose(r.value, 6, absoluteTolerance: tolerance))
        #expect(calls >= 21)
    }

    @Test func gslFailureIsATypedErrorWithGSLText() {
        // A divergent integral: QAGS cannot converge and says why.
        do {
            _ = try Integration.integrate(from: 0, to: 1, limit: 5) { x in 1 / x }
            Issue.record("expected a GSL failure")
        } catch let error {
            guard case .failed(let routine, let reason) = error else {
                Issue.record("wrong case \(error)")
                return
            }
            #expect(routine.contains("qags"))
            #expect(!reason.isEmpty)
        }
        #expect(throws: GSLError.self) { try Integration.integrate(from: 0, to: .infinity) { _ in 1 } }
        #expect(throws: GSLError.self) { try Integration.integrate(from: 0, to: 1, relativeTolerance: 0) { _ in 1 } }
    }
}

/// `Statistics.quantiles` (selection, `OrderStatistics`) against GSL's sort-based
/// `gsl_stats_quantile_from_sorted_data`: the same order statistics and arithmetic, so equal bit for bit.
@Suite struct SelectionQuantileTests {
    static let probabilities = [0, 0.05, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 1]

    @Test func equalToGSLOnSeededSamplesOfEveryShape() throws {
        let rng = try RandomSource(seed: 18)
        for n in Array(1...40) + [97, 128, 1_000, 4_096, 10_001] {
            // Continuous, heavy ties (rounded), sorted, reversed and constant data.
            let gaussian = (0..<n).map { _ in rng.gaussian(sigma: 5) }
            let ties = gaussian.map { ($0 / 2).rounded() }
            let shapes = [
                gaussian, ties, gaussian.sorted(), gaussian.sorted().reversed(), Array(repeating: 3.5, count: n),
            ]
            for values in shapes {
                let got = try Statistics.quantiles(values, probabilities: Self.probabilities)
                let gsl = Statistics.quantilesBySortingWithGSL(values, probabilities: Self.probabilities)
                #expect(got == gsl, "n = \(n): \(got) vs GSL \(gsl)")
            }
        }
    }

    @Test func equalToGSLOnAdversarialPivotsAndSpecialValues() throws {
        // Organ pipe and sawtooth (many ties) are classic bad cases for quickselect pivots.
        let n = 20_000
        let organ = (0..<n).map { Double(min($0, n - $0)) }
        let saw = (0..<n).map { Double($0 % 7) }
        let special = [0.0, -0.0, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude, 1, -1]
        for values in [organ, saw, special] {
            let got = try Statistics.quantiles(values, probabilities: Self.probabilities)
            #expect(got == Statistics.quantilesBySortingWithGSL(values, probabilities: Self.probabilities))
        }
    }

    /// The in-place variant (the calibration's QQ pool) gives the same quantiles and keeps the values.
    @Test func reorderingInPlaceEqualsTheCopyingVersion() throws {
        let rng = try RandomSource(seed: 20)
        for n in [1, 2, 3, 10, 1_001, 20_000] {
            let values = (0..<n).map { _ in rng.gaussian(sigma: 3) }
            var work = values
            let got = try Statistics.quantiles(reordering: &work, probabilities: Self.probabilities)
            #expect(got == (try Statistics.quantiles(values, probabilities: Self.probabilities)), "n = \(n)")
            #expect(work.sorted() == values.sorted(), "a permutation of the input, n = \(n)")
        }
        var empty: [Double] = []
        #expect(throws: GSLError.self) { try Statistics.quantiles(reordering: &empty, probabilities: [0.5]) }
        var one = [1.0]
        #expect(throws: GSLError.self) { try Statistics.quantiles(reordering: &one, probabilities: [1.5]) }
    }

    @Test func selectPlacesTheRankAndPartitions() throws {
        let rng = try RandomSource(seed: 19)
        var values = (0..<1_001).map { _ in rng.uniform() }
        let sorted = values.sorted()
        for rank in [0, 1, 500, 999, 1_000] {
            values.withUnsafeMutableBufferPointer { a in
                OrderStatistics.select(a, rank: rank, lower: 0)
                #expect(a[rank] == sorted[rank])
                #expect(a[..<rank].allSatisfy { $0 <= a[rank] } && a[(rank + 1)...].allSatisfy { $0 >= a[rank] })
            }
        }
    }

    @Test func inputIsNotReordered() throws {
        let values = [5.0, 1, 4, 2, 3]
        _ = try Statistics.quantiles(values, probabilities: [0.5])
        #expect(values == [5, 1, 4, 2, 3])
    }
}
