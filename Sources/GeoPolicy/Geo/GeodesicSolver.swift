/// Karney's inverse geodesic on an oblate ellipsoid of revolution.
///
/// Algorithm: C. F. F. Karney, "Algorithms for geodesics", J. Geodesy 87:43–55 (2013).
/// The problem is mapped onto the auxiliary sphere (reduced latitude β, arc length σ);
/// distance and longitude are the integrals I1 and I3 of §3, expanded to order 6 in ε
/// (`GeodesicSeries`). The azimuth α1 at the first point is found by Newton's method on
/// λ12(α1) (§4) with the derivative from the reduced length m12 (eq. 46), starting from
/// the spherical guess (eq. 49) or, for nearly antipodal points, from the astroid
/// solution (§5, eq. 55). A bracket on α1 with bisection guarantees convergence where
/// Newton's step would leave it. Written for 0 ≤ f ≤ 1/150 (the Earth, f ≈ 1/298).
struct GeodesicSolver: Sendable {
    let a: Double  // semi-major axis, m
    let f: Double  // flattening
    let f1: Double  // 1 − f
    let b: Double  // semi-minor axis, m
    let e2: Double  // first eccentricity squared e²
    let ep2: Double  // second eccentricity squared e'²
    let n: Double  // third flattening f/(2 − f)
    let etol2: Double  // short-line threshold on sin σ12 (Karney's etol2)
    let chordCurvature2: Double  // κ² midway between (b/a²)² and (a/b²)², m⁻²
    let longitude: LongitudeSeries

    static let maxNewton = 20  // Newton steps before pure bisection
    static let maxIterations = 20 + 53 + 10  // + one bisection per mantissa bit
    static let tol0 = Double.ulpOfOne
    static let tol1 = 200 * Double.ulpOfOne
    static let tol2 = Double.ulpOfOne.squareRoot()
    static let tolb = Double.ulpOfOne * Double.ulpOfOne.squareRoot()
    static let xthresh = 1000 * Double.ulpOfOne.squareRoot()
    /// Smallest cosine kept for β at the poles: √(least normal) so that its square stays normal.
    static let tiny = Double.leastNormalMagnitude.squareRoot()

    /// - Parameters: a_m semi-major axis in metres (> 0); f flattening, 0 ≤ f ≤ 1/150.
    init(a_m: Double, f: Double) {
        precondition(a_m > 0 && f >= 0 && f <= 1.0 / 150, "GeodesicSolver: unsupported ellipsoid")
        a = a_m
        self.f = f
        f1 = 1 - f
        b = a_m * (1 - f)
        e2 = f * (2 - f)
        ep2 = e2 / ((1 - f) * (1 - f))
        let kPole = a_m / (b * b)
        let kEquator = b / (a_m * a_m)  // extreme normal curvatures
        chordCurvature2 = (kPole * kPole + kEquator * kEquator) / 2
        n = f / (2 - f)
        etol2 = 0.1 * GeodesicSolver.tol2 / (max(0.001, f) * min(1, 1 - f / 2) / 2).squareRoot()
        longitude = LongitudeSeries(n: n)
    }

    /// The answer in the canonical frame plus what is needed to map azimuths back.
    struct Solution: Sendable {
        var s12_m: Double
        var salp1, calp1, salp2, calp2: Double
        var swapped: Bool
        var latSign, lonSign: Double
    }

    /// Geodesic distance in metres between two points in degrees: the chord path for short
    /// lines, Karney's solution otherwise.
    func distance_m(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        if let s = shortDistance_m(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2) { return s }
        return solve(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2).s12_m
    }

    /// Solves the inverse problem between two points in degrees (latitudes within ±90).
    func solve(lat1 latitude1: Double, lon1: Double, lat2 latitude2: Double, lon2: Double) -> Solution {
        // Longitude difference in (−180, 180], then made non-negative.
        var lon12 = lon2 - lon1
        if lon12 > 180 { lon12 -= 360 } else if lon12 < -180 { lon12 += 360 }
        var lonSign: Double = lon12.sign == .minus ? -1 : 1
        lon12 = GeodesicAngle.round(lon12.magnitude)
        let lam12 = lon12 * EarthModel.radiansPerDegree
        let (slam12, clam12) = GeodesicAngle.sinCos(degrees: lon12)

        // Canonical order: |lat1| ≥ |lat2|, lat1 ≤ 0.
        var lat1 = GeodesicAngle.round(latitude1)
        var lat2 = GeodesicAngle.round(latitude2)
        let swapped = lat1.magnitude < lat2.magnitude
        if swapped {
            swap(&lat1, &lat2)
            lonSign = -lonSign
        }
        let latSign: Double = lat1.sign == .minus ? 1 : -1
        lat1 *= latSign
        lat2 *= latSign

        let (sbet1, cbet1) = reducedLatitude(lat1)
        var (sbet2, cbet2) = reducedLatitude(lat2)
        // Make |β1| == |β2| exact when the latitudes are opposite or equal.
        if cbet1 < -sbet1 {
            if cbet2 == cbet1 { sbet2 = sbet2.sign == .minus ? sbet1 : -sbet1 }
        } else if sbet2.magnitude == -sbet1 {
            cbet2 = cbet1
        }
        let dn1 = _sqrt(1 + ep2 * sbet1 * sbet1)
        let dn2 = _sqrt(1 + ep2 * sbet2 * sbet2)
        let p = Endpoints(sbet1: sbet1, cbet1: cbet1, dn1: dn1, sbet2: sbet2, cbet2: cbet2, dn2: dn2)

        var out = Solution(
            s12_m: 0, salp1: 0, calp1: 0, salp2: 0, calp2: 0,
            swapped: swapped, latSign: latSign, lonSign: lonSign)
        if lat1 == -90 || slam12 == 0, let s = meridian(p, slam12: slam12, clam12: clam12) {
            // Along a meridian (or from a pole): σ12 is known, no iteration.
            out.s12_m = s
            (out.salp1, out.calp1, out.salp2, out.calp2) = (slam12, clam12, 0, 1)
        } else if sbet1 == 0 && 180 - lon12 >= f * 180 {
            // Along the equator, when that is shortest (λ12 ≤ (1 − f)·180°).
            out.s12_m = a * lam12
            (out.salp1, out.calp1, out.salp2, out.calp2) = (1, 0, 1, 0)
        } else {
            let start = inverseStart(p, lam12: lam12, slam12: slam12, clam12: clam12)
            if start.sig12 >= 0 {
                // Short line, solved on a sphere of radius b·dnm.
                out.s12_m = start.sig12 * b * start.dnm
                (out.salp1, out.calp1, out.salp2, out.calp2) = (start.salp1, start.calp1, start.salp2, start.calp2)
            } else {
                out = newton(p, start: start, slam12: slam12, clam12: clam12, base: out)
            }
        }
        out.s12_m += 0  // −0 → +0
        return out
    }

    /// sin β and cos β (normalised) of the reduced latitude, tan β = (1 − f) tan φ; cos β ≥ `tiny`.
    @inline(__always)
    func reducedLatitude(_ lat: Double) -> (Double, Double) {
        let (s, c) = GeodesicAngle.sinCos(degrees: lat)
        let (sb, cb) = GeodesicAngle.normalize(f1 * s, c)
        return (sb, max(GeodesicSolver.tiny, cb))
    }

    /// Both endpoints on the auxiliary sphere.
    struct Endpoints: Sendable {
        let sbet1, cbet1, dn1, sbet2, cbet2, dn2: Double
        init(sbet1: Double, cbet1: Double, dn1: Double, sbet2: Double, cbet2: Double, dn2: Double) {
            (self.sbet1, self.cbet1, self.dn1, self.sbet2, self.cbet2, self.dn2) = (
                sbet1, cbet1, dn1, sbet2, cbet2, dn2
            )
        }
    }

    /// Distance along a meridian, or nil when the meridian is not the shortest path
    /// (beyond a conjugate point: σ12 ≥ 1 and m12 < 0).
    func meridian(_ p: Endpoints, slam12: Double, clam12: Double) -> Double? {
        let ssig1 = p.sbet1
        let csig1 = clam12 * p.cbet1
        let ssig2 = p.sbet2
        let csig2 = p.cbet2
        let sig12 = _atan2(GeodesicAngle.positivePart(csig1 * ssig2 - ssig1 * csig2), csig1 * csig2 + ssig1 * ssig2)
        // Along a meridian α0 = 0, so k² = e'² and ε = n.
        let l = lengths(
            eps: n, sig12: sig12, ssig1: ssig1, csig1: csig1, dn1: p.dn1,
            ssig2: ssig2, csig2: csig2, dn2: p.dn2)
        guard sig12 < 1 || l.m12b >= 0 else { return nil }
        if sig12 < 3 * GeodesicSolver.tiny || (sig12 < GeodesicSolver.tol0 && l.s12b < 0) { return 0 }
        return l.s12b * b
    }

    /// Distance s12/b and reduced length m12/b for the arc σ1…σ2 (Karney 2013 eqs. 7, 38, 40).
    @inline(__always)
    func lengths(
        eps: Double, sig12: Double, ssig1: Double, csig1: Double, dn1: Double,
        ssig2: Double, csig2: Double, dn2: Double
    ) -> (s12b: Double, m12b: Double) {
        let a1m1 = GeodesicSeries.a1m1(eps)
        let a2m1 = GeodesicSeries.a2m1(eps)
        let c1 = GeodesicSeries.c1(eps)
        let c2 = GeodesicSeries.c2(eps)
        let b1 = c1.sum(sin: ssig2, cos: csig2) - c1.sum(sin: ssig1, cos: csig1)
        let b2 = c2.sum(sin: ssig2, cos: csig2) - c2.sum(sin: ssig1, cos: csig1)
        let a1 = 1 + a1m1
        let a2 = 1 + a2m1
        let j12 = (a1m1 - a2m1) * sig12 + (a1 * b1 - a2 * b2)
        let s12b = a1 * (sig12 + b1)
        let m12b = dn2 * (csig1 * ssig2) - dn1 * (ssig1 * csig2) - csig1 * csig2 * j12
        return (s12b, m12b)
    }

}
