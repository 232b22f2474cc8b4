import GeoPolicy
import Testing

/// The accessors that compute part of an estimate, or reuse what a frame or a distance already
/// computed, give exactly (bit for bit) the values of the full computation they replace.
@Suite struct SharedWorkTests {
    /// A track through re-anchoring, across the date line and next to a pole, with rejected fixes.
    static func fixes(start: Coordinate) -> [Fix] {
        var out = (0..<300).map { i in
            let truth = start.destination(bearing_deg: 80 + 0.3 * Double(i), distance_m: 25 * Double(i))
            let w = LocalFrame(anchor: truth).coordinate(
                east_m: [4, -3, 1, -2, 0][i % 5], north_m: [-2, 3, -4, 1, 2][i % 5])
            return Fix(
                timestamp_s: Double(i), latitude: w.latitude, longitude: w.longitude,
                horizontalAccuracy_m: [6, 12, 3][i % 3])
        }
        out[7].horizontalAccuracy_m = -1
        out[40].timestamp_s = out[39].timestamp_s
        return out
    }

    /// Latitude and longitude of each start.
    static let starts: [(Double, Double)] = [(70, 25), (-0.2, 179.95), (89.99, -40)]

    @Test(arguments: starts.indices) func runStatesArePositionsOfRun(start: Int) throws {
        let (lat, lon) = Self.starts[start]
        let fixes = Self.fixes(start: try Coordinate(latitude: lat, longitude: lon))
        let filter = try KalmanFilter(reanchorDistance_m: 250)
        let full = RTSSmoother.run(fixes, filter: filter)
        let light = RTSSmoother.runStates(fixes, filter: filter)
        #expect(light.acceptedIndices == full.acceptedIndices && light.rejected == full.rejected)
        #expect(light.steps == full.steps && light.smoothedStates == full.smoothedStates)
        #expect(light.filtered.isEmpty && light.smoothed.isEmpty)
        #expect(full.steps.contains { $0.reanchorJacobian != .identity })
        for k in full.steps.indices {
            #expect(light.steps[k].filteredPosition == full.filtered[k].position, "step \(k)")
            #expect(light.smoothedStates[k].position == full.smoothed[k].position, "step \(k)")
            #expect(light.smoothedStates[k].estimate(convention: filter.convention) == full.smoothed[k], "step \(k)")
        }
    }

    @Test(arguments: starts.indices) func immPositionIsTheEstimatesPosition(start: Int) throws {
        let (lat, lon) = Self.starts[start]
        var imm = try IMMFilter(reanchorDistance_m: 250)
        #expect(imm.position == nil)
        for fix in Self.fixes(start: try Coordinate(latitude: lat, longitude: lon)) {
            try? imm.update(fix)
            let estimate = try #require(imm.estimate)
            #expect(imm.position == estimate.position)
            let c = imm.combined
            #expect(c.state == imm.state && c.covariance == imm.covariance)
        }
        #expect(imm.reanchorCount > 0)
    }

    @Test func haversineTargetIsTheDistanceBitForBit() throws {
        let points = [
            (0.0, 0.0), (52.52, 13.405), (-33.9, 151.2), (89.9999, 10), (-90, 0), (90, 180), (0, 180),
            (0, -180), (-0.2, 179.95), (0.2, -179.95), (45, -120.5), (-45, 59.5), (1e-9, -1e-9),
        ]
        let coordinates = try points.map { try Coordinate(latitude: $0.0, longitude: $0.1) }
        let model = Haversine()
        var checked = 0
        for a in coordinates {
            for b in coordinates {
                let target = Haversine.Target(b)
                #expect(target.coordinate == b)
                #expect(model.distance_m(a, to: target).bitPattern == model.distance_m(a, b).bitPattern, "\(a) \(b)")
                checked += 1
            }
        }
        #expect(checked == coordinates.count * coordinates.count)
    }

    @Test func haversineFromATargetIsTheDistanceBitForBit() throws {
        let centres = try [(52.52, 13.405), (-33.9, 151.2), (89.9999, 10), (-0.2, 179.95), (0, 0)].map {
            try Coordinate(latitude: $0.0, longitude: $0.1)
        }
        let model = Haversine()
        var g = SystemRandomNumberGenerator()
        for centre in centres {
            let origin = Haversine.Target(centre)
            for _ in 0..<2_000 {
                // Near the centre (a fence's fixes) and anywhere on the sphere.
                let near = Bool.random(using: &g)
                let lat =
                    near
                    ? max(-90, min(90, centre.latitude + Double.random(in: -0.01...0.01, using: &g)))
                    : Double.random(in: -90...90, using: &g)
                var lon =
                    near
                    ? centre.longitude + Double.random(in: -0.01...0.01, using: &g)
                    : Double.random(in: -180...180, using: &g)
                if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
                let b = try Coordinate(latitude: lat, longitude: lon)
                #expect(
                    model.distance_m(from: origin, b).bitPattern == model.distance_m(centre, b).bitPattern,
                    "\(centre) \(b)")
            }
        }
    }

    @Test func offsetOfAnotherFramesAnchorIsTheOffsetOfTheAnchor() throws {
        let anchors = try [(52.52, 13.405), (89.99, -40), (-90, 0), (-0.2, 179.95), (10, -170)].map {
            try Coordinate(latitude: $0.0, longitude: $0.1)
        }
        for a in anchors {
            let frame = LocalFrame(anchor: a)
            for b in anchors {
                let other = LocalFrame(anchor: b)
                #expect(frame.offset_m(anchorOf: other) == frame.offset_m(b), "\(a) \(b)")
            }
        }
    }
}
