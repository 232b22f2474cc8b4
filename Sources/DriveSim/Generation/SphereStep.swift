import GeoPolicy

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// East and north unit vectors of the tangent plane at a point of the unit sphere: the
/// same frame as `GeoPolicy.LocalFrame(anchor:)` at that point (at a pole, where east is
/// undefined, the longitude 0 that `Coordinate(unitVector:)` reports defines it), built
/// from the unit vector without trigonometry so it costs a square root per fix.

struct TangentBasis: Sendable {
    var east: SIMD3<Double>
    var north: SIMD3<Double>
    /// 1 / cos(latitude) of the point, 0 at a pole (where `north.z` = cos(latitude) = 0).
    var secantLatitude: Double

    @inline(__always)
    init(at p: SIMD3<Double>) {
        let h = (p.x * p.x + p.y * p.y).squareRoot()
        if h > 0 {
            let inverse = 1 / h
            let cl = p.x * inverse
            let sl = p.y * inverse
            east = SIMD3(-sl, cl, 0)
            north = SIMD3(-p.z * cl, -p.z * sl, h)
            secantLatitude = inverse
        } else {
            east = SIMD3(0, 1, 0)
            north = SIMD3(-p.z, 0, 0)
            secantLatitude = 0
        }
    }

    /// Components (east, north) of a tangent vector.
    @inline(__always)
    func components(_ v: SIMD3<Double>) -> SIMD2<Double> {
        SIMD2((v * east).sum(), (v * north).sum())
    }
}

/// Spherical displacement helpers on the sphere of radius `EarthModel.sphereRadius_m`.

enum SphereStep {
    /// `EarthModel.sphereRadius_m` as a literal so the hot path does not call a cross-module
    /// global accessor per use (equality with GeoPolicy's constant is tested).
    static let radius_m = 6_371_000.0
    static let inverseRadius_m = 1 / 6_371_000.0
    /// `EarthModel.degreesPerRadian` as a literal, 180/π (equality tested).
    static let degreesPerRadian = 57.295779513082323

    /// The point at `offset_m` (east, north) from `p` in the azimuthal equidistant frame at `p`
    /// (Snyder 1987, §25): the great-circle point at distance |offset| in the offset's direction.

    static func displace(_ p: SIMD3<Double>, by offset_m: SIMD2<Double>, basis: TangentBasis) -> SIMD3<Double> {
        let d = (offset_m.x * offset_m.x + offset_m.y * offset_m.y).squareRoot()
        if d == 0 { return p }
        let theta = d / radius_m
        let dir = (basis.east * offset_m.x + basis.north * offset_m.y) / d
        let (s, c) = _sinCos(theta)
        return p * c + dir * s
    }

    /// Largest offset (m) and smallest cos(latitude) for which `offsetDegrees` uses its series.
    static let seriesMaxOffset_m = 200.0
    static let seriesMinCosLatitude = 0.17  // |latitude| ≲ 80°

    /// Latitude and longitude (degrees) of the point at `offset_m` (east, north) from the point
    /// `p` = (`latitude`, `longitude`) in the azimuthal equidistant frame at `p`.
    ///
    /// For offsets ≤ 200 m at |latitude| ≲ 80° it uses the second-order expansion of the direct
    /// problem on the sphere, Δφ = y − x²·tanφ/2, Δλ = x·secφ·(1 + y·tanφ) with x, y = east, north / R
    /// (agrees with the exact formula to < 10 µm there, checked in the tests); elsewhere the exact
    /// 3-D rotation (`displace` + `degrees`). No trigonometric call on the series path.
    @inline(__always)
    static func offsetDegrees(
        latitude: Double, longitude: Double, unit p: SIMD3<Double>, basis: TangentBasis,
        offset_m: SIMD2<Double>
    ) -> (latitude: Double, longitude: Double) {
        // cos(latitude) of p is the z component of its north vector (0 at a pole).
        let cosLat = basis.north.z
        let d2 = offset_m.x * offset_m.x + offset_m.y * offset_m.y
        if cosLat >= seriesMinCosLatitude, d2 <= seriesMaxOffset_m * seriesMaxOffset_m {
            let x = offset_m.x * inverseRadius_m
            let y = offset_m.y * inverseRadius_m
            let secLat = basis.secantLatitude
            let tanLat = p.z * secLat
            let lat = latitude + (y - 0.5 * x * x * tanLat) * degreesPerRadian
            var lon = longitude + (x * secLat * (1 + y * tanLat)) * degreesPerRadian
            if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
            return (lat, lon)
        }
        return degrees(displace(p, by: offset_m, basis: basis))
    }

    /// Latitude and longitude in degrees of a unit vector (as `Coordinate(unitVector:)`).

    static func degrees(_ v: SIMD3<Double>) -> (latitude: Double, longitude: Double) {
        let h = (v.x * v.x + v.y * v.y).squareRoot()
        let lat = atan2(v.z, h) * degreesPerRadian
        let lon = h == 0 ? 0 : atan2(v.y, v.x) * degreesPerRadian
        return (lat, lon)
    }

    /// Normalised cross product, or zero for parallel vectors.

    static func unitCross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
        let c = SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
        let n = (c * c).sum().squareRoot()
        return n > 0 ? c / n : .zero
    }

    static func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
    }
}
