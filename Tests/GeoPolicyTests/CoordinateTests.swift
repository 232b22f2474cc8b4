import GeoPolicy
import Testing
import _TestSupport

@Suite struct CoordinateTests {
    static let distanceTolerance_m = 1e-6

    @Test(arguments: [
        (91.0, 0.0), (-90.0001, 0.0), (0.0, 181.0), (0.0, -180.5),
        (Double.nan, 0.0), (0.0, Double.infinity), (-Double.infinity, 0.0),
    ])
    func invalidCoordinatesAreRejectedNotClamped(lat: Double, lon: Double) {
        #expect(throws: CoordinateError.self) { try Coordinate(latitude: lat, longitude: lon) }
        #expect(!Coordinate.isValid(latitude: lat, longitude: lon))
    }

    @Test func errorsCarryTheReason() {
        #expect(throws: CoordinateError.latitudeOutOfRange(91)) { try Coordinate(latitude: 91, longitude: 0) }
        #expect(throws: CoordinateError.longitudeOutOfRange(181)) { try Coordinate(latitude: 0, longitude: 181) }
    }

    @Test(arguments: [(0.0, 0.0), (90.0, 180.0), (-90.0, -180.0), (-0.0, -0.0)])
    func boundaryAndZeroAreValid(lat: Double, lon: Double) throws {
        let c = try Coordinate(latitude: lat, longitude: lon)
        #expect(c.latitude == lat && c.longitude == lon)
    }

    @Test func localFrameRoundTripsAcrossDateLineAndPole() throws {
        for (lat, lon) in [(0.0, 179.9999), (-17.8, -179.99), (89.999, 45.0), (90.0, 0.0), (-90.0, 10.0)] {
            let anchor = try Coordinate(latitude: lat, longitude: lon)
            let frame = LocalFrame(anchor: anchor)
            for (e, n) in [(100.0, -50.0), (-1500.0, 2500.0), (0.0, 0.0)] {
                let c = frame.coordinate(east_m: e, north_m: n)
                let back = frame.offset_m(c)
                #expect(
                    isClose(back.x, e, absoluteTolerance: 1e-6) && isClose(back.y, n, absoluteTolerance: 1e-6),
                    "anchor \(anchor) offset (\(e), \(n)) came back as \(back)")
                let d = Haversine().distance_m(anchor, c)
                #expect(isClose(d, (e * e + n * n).squareRoot(), absoluteTolerance: 1e-6))
            }
        }
    }
}
