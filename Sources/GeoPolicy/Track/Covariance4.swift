/// A symmetric 4×4 matrix stored as four SIMD4 columns (fixed size, no heap).
///
/// The filter keeps it exactly symmetric: every operation that could break symmetry by
/// rounding ends with `symmetrize()`.
public struct Covariance4: Sendable, Hashable {
    public var c0: SIMD4<Double>
    public var c1: SIMD4<Double>
    public var c2: SIMD4<Double>
    public var c3: SIMD4<Double>

    @inlinable
    public init(c0: SIMD4<Double>, c1: SIMD4<Double>, c2: SIMD4<Double>, c3: SIMD4<Double>) {
        self.c0 = c0; self.c1 = c1; self.c2 = c2; self.c3 = c3
    }

    /// A diagonal matrix.
    @inlinable
    public init(diagonal d: SIMD4<Double>) {
        self.init(c0: SIMD4(d[0], 0, 0, 0), c1: SIMD4(0, d[1], 0, 0),
                  c2: SIMD4(0, 0, d[2], 0), c3: SIMD4(0, 0, 0, d[3]))
    }

    /// Element at row `i`, column `j` (0…3).
    @inlinable
    public subscript(i: Int, j: Int) -> Double {
        switch j {
        case 0: return c0[i]
        case 1: return c1[i]
        case 2: return c2[i]
        default: return c3[i]
        }
    }

    /// Averages the off-diagonal pairs so that the stored matrix is exactly symmetric.
    @inlinable @inline(__always)
    public mutating func symmetrize() {
        let a01 = 0.5 * (c1[0] + c0[1]), a02 = 0.5 * (c2[0] + c0[2]), a03 = 0.5 * (c3[0] + c0[3])
        let a12 = 0.5 * (c2[1] + c1[2]), a13 = 0.5 * (c3[1] + c1[3]), a23 = 0.5 * (c3[2] + c2[3])
        c0 = SIMD4(c0[0], a01, a02, a03)
        c1 = SIMD4(a01, c1[1], a12, a13)
        c2 = SIMD4(a02, a12, c2[2], a23)
        c3 = SIMD4(a03, a13, a23, c3[3])
    }

    /// True when exactly symmetric and a Cholesky factorisation succeeds (positive definite).
    public var isSymmetricPositiveDefinite: Bool {
        guard c0[1] == c1[0], c0[2] == c2[0], c0[3] == c3[0],
              c1[2] == c2[1], c1[3] == c3[1], c2[3] == c3[2] else { return false }
        // Cholesky L Lᵀ, column by column, in scalars (no heap).
        let d0 = c0[0]
        guard d0 > 0, d0.isFinite else { return false }
        let l00 = d0.squareRoot()
        let l10 = c0[1] / l00, l20 = c0[2] / l00, l30 = c0[3] / l00
        let d1 = c1[1] - l10 * l10
        guard d1 > 0, d1.isFinite else { return false }
        let l11 = d1.squareRoot()
        let l21 = (c1[2] - l20 * l10) / l11, l31 = (c1[3] - l30 * l10) / l11
        let d2 = c2[2] - l20 * l20 - l21 * l21
        guard d2 > 0, d2.isFinite else { return false }
        let l22 = d2.squareRoot()
        let l32 = (c2[3] - l30 * l20 - l31 * l21) / l22
        let d3 = c3[3] - l30 * l30 - l31 * l31 - l32 * l32
        return d3 > 0 && d3.isFinite
    }

    /// T P Tᵀ for T = diag(J, J): carries a (position, velocity) covariance through a linear frame map.
    @inlinable
    func transformed(by j: Matrix2) -> Covariance4 {
        // Columns of T as SIMD4.
        let t0 = SIMD4(j.c0.x, j.c0.y, 0, 0), t1 = SIMD4(j.c1.x, j.c1.y, 0, 0)
        let t2 = SIMD4(0, 0, j.c0.x, j.c0.y), t3 = SIMD4(0, 0, j.c1.x, j.c1.y)
        // M = T P: column k = Σ_i t_i P[i,k]
        func tp(_ c: SIMD4<Double>) -> SIMD4<Double> { t0 * c[0] + t1 * c[1] + t2 * c[2] + t3 * c[3] }
        let m0 = tp(c0), m1 = tp(c1), m2 = tp(c2), m3 = tp(c3)
        // N = M Tᵀ: column k = Σ_i m_i T[k,i]
        func mt(_ k: Int) -> SIMD4<Double> { m0 * t0[k] + m1 * t1[k] + m2 * t2[k] + m3 * t3[k] }
        var r = Covariance4(c0: mt(0), c1: mt(1), c2: mt(2), c3: mt(3))
        r.symmetrize()
        return r
    }
}
