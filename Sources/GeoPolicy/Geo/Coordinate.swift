/// Why a latitude/longitude pair is not a valid coordinate.
public enum CoordinateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Latitude or longitude is NaN or infinite.
    case notFinite(latitude: Double, longitude: Double)
    /// Latitude outside −90…90 degrees.
    case latitudeOutOfRange(Double)
    /// Longitude outside −180…180 degrees.
    case longitudeOutOfRange(Double)

    public var description: String {
        switch self {
        case .notFinite(let lat, let lon):
            return "coordinate is not finite (latitude \(lat), longitude \(lon))"
        case .latitudeOutOfRange(let lat):
            return "latitude must be within -90...90 degrees, got \(lat)"
        case .longitudeOutOfRange(let lon):
            return "longitude must be within -180...180 degrees, got \(lon)"
        }
    }
}

/// A valid point on the Earth: latitude first, then longitude, both in degrees.
///
/// The initializer validates and throws the reason; it never clamps.
/// (0, 0) is a valid place (seed 001), not "no location yet".
public struct Coordinate: Sendable, Hashable, CustomStringConvertible {
    /// Latitude in degrees, −90…90.
    public let latitude: Double
    /// Longitude in degrees, −180…180.
    public let longitude: Double

    /// Validates a latitude/longitude pair in degrees.
    /// - Throws: `CoordinateError` naming the offending value.
    @inlinable @inline(__always)  // the generator builds one per sample: a call was 37 instructions per fix
    public init(latitude: Double, longitude: Double) throws(CoordinateError) {
        try Coordinate.validate(latitude: latitude, longitude: longitude)
        self.latitude = latitude
        self.longitude = longitude
    }

    /// For values computed by the engine's own trigonometry (always in range).
    @inlinable
    init(computedLatitude latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Checks a pair without building a coordinate.
    @inlinable
    public static func validate(latitude: Double, longitude: Double) throws(CoordinateError) {
        guard latitude.isFinite, longitude.isFinite else {
            throw .notFinite(latitude: latitude, longitude: longitude)
        }
        guard latitude >= -90, latitude <= 90 else { throw .latitudeOutOfRange(latitude) }
        guard longitude >= -180, longitude <= 180 else { throw .longitudeOutOfRange(longitude) }
    }

    /// True when the pair would make a valid coordinate.
    @inlinable
    public static func isValid(latitude: Double, longitude: Double) -> Bool {
        latitude.isFinite && longitude.isFinite
            && latitude >= -90 && latitude <= 90
            && longitude >= -180 && longitude <= 180
    }

    public var description: String { "(\(latitude), \(longitude))" }

    /// Unit vector of this point on the sphere (x towards (0,0), z towards the north pole).
    @inlinable
    public var unitVector: SIMD3<Double> {
        let phi = latitude * EarthModel.radiansPerDegree
        let lambda = longitude * EarthModel.radiansPerDegree
        let (sp, cp) = _sinCos(phi)
        let (sl, cl) = _sinCos(lambda)
        return SIMD3(cp * cl, cp * sl, sp)
    }

    /// The point on the sphere for a (not necessarily unit) direction vector.
    @inlinable
    public init(unitVector v: SIMD3<Double>) {
        let horizontal = (v.x * v.x + v.y * v.y).squareRoot()
        let lat = _atan2(v.z, horizontal) * EarthModel.degreesPerRadian
        let lon = horizontal == 0 ? 0 : _atan2(v.y, v.x) * EarthModel.degreesPerRadian
        self.init(computedLatitude: lat, longitude: lon)
    }

    /// The point reached by going `distance_m` along the great circle with
    /// initial bearing `bearing_deg` (clockwise from north) on the sphere of
    /// radius `EarthModel.sphereRadius_m`.
    public func destination(bearing_deg: Double, distance_m: Double) -> Coordinate {
        let frame = LocalFrame(anchor: self)
        let b = bearing_deg * EarthModel.radiansPerDegree
        let (s, c) = _sinCos(b)
        return frame.coordinate(east_m: distance_m * s, north_m: distance_m * c)
    }
}
