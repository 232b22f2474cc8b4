/// A 2×2 matrix as two columns; maps plane vectors (east, north) between frames.
public struct Matrix2: Sendable, Hashable {
    public var c0: SIMD2<Double>
    public var c1: SIMD2<Double>

    @inlinable public init(c0: SIMD2<Double>, c1: SIMD2<Double>) {
        self.c0 = c0
        self.c1 = c1
    }
    /// The identity map. Computed, not `static let`: a stored global costs a `swift_once` per
    /// use, which the filter paid on every update.
    @inlinable public static var identity: Matrix2 { Matrix2(c0: SIMD2(1, 0), c1: SIMD2(0, 1)) }

    @inlinable public func apply(_ v: SIMD2<Double>) -> SIMD2<Double> { c0 * v.x + c1 * v.y }

    @inlinable public var inverse: Matrix2 {
        let det = c0.x * c1.y - c1.x * c0.y
        return Matrix2(c0: SIMD2(c1.y, -c0.y) / det, c1: SIMD2(-c1.x, c0.x) / det)
    }
}

extension LocalFrame {
    /// The linear map from this frame's plane at `offset_m` to `target`'s plane at its anchor.
    ///
    /// Used to carry velocities and covariances into another frame whose anchor is the point
    /// at `offset_m` (re-anchoring), or into the local east/north at that point
    /// (`target = LocalFrame(anchor: coordinate(offset_m))`). Exact Jacobian of the
    /// azimuthal equidistant projection (Snyder 1987, §25): along the radius the scale is 1,
    /// across it sin θ / θ with θ = d / R; the sphere tangent vectors are then projected on
    /// the target's east and north unit vectors.
    public func jacobian(at offset_m: SIMD2<Double>, into target: LocalFrame) -> Matrix2 {
        let d = (offset_m * offset_m).sum().squareRoot()
        let colX: SIMD3<Double>
        let colY: SIMD3<Double>
        if d == 0 {
            colX = east
            colY = north
        } else {
            let r = offset_m / d
            let theta = d / radius_m
            let dir = east * r.x + north * r.y
            let (s, c) = _sinCos(theta)
            let u = up * c + dir * s
            let tr = dir * c - up * s
            let tt = SIMD3(u.y * tr.z - u.z * tr.y, u.z * tr.x - u.x * tr.z, u.x * tr.y - u.y * tr.x)
            let scale = s / theta
            colX = tr * r.x - tt * (r.y * scale)
            colY = tr * r.y + tt * (r.x * scale)
        }
        return Matrix2(
            c0: SIMD2((colX * target.east).sum(), (colX * target.north).sum()),
            c1: SIMD2((colY * target.east).sum(), (colY * target.north).sum()))
    }
}
