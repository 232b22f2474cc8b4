import Foundation
import Testing
import _TestSupport

@testable import GeoPolicy

/// Noiseless tracks and rejections; the noisy statistics are in FenceLabTests/KalmanStatisticsTests.
@Suite struct KalmanFilterTests {
    static let position_m = 0.05
    static let speed_mps = 1e-3

    /// Truth on a great circle from `start` with initial `bearing_deg` at `speed_mps`, sampled each second.
    static func straightFixes(
        start: Coordinate, bearing_deg: Double, speed_mps: Double, count: Int,
        accuracy_m: Double = 5
    ) -> [Fix] {
        (0..<count).map { i in
            let c = start.destination(bearing_deg: bearing_deg, distance_m: speed_mps * Double(i))
            return Fix(
                timestamp_s: Double(i), latitude: c.latitude, longitude: c.longitude, horizontalAccuracy_m: accuracy_m)
        }
    }

    @Test func invalidParametersAreRefused() {
        #expect(
            throws: TrackError.invalidParameter(name: "accelerationDensity_m2ps3", value: 0, expected: "finite and > 0")
        ) {
            try KalmanFilter(accelerationDensity_m2ps3: 0)
        }
        #expect(throws: TrackError.self) { try KalmanFilter(reanchorDistance_m: .nan) }
        #expect(throws: TrackError.self) { try KalmanFilter(initialSpeedSigma_mps: -1) }
    }

    @Test func rejectedFixesChangeNothing() throws {
        var f = try KalmanFilter()
        try f.update(Fix(timestamp_s: 10, latitude: 52, longitude: 13, horizontalAccuracy_m: 5))
        try f.update(Fix(timestamp_s: 11, latitude: 52.0001, longitude: 13, horizontalAccuracy_m: 5))
        let before = (f.state, f.covariance, f.timestamp_s)
        let cases: [(Fix, TrackRejection)] = [
            (
                Fix(timestamp_s: 11, latitude: 52, longitude: 13, horizontalAccuracy_m: 5),
                .nonIncreasingTimestamp(previous_s: 11, timestamp_s: 11)
            ),
            (
                Fix(timestamp_s: 9, latitude: 52, longitude: 13, horizontalAccuracy_m: 5),
                .nonIncreasingTimestamp(previous_s: 11, timestamp_s: 9)
            ),
            (
                Fix(timestamp_s: 12, latitude: 91, longitude: 13, horizontalAccuracy_m: 5),
                .invalidCoordinate(.latitudeOutOfRange(91))
            ),
            (Fix(timestamp_s: 12, latitude: 52, longitude: 13, horizontalAccuracy_m: -1), .invalidAccuracy(-1)),
            (Fix(timestamp_s: 12, latitude: 52, longitude: 13, horizontalAccuracy_m: 0), .invalidAccuracy(0)),
            (
                Fix(timestamp_s: 12, latitude: 52, longitude: 13, horizontalAccuracy_m: .infinity),
                .invalidAccuracy(.infinity)
            ),
        ]
        for (fix, reason) in cases {
            #expect(throws: reason) { try f.update(fix) }
        }
        #expect(throws: TrackRejection.self) {
            try f.update(Fix(timestamp_s: .nan, latitude: 52, longitude: 13, horizontalAccuracy_m: 5))
        }
        #expect(f.state == before.0 && f.covariance == before.1 && f.timestamp_s == before.2)
    }

    @Test(arguments: [AccuracyConvention.iOSDRMS, .android68])
    func firstFixAccuracyRoundTripsThroughTheConvention(convention: AccuracyConvention) throws {
        var f = try KalmanFilter(convention: convention)
        try f.update(Fix(timestamp_s: 0, latitude: -33.9, longitude: 151.2, horizontalAccuracy_m: 12))
        let e = try #require(f.estimate)
        #expect(isClose(e.horizontalAccuracy_m, 12, absoluteTolerance: 1e-9))
        let sigma = convention == .iOSDRMS ? 12 / 2.0.squareRoot() : 12 / 1.51
        #expect(isClose(f.covariance[0, 0], sigma * sigma, relativeTolerance: 1e-12))
    }

    /// Straight constant-speed drives, noiseless: the CV filter converges onto the truth,
    /// including across the date line and 1 km from the north pole.
    @Test(arguments: [
        (45.0, 10.0, 60.0),  // mid-latitudes
        (0.5, 179.5, 90.0),  // eastwards across +-180
        (-10.0, -179.7, 270.0),  // westwards across +-180
        (89.95, 0.0, 0.0),  // over the north pole
    ])
    func noiselessStraightDriveConverges(lat: Double, lon: Double, bearing: Double) throws {
        let fixes = Self.straightFixes(
            start: try Coordinate(latitude: lat, longitude: lon),
            bearing_deg: bearing, speed_mps: 30, count: 600)
        var f = try KalmanFilter()
        for (i, fix) in fixes.enumerated() {
            try f.update(fix)
            guard i >= 100 else { continue }
            let e = try #require(f.estimate)
            let truth = try fix.coordinate()
            #expect(Haversine().distance_m(e.position, truth) < Self.position_m, "step \(i)")
            #expect(isClose(e.speed_mps, 30, absoluteTolerance: 0.01), "step \(i)")
        }
        #expect(f.reanchorCount >= 8)  // 18 km at 2 km per frame
    }

    /// Re-anchoring carries the state over exactly: a filter that re-anchors every 300 m and
    /// one that never does agree to the millimetre on a 6 km drive with a zig-zag perturbation.
    @Test(arguments: [(64.1, -21.9), (89.98, 120.0), (-0.01, 179.99)])
    func reanchoringIsTransparent(lat: Double, lon: Double) throws {
        let start = try Coordinate(latitude: lat, longitude: lon)
        var often = try KalmanFilter(reanchorDistance_m: 300)
        var never = try KalmanFilter(reanchorDistance_m: 1e7)
        for i in 0..<300 {
            let truth = start.destination(bearing_deg: 30 + Double(i) * 0.1, distance_m: 20 * Double(i))
            let wiggle = LocalFrame(anchor: truth).coordinate(east_m: i % 2 == 0 ? 3 : -3, north_m: i % 3 == 0 ? 2 : -1)
            let fix = Fix(
                timestamp_s: Double(i), latitude: wiggle.latitude, longitude: wiggle.longitude,
                horizontalAccuracy_m: 4 + Double(i % 5))
            try often.update(fix)
            try never.update(fix)
            let a = try #require(often.estimate)
            let b = try #require(never.estimate)
            #expect(Haversine().distance_m(a.position, b.position) < 1e-3, "step \(i)")
            #expect(isClose(a.velocityEast_mps, b.velocityEast_mps, absoluteTolerance: 1e-4))
            #expect(isClose(a.velocityNorth_mps, b.velocityNorth_mps, absoluteTolerance: 1e-4))
            #expect(isClose(a.horizontalAccuracy_m, b.horizontalAccuracy_m, absoluteTolerance: 1e-6))
        }
        #expect(often.reanchorCount >= 15 && never.reanchorCount == 0)
    }

    @Test func predictsThroughAGap() throws {
        let start = try Coordinate(latitude: 48.1, longitude: 11.6)
        let fixes = Self.straightFixes(start: start, bearing_deg: 90, speed_mps: 25, count: 200)
        var f = try KalmanFilter()
        for fix in fixes.prefix(150) { try f.update(fix) }
        let now = try #require(f.estimate)
        let ahead = try #require(try f.predict(to: 170))
        let truth = try fixes[170].coordinate()
        #expect(Haversine().distance_m(ahead.position, truth) < 0.5)
        #expect(ahead.horizontalAccuracy_m > now.horizontalAccuracy_m)
        #expect(throws: TrackRejection.nonIncreasingTimestamp(previous_s: 149, timestamp_s: 100)) {
            try f.predict(to: 100)
        }
        // The filter itself is unchanged by the prediction, and the gap is bridged by the next update.
        #expect(f.timestamp_s == 149)
        try f.update(fixes[170])
        #expect(Haversine().distance_m(try #require(f.estimate).position, truth) < Self.position_m * 10)
    }
}

/// The filter's libm-free projection equals `LocalFrame.offset_m` to rounding.
@Suite struct AnchorProjectionTests {
    @Test(arguments: [
        (0.0, 0.0), (52.5, 13.4), (-33.9, 151.2), (0.2, 179.999), (-10, -179.999), (89.9, 45.0), (-89.5, -120.0),
    ])
    func matchesTheFrame(lat: Double, lon: Double) throws {
        let frame = LocalFrame(anchor: try Coordinate(latitude: lat, longitude: lon))
        let fast = AnchorProjection(frame: frame)
        // ulp(180°) ≈ 2.8e-14° ≈ 3 nm: both paths round the same degrees, the frame's at that level.
        let tolerance_m = 1e-8
        var fastPathHits = 0
        for bearing in stride(from: 0.0, to: 360, by: 7.5) {
            for d in [0.0, 0.3, 12, 480, 2_500, 20_000, 60_000, 150_000] {
                let c = frame.coordinate(east_m: d * sin(bearing * .pi / 180), north_m: d * cos(bearing * .pi / 180))
                let a = fast.offset_m(latitude: c.latitude, longitude: c.longitude)
                let b = frame.offset_m(c)
                #expect(
                    abs(a.x - b.x) <= tolerance_m * max(1, d / 1000)
                        && abs(a.y - b.y) <= tolerance_m * max(1, d / 1000),
                    "anchor (\(lat), \(lon)) bearing \(bearing) d \(d): \(a) vs \(b)")
                if abs(c.latitude - lat) < 0.5, abs(c.longitude - lon) < 0.5 || abs(abs(c.longitude - lon) - 360) < 0.5
                {
                    fastPathHits += 1
                }
            }
        }
        #expect(fastPathHits > 100)
    }

    @Test func laneSeriesEqualTheScalarSeriesBitForBit() {
        // `offset_m` evaluates the Δφ/Δλ series as the two lanes of one SIMD2; each lane must be
        // the scalar series exactly (same operations in the same order), or the filter's results
        // would change. Every magnitude of the fast path, both signs, and the ends of its range.
        var xs: [Double] = [0, -0.0, 1e-300, 1e-12, 0.01.nextDown, -0.01.nextDown, 0.005]
        for k in 0..<20_000 {  // 0.01 down to 1e-10 in log steps, alternating signs, irregular mantissas
            let x = 0.01 * pow(10, -8 * Double(k) / 20_000) * (1 - 0.3 * abs(sin(Double(k) * 1.618)))
            xs.append(k % 2 == 0 ? x : -x)
        }
        for (i, a) in xs.enumerated() {
            let b = xs[(i * 7 + 3) % xs.count]
            let s = AnchorProjection.sinSmall(SIMD2(a, b))
            let v = AnchorProjection.versSmall(SIMD2(a, b))
            #expect(
                s.x.bitPattern == AnchorProjection.sinSmall(a).bitPattern
                    && s.y.bitPattern == AnchorProjection.sinSmall(b).bitPattern,
                "sinSmall lanes (\(a), \(b))")
            #expect(
                v.x.bitPattern == AnchorProjection.versSmall(a).bitPattern
                    && v.y.bitPattern == AnchorProjection.versSmall(b).bitPattern,
                "versSmall lanes (\(a), \(b))")
        }
    }

    @Test func foldedConstantsEqualTheirSources() {
        // The hot path's computed constants (no lazy globals) are the values they replace.
        #expect(AnchorProjection.radiansPerDegree == EarthModel.radiansPerDegree)
        #expect(AccuracyConvention.inverseSqrt2 == 1 / 2.0.squareRoot())
        #expect(AccuracyConvention.iOSDRMS.sigmaPerAxis_m(accuracy_m: 10) == 10 * (1 / 2.0.squareRoot()))
        #expect(Matrix2.identity.apply(SIMD2(3, -4)) == SIMD2(3, -4))
        #expect(AnchorProjection.c6 == 1.0 / 6 && AnchorProjection.a11 == 1.0 / 11)
    }
}
