import GeoPolicy
import Testing

@Suite struct ThinningTests {
    @Test func accuracyGateAndDistanceFilter() throws {
        let start = try Coordinate(latitude: 55.75, longitude: 37.62)
        func fix(_ d: Double, _ acc: Double) -> Fix {
            let c = start.destination(bearing_deg: 90, distance_m: d)
            return Fix(timestamp_s: d, latitude: c.latitude, longitude: c.longitude, horizontalAccuracy_m: acc)
        }
        let fixes = [
            fix(0, 5), fix(5, 5), fix(10.001, 50), fix(30, 50.01), fix(30, -1),
            Fix(timestamp_s: 99, latitude: .nan, longitude: 0, horizontalAccuracy_m: 5), fix(19.9, 3), fix(20.1, 3),
        ]
        let r = try Thinning().thin(fixes)
        #expect(r.keptIndices == [0, 2, 7])
        #expect(r.droppedIndices == [1, 3, 4, 5, 6])
        guard case .tooClose = r.reasons[0] else {
            Issue.record("1: \(r.reasons[0])")
            return
        }
        #expect(r.reasons[1] == .inaccurate(accuracy_m: 50.01))
        #expect(r.reasons[2] == .invalid(.invalidAccuracy(-1)))
        guard case .invalid(.invalidCoordinate) = r.reasons[3] else {
            Issue.record("5: \(r.reasons[3])")
            return
        }
        guard case .tooClose = r.reasons[4] else {
            Issue.record("6: \(r.reasons[4])")
            return
        }
        #expect(throws: TrackError.self) { try Thinning(maxAccuracy_m: 0) }
    }
}
