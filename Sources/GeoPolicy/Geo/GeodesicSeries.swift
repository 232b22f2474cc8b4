/// The series expansions of Karney's inverse geodesic, to sixth order.
///
/// Coefficients from C. F. F. Karney, "Algorithms for geodesics",
/// J. Geodesy 87:43–55 (2013), eqs. (15), (17), (24), (25), (42), (43)
/// (with A2 in the form of the paper's erratum: (1 − 3/4 ε² − 7/64 ε⁴ − 11/256 ε⁶)/(1 + ε)).
/// ε is the expansion parameter of the auxiliary sphere, |ε| < 0.0017 on WGS84;
/// n = f/(2 − f) is the third flattening. Everything here is fixed-size: no heap.

/// Six coefficients of the sine series Σ_{l=1…6} c_l sin(2lσ).
struct SineSeries6: Sendable {
    var c1, c2, c3, c4, c5, c6: Double

    @inline(__always)
    init(_ c1: Double, _ c2: Double, _ c3: Double, _ c4: Double, _ c5: Double, _ c6: Double) {
        (self.c1, self.c2, self.c3, self.c4, self.c5, self.c6) = (c1, c2, c3, c4, c5, c6)
    }

    /// Σ c_l sin(2lσ) for σ given by `sin σ`, `cos σ` (unit length), by Clenshaw summation:
    /// b_l = c_l + 2cos(2σ)·b_{l+1} − b_{l+2}, sum = b_1·sin(2σ).
    @inline(__always)
    func sum(sin s: Double, cos c: Double) -> Double {
        let x = 2 * (c - s) * (c + s)  // 2 cos 2σ
        let b6 = c6
        let b5 = c5 + x * b6
        let b4 = c4 + x * b5 - b6
        let b3 = c3 + x * b4 - b5
        let b2 = c2 + x * b3 - b4
        let b1 = c1 + x * b2 - b3
        return b1 * (2 * s * c)
    }
}

enum GeodesicSeries {
    /// A1 − 1, the scale of the distance integral I1 (Karney 2013 eq. 17).
    @inline(__always)
    static func a1m1(_ eps: Double) -> Double {
        let e2 = eps * eps
        let t = e2 * (64 + e2 * (4 + e2)) / 256
        return (t + eps) / (1 - eps)
    }

    /// C1l, l = 1…6, the sine coefficients of I1 (Karney 2013 eq. 18).
    @inline(__always)
    static func c1(_ eps: Double) -> SineSeries6 {
        let e2 = eps * eps
        let e3 = e2 * eps
        let e4 = e2 * e2
        return SineSeries6(
            eps * (-1.0 / 2 + e2 * (3.0 / 16 - e2 / 32)),
            e2 * (-1.0 / 16 + e2 * (1.0 / 32 - e2 * 9 / 2048)),
            e3 * (-1.0 / 48 + e2 * 3 / 256),
            e4 * (-5.0 / 512 + e2 * 3 / 512),
            e4 * eps * (-7.0 / 1280),
            e4 * e2 * (-7.0 / 2048))
    }

    /// A2 − 1, the scale of the integral I2 used by the reduced length (Karney 2013 eq. 42).
    @inline(__always)
    static func a2m1(_ eps: Double) -> Double {
        let e2 = eps * eps
        let t = -e2 * (192 + e2 * (28 + e2 * 11)) / 256
        return (t - eps) / (1 + eps)
    }

    /// C2l, l = 1…6, the sine coefficients of I2 (Karney 2013 eq. 43).
    @inline(__always)
    static func c2(_ eps: Double) -> SineSeries6 {
        let e2 = eps * eps
        let e3 = e2 * eps
        let e4 = e2 * e2
        return SineSeries6(
            eps * (1.0 / 2 + e2 * (1.0 / 16 + e2 / 32)),
            e2 * (3.0 / 16 + e2 * (1.0 / 32 + e2 * 35 / 1024)),
            e3 * (5.0 / 48 + e2 * 5 / 256),
            e4 * (35.0 / 512 + e2 * 7 / 512),
            e4 * eps * (63.0 / 1280),
            e4 * e2 * (77.0 / 2048))
    }
}

/// The n-dependent coefficients of the longitude integral I3 (A3 and C3l, Karney 2013 eqs. 24–25),
/// evaluated once per ellipsoid so that a call only runs Horner's rule in ε.
struct LongitudeSeries: Sendable {
    // A3 = 1 − a1 ε − a2 ε² − … − a5 ε⁵
    let a1, a2, a3, a4, a5: Double
    // C3l = ε^l (k_l0 + k_l1 ε + …), up to ε⁵.
    let k10, k11, k12, k13, k14: Double
    let k20, k21, k22, k23: Double
    let k30, k31, k32: Double
    let k40, k41: Double
    let k50: Double

    /// - Parameter n: third flattening f/(2 − f), |n| ≪ 1.
    init(n: Double) {
        let n2 = n * n
        a1 = 1.0 / 2 - n / 2
        a2 = 1.0 / 4 + n / 8 - 3 * n2 / 8
        a3 = 1.0 / 16 + 3 * n / 16 + n2 / 16
        a4 = 3.0 / 64 + n / 32
        a5 = 3.0 / 128
        k10 = 1.0 / 4 - n / 4
        k11 = 1.0 / 8 - n2 / 8
        k12 = 3.0 / 64 + 3 * n / 64 - n2 / 64
        k13 = 5.0 / 128 + n / 64
        k14 = 3.0 / 128
        k20 = 1.0 / 16 - 3 * n / 32 + n2 / 32
        k21 = 3.0 / 64 - n / 32 - 3 * n2 / 64
        k22 = 3.0 / 128 + n / 128
        k23 = 5.0 / 256
        k30 = 5.0 / 192 - 3 * n / 64 + 5 * n2 / 192
        k31 = 3.0 / 128 - 5 * n / 192
        k32 = 7.0 / 512
        k40 = 7.0 / 512 - 7 * n / 256
        k41 = 7.0 / 512
        k50 = 21.0 / 2560
    }

    /// A3(ε), the scale of I3.
    @inline(__always)
    func a3(_ eps: Double) -> Double {
        1 - eps * (a1 + eps * (a2 + eps * (a3 + eps * (a4 + eps * a5))))
    }

    /// C3l(ε), l = 1…5 (the sixth is zero at this order).
    @inline(__always)
    func c3(_ eps: Double) -> SineSeries6 {
        let e2 = eps * eps
        let e3 = e2 * eps
        let e4 = e2 * e2
        return SineSeries6(
            eps * (k10 + eps * (k11 + eps * (k12 + eps * (k13 + eps * k14)))),
            e2 * (k20 + eps * (k21 + eps * (k22 + eps * k23))),
            e3 * (k30 + eps * (k31 + eps * k32)),
            e4 * (k40 + eps * k41),
            e4 * eps * k50,
            0)
    }
}
