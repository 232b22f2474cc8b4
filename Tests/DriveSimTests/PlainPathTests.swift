import GeoPolicy
import Testing

@testable import DriveSim

/// The specialised path for plain scenarios (`ScenarioGenerator.makePlainSample`) gives exactly
/// the stream of the general path: forcing the general path with a setting that never fires
/// (a gap window after the end, faults on their own random stream) must not change one bit.
@Suite struct PlainPathTests {
    static func waypointSpec(rate_hz: Double, duration_s: Double, accuracy: AccuracySpec) throws -> ScenarioSpec {
        let points = [
            try Coordinate(latitude: 52.52, longitude: 13.405), try Coordinate(latitude: 52.60, longitude: 13.60),
            try Coordinate(latitude: -0.2, longitude: 179.9), try Coordinate(latitude: 0.1, longitude: -179.8),
        ]
        return ScenarioSpec(
            name: "plain", description: "plain", rulesVersion: "threshold-100", seed: 18, replicates: 2,
            fence: FenceSpec(center: points[0], rule: FenceRuleSpec(kind: .threshold(radius_m: 100))),
            route: .waypoints(
                WaypointRouteSpec(points: points, speed: .constant(speed_mps: 25, variation_mps: 2, variationTau_s: 30))
            ),
            sampling: SamplingSpec(rate_hz: rate_hz, duration_s: duration_s),
            noise: NoiseSpec(white: .gaussian(sigma_m: 5)), accuracy: accuracy)
    }

    static func forcedGeneral(_ spec: ScenarioSpec) -> ScenarioSpec {
        var s = spec
        s.faults.gaps = [FaultSpec.GapWindow(start_s: spec.sampling.duration_s + 10, duration_s: 1)]
        return s
    }

    @Test(arguments: [AccuracySpec(), AccuracySpec(model: .fixed(value_m: 7.5))])
    func plainPathEqualsGeneralPathOnAWaypointRoute(accuracy: AccuracySpec) throws {
        let plain = try Self.waypointSpec(rate_hz: 5, duration_s: 4_000, accuracy: accuracy)
        let general = Self.forcedGeneral(plain)
        for replicate in 0..<2 {
            let a = try ScenarioGenerator(spec: plain, replicate: replicate)
            let b = try ScenarioGenerator(spec: general, replicate: replicate)
            #expect(a.isPlain && !b.isPlain)
            let sa = try ScenarioGenerator.generate(spec: plain, replicate: replicate).samples
            let sb = try ScenarioGenerator.generate(spec: general, replicate: replicate).samples
            #expect(sa.count == 20_000)
            #expect(TestScenarios.signature(sa) == TestScenarios.signature(sb))
            #expect(sa == sb)  // also heading and fix truth
        }
    }

    @Test(arguments: ["highway-seed004", "dateline-fiji", "polar-crossing", "edge-loiter-100m", "antipodal-fences"])
    func catalogScenariosGiveTheSameStreamEitherWay(name: String) throws {
        let spec = try TestScenarios.catalog(name)
        let general = Self.forcedGeneral(spec)
        #expect(try !ScenarioGenerator(spec: general, replicate: 0).isPlain)
        let sa = try ScenarioGenerator.generate(spec: spec, replicate: 0).samples
        let sb = try ScenarioGenerator.generate(spec: general, replicate: 0).samples
        #expect(TestScenarios.signature(sa) == TestScenarios.signature(sb), "\(name)")
    }

    @Test func settingsThatNeedTheGeneralPathAreNotPlain() throws {
        let base = try Self.waypointSpec(rate_hz: 1, duration_s: 10, accuracy: AccuracySpec())
        var tails = base
        tails.noise = NoiseSpec(white: .gaussian(sigma_m: 5), tails: .studentT(nu: 4))
        var bias = base
        bias.noise = NoiseSpec(white: .gaussian(sigma_m: 5), bias: NoiseSpec.Bias(sigma_m: 2, tau_s: 60))
        var aniso = base
        aniso.noise = NoiseSpec(white: .anisotropic(alongTrackSigma_m: 6, crossTrackSigma_m: 3, rho: 0.3))
        let misreport = try Self.waypointSpec(rate_hz: 1, duration_s: 10, accuracy: AccuracySpec(misreportSigma: 0.2))
        let invalid = try Self.waypointSpec(rate_hz: 1, duration_s: 10, accuracy: AccuracySpec(invalidProbability: 0.1))
        var duplicate = base
        duplicate.faults.duplicateProbability = 0.1
        #expect(try ScenarioGenerator(spec: base, replicate: 0).isPlain)
        for s in [tails, bias, aniso, misreport, invalid, duplicate] {
            #expect(try !ScenarioGenerator(spec: s, replicate: 0).isPlain)
        }
    }
}

/// `route.depart_s`: the user stands at the first waypoint (speed 0) until then, and the speed
/// profile's clock starts at departure: the track is the undelayed one shifted by `depart_s`.
@Suite struct DepartureTests {
    @Test(arguments: [
        SpeedProfile.constant(speed_mps: 1.4, variation_mps: 0, variationTau_s: 60),
        SpeedProfile.accelerateCruiseBrake(cruise_mps: 11, accel_mps2: 1.5, brake_mps2: 2),
    ])
    func theTrackWaitsAtTheFirstPointThenFollowsTheUndelayedOne(speed: SpeedProfile) throws {
        let points = [
            try Coordinate(latitude: 52.52, longitude: 13.405), try Coordinate(latitude: 52.52, longitude: 13.38),
        ]
        func spec(_ depart_s: Double) -> ScenarioSpec {
            ScenarioSpec(
                name: "depart", description: "depart", rulesVersion: "threshold-100", seed: 7, replicates: 1,
                fence: FenceSpec(center: points[0], rule: FenceRuleSpec(kind: .threshold(radius_m: 100))),
                route: .waypoints(WaypointRouteSpec(points: points, speed: speed, depart_s: depart_s)),
                sampling: SamplingSpec(rate_hz: 1, duration_s: 400), noise: NoiseSpec(white: .gaussian(sigma_m: 0)),
                accuracy: AccuracySpec())
        }
        let delayed = try ScenarioGenerator.generate(spec: spec(120), replicate: 0).samples
        let plain = try ScenarioGenerator.generate(spec: spec(0), replicate: 0).samples
        let sphere = Haversine()
        for s in delayed.prefix(120) {
            #expect(sphere.distance_m(s.truth, points[0]) <= 1e-6, "standing at the first point at \(s.time_s) s")
            #expect(s.truthSpeed_mps == 0)
        }
        for k in 120..<delayed.count {
            #expect(sphere.distance_m(delayed[k].truth, plain[k - 120].truth) <= 1e-6, "sample \(k)")
        }
    }
}
