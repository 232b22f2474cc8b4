/// One location fix as a device delivers it: possibly invalid.
///
/// The values are kept raw so that a logged NaN, latitude 91 or accuracy −1
/// (iOS's invalid marker) reaches the engine, which rejects it with a reason.
public struct Fix: Sendable, Hashable {
    /// Time of the fix in seconds (Unix epoch or scenario-relative; only differences matter).
    public var timestamp_s: Double
    /// Latitude in degrees as delivered.
    public var latitude: Double
    /// Longitude in degrees as delivered.
    public var longitude: Double
    /// Horizontal accuracy in metres as delivered (iOS: radius, negative = invalid).
    public var horizontalAccuracy_m: Double

    public init(timestamp_s: Double, latitude: Double, longitude: Double, horizontalAccuracy_m: Double) {
        self.timestamp_s = timestamp_s
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy_m = horizontalAccuracy_m
    }

    /// The validated coordinate, or the reason it is invalid.
    public func coordinate() throws(CoordinateError) -> Coordinate {
        try Coordinate(latitude: latitude, longitude: longitude)
    }
}
