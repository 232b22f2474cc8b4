/// A general 4×4 matrix as four SIMD4 columns (offline smoother algebra; fixed size).
struct Matrix4: Sendable, Hashable {
    var c: (SIMD4<Double>, SIMD4<Double>, SIMD4<Double>, SIMD4<Double>)

    init(_ c0: SIMD4<Double>, _ c1: SIMD4<Double>, _ c2: SIMD4<Double>, _ c3: SIMD4<Double>) {
        c = (c0, c1, c2, c3)
    }
    init(_ p: Covariance4) { self.init(p.c0, p.c1, p.c2, p.c3) }

    static func == (a: Matrix4, b: Matrix4) -> Bool {
        a.c.0 == b.c.0 && a.c.1 == b.c.1 && a.c.2 == b.c.2 && a.c.3 == b.c.3
    }
    func hash(into h: inout Hasher) { for j in 0..<4 { h.combine(column(j)) } }

    func column(_ j: Int) -> SIMD4<Double> {
        switch j {
        case 0: return c.0
        case 1: return c.1
        case 2: return c.2
        default: return c.3
        }
    }
    subscript(i: Int, j: Int) -> Double { column(j)[i] }

    /// Transition F = [[I, dt·I], [0, I]] of the constant-velocity model.
    static func transition(dt: Double) -> Matrix4 {
        Matrix4(SIMD4(1, 0, 0, 0), SIMD4(0, 1, 0, 0), SIMD4(dt, 0, 1, 0), SIMD4(0, dt, 0, 1))
    }

    func apply(_ v: SIMD4<Double>) -> SIMD4<Double> { c.0 * v[0] + c.1 * v[1] + c.2 * v[2] + c.3 * v[3] }
    static func * (a: Matrix4, b: Matrix4) -> Matrix4 {
        Matrix4(a.apply(b.c.0), a.apply(b.c.1), a.apply(b.c.2), a.apply(b.c.3))
    }
    static func + (a: Matrix4, b: Matrix4) -> Matrix4 {
        Matrix4(a.c.0 + b.c.0, a.c.1 + b.c.1, a.c.2 + b.c.2, a.c.3 + b.c.3)
    }
    static func - (a: Matrix4, b: Matrix4) -> Matrix4 {
        Matrix4(a.c.0 - b.c.0, a.c.1 - b.c.1, a.c.2 - b.c.2, a.c.3 - b.c.3)
    }
    var transposed: Matrix4 {
        Matrix4(
            SIMD4(self[0, 0], self[0, 1], self[0, 2], self[0, 3]),
            SIMD4(self[1, 0], self[1, 1], self[1, 2], self[1, 3]),
            SIMD4(self[2, 0], self[2, 1], self[2, 2], self[2, 3]),
            SIMD4(self[3, 0], self[3, 1], self[3, 2], self[3, 3]))
    }
    var symmetricPart: Covariance4 {
        Covariance4(c0: c.0, c1: c.1, c2: c.2, c3: c.3)
    }

    /// Solves S X = B for symmetric positive definite S (self) by Cholesky factorisation S = L Lᵀ.
    ///
    /// Written out for 4×4 (no loops, no subscripts): L's ten entries are scalars, and the
    /// forward (L y = b) and back (Lᵀ x = y) substitutions run on B's rows as SIMD4, i.e. on all
    /// four right-hand sides at once. Each lane performs exactly the operations, in the same
    /// order, of the textbook column-by-column loop (Golub & Van Loan 2013, Alg. 4.2.1 and
    /// 3.1.1–3.1.2), so the result is bit for bit that of the loop (tested against it).
    func solveSPD(_ b: Matrix4) -> Matrix4 {
        let s0 = c.0
        let s1 = c.1
        let s2 = c.2
        let s3 = c.3  // columns of S
        let l00 = s0[0].squareRoot()
        let l10 = s0[1] / l00
        let l20 = s0[2] / l00
        let l30 = s0[3] / l00
        let l11 = (s1[1] - l10 * l10).squareRoot()
        let l21 = (s1[2] - l20 * l10) / l11
        let l31 = (s1[3] - l30 * l10) / l11
        let l22 = (s2[2] - l20 * l20 - l21 * l21).squareRoot()
        let l32 = (s2[3] - l30 * l20 - l31 * l21) / l22
        let l33 = (s3[3] - l30 * l30 - l31 * l31 - l32 * l32).squareRoot()
        // Rows of B: lane j of row i is B[i, j].
        let t = b.transposed
        let b0 = t.c.0
        let b1 = t.c.1
        let b2 = t.c.2
        let b3 = t.c.3
        let y0 = b0 / l00
        let y1 = (b1 - l10 * y0) / l11
        let y2 = (b2 - l20 * y0 - l21 * y1) / l22
        let y3 = (b3 - l30 * y0 - l31 * y1 - l32 * y2) / l33
        let x3 = y3 / l33
        let x2 = (y2 - l32 * x3) / l22
        let x1 = (y1 - l21 * x2 - l31 * x3) / l11
        let x0 = (y0 - l10 * x1 - l20 * x2 - l30 * x3) / l00
        // x0…x3 are the rows of X.
        return Matrix4(x0, x1, x2, x3).transposed
    }
}
