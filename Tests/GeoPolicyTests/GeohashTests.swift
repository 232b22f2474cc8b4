import GeoPolicy
import Testing
import _TestSupport

@Suite struct GeohashTests {
    static let degree = 1e-12

    // Published vectors (Wikipedia "Geohash", geohash.org).
    @Test func publishedVectors() throws {
        #expect(
            try Geohash.encode(try Coordinate(latitude: 57.64911, longitude: 10.40744), precision: 11) == "u4pruydqqvj")
        #expect(try Geohash.encode(try Coordinate(latitude: 90, longitude: 180), precision: 12) == "zzzzzzzzzzzz")
        #expect(try Geohash.encode(try Coordinate(latitude: -90, longitude: -180), precision: 12) == "000000000000")
        let cell = try Geohash.decode("ezs42")
        #expect(isClose(cell.center.latitude, 42.605, absoluteTolerance: 0.0005))
        #expect(isClose(cell.center.longitude, -5.603, absoluteTolerance: 0.0005))
        // 25 bits: 13 longitude bits, 12 latitude bits.
        #expect(isClose(cell.latitudeError_deg, 90.0 / 4096, absoluteTolerance: Self.degree))
        #expect(isClose(cell.longitudeError_deg, 180.0 / 8192, absoluteTolerance: Self.degree))
    }

    @Test func typedErrors() {
        #expect(throws: GeohashError.invalidPrecision(0)) {
            try Geohash.encode(try Coordinate(latitude: 0, longitude: 0), precision: 0)
        }
        #expect(throws: GeohashError.invalidPrecision(13)) {
            try Geohash.encode(try Coordinate(latitude: 0, longitude: 0), precision: 13)
        }
        #expect(throws: GeohashError.invalidCharacter(hash: "u4pa", character: "a", position: 4)) {
            try Geohash.decode("u4pa")
        }
        #expect(throws: GeohashError.invalidCharacter(hash: "ü", character: "ü", position: 1)) {
            try Geohash.decode("ü")
        }
        #expect(throws: GeohashError.invalidPrecision(0)) { try Geohash.decode("") }
        #expect(throws: GeohashError.invalidPrecision(13)) { try Geohash.neighbors("0123456789bcd") }
        #expect(throws: GeohashError.invalidRadius(-1)) {
            try Geohash.cells(coveringCircle: try Coordinate(latitude: 0, longitude: 0), radius_m: -1, precision: 5)
        }
        #expect(throws: GeohashError.tooManyCells(candidates: 1024, limit: 10)) {
            try Geohash.cells(
                coveringCircle: try Coordinate(latitude: 0, longitude: 0), radius_m: 3e7, precision: 2, maxCells: 10)
        }
    }

    /// Encode → decode over a lattice of points and every precision: the cell contains the point.
    @Test func encodeDecodeContainsThePoint() throws {
        var lat = -89.9
        while lat < 90 {
            var lon = -179.95
            while lon < 180 {
                let c = try Coordinate(latitude: lat, longitude: lon)
                for p in Geohash.precisionRange {
                    let hash = try Geohash.encode(c, precision: p)
                    let cell = try Geohash.decode(hash)
                    #expect(hash.count == p && cell.hash == hash)
                    #expect(abs(cell.center.latitude - lat) <= cell.latitudeError_deg)
                    #expect(abs(cell.center.longitude - lon) <= cell.longitudeError_deg)
                    #expect(try Geohash.encode(cell.center, precision: p) == hash)
                }
                lon += 13.37
            }
            lat += 7.77
        }
        #expect(try Geohash.decode("U4PRUYDQQVJ").hash == "u4pruydqqvj")
    }

    @Test func antimeridianNeighbours() throws {
        #expect(try Geohash.neighbor("xzrbx", .east) == "8p208")
        #expect(try Geohash.neighbor("8p208", .west) == "xzrbx")
        let a = try Geohash.decode("xzrbx")
        let b = try Geohash.decode("8p208")
        #expect(a.longitudeMax == 180 && b.longitudeMin == -180 && a.latitudeMin == b.latitudeMin)
    }

    /// North of a top-row cell is the top-row cell on the opposite meridian (over the pole).
    @Test(arguments: ["z", "b", "zzzzzz", "bpbpbp", "upbpbpbpbpbp"])
    func northOverThePole(hash: String) throws {
        let cell = try Geohash.decode(hash)
        #expect(cell.latitudeMax == 90)
        let over = try Geohash.decode(try Geohash.neighbor(hash, .north))
        #expect(over.latitudeMin == cell.latitudeMin && over.latitudeMax == 90)
        var shift = over.longitudeMin - cell.longitudeMin
        if shift < 0 { shift += 360 }
        #expect(isClose(shift, 180, absoluteTolerance: Self.degree))
        // Going north twice brings you back.
        #expect(try Geohash.neighbor(try Geohash.neighbor(hash, .north), .north) == hash)
    }

    @Test func southOverTheSouthPole() throws {
        let cell = try Geohash.decode("0000")
        let over = try Geohash.decode(try Geohash.neighbor("0000", .south))
        #expect(over.latitudeMin == -90 && over.latitudeMin == cell.latitudeMin)
        #expect(isClose(over.longitudeMin - cell.longitudeMin, 180, absoluteTolerance: Self.degree))
    }

    /// Every cell of precision 2 (1024) and a lattice at precision 7: opposite moves undo each
    /// other, and each neighbour's bounds touch the cell's.
    @Test func neighbourRoundTrips() throws {
        var hashes: [String] = []
        for a in Geohash.alphabet { for b in Geohash.alphabet { hashes.append(String([a, b])) } }
        var lat = -85.0
        while lat < 86 {
            var lon = -180.0
            while lon < 180 {
                hashes.append(try Geohash.encode(try Coordinate(latitude: lat, longitude: lon), precision: 7))
                lon += 9.99
            }
            lat += 5.55
        }
        let opposite: [GeohashDirection: GeohashDirection] = [
            .north: .south, .south: .north, .east: .west, .west: .east,
            .northEast: .southWest, .southWest: .northEast,
            .northWest: .southEast, .southEast: .northWest,
        ]
        for h in hashes {
            let cell = try Geohash.decode(h)
            let topOrBottom = cell.latitudeMax == 90 || cell.latitudeMin == -90
            let ns = try Geohash.neighbors(h)
            #expect(ns.count == 8 && Set(ns).count == 8 && !ns.contains(h))
            for (d, n) in zip(GeohashDirection.allCases, ns) where !topOrBottom {
                #expect(try Geohash.neighbor(n, opposite[d]!) == h, "\(h) \(d)")
                let c = try Geohash.decode(n)
                let dLat = (c.center.latitude - cell.center.latitude) / (2 * cell.latitudeError_deg)
                var dLon = (c.center.longitude - cell.center.longitude)
                if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
                dLon /= 2 * cell.longitudeError_deg
                let expected: (Double, Double) = {
                    switch d {
                    case .north: return (1, 0)
                    case .northEast: return (1, 1)
                    case .east: return (0, 1)
                    case .southEast: return (-1, 1)
                    case .south: return (-1, 0)
                    case .southWest: return (-1, -1)
                    case .west: return (0, -1)
                    case .northWest: return (1, -1)
                    }
                }()
                #expect(
                    isClose(dLat, expected.0, absoluteTolerance: 1e-9)
                        && isClose(dLon, expected.1, absoluteTolerance: 1e-9), "\(h) \(d)")
            }
        }
    }

    /// Covering cells: every point sampled inside the circle lies in a returned cell, and every
    /// returned cell has a sampled point within the radius (up to the sampling step).
    @Test(arguments: [
        (52.52, 13.405, 3000.0, 6), (0.001, 179.999, 5000.0, 5), (89.99, 0.0, 4000.0, 5),
        (-45.0, -70.0, 800.0, 7),
    ])
    func coverCircle(lat: Double, lon: Double, radius_m: Double, precision: Int) throws {
        let center = try Coordinate(latitude: lat, longitude: lon)
        let cells = try Geohash.cells(coveringCircle: center, radius_m: radius_m, precision: precision)
        #expect(!cells.isEmpty)
        for b in stride(from: 0.0, to: 360, by: 3) {
            for f in [0.0, 0.25, 0.5, 0.75, 0.95, 0.999] {
                let p = center.destination(bearing_deg: b, distance_m: f * radius_m)
                #expect(cells.contains(try Geohash.encode(p, precision: precision)), "bearing \(b) fraction \(f)")
            }
        }
        let haversine = Haversine()
        for h in cells {
            let cell = try Geohash.decode(h)
            var best = Double.infinity
            for i in 0...20 {
                for j in 0...20 {
                    let p = try Coordinate(
                        latitude: cell.latitudeMin + Double(i) / 20 * (cell.latitudeMax - cell.latitudeMin),
                        longitude: cell.longitudeMin + Double(j) / 20 * (cell.longitudeMax - cell.longitudeMin))
                    best = min(best, haversine.distance_m(center, p))
                }
            }
            // Sampling step: 1/20 of the cell size (≤ 250 m at precision 5).
            #expect(best <= radius_m + 260, "\(h) nearest sample \(best) m")
        }
    }
}
