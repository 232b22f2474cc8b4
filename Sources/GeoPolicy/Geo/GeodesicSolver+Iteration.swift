/// The iterative part of Karney's inverse geodesic: the starting azimuth (§4–5),
/// λ12(α1) with its derivative (§4, eqs. 44–46) and the safeguarded Newton loop.
extension GeodesicSolver {
    /// First guess for α1; `sig12 ≥ 0` when the short-line solution is already final.
    struct Start: Sendable {
        var sig12, salp1, calp1, salp2, calp2, dnm: Double
    }

    /// Starting azimuth: the sphere of radius b·dnm for short lines (eq. 49–50), the
    /// great circle on the auxiliary sphere in general, the astroid (eq. 55–57) when
    /// the points are nearly antipodal and the spherical guess would fail.
    func inverseStart(_ p: Endpoints, lam12: Double, slam12: Double, clam12: Double) -> Start {
        var st = Start(sig12: -1, salp1: 0, calp1: 0, salp2: .nan, calp2: .nan, dnm: .nan)
        let sbet12 = p.sbet2 * p.cbet1 - p.cbet2 * p.sbet1  // sin(β2 − β1)
        let cbet12 = p.cbet2 * p.cbet1 + p.sbet2 * p.sbet1  // cos(β2 − β1)
        let sbet12a = p.sbet2 * p.cbet1 + p.cbet2 * p.sbet1  // sin(β2 + β1)
        let shortline = cbet12 >= 0 && sbet12 < 0.5 && p.cbet2 * lam12 < 0.5
        var somg12 = slam12
        var comg12 = clam12
        if shortline {
            var sbetm2 = (p.sbet1 + p.sbet2) * (p.sbet1 + p.sbet2)
            sbetm2 /= sbetm2 + (p.cbet1 + p.cbet2) * (p.cbet1 + p.cbet2)
            st.dnm = _sqrt(1 + ep2 * sbetm2)
            let omg12 = lam12 / (f1 * st.dnm)
            (somg12, comg12) = _sinCos(omg12)
        }
        st.salp1 = p.cbet2 * somg12
        st.calp1 =
            comg12 >= 0
            ? sbet12 + p.cbet2 * p.sbet1 * somg12 * somg12 / (1 + comg12)
            : sbet12a - p.cbet2 * p.sbet1 * somg12 * somg12 / (1 - comg12)
        let ssig12 = _sqrt(st.salp1 * st.salp1 + st.calp1 * st.calp1)
        let csig12 = p.sbet1 * p.sbet2 + p.cbet1 * p.cbet2 * comg12

        if shortline && ssig12 < etol2 {
            let salp2 = p.cbet1 * somg12
            let calp2 =
                sbet12 - p.cbet1 * p.sbet2
                * (comg12 >= 0 ? somg12 * somg12 / (1 + comg12) : 1 - comg12)
            (st.salp2, st.calp2) = GeodesicAngle.normalize(salp2, calp2)
            st.sig12 = _atan2(ssig12, csig12)
        } else if csig12 >= 0 || ssig12 >= 6 * n * Double.pi * p.cbet1 * p.cbet1 {
            // Not nearly antipodal: the great-circle guess converges.
        } else {
            // Nearly antipodal: scale to the astroid problem (x, y) of §5.
            let lam12x = _atan2(-slam12, -clam12)  // λ12 − π
            let k2 = p.sbet1 * p.sbet1 * ep2
            let eps = k2 / (2 * (1 + _sqrt(1 + k2)) + k2)
            let lamscale = f * p.cbet1 * longitude.a3(eps) * Double.pi
            let betscale = lamscale * p.cbet1
            let x = lam12x / lamscale
            let y = sbet12a / betscale
            if y > -GeodesicSolver.tol1 && x > -1 - GeodesicSolver.xthresh {
                // Points near the equator: the limit y → 0 of the astroid solution.
                st.salp1 = min(1, -x)
                st.calp1 = -_sqrt(1 - st.salp1 * st.salp1)
            } else {
                let k = GeodesicSolver.astroid(x: x, y: y)
                let omg12a = lamscale * (-x * k / (1 + k))
                let (s, c) = _sinCos(omg12a)
                somg12 = s
                comg12 = -c
                st.salp1 = p.cbet2 * somg12
                st.calp1 = sbet12a - p.cbet2 * p.sbet1 * somg12 * somg12 / (1 - comg12)
            }
        }
        if !(st.salp1 <= 0) {
            (st.salp1, st.calp1) = GeodesicAngle.normalize(st.salp1, st.calp1)
        } else {
            (st.salp1, st.calp1) = (1, 0)
        }
        return st
    }

    /// The positive root k of k⁴ + 2k³ − (x² + y² − 1)k² − 2y²k − y² = 0 (Karney 2013 eq. 55),
    /// solved in closed form through the resolvent cubic.
    static func astroid(x: Double, y: Double) -> Double {
        let p = x * x
        let q = y * y
        let r = (p + q - 1) / 6
        guard !(q == 0 && r <= 0) else { return 0 }
        let s = p * q / 4
        let r2 = r * r
        let r3 = r * r2
        let disc = s * (s + 2 * r3)
        var u = r
        if disc >= 0 {
            var t3 = s + r3
            t3 += t3 < 0 ? -_sqrt(disc) : _sqrt(disc)  // avoid cancellation
            let t = _cbrt(t3)
            u += t + (t != 0 ? r2 / t : 0)
        } else {
            let ang = _atan2(_sqrt(-disc), -(s + r3))
            u += 2 * r * _cos(ang / 3)
        }
        let v = _sqrt(u * u + q)
        let uv = u < 0 ? q / (v - u) : u + v  // u + v without cancellation
        let w = (uv - q) / (2 * v)
        return uv / (_sqrt(uv + w * w) + w)
    }

    /// λ12 − λ12(target) for a trial α1, and the geometry it implies.
    struct Lambda: Sendable {
        var v, dv, salp2, calp2, sig12, ssig1, csig1, ssig2, csig2, eps: Double
    }

    /// Longitude difference reached by the geodesic leaving point 1 at azimuth α1, minus
    /// the wanted λ12, with dλ12/dα1 = m12·(1 − f)/(cos α2 cos β2) when `derivative`.
    func lambda12(
        _ p: Endpoints, salp1: Double, calp1 calp1In: Double,
        slam120: Double, clam120: Double, derivative: Bool
    ) -> Lambda {
        // Break the degeneracy of a line leaving the equator due north.
        let calp1 = p.sbet1 == 0 && calp1In == 0 ? -GeodesicSolver.tiny : calp1In
        let salp0 = salp1 * p.cbet1  // Clairaut: sin α0
        let calp0 = _sqrt(calp1 * calp1 + (salp1 * p.sbet1) * (salp1 * p.sbet1))
        let somg1 = salp0 * p.sbet1
        let comg1 = calp1 * p.cbet1
        let (ssig1, csig1) = GeodesicAngle.normalize(p.sbet1, comg1)

        let salp2 = p.cbet2 != p.cbet1 ? salp0 / p.cbet2 : salp1
        let calp2: Double
        if p.cbet2 != p.cbet1 || p.sbet2.magnitude != -p.sbet1 {
            let d =
                p.cbet1 < -p.sbet1
                ? (p.cbet2 - p.cbet1) * (p.cbet1 + p.cbet2)
                : (p.sbet1 - p.sbet2) * (p.sbet1 + p.sbet2)
            calp2 = _sqrt((calp1 * p.cbet1) * (calp1 * p.cbet1) + d) / p.cbet2
        } else {
            calp2 = calp1.magnitude
        }
        let somg2 = salp0 * p.sbet2
        let comg2 = calp2 * p.cbet2
        let (ssig2, csig2) = GeodesicAngle.normalize(p.sbet2, comg2)

        let sig12 = _atan2(GeodesicAngle.positivePart(csig1 * ssig2 - ssig1 * csig2), csig1 * csig2 + ssig1 * ssig2)
        let somg12 = GeodesicAngle.positivePart(comg1 * somg2 - somg1 * comg2)
        let comg12 = comg1 * comg2 + somg1 * somg2
        // η = ω12 − λ12(target), in one atan2.
        let eta = _atan2(somg12 * clam120 - comg12 * slam120, comg12 * clam120 + somg12 * slam120)
        let k2 = calp0 * calp0 * ep2
        let eps = k2 / (2 * (1 + _sqrt(1 + k2)) + k2)
        let c3 = longitude.c3(eps)
        let b312 = c3.sum(sin: ssig2, cos: csig2) - c3.sum(sin: ssig1, cos: csig1)
        let domg12 = -f * longitude.a3(eps) * salp0 * (sig12 + b312)

        var dv = 0.0
        if derivative {
            if calp2 == 0 {
                dv = -2 * f1 * p.dn1 / p.sbet1
            } else {
                let l = lengths(
                    eps: eps, sig12: sig12, ssig1: ssig1, csig1: csig1, dn1: p.dn1,
                    ssig2: ssig2, csig2: csig2, dn2: p.dn2)
                dv = l.m12b * f1 / (calp2 * p.cbet2)
            }
        }
        return Lambda(
            v: eta + domg12, dv: dv, salp2: salp2, calp2: calp2, sig12: sig12,
            ssig1: ssig1, csig1: csig1, ssig2: ssig2, csig2: csig2, eps: eps)
    }

    /// Solves λ12(α1) = λ12 by Newton's method, keeping a bracket [α1a, α1b] and bisecting
    /// whenever a Newton step leaves (0, π) or fails to shrink the residual.
    func newton(_ p: Endpoints, start: Start, slam12: Double, clam12: Double, base: Solution) -> Solution {
        var salp1 = start.salp1
        var calp1 = start.calp1
        var salp1a = GeodesicSolver.tiny
        var calp1a = 1.0  // bracket end with λ12 too small
        var salp1b = GeodesicSolver.tiny
        var calp1b = -1.0  // bracket end with λ12 too large
        var tripn = false
        var tripb = false
        var l: Lambda
        var numit = 0
        while true {
            l = lambda12(
                p, salp1: salp1, calp1: calp1, slam120: slam12, clam120: clam12,
                derivative: numit < GeodesicSolver.maxNewton)
            // Written so that a NaN residual also stops.
            if tripb || !(l.v.magnitude >= (tripn ? 8 : 1) * GeodesicSolver.tol0)
                || numit == GeodesicSolver.maxIterations
            {
                break
            }
            if l.v > 0 && (numit > GeodesicSolver.maxNewton || calp1 / salp1 > calp1b / salp1b) {
                (salp1b, calp1b) = (salp1, calp1)
            } else if l.v < 0 && (numit > GeodesicSolver.maxNewton || calp1 / salp1 < calp1a / salp1a) {
                (salp1a, calp1a) = (salp1, calp1)
            }
            let newtonAllowed = numit < GeodesicSolver.maxNewton
            numit += 1
            if newtonAllowed && l.dv > 0 {
                let dalp1 = -l.v / l.dv
                if dalp1.magnitude < Double.pi {
                    let (sd, cd) = _sinCos(dalp1)
                    let nsalp1 = salp1 * cd + calp1 * sd
                    if nsalp1 > 0 {
                        (salp1, calp1) = GeodesicAngle.normalize(nsalp1, calp1 * cd - salp1 * sd)
                        tripn = l.v.magnitude <= 16 * GeodesicSolver.tol0
                        continue
                    }
                }
            }
            // Bisection of the bracket.
            (salp1, calp1) = GeodesicAngle.normalize((salp1a + salp1b) / 2, (calp1a + calp1b) / 2)
            tripn = false
            tripb =
                (salp1a - salp1).magnitude + (calp1a - calp1) < GeodesicSolver.tolb
                || (salp1 - salp1b).magnitude + (calp1 - calp1b) < GeodesicSolver.tolb
        }
        let s = lengths(
            eps: l.eps, sig12: l.sig12, ssig1: l.ssig1, csig1: l.csig1, dn1: p.dn1,
            ssig2: l.ssig2, csig2: l.csig2, dn2: p.dn2)
        var out = base
        out.s12_m = s.s12b * b
        (out.salp1, out.calp1, out.salp2, out.calp2) = (salp1, calp1, l.salp2, l.calp2)
        return out
    }
}

/// Angles in degrees with exact quadrant handling, as the geodesic needs them.
enum GeodesicAngle {
    /// sin and cos of an angle in degrees, exact at multiples of 90° (reduced to ±45° first).
    @inline(__always)
    static func sinCos(degrees x: Double) -> (Double, Double) {
        let q = (x / 90).rounded()
        let r = (x - 90 * q) * EarthModel.radiansPerDegree  // exact reduction for |x| ≤ 540
        let (s, c) = _sinCos(r)
        switch Int(q) & 3 {
        case 0: return (s, c)
        case 1: return (c, -s)
        case 2: return (-s, -c)
        default: return (-c, s)
        }
    }

    /// Rounds angles below 1/16° so that values within ~1e-17° of zero become 0 (Karney's AngRound):
    /// tiny latitudes and longitude differences then hit the exact equatorial/meridional branches.
    @inline(__always)
    static func round(_ x: Double) -> Double {
        let z = 1.0 / 16
        let y = x.magnitude
        let w = y < z ? z - (z - y) : y
        return x < 0 ? -w : w
    }

    /// x when positive, else +0 (never −0, which would flip atan2(±0, −1) to −π).
    @inline(__always)
    static func positivePart(_ x: Double) -> Double {
        x > 0 ? x : 0
    }

    /// (s, c) scaled to unit length.
    @inline(__always)
    static func normalize(_ s: Double, _ c: Double) -> (Double, Double) {
        let r = _sqrt(s * s + c * c)
        return (s / r, c / r)
    }

    /// atan2 in degrees, in (−180, 180].
    @inline(__always)
    static func atan2Degrees(_ y: Double, _ x: Double) -> Double {
        _atan2(y, x) * EarthModel.degreesPerRadian
    }
}
