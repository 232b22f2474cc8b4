/// `LocalFrame.offset_m` for raw degrees near the anchor, without libm calls (the filter's hot path).
///
/// Within 0.01 rad (≈ 64 km) of the anchor in latitude and longitude, the sines and cosines
/// of the differences come from their Taylor series and the central angle from the arctangent
/// series, each truncated where the next term is below 10⁻²¹ relative; the result equals
/// `frame.offset_m` to rounding (tested to 1e-8 m; ulp(180°) is 3 nm). Farther away (or with a longitude
/// difference above 0.01 rad near a pole) it falls back to `frame.offset_m`.
@usableFromInline
struct AnchorProjection: Sendable {
    @usableFromInline let frame: LocalFrame
    @usableFromInline let lat0_rad: Double
    @usableFromInline let lon0_deg: Double
    @usableFromInline let sinLat0: Double
    @usableFromInline let cosLat0: Double
    @usableFromInline let radius_m: Double
    // Constants of the inlinable hot path are computed properties that fold at compile time:
    // a `static let` read from another module goes through an accessor (and `swift_once`).
    @inlinable static var smallAngle_rad: Double { 0.01 }
    /// `EarthModel.radiansPerDegree` (same expression, so the same value; tested).
    @inlinable static var radiansPerDegree: Double { Double.pi / 180 }

    @usableFromInline
    init(frame: LocalFrame) {
        self.frame = frame
        lat0_rad = frame.anchor.latitude * EarthModel.radiansPerDegree
        lon0_deg = frame.anchor.longitude
        // The frame's own unit vectors, so both paths share the anchor exactly.
        sinLat0 = frame.up.z
        cosLat0 = frame.north.z
        radius_m = frame.radius_m
    }

    /// The projection anchored at the plane point `p` of this frame, and the Jacobian that carries
    /// vectors at `p` into the new frame (for velocities and, as diag(J, J), covariances).
    func reanchored(at p: SIMD2<Double>) -> (AnchorProjection, Matrix2) {
        let newFrame = LocalFrame(anchor: frame.coordinate(p))
        return (AnchorProjection(frame: newFrame), frame.jacobian(at: p, into: newFrame))
    }

    @inlinable @inline(__always)
    func offset_m(latitude: Double, longitude: Double) -> SIMD2<Double> {
        let k = AnchorProjection.radiansPerDegree
        let dphi = latitude * k - lat0_rad
        var dlonDeg = longitude - lon0_deg
        if dlonDeg > 180 { dlonDeg -= 360 } else if dlonDeg < -180 { dlonDeg += 360 }
        let dlam = dlonDeg * k
        guard abs(dphi) < AnchorProjection.smallAngle_rad, abs(dlam) < AnchorProjection.smallAngle_rad else {
            return AnchorProjection.exactOffset_m(
                latitude: latitude, longitude: longitude, up: frame.up,
                east: frame.east, north: frame.north, radius_m: radius_m)
        }
        // The two series for Δφ and Δλ side by side in the lanes of one vector: lane by lane the
        // same operations as `sinSmall`/`versSmall` (so the same values), without the shuffles
        // LLVM otherwise inserts to pair pieces of the scalar forms.
        let d = SIMD2(dphi, dlam)
        let sv = AnchorProjection.sinSmall(d)
        let vv = AnchorProjection.versSmall(d)
        let sdp = sv.x
        let vdp = vv.x
        let sdl = sv.y
        let vdl = vv.y
        // cos φ = cos(φ0 + Δφ) = cos φ0 (1 − vers Δφ) − sin φ0 sin Δφ.
        let cphi = cosLat0 * (1 - vdp) - sinLat0 * sdp
        let x = cphi * sdl
        // sin φ cos φ0 − cos φ sin φ0 cos Δλ = sin Δφ + cos φ sin φ0 vers Δλ.
        let y = sdp + cphi * sinLat0 * vdl
        // sin φ sin φ0 + cos φ cos φ0 cos Δλ = cos Δφ − cos φ cos φ0 vers Δλ.
        let z = (1 - vdp) - cphi * cosLat0 * vdl
        // Offset = (x, y)·R·θ/s with s = √(x² + y²), θ = atan(s/z); θ/s = (1/z)·atan(r)/r with r² = s²/z².
        let invZ = 1 / z
        let r2 = (x * x + y * y) * invZ * invZ
        let scale = radius_m * invZ * AnchorProjection.atanOverR(r2)
        return SIMD2(x * scale, y * scale)
    }

    /// `LocalFrame.offset_m` (libm trigonometry) for fixes beyond the series' reach, with the
    /// frame's vectors as arguments: out of line, so the filter's hot path neither keeps them live
    /// nor copies the frame for a call it rarely makes.
    @usableFromInline @inline(never)
    static func exactOffset_m(
        latitude: Double, longitude: Double, up: SIMD3<Double>, east: SIMD3<Double>,
        north: SIMD3<Double>, radius_m: Double
    ) -> SIMD2<Double> {
        LocalFrame.offset_m(
            unitVector: Coordinate(computedLatitude: latitude, longitude: longitude).unitVector,
            up: up, east: east, north: north, radius_m: radius_m)
    }

    // Taylor coefficients as reciprocals (multiplication instead of division in the hot path).
    @inlinable static var c6: Double { 1.0 / 6 }
    @inlinable static var c20: Double { 1.0 / 20 }
    @inlinable static var c42: Double { 1.0 / 42 }
    @inlinable static var c12: Double { 1.0 / 12 }
    @inlinable static var c30: Double { 1.0 / 30 }
    @inlinable static var c56: Double { 1.0 / 56 }
    @inlinable static var a3: Double { 1.0 / 3 }
    @inlinable static var a5: Double { 1.0 / 5 }
    @inlinable static var a7: Double { 1.0 / 7 }
    @inlinable static var a9: Double { 1.0 / 9 }
    @inlinable static var a11: Double { 1.0 / 11 }

    /// sin x for |x| ≤ 0.01: terms to x⁷, the first omitted term is < 3·10⁻²² relative.
    @inlinable @inline(__always) static func sinSmall(_ x: Double) -> Double {
        let x2 = x * x
        return x * (1 - x2 * c6 * (1 - x2 * c20 * (1 - x2 * c42)))
    }

    /// `sinSmall` lane by lane (the same operations in the same order).
    @inlinable @inline(__always) static func sinSmall(_ x: SIMD2<Double>) -> SIMD2<Double> {
        let x2 = x * x
        return x * (1 - x2 * c6 * (1 - x2 * c20 * (1 - x2 * c42)))
    }

    /// `versSmall` lane by lane (the same operations in the same order).
    @inlinable @inline(__always) static func versSmall(_ x: SIMD2<Double>) -> SIMD2<Double> {
        let x2 = x * x
        return x2 * 0.5 * (1 - x2 * c12 * (1 - x2 * c30 * (1 - x2 * c56)))
    }

    /// 1 − cos x for |x| ≤ 0.01: terms to x⁸, the first omitted term is < 10⁻²² relative.
    @inlinable @inline(__always) static func versSmall(_ x: Double) -> Double {
        let x2 = x * x
        return x2 * 0.5 * (1 - x2 * c12 * (1 - x2 * c30 * (1 - x2 * c56)))
    }

    /// atan(r)/r from r² for 0 ≤ r ≤ 0.015 (the central angle within 0.01 rad of latitude and
    /// longitude): terms to r¹⁰, the first omitted term is < 10⁻²² relative.
    @inlinable @inline(__always) static func atanOverR(_ r2: Double) -> Double {
        1 - r2 * (a3 - r2 * (a5 - r2 * (a7 - r2 * (a9 - r2 * a11))))
    }
}
