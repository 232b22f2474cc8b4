import GeoPolicy
import Testing
import _TestSupport

@Suite struct SeedKalmanTests {
    @Test func reproducesTheSeedArithmetic() throws {
        var s = try SeedKalman(speedVariance_m2ps: 3)
        let first = try s.process(Fix(timestamp_s: 0, latitude: 45, longitude: 7, horizontalAccuracy_m: 10))
        #expect(first.position == (try Coordinate(latitude: 45, longitude: 7)) && first.horizontalAccuracy_m == 10)
        let out = try s.process(Fix(timestamp_s: 2, latitude: 45.001, longitude: 7.002, horizontalAccuracy_m: 4))
        // P = 2 s · 3 m²/s = 6 m²; K = 6 / (6 + 16); P' = (1 − K)·6.
        let k = 6.0 / 22.0
        #expect(isClose(out.position.latitude, 45 + k * 0.001, absoluteTolerance: 1e-12))
        #expect(isClose(out.position.longitude, 7 + k * 0.002, absoluteTolerance: 1e-12))
        #expect(isClose(out.horizontalAccuracy_m, ((1 - k) * 6).squareRoot(), absoluteTolerance: 1e-12))
        #expect(isClose(s.predictedVariance_m2, (1 - k) * 6, absoluteTolerance: 1e-12))
    }

    /// The documented failure: with K = 1/2, 179.99° and −179.99° average to 0°, 20 000 km away.
    @Test func averagesAcrossTheDateLineToTheWrongSideOfTheEarth() throws {
        var s = try SeedKalman(speedVariance_m2ps: 4)
        try s.process(Fix(timestamp_s: 0, latitude: 0, longitude: 179.99, horizontalAccuracy_m: 2))
        let out = try s.process(Fix(timestamp_s: 1, latitude: 0, longitude: -179.99, horizontalAccuracy_m: 2))
        #expect(isClose(out.position.longitude, 0, absoluteTolerance: 1e-9))
        let truth = try Coordinate(latitude: 0, longitude: -179.99)
        #expect(Haversine().distance_m(out.position, truth) > 19_000_000)
    }

    @Test func rejectsInvalidInput() throws {
        var s = try SeedKalman()
        #expect(throws: TrackRejection.invalidAccuracy(-1)) {
            try s.process(Fix(timestamp_s: 0, latitude: 0, longitude: 0, horizontalAccuracy_m: -1))
        }
        try s.process(Fix(timestamp_s: 0, latitude: 0, longitude: 0, horizontalAccuracy_m: 5))
        #expect(throws: TrackRejection.nonIncreasingTimestamp(previous_s: 0, timestamp_s: 0)) {
            try s.process(Fix(timestamp_s: 0, latitude: 0, longitude: 0, horizontalAccuracy_m: 5))
        }
        #expect(throws: TrackError.self) { try SeedKalman(speedVariance_m2ps: -1) }
    }
}
