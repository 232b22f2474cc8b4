/// A symmetric 4×4 matrix stored as its 10 upper-triangle scalars (fixed size, no heap).
///
/// Symmetric by construction: the lower triangle is never stored, so rounding cannot make it
/// asymmetric. Columns are available as SIMD4 for algebra off the hot path.
public struct Covariance4: Sendable, Hashable {
    public var p00: Double, p01: Double, p02: Double, p03: Double
    public var p11: Double, p12: Double, p13: Double
    public var p22: Double, p23: Double
    public var p33: Double

    /// From four columns; the off-diagonal pairs are averaged (exact for a symmetric input).
    @inlinable
    public init(c0: SIMD4<Double>, c1: SIMD4<Double>, c2: SIMD4<Double>, c3: SIMD4<Double>) {
        p00 = c0[0]
        p11 = c1[1]
        p22 = c2[2]
        p33 = c3[3]
        p01 = 0.5 * (c1[0] + c0[1])
        p02 = 0.5 * (c2[0] + c0[2])
        p03 = 0.5 * (c3[0] + c0[3])
        p12 = 0.5 * (c2[1] + c1[2])
        p13 = 0.5 * (c3[1] + c1[3])
        p23 = 0.5 * (c3[2] + c2[3])
    }

    /// A diagonal matrix.
    @inlinable
    public init(diagonal d: SIMD4<Double>) {
        p00 = d[0]
        p11 = d[1]
        p22 = d[2]
        p33 = d[3]
        p01 = 0
        p02 = 0
        p03 = 0
        p12 = 0
        p13 = 0
        p23 = 0
    }

    public var c0: SIMD4<Double> { SIMD4(p00, p01, p02, p03) }
    public var c1: SIMD4<Double> { SIMD4(p01, p11, p12, p13) }
    public var c2: SIMD4<Double> { SIMD4(p02, p12, p22, p23) }
    public var c3: SIMD4<Double> { SIMD4(p03, p13, p23, p33) }

    /// Element at row `i`, column `j` (0…3).
    public subscript(i: Int, j: Int) -> Double {
        switch j {
        case 0: return c0[i]
        case 1: return c1[i]
        case 2: return c2[i]
        default: return c3[i]
        }
    }

    /// True when a Cholesky factorisation succeeds (positive definite; symmetric by storage).
    public var isSymmetricPositiveDefinite: Bool {
        // Cholesky L Lᵀ, column by column, in scalars (no heap).
        let c0 = self.c0
        let c1 = self.c1
        let c2 = self.c2
        let c3 = self.c3
        let d0 = c0[0]
        guard d0 > 0, d0.isFinite else { return false }
        let l00 = d0.squareRoot()
        let l10 = c0[1] / l00
        let l20 = c0[2] / l00
        let l30 = c0[3] / l00
        let d1 = c1[1] - l10 * l10
        guard d1 > 0, d1.isFinite else { return false }
        let l11 = d1.squareRoot()
        let l21 = (c1[2] - l20 * l10) / l11
        let l31 = (c1[3] - l30 * l10) / l11
        let d2 = c2[2] - l20 * l20 - l21 * l21
        guard d2 > 0, d2.isFinite else { return false }
        let l22 = d2.squareRoot()
        let l32 = (c2[3] - l30 * l20 - l31 * l21) / l22
        let d3 = c3[3] - l30 * l30 - l31 * l31 - l32 * l32
        return d3 > 0 && d3.isFinite
    }

    /// eᵀ P⁻¹ e by a Cholesky factorisation in scalars (no heap), or nil when P is not positive
    /// definite. For an estimation error e this is the NEES (χ²(4) for a consistent filter).
    public func normalizedSquare(_ e: SIMD4<Double>) -> Double? {
        let d0 = p00
        guard d0 > 0, d0.isFinite else { return nil }
        let l00 = d0.squareRoot()
        let l10 = p01 / l00
        let l20 = p02 / l00
        let l30 = p03 / l00
        let d1 = p11 - l10 * l10
        guard d1 > 0, d1.isFinite else { return nil }
        let l11 = d1.squareRoot()
        let l21 = (p12 - l20 * l10) / l11
        let l31 = (p13 - l30 * l10) / l11
        let d2 = p22 - l20 * l20 - l21 * l21
        guard d2 > 0, d2.isFinite else { return nil }
        let l22 = d2.squareRoot()
        let l32 = (p23 - l30 * l20 - l31 * l21) / l22
        let d3 = p33 - l30 * l30 - l31 * l31 - l32 * l32
        guard d3 > 0, d3.isFinite else { return nil }
        let l33 = d3.squareRoot()
        // Forward substitution L y = e; eᵀ P⁻¹ e = |y|².
        let y0 = e[0] / l00
        let y1 = (e[1] - l10 * y0) / l11
        let y2 = (e[2] - l20 * y0 - l21 * y1) / l22
        let y3 = (e[3] - l30 * y0 - l31 * y1 - l32 * y2) / l33
        return y0 * y0 + y1 * y1 + y2 * y2 + y3 * y3
    }

    /// eᵀ P_pp⁻¹ e over the position block only (χ²(2) for a consistent filter), or nil when the
    /// block is not positive definite.
    public func positionNormalizedSquare(_ e: SIMD2<Double>) -> Double? {
        let det = p00 * p11 - p01 * p01
        guard p00 > 0, det > 0, det.isFinite else { return nil }
        return (p11 * e.x * e.x - 2 * p01 * e.x * e.y + p00 * e.y * e.y) / det
    }

    /// T P Tᵀ for T = diag(J, J): carries a (position, velocity) covariance through a linear frame map.
    @inlinable
    func transformed(by j: Matrix2) -> Covariance4 {
        // Columns of T as SIMD4.
        let t0 = SIMD4(j.c0.x, j.c0.y, 0, 0)
        let t1 = SIMD4(j.c1.x, j.c1.y, 0, 0)
        let t2 = SIMD4(0, 0, j.c0.x, j.c0.y)
        let t3 = SIMD4(0, 0, j.c1.x, j.c1.y)
        // M = T P: column k = Σ_i t_i P[i,k]
        func tp(_ c: SIMD4<Double>) -> SIMD4<Double> { t0 * c[0] + t1 * c[1] + t2 * c[2] + t3 * c[3] }
        let m0 = tp(self.c0)
        let m1 = tp(self.c1)
        let m2 = tp(self.c2)
        let m3 = tp(self.c3)
        // N = M Tᵀ: column k = Σ_i m_i T[k,i]
        func mt(_ k: Int) -> SIMD4<Double> { m0 * t0[k] + m1 * t1[k] + m2 * t2[k] + m3 * t3[k] }
        return Covariance4(c0: mt(0), c1: mt(1), c2: mt(2), c3: mt(3))
    }
}
