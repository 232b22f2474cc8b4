import GSLKit
import Testing
import _TestSupport

@testable import GeoPolicy

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `FenceBatch` must give exactly the scalar path's states: per fix `Coordinate.isValid`,
/// `Haversine.distance_m`, `Hysteresis.next` (the oracle below, written from the engine's public API).
@Suite struct FenceBatchTests {
    /// The scalar path: the state after each fix.
    static func scalarStates(
        center: Coordinate, rule: Hysteresis, model: Haversine = Haversine(),
        _ lat: [Double], _ lon: [Double], _ acc: [Double],
        initial: FenceState = .unknown
    ) -> [FenceState] {
        var s = initial
        var out: [FenceState] = []
        for i in lat.indices {
            if Coordinate.isValid(latitude: lat[i], longitude: lon[i]),
                let c = try? Coordinate(latitude: lat[i], longitude: lon[i])
            {
                s = rule.next(previous: s, distance_m: model.distance_m(center, c), accuracy_m: acc[i])
            }
            out.append(s)
        }
        return out
    }

    /// Compares batch and scalar on the same fixes from every initial state; returns the first
    /// differing index (nil when identical) and checks `run` (count of changes, final state).
    static func firstDifference(
        center: Coordinate, rule: Hysteresis, model: Haversine = Haversine(),
        _ lat: [Double], _ lon: [Double], _ acc: [Double]
    ) -> Int? {
        let batch = FenceBatch(center: center, rule: rule, model: model)
        for initial in FenceState.allCases {
            let expected = scalarStates(center: center, rule: rule, model: model, lat, lon, acc, initial: initial)
            let got = batch.states(latitude: lat, longitude: lon, accuracy_m: acc, initial: initial)
            if let i = expected.indices.first(where: { expected[$0] != got[$0] }) { return i }
            var state = initial
            let changes = batch.run(latitude: lat, longitude: lon, accuracy_m: acc, state: &state)
            var expectedChanges = 0
            var previous = initial
            for s in expected {
                if s != previous {
                    expectedChanges += 1
                    previous = s
                }
            }
            if changes != expectedChanges || state != (expected.last ?? initial) { return lat.count }
        }
        return nil
    }

    static func source(_ seed: UInt64) throws -> RandomSource { try RandomSource(seed: seed) }

    /// Fixes 0…3·exit from the centre at random bearings, accuracies 0…1.5·max.
    static func randomFixes(
        around center: Coordinate, rule: Hysteresis, count: Int,
        rng: RandomSource
    ) -> ([Double], [Double], [Double]) {
        var lat: [Double] = []
        var lon: [Double] = []
        var acc: [Double] = []
        for _ in 0..<count {
            let d = rng.uniform() * 3 * rule.exit_m
            let c = center.destination(bearing_deg: rng.uniform() * 360, distance_m: d)
            lat.append(c.latitude)
            lon.append(c.longitude)
            acc.append(rng.uniform() * 1.5 * rule.maxAccuracy_m)
        }
        return (lat, lon, acc)
    }

    static let centers: [(Double, Double)] = [
        (52.52, 13.405), (0, 0), (-17.7, 179.999), (-17.7, -179.999), (89.9995, 42), (-89.9995, -120),
        (90, 0), (-90, 180), (0, 180), (0, -180), (-33.9, 151.2),
    ]

    @Test(arguments: centers)
    func seededRandomFixesGiveTheScalarStates(lat0: Double, lon0: Double) throws {
        let center = try Coordinate(latitude: lat0, longitude: lon0)
        let rng = try Self.source(0xFE7CE + UInt64(abs(lat0 * 1000)) + UInt64(abs(lon0 * 1000)))
        for rule in [
            Hysteresis.seedDefault, try Hysteresis(enter_m: 5_000, exit_m: 7_500, maxAccuracy_m: 100),
            try Hysteresis(enter_m: 0, exit_m: 3, maxAccuracy_m: 10),
        ] {
            let (lat, lon, acc) = Self.randomFixes(around: center, rule: rule, count: 4_001, rng: rng)
            #expect(Self.firstDifference(center: center, rule: rule, lat, lon, acc) == nil, "rule \(rule.rulesVersion)")
        }
    }

    /// The double latitude on the meridian north of `center` where the scalar distance crosses `radius_m`.
    static func crossingLatitude(center: Coordinate, radius_m: Double) -> Double {
        var lo = center.latitude
        var hi = min(90, center.latitude + 2 * radius_m / 111_000 + 1e-6)
        for _ in 0..<200 {
            let mid = (lo + hi) / 2
            if mid == lo || mid == hi { break }
            let d = Haversine().distance_m(center, try! Coordinate(latitude: mid, longitude: center.longitude))
            if d <= radius_m { lo = mid } else { hi = mid }
        }
        return lo
    }

    @Test(arguments: [(52.52, 13.405), (0.0, 179.9999), (-60.0, -180.0), (89.99, 0.0)])
    func fixesWithinUlpsOfBothThresholdsGiveTheScalarStates(lat0: Double, lon0: Double) throws {
        let center = try Coordinate(latitude: lat0, longitude: lon0)
        let rule = Hysteresis.seedDefault
        var lat: [Double] = []
        var lon: [Double] = []
        var acc: [Double] = []
        // Alternate between ulps around the enter and the exit crossing, so each decision matters.
        let enter = Self.crossingLatitude(center: center, radius_m: rule.enter_m)
        let exit = Self.crossingLatitude(center: center, radius_m: rule.exit_m)
        var e = enter
        var x = exit
        for _ in 0..<12 {
            e = e.nextDown
            x = x.nextDown
        }
        for _ in 0..<25 {
            for v in [e, x, e.nextUp, x.nextUp] {
                lat.append(v)
                lon.append(center.longitude)
                acc.append(rule.maxAccuracy_m)
            }
            e = e.nextUp
            x = x.nextUp
        }
        // Some of these distances must be exactly on either side of the radii.
        let d = lat.map { Haversine().distance_m(center, try! Coordinate(latitude: $0, longitude: lon0)) }
        #expect(d.contains { $0 <= rule.enter_m } && d.contains { $0 > rule.enter_m && $0 < rule.exit_m })
        #expect(d.contains { $0 >= rule.exit_m })
        #expect(Self.firstDifference(center: center, rule: rule, lat, lon, acc) == nil)
    }

    @Test func invalidValuesChangeNothingAsInTheScalarPath() throws {
        let center = try Coordinate(latitude: 52.52, longitude: 13.405)
        let rule = Hysteresis.seedDefault
        let inside = center.destination(bearing_deg: 10, distance_m: 20)
        let outside = center.destination(bearing_deg: 200, distance_m: 500)
        let badLat: [Double] = [.nan, .infinity, -.infinity, 90.000001, -90.5, 91]
        let badLon: [Double] = [.nan, .infinity, -.infinity, 180.0000001, -181]
        let badAcc: [Double] = [.nan, .infinity, -1, -0.0000001, 30.000001, 1e300]
        var lat: [Double] = []
        var lon: [Double] = []
        var acc: [Double] = []
        func add(_ a: Double, _ b: Double, _ c: Double) {
            lat.append(a)
            lon.append(b)
            acc.append(c)
        }
        for (k, good) in [inside, outside, inside, outside].enumerated() {
            add(good.latitude, good.longitude, k == 0 ? 0 : 30)  // 0 and 30 m count
            let other = k % 2 == 0 ? outside : inside
            for v in badLat { add(v, other.longitude, 5) }
            for v in badLon { add(other.latitude, v, 5) }
            for v in badAcc { add(other.latitude, other.longitude, v) }
        }
        let states = FenceBatch(center: center, rule: rule).states(latitude: lat, longitude: lon, accuracy_m: acc)
        #expect(states == Self.scalarStates(center: center, rule: rule, lat, lon, acc))
        // The bad fixes really were ignored: the state only follows the good ones.
        #expect(Set(states) == [.inside, .outside])
        #expect(Self.firstDifference(center: center, rule: rule, lat, lon, acc) == nil)
    }

    @Test func everyBatchLengthAndSplitThreadsTheState() throws {
        let center = try Coordinate(latitude: 48.1, longitude: 11.6)
        let rule = Hysteresis.seedDefault
        let rng = try Self.source(77)
        let (lat, lon, acc) = Self.randomFixes(around: center, rule: rule, count: 37, rng: rng)
        let batch = FenceBatch(center: center, rule: rule)
        let expected = Self.scalarStates(center: center, rule: rule, lat, lon, acc)
        for n in 0...lat.count {
            // First n fixes in one call, the rest in chunks of 3.
            var state = FenceState.unknown
            _ = batch.run(
                latitude: Array(lat[0..<n]), longitude: Array(lon[0..<n]), accuracy_m: Array(acc[0..<n]), state: &state)
            #expect(state == (n == 0 ? .unknown : expected[n - 1]))
            var start = n
            while start < lat.count {
                let end = min(start + 3, lat.count)
                _ = batch.run(
                    latitude: Array(lat[start..<end]), longitude: Array(lon[start..<end]),
                    accuracy_m: Array(acc[start..<end]), state: &state)
                #expect(state == expected[end - 1])
                start = end
            }
        }
    }

    @Test func dateLineAndPoleCrossingsAreNotLongitudeJumps() throws {
        // Fixes 50 m away across ±180° and across a pole (longitude jumps by 180°): inside, not 20 000 km.
        let rule = Hysteresis.seedDefault
        let dateLine = try Coordinate(latitude: 10, longitude: 179.9997)
        let pole = try Coordinate(latitude: 89.9997, longitude: 0)
        let lat = [10, 10, 89.9998, 89.9998]
        let lon = [-179.9999, 179.998, 180, 0]
        let acc = [5.0, 5, 5, 5]
        let a = FenceBatch(center: dateLine, rule: rule).states(
            latitude: Array(lat[0..<2]), longitude: Array(lon[0..<2]),
            accuracy_m: Array(acc[0..<2]))
        #expect(a == [.inside, .outside])
        let b = FenceBatch(center: pole, rule: rule).states(
            latitude: Array(lat[2...]), longitude: Array(lon[2...]),
            accuracy_m: Array(acc[2...]))
        #expect(b == [.inside, .inside])
        #expect(Self.firstDifference(center: dateLine, rule: rule, lat, lon, acc) == nil)
        #expect(Self.firstDifference(center: pole, rule: rule, lat, lon, acc) == nil)
    }

    @Test func continentalRadiiAndOtherSpheresGiveTheScalarStates() throws {
        // Exit radius beyond 3R: the batch falls back to the scalar path for every fix.
        let rng = try Self.source(4242)
        for (rule, model) in [
            (try Hysteresis(enter_m: 15_000_000, exit_m: 19_500_000, maxAccuracy_m: 50), Haversine()),
            (try Hysteresis(enter_m: 1_000_000, exit_m: 9_000_000, maxAccuracy_m: 50), Haversine()),
            (try Hysteresis(enter_m: 80, exit_m: 120, maxAccuracy_m: 30), Haversine(radius_m: 6_378_137)),
        ] {
            var lat: [Double] = []
            var lon: [Double] = []
            var acc: [Double] = []
            for _ in 0..<3_000 {
                lat.append(rng.uniform() * 180 - 90)
                lon.append(rng.uniform() * 360 - 180)
                acc.append(rng.uniform() * 60)
            }
            let center = try Coordinate(latitude: 12.5, longitude: -170)
            #expect(Self.firstDifference(center: center, rule: rule, model: model, lat, lon, acc) == nil)
        }
    }

    @Test func polynomialTrigAgreesWithLibm() {
        let relativeTolerance = 1e-14
        let absoluteTolerance = 1e-300
        var worstSin2 = 0.0
        var worstCos = 0.0
        for k in -20_000...20_000 {
            let x = Double(k) / 20_000 * Double.pi
            for v in [x, x.nextUp, x.nextDown] where abs(v) <= Double.pi {
                let s2 = SIMDTrig.sinSquared(SIMD4(repeating: v))[0]
                let c = SIMDTrig.cosAbs(SIMD4(repeating: v))[0]
                let s2Ref = sin(v) * sin(v)
                let cRef = abs(cos(v))
                worstSin2 = max(worstSin2, abs(s2 - s2Ref) / max(s2Ref, absoluteTolerance))
                worstCos = max(worstCos, abs(c - cRef) / max(cRef, absoluteTolerance))
            }
        }
        #expect(worstSin2 <= relativeTolerance)
        #expect(worstCos <= relativeTolerance)
    }
}
