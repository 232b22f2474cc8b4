/// Constants of the Earth models the engine uses, each with its source.
public enum EarthModel {
    /// Mean radius of the sphere used by `Haversine` and `LocalFrame`, in metres.
    ///
    /// 6 371 000 m exactly, as the seed articles (000/001) use it; it is the
    /// IUGG mean radius R1 of the WGS84 ellipsoid rounded to the metre
    /// (Moritz 1980, "Geodetic Reference System 1980", R1 = 6 371 008.8 m).
    public static let sphereRadius_m: Double = 6_371_000

    /// Degrees to radians. The only place the factor is written down.
    public static let radiansPerDegree: Double = Double.pi / 180

    /// Radians to degrees.
    public static let degreesPerRadian: Double = 180 / Double.pi
}
