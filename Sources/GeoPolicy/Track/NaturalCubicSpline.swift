/// A natural cubic spline y(x) through knots (x_i, y_i): C² continuous, y'' = 0 at both ends.
///
/// The second derivatives come from the tridiagonal system
/// h_{i−1} M_{i−1} + 2(h_{i−1} + h_i) M_i + h_i M_{i+1} = 6(Δ_i − Δ_{i−1}), M_0 = M_{n−1} = 0,
/// solved once by the Thomas algorithm (de Boor 1978, "A Practical Guide to Splines", ch. IV;
/// the same spline as GSL's `gsl_interp_cspline`). The polynomial coefficients of every
/// interval are precomputed, so an evaluation is an interval search plus one Horner step.
/// Outside [x_0, x_{n−1}] the end intervals' cubics are continued (no clamping).
public struct NaturalCubicSpline: Sendable, Hashable {
    /// Knot abscissae, strictly increasing.
    public let knots: [Double]
    /// (a, b, c, d) of interval i: y = a + b·t + c·t² + d·t³ with t = x − x_i.
    @usableFromInline let coefficients: [SIMD4<Double>]

    /// - Parameters:
    ///   - x: at least 2 finite, strictly increasing abscissae.
    ///   - y: as many finite ordinates.
    /// - Throws: `TrackError.tooFewPoints`, `.knotsNotIncreasing`, `.invalidParameter` (count or non-finite y).
    public init(x: [Double], y: [Double]) throws(TrackError) {
        let n = x.count
        guard n >= 2 else { throw .tooFewPoints(needed: 2, got: n) }
        guard y.count == n else {
            throw .invalidParameter(name: "y.count", value: Double(y.count), expected: "equal to x.count (\(n))")
        }
        for i in 0..<n {
            guard x[i].isFinite, i == 0 || x[i] > x[i - 1] else { throw .knotsNotIncreasing(index: i, value: x[i]) }
            guard y[i].isFinite else { throw .invalidParameter(name: "y[\(i)]", value: y[i], expected: "finite") }
        }
        var m = [Double](repeating: 0, count: n)
        if n > 2 {
            // Thomas algorithm on the interior unknowns M_1 … M_{n−2}.
            var cPrime = [Double](repeating: 0, count: n)
            var dPrime = [Double](repeating: 0, count: n)
            for i in 1..<(n - 1) {
                let h0 = x[i] - x[i - 1]
                let h1 = x[i + 1] - x[i]
                let rhs = 6 * ((y[i + 1] - y[i]) / h1 - (y[i] - y[i - 1]) / h0)
                let diag = 2 * (h0 + h1) - (i > 1 ? h0 * cPrime[i - 1] : 0)
                cPrime[i] = h1 / diag
                dPrime[i] = (rhs - (i > 1 ? h0 * dPrime[i - 1] : 0)) / diag
            }
            m[n - 2] = dPrime[n - 2]
            var i = n - 3
            while i >= 1 {
                m[i] = dPrime[i] - cPrime[i] * m[i + 1]
                i -= 1
            }
        }
        var coeff = [SIMD4<Double>]()
        coeff.reserveCapacity(n - 1)
        for i in 0..<(n - 1) {
            let h = x[i + 1] - x[i]
            let b = (y[i + 1] - y[i]) / h - h * (2 * m[i] + m[i + 1]) / 6
            coeff.append(SIMD4(y[i], b, m[i] / 2, (m[i + 1] - m[i]) / (6 * h)))
        }
        knots = x
        coefficients = coeff
    }

    /// The interval index i with x_i ≤ x < x_{i+1}, limited to 0…n−2.
    @inlinable
    public func interval(containing x: Double) -> Int {
        var lo = 0
        var hi = knots.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) >> 1
            if knots[mid] <= x { lo = mid } else { hi = mid }
        }
        return lo
    }

    /// y(x).
    @inlinable
    public func value(at x: Double) -> Double { value(at: x, interval: interval(containing: x)) }

    @inlinable @inline(__always)
    func value(at x: Double, interval i: Int) -> Double {
        let c = coefficients[i]
        let t = x - knots[i]
        return c[0] + t * (c[1] + t * (c[2] + t * c[3]))
    }

    /// y at every x in `xs` (any order; sorted input is walked without searching).
    public func values(at xs: [Double]) -> [Double] {
        var out = [Double]()
        out.reserveCapacity(xs.count)
        let last = knots.count - 2
        var i = 0
        for x in xs {
            // Cached interval like GSL's accelerator: step forward for sorted input, search otherwise.
            if x < knots[i] || (i < last && x >= knots[i + 1]) {
                if i < last, x >= knots[i + 1], i + 1 == last || x < knots[i + 2] {
                    i += 1
                } else {
                    i = interval(containing: x)
                }
            }
            out.append(value(at: x, interval: i))
        }
        return out
    }
}
