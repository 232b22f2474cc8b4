import GeoPolicy

/// PROTOTYPE of a batch fence API over contiguous arrays (for the engine to adopt):
/// the seed-000 hysteresis decision for many fixes against one circular fence.
///
/// Only the decision is needed, so it compares in haversine space: with
/// h = sin²(Δφ/2) + cos φ₀ cos φ sin²(Δλ/2) and d = 2R asin √h monotone in h,
/// d ≤ enter ⇔ h ≤ sin²(enter / 2R) (likewise exit), so no asin or sqrt per fix,
/// and cos φ₀ is computed once. sin and cos come from a polynomial evaluated on
/// four fixes at a time (SIMD4), valid for |x| ≤ π, which covers every valid
/// latitude and longitude difference. Decisions can differ from the distance
/// comparison only for a fix within a few ulps of a threshold.
struct BatchFence: Sendable {
    let lat0_rad: Double
    let cosLat0: Double
    let lon0_deg: Double
    /// sin²(enter_m / 2R), sin²(exit_m / 2R).
    let hEnter: Double, hExit: Double
    let maxAccuracy_m: Double

    /// - Parameters: centre in degrees (valid), enter_m < exit_m radii in metres, maxAccuracy_m ≥ 0.
    init(centerLatitude: Double, centerLongitude: Double, enter_m: Double, exit_m: Double,
         maxAccuracy_m: Double, radius_m: Double = 6_371_000) {
        lat0_rad = centerLatitude * (Double.pi / 180)
        cosLat0 = _cos(lat0_rad)
        lon0_deg = centerLongitude
        let se = _sin(enter_m / (2 * radius_m)), sx = _sin(exit_m / (2 * radius_m))
        hEnter = se * se
        hExit = sx * sx
        self.maxAccuracy_m = maxAccuracy_m
    }

    /// Runs the fence over the fixes, updating `state`; returns the number of state changes.
    func run(latitude: [Double], longitude: [Double], accuracy_m: [Double], state: inout FenceState) -> Int {
        precondition(latitude.count == longitude.count && latitude.count == accuracy_m.count,
                     "latitude, longitude and accuracy_m must have the same count")
        return latitude.withUnsafeBufferPointer { la in
            longitude.withUnsafeBufferPointer { lo in
                accuracy_m.withUnsafeBufferPointer { ac in
                    run(la, lo, ac, state: &state)
                }
            }
        }
    }

    func run(_ lat: UnsafeBufferPointer<Double>, _ lon: UnsafeBufferPointer<Double>,
             _ acc: UnsafeBufferPointer<Double>, state: inout FenceState) -> Int {
        var changes = 0
        var s = state
        let n = lat.count
        var i = 0
        let k = Double.pi / 180
        while i + 4 <= n {
            let la = UnsafeRawPointer(lat.baseAddress! + i).loadUnaligned(as: SIMD4<Double>.self)
            let lo = UnsafeRawPointer(lon.baseAddress! + i).loadUnaligned(as: SIMD4<Double>.self)
            let ac = UnsafeRawPointer(acc.baseAddress! + i).loadUnaligned(as: SIMD4<Double>.self)
            // NaN fails every comparison, so the range checks also reject non-finite values.
            let valid = (la .>= -90) .& (la .<= 90) .& (lo .>= -180) .& (lo .<= 180)
                .& (ac .>= 0) .& (ac .<= maxAccuracy_m)
            let phi = SIMD4<Double>(repeating: 0).replacing(with: la * k, where: valid)
            let dLon = SIMD4<Double>(repeating: 0).replacing(with: (lo - lon0_deg) * (k * 0.5), where: valid)
            let a = SIMDTrig.sinSquared((phi - lat0_rad) * 0.5)
            let b = SIMDTrig.sinSquared(dLon)
            let h = a + cosLat0 * SIMDTrig.cosAbs(phi) * b
            let inside = h .<= hEnter, outside = h .>= hExit
            for j in 0..<4 where valid[j] {
                let next: FenceState = inside[j] ? .inside : (outside[j] ? .outside : s)
                if next != s { changes += 1; s = next }
            }
            i += 4
        }
        while i < n {
            let la = lat[i], lo = lon[i], ac = acc[i]
            if la >= -90, la <= 90, lo >= -180, lo <= 180, ac >= 0, ac <= maxAccuracy_m {
                let phi = la * k
                let sa = _sin((phi - lat0_rad) * 0.5), sb = _sin((lo - lon0_deg) * k * 0.5)
                let h = sa * sa + cosLat0 * _cos(phi) * sb * sb
                let next: FenceState = h <= hEnter ? .inside : (h >= hExit ? .outside : s)
                if next != s { changes += 1; s = next }
            }
            i += 1
        }
        state = s
        return changes
    }
}

/// sin² and |cos| of four angles at once, by Cody–Waite reduction to |r| ≤ π/4
/// and Taylor polynomials (sin to r¹⁵, cos to r¹⁶: truncation < 5e-17 there).
/// Valid for |x| ≤ π (the reduction uses π/2 in two parts, exact for |n| ≤ 2).
enum SIMDTrig {
    typealias V = SIMD4<Double>
    typealias U = SIMD4<UInt64>
    static let twoOverPi = 0.63661977236758134308
    static let piOver2Hi = 1.5707963267948966
    static let piOver2Lo = 6.123233995736766e-17
    /// 1.5 · 2⁵²: adding it rounds to an integer held in the low mantissa bits.
    static let roundingMagic = 6755399441055744.0

    /// x = nπ/2 + r with |r| ≤ π/4: returns r, r² and the mask of odd n.
    @inline(__always)
    static func reduce(_ x: V) -> (r: V, r2: V, odd: U) {
        let shifted = x * twoOverPi + roundingMagic
        let n = shifted - roundingMagic
        let bits = unsafeBitCast(shifted, to: U.self)
        let r = (x - n * piOver2Hi) - n * piOver2Lo
        return (r, r * r, (bits & 1) &* U(repeating: UInt64.max))
    }

    /// sin r for |r| ≤ π/4 (Taylor to r¹⁵).
    @inline(__always)
    static func sinPoly(_ r: V, _ r2: V) -> V {
        var ps = V(repeating: -1.0 / 1_307_674_368_000)
        ps = ps * r2 + 1.0 / 6_227_020_800
        ps = ps * r2 - 1.0 / 39_916_800
        ps = ps * r2 + 1.0 / 362_880
        ps = ps * r2 - 1.0 / 5_040
        ps = ps * r2 + 1.0 / 120
        ps = ps * r2 - 1.0 / 6
        return r + r * r2 * ps
    }

    /// cos r for |r| ≤ π/4 (Taylor to r¹⁶).
    @inline(__always)
    static func cosPoly(_ r2: V) -> V {
        var pc = V(repeating: 1.0 / 20_922_789_888_000)
        pc = pc * r2 - 1.0 / 87_178_291_200
        pc = pc * r2 + 1.0 / 479_001_600
        pc = pc * r2 - 1.0 / 3_628_800
        pc = pc * r2 + 1.0 / 40_320
        pc = pc * r2 - 1.0 / 720
        pc = pc * r2 + 1.0 / 24
        pc = pc * r2 - 0.5
        return 1 + r2 * pc
    }

    @inline(__always)
    static func select(_ a: V, _ b: V, odd: U) -> V {
        let ab = unsafeBitCast(a, to: U.self), bb = unsafeBitCast(b, to: U.self)
        return unsafeBitCast((ab & ~odd) | (bb & odd), to: V.self)
    }

    /// sin²(x) for |x| ≤ π (the sign of sin does not matter once squared).
    @inline(__always)
    static func sinSquared(_ x: V) -> V {
        // Odd quadrants: sin²x = cos²r = 1 − sin²r (≥ 1/2 there, no cancellation).
        let (r, r2, odd) = reduce(x)
        let s = sinPoly(r, r2)
        let s2 = s * s
        return select(s2, 1 - s2, odd: odd)
    }

    /// |cos x| for |x| ≤ π; equals cos x for latitudes (|x| ≤ π/2).
    @inline(__always)
    static func cosAbs(_ x: V) -> V {
        let (r, r2, odd) = reduce(x)
        let v = select(cosPoly(r2), sinPoly(r, r2), odd: odd)
        return unsafeBitCast(unsafeBitCast(v, to: U.self) & U(repeating: 0x7FFF_FFFF_FFFF_FFFF), to: V.self)
    }
}
