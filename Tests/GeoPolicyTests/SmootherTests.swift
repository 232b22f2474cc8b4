import GeoPolicy
import Testing
import _TestSupport

@Suite struct SmootherTests {
    static func track(start: Coordinate, count: Int, turnRate_deg: Double) -> [Fix] {
        (0..<count).map { i in
            let truth = start.destination(bearing_deg: 80 + turnRate_deg * Double(i), distance_m: 25 * Double(i))
            let w = LocalFrame(anchor: truth).coordinate(
                east_m: [4, -3, 1, -2, 0][i % 5], north_m: [-2, 3, -4, 1, 2][i % 5])
            return Fix(
                timestamp_s: Double(i) * 1.0, latitude: w.latitude, longitude: w.longitude, horizontalAccuracy_m: 6)
        }
    }

    @Test func smoothedIsNeverLessCertainThanFiltered() throws {
        let fixes = Self.track(start: try Coordinate(latitude: 40, longitude: -3), count: 400, turnRate_deg: 0.05)
        let result = RTSSmoother.run(fixes, filter: try KalmanFilter())
        #expect(result.smoothed.count == 400 && result.filtered.count == 400 && result.rejected.isEmpty)
        for (s, f) in zip(result.smoothed, result.filtered) {
            #expect(s.horizontalAccuracy_m <= f.horizontalAccuracy_m + 1e-9)
            #expect(s.timestamp_s == f.timestamp_s)
        }
        let lastS = try #require(result.smoothed.last)
        let lastF = try #require(result.filtered.last)
        #expect(Haversine().distance_m(lastS.position, lastF.position) < 1e-6)
    }

    @Test func noiselessTrackIsRecovered() throws {
        let start = try Coordinate(latitude: -0.2, longitude: 179.8)  // crosses the date line
        let fixes = (0..<400).map { i in
            let c = start.destination(bearing_deg: 100, distance_m: 30 * Double(i))
            return Fix(timestamp_s: Double(i), latitude: c.latitude, longitude: c.longitude, horizontalAccuracy_m: 5)
        }
        let result = RTSSmoother.run(fixes, filter: try KalmanFilter())
        for (k, s) in result.smoothed.enumerated() where k >= 3 {
            #expect(Haversine().distance_m(s.position, try fixes[k].coordinate()) < 0.05, "step \(k)")
            #expect(isClose(s.speed_mps, 30, absoluteTolerance: 0.01), "step \(k)")
        }
    }

    /// The smoother carries estimates back across re-anchoring exactly.
    @Test func reanchoringIsTransparent() throws {
        let fixes = Self.track(start: try Coordinate(latitude: 70, longitude: 25), count: 300, turnRate_deg: 0.3)
        let a = RTSSmoother.run(fixes, filter: try KalmanFilter(reanchorDistance_m: 250))
        let b = RTSSmoother.run(fixes, filter: try KalmanFilter(reanchorDistance_m: 1e7))
        for (x, y) in zip(a.smoothed, b.smoothed) {
            #expect(Haversine().distance_m(x.position, y.position) < 1e-3)
            #expect(isClose(x.velocityEast_mps, y.velocityEast_mps, absoluteTolerance: 1e-4))
            #expect(isClose(x.horizontalAccuracy_m, y.horizontalAccuracy_m, absoluteTolerance: 1e-6))
        }
    }

    /// `smoothedPositions` (what `calibrate --track` keeps) is `run`'s smoothed positions bit for
    /// bit (same forward pass, same backward recursion), with rejected fixes and re-anchoring.
    @Test func smoothedPositionsAreRunsPositions() throws {
        var fixes = Self.track(start: try Coordinate(latitude: 70, longitude: 25), count: 300, turnRate_deg: 0.3)
        fixes[7].horizontalAccuracy_m = -1
        fixes[40].timestamp_s = fixes[39].timestamp_s
        let filter = try KalmanFilter(reanchorDistance_m: 250)
        let full = RTSSmoother.run(fixes, filter: filter)
        let light = RTSSmoother.smoothedPositions(fixes, filter: filter)
        #expect(light.acceptedIndices == full.acceptedIndices && light.acceptedIndices.count == 298)
        #expect(light.positions.count == full.smoothed.count)
        for (p, s) in zip(light.positions, full.smoothed) {
            #expect(p.latitude == s.position.latitude && p.longitude == s.position.longitude)
        }
        #expect(RTSSmoother.smoothedPositions([], filter: filter).positions.isEmpty)
        // Checkpointed blocks (the filter run again from a copy per block): the same bits for any
        // block length, blocks that start on a rejected fix (7, 40) or hold one step (1) included.
        for interval in [1, 7, 8, 40, 299, 300, 301] {
            let blocks = RTSSmoother.smoothedPositions(fixes, filter: filter, checkpointInterval: interval)
            #expect(blocks.acceptedIndices == full.acceptedIndices, "interval \(interval)")
            #expect(
                zip(blocks.positions, light.positions).allSatisfy {
                    $0.latitude == $1.latitude && $0.longitude == $1.longitude
                },
                "interval \(interval)")
        }
        // A block with no accepted fix: its checkpoint shares the first step with the next block.
        var gap = fixes
        for i in 16..<24 { gap[i].horizontalAccuracy_m = .nan }
        let gapFull = RTSSmoother.run(gap, filter: filter)
        let gapBlocks = RTSSmoother.smoothedPositions(gap, filter: filter, checkpointInterval: 8)
        #expect(gapBlocks.acceptedIndices == gapFull.acceptedIndices && gapBlocks.acceptedIndices.count == 290)
        #expect(
            zip(gapBlocks.positions, gapFull.smoothed).allSatisfy {
                $0.latitude == $1.position.latitude && $0.longitude == $1.position.longitude
            })
        // The recursion crossed re-anchored frames (what the compact recording keeps by index).
        var f = filter
        for fix in fixes { try? f.update(fix) }
        #expect(f.reanchorCount >= 2, "re-anchored \(f.reanchorCount) times")
        // One fix: its filtered position.
        let one = RTSSmoother.smoothedPositions([fixes[0]], filter: filter)
        let oneFull = RTSSmoother.run([fixes[0]], filter: filter)
        #expect(one.acceptedIndices == [0] && one.positions.count == 1)
        #expect(
            one.positions[0].latitude == oneFull.smoothed[0].position.latitude
                && one.positions[0].longitude == oneFull.smoothed[0].position.longitude)
    }

    @Test func rejectedFixesAreListedWithIndex() throws {
        var fixes = Self.track(start: try Coordinate(latitude: 10, longitude: 10), count: 20, turnRate_deg: 0)
        fixes[5].horizontalAccuracy_m = -1
        fixes[9].timestamp_s = fixes[8].timestamp_s
        let result = RTSSmoother.run(fixes, filter: try KalmanFilter())
        #expect(result.rejected.map(\.index) == [5, 9])
        #expect(result.rejected[0].reason == .invalidAccuracy(-1))
        #expect(result.acceptedIndices.count == 18)
    }
}
