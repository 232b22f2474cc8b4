import GSLKit
import GeoPolicy
import Testing
import _TestSupport

/// `NaturalCubicSpline` (GeoPolicy, pure Swift) against GSL's `gsl_interp_cspline` as oracle.
@Suite struct SplineOracleTests {
    static let relativeTolerance = 1e-9

    @Test(arguments: [(3, 11 as UInt64), (4, 12), (8, 13), (20, 14), (100, 15), (1000, 16)])
    func agreesWithGSL(knots: Int, seed: UInt64) throws {
        let rng = try RandomSource(seed: seed)
        var x: [Double] = []
        var y: [Double] = []
        var t = -50.0
        for _ in 0..<knots {
            t += 0.05 + 2 * rng.uniform()
            x.append(t)
            y.append(1000 + rng.gaussian(sigma: 100))
        }
        let mine = try NaturalCubicSpline(x: x, y: y)
        let gsl = try GSLCubicSpline(x: x, y: y)
        var queries = (0..<1000).map { _ in x[0] + (x[knots - 1] - x[0]) * rng.uniform() }
        queries += x  // the knots themselves
        for q in queries {
            let expected = try gsl.value(at: q)
            #expect(isClose(mine.value(at: q), expected, relativeTolerance: Self.relativeTolerance), "x = \(q)")
        }
        let sorted = queries.sorted()
        for (a, b) in zip(mine.values(at: sorted), try gsl.values(at: sorted)) {
            #expect(isClose(a, b, relativeTolerance: Self.relativeTolerance))
        }
    }

    @Test func gslRefusesWhatItCannotDo() throws {
        #expect(throws: GSLError.self) { try GSLCubicSpline(x: [0, 1], y: [0, 1]) }
        let s = try GSLCubicSpline(x: [0, 1, 2], y: [0, 1, 0])
        #expect(throws: GSLError.self) { try s.value(at: 3) }
    }
}
