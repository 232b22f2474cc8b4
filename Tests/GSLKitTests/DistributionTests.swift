import Foundation
import GSLKit
import Testing
import _TestSupport

/// The GSL variates DriveSim draws, checked on 10⁵ seeded draws each against their
/// distribution: means within the two-sided 99 % CLT interval, probabilities within the
/// 99 % binomial interval of the GSL CDF (`gsl_cdf_*` as the oracle).
@Suite struct DistributionTests {
    static let n = 100_000
    static let z99 = try! Statistics.normalQuantile(probability: 0.995)

    static func expectMean(_ xs: [Double], _ mean: Double, sd: Double) {
        let m = xs.reduce(0, +) / Double(xs.count)
        let half = z99 * sd / Double(xs.count).squareRoot()
        #expect(abs(m - mean) <= half, "mean \(m) vs \(mean) ± \(half)")
    }

    static func expectFraction(_ count: Int, of total: Int, probability p: Double) {
        let half = z99 * (p * (1 - p) / Double(total)).squareRoot()
        let f = Double(count) / Double(total)
        #expect(abs(f - p) <= half, "fraction \(f) vs \(p) ± \(half)")
    }

    @Test func quantilesInvertTheCDF() throws {
        let tolerance = 1e-12
        #expect(isClose(try Statistics.normalQuantile(probability: 0.975), 1.959963984540054, absoluteTolerance: 1e-12))
        #expect(
            isClose(
                try DistributionCDF.gaussianP(2 * Statistics.normalQuantile(probability: 0.3), sigma: 2), 0.3,
                absoluteTolerance: tolerance))
        // χ²(2) is Exp(mean 2): P(X ≤ x) = 1 − e^(−x/2).
        #expect(isClose(DistributionCDF.chiSquaredP(3, nu: 2), 1 - exp(-1.5), absoluteTolerance: tolerance))
        #expect(
            isClose(
                try Statistics.chiSquareQuantile(probability: 1 - exp(-1.5), degreesOfFreedom: 2), 3,
                absoluteTolerance: 1e-9))
        // Student-t with ν = 1 is Cauchy: P(T ≤ 1) = 3/4.
        #expect(isClose(DistributionCDF.studentTP(1, nu: 1), 0.75, absoluteTolerance: tolerance))
    }

    @Test func bivariateGaussianMomentsAndCorrelation() throws {
        let rng = try RandomSource(seed: 21)
        let sx = 3.0
        let sy = 7.0
        let rho = -0.4
        let v = (0..<Self.n).map { _ in rng.bivariateGaussian(sigmaX: sx, sigmaY: sy, rho: rho) }
        Self.expectMean(v.map(\.x), 0, sd: sx)
        Self.expectMean(v.map(\.y), 0, sd: sy)
        // E[xy] = ρσxσy; var(xy) = σx²σy²(1 + ρ²) for a zero-mean bivariate Gaussian.
        Self.expectMean(v.map { $0.x * $0.y }, rho * sx * sy, sd: sx * sy * (1 + rho * rho).squareRoot())
        Self.expectMean(v.map { $0.x * $0.x }, sx * sx, sd: sx * sx * 2.0.squareRoot())
    }

    @Test func zigguratGaussianProbabilities() throws {
        let rng = try RandomSource(seed: 22)
        let x = (0..<Self.n).map { _ in rng.gaussianZiggurat(sigma: 2) }
        Self.expectMean(x, 0, sd: 2)
        Self.expectFraction(
            x.filter { $0 <= 1.5 }.count, of: Self.n, probability: DistributionCDF.gaussianP(1.5, sigma: 2))
    }

    @Test(arguments: [3.0, 10.0])
    func studentTProbabilities(nu: Double) throws {
        let rng = try RandomSource(seed: 23)
        let t = (0..<Self.n).map { _ in rng.studentT(nu: nu) }
        for q in [-2.0, 0.5, 3.0] {
            Self.expectFraction(
                t.filter { $0 <= q }.count, of: Self.n, probability: DistributionCDF.studentTP(q, nu: nu))
        }
    }

    @Test func chiSquaredMean() throws {
        let rng = try RandomSource(seed: 24)
        let nu = 4.0
        Self.expectMean((0..<Self.n).map { _ in rng.chiSquared(nu: nu) }, nu, sd: (2 * nu).squareRoot())
    }

    @Test func logNormalMedianAndLogMoments() throws {
        let rng = try RandomSource(seed: 25)
        let zeta = 0.3
        let sigma = 0.5
        let x = (0..<Self.n).map { _ in rng.logNormal(zeta: zeta, sigma: sigma) }
        Self.expectFraction(x.filter { $0 <= exp(zeta) }.count, of: Self.n, probability: 0.5)
        Self.expectMean(x.map { log($0) }, zeta, sd: sigma)
    }

    @Test func exponentialMeanAndCDF() throws {
        let rng = try RandomSource(seed: 26)
        let mean = 20.0
        let x = (0..<Self.n).map { _ in rng.exponential(mean: mean) }
        Self.expectMean(x, mean, sd: mean)
        Self.expectFraction(
            x.filter { $0 <= 10 }.count, of: Self.n, probability: DistributionCDF.exponentialP(10, mean: mean))
    }

    @Test func poissonMeanAndCDF() throws {
        let rng = try RandomSource(seed: 27)
        let mean = 3.5
        let k = (0..<Self.n).map { _ in rng.poisson(mean: mean) }
        Self.expectMean(k.map(Double.init), mean, sd: mean.squareRoot())
        Self.expectFraction(
            k.filter { $0 <= 2 }.count, of: Self.n, probability: DistributionCDF.poissonP(2, mean: mean))
    }

    @Test func uniformIntRangeAndFrequencies() throws {
        let rng = try RandomSource(seed: 28)
        var counts = [Int](repeating: 0, count: 5)
        for _ in 0..<Self.n {
            let i = rng.uniformInt(below: 5)
            #expect(i >= 0 && i < 5)
            counts[i] += 1
        }
        for c in counts { Self.expectFraction(c, of: Self.n, probability: 0.2) }
    }
}
