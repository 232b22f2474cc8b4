import GeoPolicy
import Testing

@Suite struct SpeedSegmentsTests {
    @Test func bandLimits() throws {
        #expect(try SpeedBand(speed_kmh: 49.999) == .city)
        #expect(try SpeedBand(speed_kmh: 50) == .countryRoad)
        #expect(try SpeedBand(speed_kmh: 89.999) == .countryRoad)
        #expect(try SpeedBand(speed_kmh: 90) == .motorway)
        #expect(try SpeedBand(speed_kmh: 110) == .motorway)
        #expect(try SpeedBand(speed_kmh: 110.001) == .fast)
        #expect(try SpeedBand(speed_mps: 10) == .city)  // 36 km/h
        #expect(try SpeedBand(speed_mps: 20) == .countryRoad)  // 72 km/h
        #expect(try SpeedBand(speed_mps: 30) == .motorway)  // 108 km/h
        #expect(try SpeedBand(speed_mps: 31) == .fast)  // 111.6 km/h
        #expect(throws: TrackError.self) { try SpeedBand(speed_mps: -1) }
        #expect(throws: TrackError.self) { try SpeedBand(speed_kmh: .nan) }
    }

    @Test func neighbouringSegmentsShareExactlyOnePoint() throws {
        let speeds_kmh: [Double] = [10, 20, 60, 70, 70, 100, 130, 130, 40, 40]
        let coords = try (0..<speeds_kmh.count).map { try Coordinate(latitude: 50, longitude: 8 + 0.001 * Double($0)) }
        let segs = try SpeedSegments.build(coordinates: coords, speeds_mps: speeds_kmh.map { $0 / 3.6 })
        #expect(segs.map(\.band) == [.city, .countryRoad, .motorway, .fast, .city])
        #expect(segs.map(\.indices) == [0...1, 1...4, 4...5, 5...7, 7...9])
        for (a, b) in zip(segs, segs.dropFirst()) {
            #expect(a.coordinates.last == b.coordinates.first)
            #expect(a.indices.upperBound == b.indices.lowerBound)
        }
        // Every point is covered; the only duplicates are the shared ones.
        #expect(segs.map(\.coordinates.count).reduce(0, +) == coords.count + segs.count - 1)
    }

    @Test func edgeCases() throws {
        #expect(try SpeedSegments.build(coordinates: [], speeds_mps: []).isEmpty)
        let c = try Coordinate(latitude: 0, longitude: 0)
        let one = try SpeedSegments.build(coordinates: [c], speeds_mps: [40])
        #expect(one.count == 1 && one[0].band == .fast && one[0].indices == 0...0)
        #expect(throws: TrackError.invalidSpeed(index: 1, speed_mps: -1)) {
            try SpeedSegments.build(coordinates: [c, c], speeds_mps: [1, -1])
        }
    }
}
