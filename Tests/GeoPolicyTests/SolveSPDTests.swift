import GSLKit
import Testing

@testable import GeoPolicy

/// `Matrix4.solveSPD` (written-out Cholesky, substitutions on SIMD4 rows) against the
/// column-by-column loop it replaced: bit-identical results, and S X = B to rounding.
@Suite struct SolveSPDTests {
    /// The previous implementation (Golub & Van Loan Alg. 4.2.1 + substitutions, element loops).
    static func loopSolve(_ s: Matrix4, _ b: Matrix4) -> Matrix4 {
        var l = [[Double]](repeating: [0, 0, 0, 0], count: 4)
        for j in 0..<4 {
            var d = s[j, j]
            for k in 0..<j { d -= l[j][k] * l[j][k] }
            l[j][j] = d.squareRoot()
            for i in (j + 1)..<4 {
                var t = s[i, j]
                for k in 0..<j { t -= l[i][k] * l[j][k] }
                l[i][j] = t / l[j][j]
            }
        }
        func solve(_ rhs: SIMD4<Double>) -> SIMD4<Double> {
            var y = SIMD4<Double>.zero
            for i in 0..<4 {
                var t = rhs[i]
                for k in 0..<i { t -= l[i][k] * y[k] }
                y[i] = t / l[i][i]
            }
            var x = SIMD4<Double>.zero
            for i in stride(from: 3, through: 0, by: -1) {
                var t = y[i]
                for k in (i + 1)..<4 { t -= l[k][i] * x[k] }
                x[i] = t / l[i][i]
            }
            return x
        }
        return Matrix4(solve(b.c.0), solve(b.c.1), solve(b.c.2), solve(b.c.3))
    }

    /// Seeded SPD matrices M Mᵀ + δ I with entries spanning the filter's scales (m², m²/s, m²/s²).
    static func randomCases(count: Int, seed: UInt64) throws -> [(Matrix4, Matrix4)] {
        let rng = try RandomSource(seed: seed)
        func column() -> SIMD4<Double> {
            SIMD4(rng.gaussian(sigma: 1), rng.gaussian(sigma: 1), rng.gaussian(sigma: 1), rng.gaussian(sigma: 1))
        }
        return (0..<count).map { _ in
            let scale = SIMD4<Double>(10, 10, 0.5, 0.5) * (1 + 100 * rng.uniform())
            let m = Matrix4(column() * scale, column() * scale, column() * scale, column() * scale)
            let delta = 1e-3 + rng.uniform()
            let s =
                m * m.transposed
                + Matrix4(
                    SIMD4(delta, 0, 0, 0), SIMD4(0, delta, 0, 0),
                    SIMD4(0, 0, delta, 0), SIMD4(0, 0, 0, delta))
            return (
                Matrix4(Covariance4(c0: s.c.0, c1: s.c.1, c2: s.c.2, c3: s.c.3)),  // exactly symmetric
                Matrix4(column() * 100, column(), column() * 1e-3, column() * 1e4)
            )
        }
    }

    @Test func closedFormIsBitIdenticalToTheLoop() throws {
        for (s, b) in try Self.randomCases(count: 5_000, seed: 18) {
            let got = s.solveSPD(b)
            let expected = Self.loopSolve(s, b)
            #expect(got == expected, "solveSPD differs from the loop for S = \(s)")
        }
    }

    @Test func solutionSatisfiesTheSystem() throws {
        // Relative residual |S X − B| / (|S| |X|) per column, a backward-stable bound.
        let relativeResidualTolerance = 1e-13
        for (s, b) in try Self.randomCases(count: 500, seed: 19) {
            let x = s.solveSPD(b)
            let r = s * x - b
            for j in 0..<4 {
                let rn = (r.column(j) * r.column(j)).sum().squareRoot()
                let sn = (0..<4).map { (s.column($0) * s.column($0)).sum() }.reduce(0, +).squareRoot()
                let xn = (x.column(j) * x.column(j)).sum().squareRoot()
                #expect(rn <= relativeResidualTolerance * sn * xn, "residual \(rn) for column \(j)")
            }
        }
    }

    @Test func filterCovariancesSolveAsBefore() throws {
        // The predicted covariances a real filter run hands the smoother (σ 0.5…200 m, dt 1 ms…10 min).
        let rng = try RandomSource(seed: 20)
        var f = try KalmanFilter(accelerationDensity_m2ps3: 0.5)
        var step = KalmanStep()
        var t = 0.0
        var checked = 0
        for i in 0..<3_000 {
            t += [0.001, 1, 5, 600][i % 4] * (0.5 + rng.uniform())
            let fix = Fix(
                timestamp_s: t, latitude: 48 + 1e-4 * Double(i % 50), longitude: 11 + 1e-4 * Double(i % 70),
                horizontalAccuracy_m: 0.5 + 199.5 * rng.uniform())
            try f.update(fix, recording: &step)
            guard !step.isFirst else { continue }
            let s = Matrix4(step.predictedCovariance)
            let b = Matrix4.transition(dt: step.dt_s) * Matrix4(step.priorCovariance)
            #expect(s.solveSPD(b) == Self.loopSolve(s, b))
            checked += 1
        }
        #expect(checked == 2_999)
    }
}
