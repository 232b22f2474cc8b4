/// Defining constants of the WGS84 ellipsoid.
///
/// Source: NIMA TR8350.2, "Department of Defense World Geodetic System 1984",
/// 3rd ed., amendment 1 (2000), Table 3.1.
public enum WGS84Ellipsoid {
    /// Semi-major axis a, in metres.
    public static let semiMajorAxis_m: Double = 6_378_137
    /// Reciprocal of the flattening, 1/f.
    public static let inverseFlattening: Double = 298.257223563
    /// Flattening f = (a − b)/a.
    public static let flattening: Double = 1 / inverseFlattening
    /// Semi-minor axis b = a(1 − f), in metres (derived, ≈ 6 356 752.314 m).
    public static let semiMinorAxis_m: Double = semiMajorAxis_m * (1 - flattening)
}

/// Result of the inverse geodesic problem between two points.
public struct GeodesicInverse: Sendable, Hashable {
    /// Length of the shortest geodesic, in metres (≥ 0).
    public var distance_m: Double
    /// Azimuth of the geodesic at the first point, degrees clockwise from north, in (−180, 180].
    public var initialAzimuth_deg: Double
    /// Azimuth of the geodesic at the second point (direction of travel), degrees, in (−180, 180].
    public var finalAzimuth_deg: Double

    public init(distance_m: Double, initialAzimuth_deg: Double, finalAzimuth_deg: Double) {
        self.distance_m = distance_m
        self.initialAzimuth_deg = initialAzimuth_deg
        self.finalAzimuth_deg = finalAzimuth_deg
    }
}

/// Shortest distance on the WGS84 ellipsoid (inverse geodesic, Karney 2013).
///
/// Algorithm: C. F. F. Karney, "Algorithms for geodesics", J. Geodesy 87:43–55 (2013),
/// series to order 6 on the auxiliary sphere, Newton's method on the azimuth with the
/// astroid starting guess for nearly antipodal points (see `GeodesicSolver`). Lines whose
/// chord is at most 5 km take a faster non-iterative path (chord lengthened by the
/// curvature term, error ≤ 1.3 µm; see `GeodesicSolver.shortDistance_m`).
/// Converges for every pair of valid coordinates, unlike Vincenty's iteration; agrees with
/// GeographicLib to well under 1 mm (tested on 2000 reference pairs). Symmetric in its
/// arguments and exactly 0 for identical points. Allocates nothing.
public struct WGS84: DistanceModel, Hashable {
    public init() {}

    public var name: String { "wgs84" }

    /// The solver for the WGS84 constants, built once.
    static let solver = GeodesicSolver(a_m: WGS84Ellipsoid.semiMajorAxis_m, f: WGS84Ellipsoid.flattening)

    /// Geodesic distance in metres between two valid coordinates (0 … ≈ 20 003 931 m).
    public func distance_m(_ a: Coordinate, _ b: Coordinate) -> Double {
        WGS84.solver.distance_m(lat1: a.latitude, lon1: a.longitude, lat2: b.latitude, lon2: b.longitude)
    }

    /// Distance in metres and the azimuths at both ends, in degrees.
    ///
    /// For coincident points and for a pole the azimuths are conventional (those of the
    /// meridian through the given longitudes), as in GeographicLib.
    public func inverse(_ a: Coordinate, _ b: Coordinate) -> GeodesicInverse {
        let s = WGS84.solver.solve(lat1: a.latitude, lon1: a.longitude, lat2: b.latitude, lon2: b.longitude)
        var (salp1, calp1, salp2, calp2) = (s.salp1, s.calp1, s.salp2, s.calp2)
        if s.swapped {
            swap(&salp1, &salp2)
            swap(&calp1, &calp2)
        }
        let swapSign: Double = s.swapped ? -1 : 1
        salp1 *= swapSign * s.lonSign
        salp2 *= swapSign * s.lonSign
        calp1 *= swapSign * s.latSign
        calp2 *= swapSign * s.latSign
        // The same distance as `distance_m` (chord path for short lines), azimuths from Karney.
        let distance_m =
            WGS84.solver.shortDistance_m(
                lat1: a.latitude, lon1: a.longitude, lat2: b.latitude, lon2: b.longitude) ?? s.s12_m
        return GeodesicInverse(
            distance_m: distance_m,
            initialAzimuth_deg: GeodesicAngle.atan2Degrees(salp1, calp1),
            finalAzimuth_deg: GeodesicAngle.atan2Degrees(salp2, calp2))
    }
}

extension WGS84 {
    /// The ratio bounds of `distanceBounds(sphereDistance_m:)`: below a(1 − e²)/R = 0.994418 and
    /// above a/√(1 − e²)/R = 1.004488 (a, e² of WGS84, R = `EarthModel.sphereRadius_m`).
    public static let sphereRatioBounds = (lower: 0.994, upper: 1.005)
    /// Metres either side for rounding: the haversine's error next to the antipode is below 0.1 m.
    public static let sphereBoundSlack_m = 1.0

    /// An interval that holds the WGS84 distance between two points whose distance on the sphere
    /// of radius R = `EarthModel.sphereRadius_m` (`Haversine()`, the same latitudes and
    /// longitudes) is `sphereDistance_m`.
    ///
    /// In latitude φ and longitude λ the ellipsoid's line element is M(φ)² dφ² + N(φ)² cos²φ dλ²
    /// (meridian and prime-vertical radii of curvature) and the sphere's R² (dφ² + cos²φ dλ²), so
    /// every curve is longer on the ellipsoid by a factor between min(M, N)/R = M(0)/R =
    /// a(1 − e²)/R and max(M, N)/R = M(90°)/R = a/√(1 − e²)/R; so are the shortest ones. The
    /// interval widens those factors (`sphereRatioBounds`) and adds `sphereBoundSlack_m`.
    @inlinable
    public static func distanceBounds(sphereDistance_m d: Double) -> (lower_m: Double, upper_m: Double) {
        (max(0, d * sphereRatioBounds.lower - sphereBoundSlack_m), d * sphereRatioBounds.upper + sphereBoundSlack_m)
    }
}
