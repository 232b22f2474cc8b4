/// Distance between two valid coordinates, in metres, on some Earth model.
///
/// Tests and the harness call the same distance API that production uses
/// (seed 000): a rule is always given a `DistanceModel`, never a formula of its own.
public protocol DistanceModel: Sendable {
    /// A short stable name used in reports and on the command line (`sphere`, `wgs84`).
    var name: String { get }
    /// Distance in metres between two valid coordinates; symmetric, zero for identical points.
    func distance_m(_ a: Coordinate, _ b: Coordinate) -> Double
}

/// Great-circle distance on a sphere of radius `EarthModel.sphereRadius_m` (haversine formula).
///
/// Accurate to about 0.5 % against the ellipsoid; the seeds' reference model.
public struct Haversine: DistanceModel, Hashable {
    public let radius_m: Double
    public var name: String { "sphere" }

    /// - Parameter radius_m: sphere radius in metres (> 0); default 6 371 000 m as the seeds.
    public init(radius_m: Double = EarthModel.sphereRadius_m) {
        self.radius_m = radius_m
    }

    @inlinable
    public func distance_m(_ a: Coordinate, _ b: Coordinate) -> Double {
        Haversine.centralAngle_rad(
            latitude1: a.latitude, longitude1: a.longitude,
            latitude2: b.latitude, longitude2: b.longitude) * radius_m
    }

    /// Central angle in radians between two points given in degrees (no validation).
    @inlinable
    public static func centralAngle_rad(
        latitude1: Double, longitude1: Double, latitude2: Double, longitude2: Double
    ) -> Double {
        let k = EarthModel.radiansPerDegree
        let p1 = latitude1 * k
        let p2 = latitude2 * k
        let sdp = _sin((p2 - p1) * 0.5)
        let sdl = _sin((longitude2 - longitude1) * k * 0.5)
        let h = sdp * sdp + _cos(p1) * _cos(p2) * sdl * sdl
        // h can leave [0, 1] by rounding only; this is numeric hygiene, not input clamping.
        return 2 * _asin(min(1, max(0, h)).squareRoot())
    }
}

extension Haversine {
    /// The second point of `distance_m(_:_:)` with what the formula computes of it alone (its
    /// latitude in radians and that latitude's cosine) computed once, for many distances to the
    /// same point.
    public struct Target: Sendable, Hashable {
        public let coordinate: Coordinate
        @usableFromInline let latitude_rad: Double
        @usableFromInline let cosLatitude: Double

        @inlinable
        public init(_ coordinate: Coordinate) {
            self.coordinate = coordinate
            latitude_rad = coordinate.latitude * EarthModel.radiansPerDegree
            cosLatitude = _cos(latitude_rad)
        }
    }

    /// `distance_m(a, b.coordinate)` bit for bit (the same operations in the same order, with
    /// b's share read from `b`).
    @inlinable
    public func distance_m(_ a: Coordinate, to b: Target) -> Double {
        let k = EarthModel.radiansPerDegree
        let p1 = a.latitude * k
        let sdp = _sin((b.latitude_rad - p1) * 0.5)
        let sdl = _sin((b.coordinate.longitude - a.longitude) * k * 0.5)
        let h = sdp * sdp + _cos(p1) * b.cosLatitude * sdl * sdl
        return 2 * _asin(min(1, max(0, h)).squareRoot()) * radius_m
    }

    /// `distance_m(a.coordinate, b)` bit for bit (the same operations in the same order, with
    /// a's share read from `a`): many distances from one point, such as a fence centre.
    @inlinable
    public func distance_m(from a: Target, _ b: Coordinate) -> Double {
        let k = EarthModel.radiansPerDegree
        let p2 = b.latitude * k
        let sdp = _sin((p2 - a.latitude_rad) * 0.5)
        let sdl = _sin((b.longitude - a.coordinate.longitude) * k * 0.5)
        let h = sdp * sdp + a.cosLatitude * _cos(p2) * sdl * sdl
        return 2 * _asin(min(1, max(0, h)).squareRoot()) * radius_m
    }
}
