import GeoPolicy
import Testing
import _TestSupport

/// WGS84 (Karney 2013) against GeographicLib reference data and published values.
@Suite struct WGS84Tests {
    /// Agreement required with GeographicLib.
    static let tolerance_m = 1e-3
    /// Swapping the endpoints may change rounding only.
    static let symmetryTolerance_m = 1e-9
    /// The sphere of R = 6 371 000 m is within 0.6 % of the ellipsoid everywhere.
    static let sphereRelativeTolerance = 0.006

    let model = WGS84()

    static func endpoints(_ v: GeodesicReferenceVector) throws -> (Coordinate, Coordinate) {
        (try Coordinate(latitude: v.lat1, longitude: v.lon1), try Coordinate(latitude: v.lat2, longitude: v.lon2))
    }

    @Test func nameIsStable() {
        #expect(model.name == "wgs84")
    }

    @Test func agreesWithGeographicLibOnEveryReferenceVector() throws {
        let vectors = GeodesicReferenceVectors.all
        #expect(vectors.count >= 2000)
        var worst_m = 0.0
        for (i, v) in vectors.enumerated() {
            let (a, b) = try Self.endpoints(v)
            let error_m = abs(model.distance_m(a, b) - v.s12_m)
            worst_m = max(worst_m, error_m)
            #expect(error_m <= Self.tolerance_m, "vector \(i): error \(error_m) m, reference \(v.s12_m) m")
        }
        #expect(worst_m <= Self.tolerance_m)
    }

    @Test func inverseDistanceMatchesDistanceModel() throws {
        for v in GeodesicReferenceVectors.all {
            let (a, b) = try Self.endpoints(v)
            #expect(model.inverse(a, b).distance_m == model.distance_m(a, b))
        }
    }

    /// Published GeographicLib results (seed 001): the first is where Vincenty fails.
    @Test(arguments: [
        (0.0, 0.0, 0.5, 179.7, 19_944_127.421),
        (0.0, 179.999, 0.0, -179.999, 222.638982),
        (89.9, 0.0, 89.9, 180.0, 22_338.795683),
    ])
    func publishedPairs(lat1: Double, lon1: Double, lat2: Double, lon2: Double, expected_m: Double) throws {
        let a = try Coordinate(latitude: lat1, longitude: lon1)
        let b = try Coordinate(latitude: lat2, longitude: lon2)
        #expect(isClose(model.distance_m(a, b), expected_m, absoluteTolerance: Self.tolerance_m))
        #expect(isClose(model.distance_m(b, a), expected_m, absoluteTolerance: Self.tolerance_m))
    }

    @Test func symmetricInItsArguments() throws {
        for v in GeodesicReferenceVectors.all {
            let (a, b) = try Self.endpoints(v)
            let ab = model.distance_m(a, b)
            let ba = model.distance_m(b, a)
            #expect(isClose(ab, ba, absoluteTolerance: Self.symmetryTolerance_m), "\(ab) m vs \(ba) m")
        }
    }

    /// Azimuths agree to 1e-7°, or, for lines so short (< 1 m) that rounding of the
    /// endpoints (~1e-9 m) dominates the direction, to a sideways offset of 1 µm at the far end.
    @Test func azimuthsAgreeWithGeographicLib() throws {
        let azimuthTolerance_deg = 1e-7
        let sidewaysTolerance_m = 1e-6
        #expect(GeodesicReferenceVectors.azimuths.count >= 200)
        for v in GeodesicReferenceVectors.azimuths {
            let a = try Coordinate(latitude: v.lat1, longitude: v.lon1)
            let b = try Coordinate(latitude: v.lat2, longitude: v.lon2)
            let r = model.inverse(a, b)
            // Compare on the circle: 180° and −180° are the same direction.
            let d1 = abs((r.initialAzimuth_deg - v.azi1_deg).remainder(dividingBy: 360))
            let d2 = abs((r.finalAzimuth_deg - v.azi2_deg).remainder(dividingBy: 360))
            let worst_deg = max(d1, d2)
            let sideways_m = r.distance_m * worst_deg * Double.pi / 180
            #expect(
                worst_deg <= azimuthTolerance_deg || sideways_m <= sidewaysTolerance_m,
                "azimuths \(r.initialAzimuth_deg)°/\(r.finalAzimuth_deg)° vs \(v.azi1_deg)°/\(v.azi2_deg)°")
        }
    }

    /// Going back, the geodesic leaves point 2 opposite to how it arrived there.
    @Test func reverseAzimuthIsFinalAzimuthTurnedAround() throws {
        let azimuthTolerance_deg = 1e-6
        for v in GeodesicReferenceVectors.randomGlobal {
            let (a, b) = try Self.endpoints(v)
            let forward = model.inverse(a, b)
            let backward = model.inverse(b, a)
            var turn = backward.initialAzimuth_deg - forward.finalAzimuth_deg
            turn = abs(turn.remainder(dividingBy: 360))
            #expect(isClose(turn, 180, absoluteTolerance: azimuthTolerance_deg), "turned by \(turn)°")
        }
    }

    @Test func zeroForIdenticalPoints() throws {
        var points = GeodesicReferenceVectors.identical.map { ($0.lat1, $0.lon1) }
        points += [(90, 0), (-90, -180), (0, 180), (0, -180), (-0.0, -0.0), (45, 1e-300)]
        for (lat, lon) in points {
            let p = try Coordinate(latitude: lat, longitude: lon)
            #expect(model.distance_m(p, p) == 0, "distance from (\(lat), \(lon)) to itself")
            #expect(model.inverse(p, p).distance_m == 0)
        }
        for v in GeodesicReferenceVectors.identical {
            #expect(v.s12_m == 0, "the oracle also says 0")
        }
    }

    /// Known closed forms: a quarter of the equator is πa/2, a pole-to-pole meridian is
    /// 2 × 10 001 965.729 m (the WGS84 quarter meridian, NIMA TR8350.2 derived constants).
    @Test func equatorAndMeridianClosedForms() throws {
        let quarterEquator_m = WGS84Ellipsoid.semiMajorAxis_m * Double.pi / 2
        let a = try Coordinate(latitude: 0, longitude: -45)
        let b = try Coordinate(latitude: 0, longitude: 45)
        #expect(isClose(model.distance_m(a, b), quarterEquator_m, absoluteTolerance: Self.tolerance_m))
        let north = try Coordinate(latitude: 90, longitude: 0)
        let south = try Coordinate(latitude: -90, longitude: 0)
        #expect(isClose(model.distance_m(north, south), 2 * 10_001_965.729, absoluteTolerance: Self.tolerance_m))
    }

    @Test func withinSixTenthsOfAPercentOfTheSphere() throws {
        let sphere = Haversine()
        for v in GeodesicReferenceVectors.all where v.s12_m > 1 {
            let (a, b) = try Self.endpoints(v)
            let e = model.distance_m(a, b)
            let s = sphere.distance_m(a, b)
            #expect(isClose(e, s, relativeTolerance: Self.sphereRelativeTolerance), "ellipsoid \(e) m, sphere \(s) m")
        }
    }

    /// Vincenty's iteration fails near the antipode; Karney's method must return a finite,
    /// plausible distance on a dense grid of pairs within 0.5° of antipodal.
    @Test func convergesOnDenseNearAntipodalGrid() throws {
        let halfMeridian_m = 2 * 10_001_965.729
        let sphere = Haversine()
        let offsets = stride(from: -0.5, through: 0.5, by: 0.1).map { $0 } + [-1e-9, 0, 1e-9]
        var count = 0
        for lat1 in stride(from: -90.0, through: 90.0, by: 2.5) {
            for dLat in offsets {
                let lat2 = -lat1 + dLat
                guard lat2 >= -90, lat2 <= 90 else { continue }
                for dLon in offsets {
                    let a = try Coordinate(latitude: lat1, longitude: 17.25)
                    let b = try Coordinate(latitude: lat2, longitude: 17.25 - 180 + dLon)
                    let d = model.distance_m(a, b)
                    count += 1
                    #expect(
                        d.isFinite && d <= halfMeridian_m + Self.tolerance_m && d > 19_900_000,
                        "lat1 \(lat1), dLat \(dLat), dLon \(dLon): \(d) m")
                    #expect(isClose(d, sphere.distance_m(a, b), relativeTolerance: Self.sphereRelativeTolerance))
                }
            }
        }
        #expect(count > 10_000)
    }
}
