/// sin² and |cos| of four angles at once, for the batch fence (`FenceBatch`).
///
/// Algorithm: Cody–Waite reduction x = nπ/2 + r with |r| ≤ π/4 (π/2 split in two parts,
/// exact for |n| ≤ 2), then Taylor polynomials in r (sin to r¹⁵, cos to r¹⁶: truncation
/// below 5·10⁻¹⁷ on |r| ≤ π/4), evaluated lane-wise on `SIMD4<Double>` so the compiler
/// keeps them in vector registers. Valid for |x| ≤ π, which covers every half latitude
/// difference, half longitude difference and latitude of valid coordinates. The tests
/// check both against libm on [−π, π] (relative error ≤ 10⁻¹⁴).
/// Reference: W. J. Cody & W. Waite, "Software Manual for the Elementary Functions" (1980), ch. 8.
enum SIMDTrig {
    typealias V = SIMD4<Double>
    typealias U = SIMD4<UInt64>
    /// 2/π.
    static let twoOverPi = 0.63661977236758134308
    /// π/2 = piOver2Hi + piOver2Lo (hi is the double nearest π/2).
    static let piOver2Hi = 1.5707963267948966
    static let piOver2Lo = 6.123233995736766e-17
    /// 1.5 · 2⁵²: adding it rounds to an integer held in the low mantissa bits.
    static let roundingMagic = 6755399441055744.0

    /// x = nπ/2 + r with |r| ≤ π/4: returns r, r² and the all-ones mask of lanes with odd n.
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

    /// Lane-wise `odd ? b : a` on the bit patterns.
    @inline(__always)
    static func select(_ a: V, _ b: V, odd: U) -> V {
        let ab = unsafeBitCast(a, to: U.self)
        let bb = unsafeBitCast(b, to: U.self)
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
