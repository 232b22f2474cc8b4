import Foundation
import GSLKit
import Testing
import _TestSupport

@testable import GeoPolicy

/// The stop-and-go IMM: equality with the CV filter for equal models, KalmanFilter's interfaces,
/// model probabilities. Error statistics on generated drives are in FenceLabTests/FilterConsistencyTests.
@Suite struct IMMFilterTests {
    static let equalModelsTolerance_m = 1e-9
    static let equalModelsTolerance_mps = 1e-9

    /// Noisy fixes (σ per axis `sigma_m`, seeded GSL) along a great circle from `start`, 1 Hz, with a
    /// 40 s gap after fix 100 and accuracies varying between 3 and 30 m.
    static func noisyDrive(
        start: Coordinate, bearing_deg: Double, speed_mps: Double, count: Int,
        sigma_m: Double = 6, seed: UInt64 = 17
    ) throws -> [Fix] {
        let rng = try RandomSource(seed: seed)
        var fixes: [Fix] = []
        for i in 0..<count where !(100..<140).contains(i) {
            let truth = start.destination(bearing_deg: bearing_deg, distance_m: speed_mps * Double(i))
            let noisy = LocalFrame(anchor: truth).coordinate(
                east_m: rng.gaussian(sigma: sigma_m), north_m: rng.gaussian(sigma: sigma_m))
            let accuracy = 3 + 27 * rng.uniform()
            fixes.append(
                Fix(
                    timestamp_s: Double(i), latitude: noisy.latitude, longitude: noisy.longitude,
                    horizontalAccuracy_m: accuracy))
        }
        return fixes
    }

    @Test(arguments: [
        (52.5, 13.4, 90.0, 30.0), (-16.8, 179.99, 90.0, 25.0), (89.97, 10.0, 0.0, 20.0), (40.0, -74.0, 200.0, 0.0),
    ])
    func equalModelsEqualTheConstantVelocityFilter(lat: Double, lon: Double, bearing: Double, speed: Double) throws {
        let q = 0.7
        var cv = try KalmanFilter(accelerationDensity_m2ps3: q)
        var imm = try IMMFilter(
            models: .constantVelocity(accelerationDensity_m2ps3: q), .constantVelocity(accelerationDensity_m2ps3: q))
        let fixes = try Self.noisyDrive(
            start: try Coordinate(latitude: lat, longitude: lon), bearing_deg: bearing,
            speed_mps: speed, count: 400)
        let haversine = Haversine()
        var worstPosition_m = 0.0
        var worstVelocity_mps = 0.0
        var worstAccuracy_m = 0.0
        for fix in fixes {
            try cv.update(fix)
            try imm.update(fix)
            let a = try #require(cv.estimate)
            let b = try #require(imm.estimate)
            worstPosition_m = max(worstPosition_m, haversine.distance_m(a.position, b.position))
            worstVelocity_mps = max(
                worstVelocity_mps, abs(a.velocityEast_mps - b.velocityEast_mps),
                abs(a.velocityNorth_mps - b.velocityNorth_mps))
            worstAccuracy_m = max(worstAccuracy_m, abs(a.horizontalAccuracy_m - b.horizontalAccuracy_m))
        }
        #expect(worstPosition_m <= Self.equalModelsTolerance_m, "position differs by \(worstPosition_m) m")
        #expect(worstVelocity_mps <= Self.equalModelsTolerance_mps, "velocity differs by \(worstVelocity_mps) m/s")
        #expect(worstAccuracy_m <= Self.equalModelsTolerance_m, "accuracy differs by \(worstAccuracy_m) m")
        #expect(cv.reanchorCount == imm.reanchorCount)
        // Predictions over a gap agree as well.
        let t = try #require(fixes.last).timestamp_s + 30
        let pa = try #require(try cv.predict(to: t))
        let pb = try #require(try imm.predict(to: t))
        #expect(haversine.distance_m(pa.position, pb.position) <= Self.equalModelsTolerance_m)
        #expect(
            isClose(pa.horizontalAccuracy_m, pb.horizontalAccuracy_m, absoluteTolerance: Self.equalModelsTolerance_m))
    }

    @Test func invalidParametersAreRefused() {
        #expect(throws: TrackError.invalidParameter(name: "model0 density", value: 0, expected: "finite and > 0")) {
            try IMMFilter(positionDensity_m2ps: 0)
        }
        #expect(throws: TrackError.self) { try IMMFilter(accelerationDensity_m2ps3: .nan) }
        #expect(throws: TrackError.self) { try IMMFilter(meanSojourn_s: SIMD2(60, -1)) }
        #expect(throws: TrackError.self) { try IMMFilter(meanSojourn_s: SIMD2(.infinity, 60)) }
        #expect(throws: TrackError.self) { try IMMFilter(reanchorDistance_m: 0) }
    }

    @Test func rejectsWithKalmanFilterReasonsAndChangesNothing() throws {
        var f = try IMMFilter()
        try f.update(Fix(timestamp_s: 10, latitude: 52, longitude: 13, horizontalAccuracy_m: 5))
        try f.update(Fix(timestamp_s: 11, latitude: 52.0001, longitude: 13, horizontalAccuracy_m: 5))
        let before = (f.state0, f.state1, f.covariance0, f.covariance1, f.probabilities, f.timestamp_s)
        let cases: [(Fix, TrackRejection)] = [
            (
                Fix(timestamp_s: 11, latitude: 52, longitude: 13, horizontalAccuracy_m: 5),
                .nonIncreasingTimestamp(previous_s: 11, timestamp_s: 11)
            ),
            (
                Fix(timestamp_s: 12, latitude: 91, longitude: 13, horizontalAccuracy_m: 5),
                .invalidCoordinate(.latitudeOutOfRange(91))
            ),
            (Fix(timestamp_s: 12, latitude: 52, longitude: 13, horizontalAccuracy_m: -1), .invalidAccuracy(-1)),
            (Fix(timestamp_s: 12, latitude: 52, longitude: 13, horizontalAccuracy_m: 0), .invalidAccuracy(0)),
        ]
        var cv = try KalmanFilter()
        try cv.update(Fix(timestamp_s: 11, latitude: 52, longitude: 13, horizontalAccuracy_m: 5))
        for (fix, reason) in cases {
            #expect(throws: reason) { try f.update(fix) }
            #expect(throws: reason) { try cv.update(fix) }
        }
        #expect(throws: TrackRejection.self) {
            try f.update(Fix(timestamp_s: .nan, latitude: 52, longitude: 13, horizontalAccuracy_m: 5))
        }
        #expect(f.state0 == before.0 && f.state1 == before.1 && f.covariance0 == before.2 && f.covariance1 == before.3)
        #expect(f.probabilities == before.4 && f.timestamp_s == before.5)
        #expect(throws: TrackRejection.nonIncreasingTimestamp(previous_s: 11, timestamp_s: 10)) {
            try f.predict(to: 10)
        }
        #expect(throws: TrackRejection.invalidTimestamp(.infinity)) { try f.predict(to: .infinity) }
    }

    /// Noiseless drives across ±180° and next to a pole: the combined estimate follows the truth
    /// (the CV model carries it), re-anchoring happens and leaves no jump.
    @Test(arguments: [(0.0, 179.9, 90.0), (89.95, 0.0, 0.0), (-89.95, 45.0, 180.0)])
    func followsNoiselessDrivesAcrossTheDateLineAndThePoles(lat: Double, lon: Double, bearing: Double) throws {
        var f = try IMMFilter()
        let start = try Coordinate(latitude: lat, longitude: lon)
        var worst_m = 0.0
        for i in 0..<600 {
            let truth = start.destination(bearing_deg: bearing, distance_m: 25 * Double(i))
            try f.update(
                Fix(
                    timestamp_s: Double(i), latitude: truth.latitude, longitude: truth.longitude,
                    horizontalAccuracy_m: 5))
            if i >= 60 { worst_m = max(worst_m, Haversine().distance_m(try #require(f.estimate).position, truth)) }
        }
        let positionTolerance_m = 0.5
        #expect(worst_m <= positionTolerance_m, "worst error \(worst_m) m after burn-in")
        #expect(f.reanchorCount >= 6)
        #expect(f.probabilities[1] > 0.99, "a 25 m/s drive is the moving model's: μ = \(f.probabilities)")
    }

    @Test func modelProbabilitiesFollowStopAndGo() throws {
        var f = try IMMFilter()
        let rng = try RandomSource(seed: 5)
        let start = try Coordinate(latitude: 48.1, longitude: 11.6)
        var t = 0.0
        func feed(_ c: Coordinate) throws {
            let n = LocalFrame(anchor: c).coordinate(east_m: rng.gaussian(sigma: 4), north_m: rng.gaussian(sigma: 4))
            try f.update(
                Fix(
                    timestamp_s: t, latitude: n.latitude, longitude: n.longitude,
                    horizontalAccuracy_m: 4 * 2.0.squareRoot()))
            t += 1
        }
        for _ in 0..<300 { try feed(start) }
        // White noise fits both models; the stopped one wins by its smaller innovations, against the
        // chain's pull towards (½, ½) at every step: μ₀ = 0.81 measured.
        #expect(f.probabilities[0] > 0.75, "parked: μ = \(f.probabilities)")
        for i in 0..<120 { try feed(start.destination(bearing_deg: 30, distance_m: 15 * Double(i))) }
        #expect(f.probabilities[1] > 0.9, "driving: μ = \(f.probabilities)")
        #expect(isClose(f.probabilities.sum(), 1, absoluteTolerance: 1e-15))
    }

    @Test func predictsThroughAGapWithGrowingUncertainty() throws {
        var f = try IMMFilter()
        let start = try Coordinate(latitude: 10, longitude: 10)
        for i in 0..<100 {
            let c = start.destination(bearing_deg: 90, distance_m: 20 * Double(i))
            try f.update(
                Fix(timestamp_s: Double(i), latitude: c.latitude, longitude: c.longitude, horizontalAccuracy_m: 5))
        }
        let e = try #require(f.estimate)
        let later = try #require(try f.predict(to: 129))
        let truth = start.destination(bearing_deg: 90, distance_m: 20 * 129)
        // Over 30 s the chain gives the stopped model about a third of the weight (τ = 60 s each), so
        // the combined mean falls about 190 m short of the truth; its covariance (the spread of the
        // model means) says so: the truth lies within the predicted accuracy.
        #expect(Haversine().distance_m(later.position, truth) <= later.horizontalAccuracy_m)
        #expect(later.horizontalAccuracy_m > e.horizontalAccuracy_m)
        #expect(try #require(try f.predict(to: 99)).position == e.position)
    }
}
