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
        switch j { case 0: return c.0; case 1: return c.1; case 2: return c.2; default: return c.3 }
    }
    subscript(i: Int, j: Int) -> Double { column(j)[i] }

    /// Transition F = [[I, dt·I], [0, I]] of the constant-velocity model.
    static func transition(dt: Double) -> Matrix4 {
        Matrix4(SIMD4(1, 0, 0, 0), SIMD4(0, 1, 0, 0), SIMD4(dt, 0, 1, 0), SIMD4(0, dt, 0, 1))
    }
    /// T = diag(J, J).
    static func blockDiagonal(_ j: Matrix2) -> Matrix4 {
        Matrix4(SIMD4(j.c0.x, j.c0.y, 0, 0), SIMD4(j.c1.x, j.c1.y, 0, 0),
                SIMD4(0, 0, j.c0.x, j.c0.y), SIMD4(0, 0, j.c1.x, j.c1.y))
    }

    func apply(_ v: SIMD4<Double>) -> SIMD4<Double> { c.0 * v[0] + c.1 * v[1] + c.2 * v[2] + c.3 * v[3] }
    static func * (a: Matrix4, b: Matrix4) -> Matrix4 {
        Matrix4(a.apply(b.c.0), a.apply(b.c.1), a.apply(b.c.2), a.apply(b.c.3))
    }
    static func + (a: Matrix4, b: Matrix4) -> Matrix4 { Matrix4(a.c.0 + b.c.0, a.c.1 + b.c.1, a.c.2 + b.c.2, a.c.3 + b.c.3) }
    static func - (a: Matrix4, b: Matrix4) -> Matrix4 { Matrix4(a.c.0 - b.c.0, a.c.1 - b.c.1, a.c.2 - b.c.2, a.c.3 - b.c.3) }
    var transposed: Matrix4 {
        Matrix4(SIMD4(self[0, 0], self[0, 1], self[0, 2], self[0, 3]),
                SIMD4(self[1, 0], self[1, 1], self[1, 2], self[1, 3]),
                SIMD4(self[2, 0], self[2, 1], self[2, 2], self[2, 3]),
                SIMD4(self[3, 0], self[3, 1], self[3, 2], self[3, 3]))
    }
    var symmetricPart: Covariance4 {
        Covariance4(c0: c.0, c1: c.1, c2: c.2, c3: c.3)
    }

    /// Solves S X = B for symmetric positive definite S (self) by Cholesky factorisation.
    func solveSPD(_ b: Matrix4) -> Matrix4 {
        var l = Lower4()  // fixed size: no heap allocation per smoothed point
        for j in 0..<4 {
            var s = self[j, j]
            for k in 0..<j { s -= l[j, k] * l[j, k] }
            l[j, j] = s.squareRoot()
            for i in (j + 1)..<4 {
                var t = self[i, j]
                for k in 0..<j { t -= l[i, k] * l[j, k] }
                l[i, j] = t / l[j, j]
            }
        }
        func solve(_ rhs: SIMD4<Double>) -> SIMD4<Double> {
            var y = SIMD4<Double>.zero
            for i in 0..<4 {
                var t = rhs[i]
                for k in 0..<i { t -= l[i, k] * y[k] }
                y[i] = t / l[i, i]
            }
            var x = SIMD4<Double>.zero
            for i in stride(from: 3, through: 0, by: -1) {
                var t = y[i]
                for k in (i + 1)..<4 { t -= l[k, i] * x[k] }
                x[i] = t / l[i, i]
            }
            return x
        }
        return Matrix4(solve(b.c.0), solve(b.c.1), solve(b.c.2), solve(b.c.3))
    }
}

/// The Cholesky factor of `Matrix4.solveSPD`, as four SIMD4 rows (element (i, j) = row i, lane j).
struct Lower4 {
    var r0 = SIMD4<Double>.zero, r1 = SIMD4<Double>.zero, r2 = SIMD4<Double>.zero, r3 = SIMD4<Double>.zero

    subscript(i: Int, j: Int) -> Double {
        get {
            switch i { case 0: return r0[j]; case 1: return r1[j]; case 2: return r2[j]; default: return r3[j] }
        }
        set {
            switch i { case 0: r0[j] = newValue; case 1: r1[j] = newValue; case 2: r2[j] = newValue; default: r3[j] = newValue }
        }
    }
}
