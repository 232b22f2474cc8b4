import Foundation
import GSLKit
import GeoPolicy
import Testing
import _TestSupport

@testable import DriveSim

@Suite struct GeometryTests {
    static let stepSlack_m = 1.0

    /// Consecutive truth points are at most speed/rate + 1 m apart (no 40 000 km steps).
    @Test(arguments: ["dateline-fiji", "polar-crossing", "antipodal-fences", "highway-seed004"])
    func truthIsContinuous(_ name: String) throws {
        let spec = try TestScenarios.catalog(name)
        var g = try ScenarioGenerator(spec: spec, replicate: 0)
        var previous: GeneratedSample?
        var maxStep_m = 0.0
        while let s = g.next() {
            if let p = previous {
                let step_m = Haversine().distance_m(p.truth, s.truth)
                let bound_m = max(p.truthSpeed_mps, s.truthSpeed_mps) * g.interval_s + Self.stepSlack_m
                #expect(step_m <= bound_m, "\(name) slot \(s.sampleIndex): step \(step_m) m > \(bound_m) m")
                maxStep_m = max(maxStep_m, step_m)
            }
            previous = s
        }
        #expect(maxStep_m > 0)
    }

    /// Truth placed from anchors (no libm per sample) stays exact: on the polar leg's great circle
    /// to 10 µm, and at constant speed each step is speed/rate to 10 µm (except at waypoint corners).
    @Test func anchoredTruthIsExact() throws {
        let tolerance_m = 1e-5
        let polar = try TestScenarios.catalog("polar-crossing")
        guard case .waypoints(let w) = polar.route else {
            Issue.record("not waypoints")
            return
        }
        let axis = SphereStep.unitCross(w.points[0].unitVector, w.points[1].unitVector)
        for s in try ScenarioGenerator.generate(spec: polar, replicate: 0).samples {
            #expect(abs((s.truth.unitVector * axis).sum()) * EarthModel.sphereRadius_m <= tolerance_m)
        }
        let fiji = try TestScenarios.catalog("dateline-fiji")
        guard case .waypoints(let fw) = fiji.route, case .constant(let v, _, _) = fw.speed else {
            Issue.record("not constant")
            return
        }
        let samples = try ScenarioGenerator.generate(spec: fiji, replicate: 0).samples
        var corners = 0
        for (a, b) in zip(samples, samples.dropFirst()) where b.truthSpeed_mps > 0 {
            let step_m = Haversine().distance_m(a.truth, b.truth)
            if abs(step_m - v) > tolerance_m {
                corners += 1
                #expect(step_m < v)
            }
        }
        #expect(corners <= fw.points.count - 2)
    }

    @Test func datelineRouteCrossesTheMeridian() throws {
        let spec = try TestScenarios.catalog("dateline-fiji")
        let samples = try ScenarioGenerator.generate(spec: spec, replicate: 0).samples
        #expect(samples.contains { $0.truth.longitude < -179.9 } && samples.contains { $0.truth.longitude > 179.9 })
        // Fixes stay valid coordinates on both sides (noise wraps longitude instead of leaving −180…180).
        #expect(samples.allSatisfy { Coordinate.isValid(latitude: $0.fix!.latitude, longitude: $0.fix!.longitude) })
    }

    @Test func polarRouteReachesThePole() throws {
        let spec = try TestScenarios.catalog("polar-crossing")
        let samples = try ScenarioGenerator.generate(spec: spec, replicate: 0).samples
        let closest_m = samples.map { Haversine().distance_m($0.truth, spec.fence.center) }.min()!
        #expect(closest_m <= 17, "closest approach to the pole \(closest_m) m")
        // The route ends at rest on the last waypoint (accelerate–cruise–brake).
        let last = samples.last!
        #expect(last.truthSpeed_mps == 0)
        if case .waypoints(let w) = spec.route {
            #expect(Haversine().distance_m(last.truth, w.points.last!) <= 1e-3)
        }
    }

    /// The fast tangent-plane displacement equals `LocalFrame(anchor:)` at the truth, including
    /// at a pole and across ±180°.
    @Test(arguments: [
        (0.0, 179.9999), (-16.8, -180.0), (-16.8, 179.99999), (79.0, -179.9999), (89.99999, 45.0),
        (90.0, 0.0), (-90.0, 0.0), (52.52, 13.405),
    ])
    func displacementMatchesLocalFrame(lat: Double, lon: Double) throws {
        let tolerance_m = 1e-6
        let anchor = try Coordinate(latitude: lat, longitude: lon)
        let u = Coordinate(unitVector: anchor.unitVector)
        let frame = LocalFrame(anchor: u)
        let basis = TangentBasis(at: u.unitVector)
        for offset in [SIMD2(3.0, -4.0), SIMD2(-250.0, 120.0), SIMD2(0.0, 5000.0)] {
            let fast = Coordinate(unitVector: SphereStep.displace(u.unitVector, by: offset, basis: basis))
            let reference = frame.coordinate(offset)
            #expect(Haversine().distance_m(fast, reference) <= tolerance_m, "at \(anchor), offset \(offset)")
            let d = (offset * offset).sum().squareRoot()
            #expect(isClose(Haversine().distance_m(u, fast), d, absoluteTolerance: tolerance_m))
        }
        // The per-fix path (series within 200 m and |lat| ≲ 80°, exact elsewhere) agrees to 10 µm.
        let seriesTolerance_m = 1e-5
        for offset in [SIMD2(3.0, -4.0), SIMD2(-150.0, 120.0), SIMD2(199.0, 0.0), SIMD2(0.0, 5000.0)] {
            let p = SphereStep.offsetDegrees(
                latitude: u.latitude, longitude: u.longitude, unit: u.unitVector,
                basis: basis, offset_m: offset)
            let got = try Coordinate(latitude: p.latitude, longitude: p.longitude)
            #expect(
                Haversine().distance_m(got, frame.coordinate(offset)) <= seriesTolerance_m,
                "at \(anchor), offset \(offset)")
        }
    }

    /// The hot path's literal constants are GeoPolicy's, bit for bit.
    @Test func literalConstantsMatchEarthModel() {
        #expect(SphereStep.radius_m == EarthModel.sphereRadius_m)
        #expect(SphereStep.degreesPerRadian == EarthModel.degreesPerRadian)
        #expect(SphereStep.inverseRadius_m == 1 / EarthModel.sphereRadius_m)
    }

    /// Closed-form speed profile: ends at the route length at rest; triangular when too short.
    @Test func accelerateCruiseBrakeProfile() {
        let tolerance_m = 1e-9
        let (end_m, endSpeed) = RouteSampler.accelerateCruiseBrake(
            t: 1e6, length_m: 1000, cruise_mps: 20, accel_mps2: 2, brake_mps2: 4)
        #expect(isClose(end_m, 1000, absoluteTolerance: tolerance_m) && endSpeed == 0)
        let (s1, v1) = RouteSampler.accelerateCruiseBrake(
            t: 5, length_m: 1000, cruise_mps: 20, accel_mps2: 2, brake_mps2: 4)
        #expect(isClose(s1, 25, absoluteTolerance: tolerance_m) && isClose(v1, 10, absoluteTolerance: tolerance_m))
        // 100 m cannot reach 20 m/s with a = 2, b = 4: peak √(2·L·a·b/(a+b)) = √(1600/6) m/s.
        var peak = 0.0
        for i in 0..<2000 {
            peak = max(
                peak,
                RouteSampler.accelerateCruiseBrake(
                    t: Double(i) * 0.01, length_m: 100, cruise_mps: 20, accel_mps2: 2, brake_mps2: 4
                ).1)
        }
        #expect(isClose(peak, (1600.0 / 6).squareRoot(), absoluteTolerance: 0.03))
    }

    /// Loitering stays within distance ± maxDeviation of the fence centre.
    @Test func loiterStaysInItsBand() throws {
        let spec = try TestScenarios.catalog("edge-loiter-100m")
        guard case .loiter(let l) = spec.route else {
            Issue.record("not a loiter route")
            return
        }
        let tolerance_m = 1e-6
        var g = try ScenarioGenerator(spec: spec, replicate: 2)
        var distances: [Double] = []
        while let s = g.next() { distances.append(Haversine().distance_m(spec.fence.center, s.truth)) }
        #expect(distances.min()! >= l.distance_m - l.maxDeviation_m - tolerance_m)
        #expect(distances.max()! <= l.distance_m + l.maxDeviation_m + tolerance_m)
        #expect(distances.max()! - distances.min()! > l.radialSigma_m)
    }
}
