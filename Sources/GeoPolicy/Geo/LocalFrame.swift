/// A local east-north plane around an anchor point: the spherical azimuthal
/// equidistant projection (Snyder 1987, "Map Projections — A Working Manual", §25).
///
/// Distances and bearings from the anchor are exact on the sphere; distortion
/// between two other points grows as (d/R)² and is below 1 mm for points within
/// 2 km of the anchor. The frame is defined through 3-D unit vectors, so it is
/// continuous across ±180° longitude and valid with the anchor at a pole
/// (there "east" is the direction of 90° + the anchor's longitude).
public struct LocalFrame: Sendable, Hashable {
    public let anchor: Coordinate
    @usableFromInline let up: SIMD3<Double>
    @usableFromInline let east: SIMD3<Double>
    @usableFromInline let north: SIMD3<Double>
    @usableFromInline let radius_m: Double

    public init(anchor: Coordinate, radius_m: Double = EarthModel.sphereRadius_m) {
        self.anchor = anchor
        self.radius_m = radius_m
        let phi = anchor.latitude * EarthModel.radiansPerDegree
        let lambda = anchor.longitude * EarthModel.radiansPerDegree
        let (sp, cp) = _sinCos(phi)
        let (sl, cl) = _sinCos(lambda)
        up = SIMD3(cp * cl, cp * sl, sp)
        east = SIMD3(-sl, cl, 0)
        north = SIMD3(-sp * cl, -sp * sl, cp)
    }

    /// East and north offsets of `c` from the anchor, in metres.
    /// The antipode of the anchor maps to (0, πR).
    @inlinable
    public func offset_m(_ c: Coordinate) -> SIMD2<Double> {
        offset_m(unitVector: c.unitVector)
    }

    /// `offset_m(other.anchor)`, from the unit vector `other` holds (its anchor's `unitVector`,
    /// the same values) instead of the anchor's trigonometry.
    @inlinable
    public func offset_m(anchorOf other: LocalFrame) -> SIMD2<Double> {
        offset_m(unitVector: other.up)
    }

    @inlinable
    public func offset_m(unitVector p: SIMD3<Double>) -> SIMD2<Double> {
        LocalFrame.offset_m(unitVector: p, up: up, east: east, north: north, radius_m: radius_m)
    }

    /// `offset_m(unitVector:)` of the frame with these unit vectors and radius (for callers that
    /// hold the vectors, not the frame).
    @inlinable
    static func offset_m(
        unitVector p: SIMD3<Double>, up: SIMD3<Double>, east: SIMD3<Double>,
        north: SIMD3<Double>, radius_m: Double
    ) -> SIMD2<Double> {
        let x = (p * east).sum()
        let y = (p * north).sum()
        let z = (p * up).sum()
        let s = (x * x + y * y).squareRoot()
        if s == 0 { return z >= 0 ? .zero : SIMD2(0, Double.pi * radius_m) }
        let theta = _atan2(s, z)
        return SIMD2(x, y) * (radius_m * theta / s)
    }

    /// The coordinate at `east_m`, `north_m` metres from the anchor.
    @inlinable
    public func coordinate(east_m: Double, north_m: Double) -> Coordinate {
        Coordinate(unitVector: unitVector(east_m: east_m, north_m: north_m))
    }

    @inlinable
    public func coordinate(_ offset_m: SIMD2<Double>) -> Coordinate {
        coordinate(east_m: offset_m.x, north_m: offset_m.y)
    }

    @inlinable
    public func unitVector(east_m: Double, north_m: Double) -> SIMD3<Double> {
        let d = (east_m * east_m + north_m * north_m).squareRoot()
        if d == 0 { return up }
        let theta = d / radius_m
        let dir = (east * east_m + north * north_m) / d
        let (s, c) = _sinCos(theta)
        return up * c + dir * s
    }
}
