import GeoPolicy
import Testing

/// The twin monitor's shortcut: a decision from an interval that holds the distance is the
/// decision from the distance, and the WGS84 distance lies in the interval its sphere distance gives.
@Suite struct DistanceIntervalTests {
    /// A deterministic generator for the test's points (no GSL here: GeoPolicy's own tests).
    struct SplitMix {
        var state: UInt64
        mutating func next() -> Double {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Double((z ^ (z >> 31)) >> 11) / 9_007_199_254_740_992
        }
    }

    @Test func ratioBoundsAreOutsideTheRadiiOfCurvature() {
        let a = WGS84Ellipsoid.semiMajorAxis_m
        let f = WGS84Ellipsoid.flattening
        let e2 = f * (2 - f)
        let r = EarthModel.sphereRadius_m
        #expect(WGS84.sphereRatioBounds.lower < a * (1 - e2) / r - 1e-4)
        #expect(WGS84.sphereRatioBounds.upper > a / (1 - e2).squareRoot() / r + 1e-4)
    }

    /// Random global pairs, pairs near the antipode, short pairs, poles and the date line.
    @Test func wgs84DistanceLiesInItsSphereInterval() throws {
        var rng = SplitMix(state: 7)
        var pairs: [(Coordinate, Coordinate)] = []
        for k in 0..<6_000 {
            let a = try Coordinate(latitude: 180 * rng.next() - 90, longitude: 360 * rng.next() - 180)
            let b: Coordinate
            switch k % 3 {
            case 0: b = try Coordinate(latitude: 180 * rng.next() - 90, longitude: 360 * rng.next() - 180)
            case 1:
                // Within about 1° of the antipode.
                let lon = a.longitude > 0 ? a.longitude - 180 : a.longitude + 180
                b = try Coordinate(
                    latitude: max(-90, min(90, -a.latitude + 2 * rng.next() - 1)),
                    longitude: max(-180, min(180, lon + 2 * rng.next() - 1)))
            default: b = a.destination(bearing_deg: 360 * rng.next(), distance_m: 3_000 * rng.next())
            }
            pairs.append((a, b))
        }
        let special = try [(90.0, 0.0), (-90, 0), (0, 180), (0, -180), (0, 0), (45, 179.9999), (-45, -0.0001)]
            .map { try Coordinate(latitude: $0.0, longitude: $0.1) }
        for a in special { for b in special { pairs.append((a, b)) } }
        for (a, b) in pairs {
            let bounds = WGS84.distanceBounds(sphereDistance_m: Haversine().distance_m(a, b))
            let d = WGS84().distance_m(a, b)
            #expect(bounds.lower_m <= d && d <= bounds.upper_m, "\(a) \(b): \(d) m not in \(bounds)")
        }
    }

    /// A rule that does not say how it uses the distance: inside in a band only.
    struct Band: FenceRule, Hashable {
        var rulesVersion: String { "band" }
        var maxAccuracy_m: Double { .infinity }
        func next(previous: FenceState, distance_m: Double, accuracy_m: Double) -> FenceState {
            guard counts(distance_m: distance_m, accuracy_m: accuracy_m) else { return previous }
            return distance_m > 90 && distance_m < 110 ? .inside : .outside
        }
    }

    static let center = try! Coordinate(latitude: 52.52, longitude: 13.405)

    /// Fixes at distances within 2 % of `radii_m` (the rule's thresholds), with invalid, stale,
    /// duplicate, out-of-order and inaccurate ones among them.
    static func stream(around radii_m: [Double], seed: UInt64) -> (fixes: [Fix], now_s: [Double]) {
        var rng = SplitMix(state: seed)
        var fixes: [Fix] = []
        var now: [Double] = []
        var t = 0.0
        for k in 0..<3_000 {
            t += 1
            let r = radii_m[k % radii_m.count] * (0.98 + 0.04 * rng.next())
            let c = center.destination(bearing_deg: 360 * rng.next(), distance_m: r)
            var fix = Fix(
                timestamp_s: t, latitude: c.latitude, longitude: c.longitude, horizontalAccuracy_m: 40 * rng.next())
            switch k % 97 {
            case 11: fix.latitude = .nan
            case 23: fix.timestamp_s = t - 100  // stale
            case 37: fix = fixes.last ?? fix  // duplicate
            case 51: fix.timestamp_s = t - 3  // out of order
            case 71: fix.horizontalAccuracy_m = .infinity
            default: break
            }
            fixes.append(fix)
            now.append(t)
        }
        return (fixes, now)
    }

    func checkTwin<Rule: FenceRule & Equatable>(_ evaluator: FenceEvaluator<Rule>, around radii_m: [Double]) throws {
        for seed: UInt64 in [1, 2, 3] {
            let (fixes, now) = Self.stream(around: radii_m, seed: seed)
            var full = try FenceMonitor(
                center: Self.center, evaluator: evaluator, distanceModel: WGS84(), maxAge_s: 30, logging: .off)
            var short = full
            for i in fixes.indices {
                let expected = full.process(fixes[i], now_s: now[i]).newState
                let position = try? fixes[i].coordinate()
                let sphere = position.map { Haversine().distance_m(Self.center, $0) } ?? .nan
                let state = short.processState(fixes[i], now_s: now[i]) { _ in
                    WGS84.distanceBounds(sphereDistance_m: sphere)
                }
                #expect(state == expected, "fix \(i)")
                #expect(short == full, "fix \(i)")
            }
            #expect(short.samplesSeen == fixes.count)
        }
    }

    @Test func twinDecidesAsWithTheDistance() throws {
        try checkTwin(try RuleSpec.default.evaluator(), around: [80, 120, 300])
        try checkTwin(
            try RuleSpec.hysteresis(enter_m: 80, exit_m: 120, maxAccuracy_m: 30, confirmation: .fixes(2)).evaluator(),
            around: [80, 120])
        try checkTwin(
            try RuleSpec.hysteresis(enter_m: 80, exit_m: 120, maxAccuracy_m: 30, confirmation: .seconds(3))
                .evaluator(), around: [80, 120])
        try checkTwin(try RuleSpec.threshold(radius_m: 500, confirmation: nil).evaluator(), around: [500, 5_000])
        try checkTwin(try RuleSpec.conservative(radius_m: 100, confirmation: nil).evaluator(), around: [60, 100, 140])
        try checkTwin(try RuleSpec.threshold(radius_m: 20_014_987, confirmation: nil).evaluator(), around: [20_014_987])
        try checkTwin(try FenceEvaluator(rule: Band()), around: [90, 110])
    }

    @Test func builtInRulesDecideByIntervalsAndOthersDoNot() throws {
        #expect(try Hysteresis(enter_m: 80, exit_m: 120, maxAccuracy_m: 30).decidesByDistanceIntervals)
        #expect(try Threshold(radius_m: 10).decidesByDistanceIntervals)
        #expect(try Conservative(radius_m: 10).decidesByDistanceIntervals)
        #expect(try RuleSpec.default.evaluator().rule.decidesByDistanceIntervals)
        #expect(!Band().decidesByDistanceIntervals)
        // A band rule differs inside the interval though not at its ends: no shortcut.
        var e = try FenceEvaluator(rule: Band())
        #expect(e.update(distanceBetween: 80, and: 120, accuracy_m: 5, timestamp_s: 0) == nil)
        #expect(e.state == .unknown)
        var h = try RuleSpec.default.evaluator()
        #expect(h.update(distanceBetween: 70, and: 79, accuracy_m: 5, timestamp_s: 0) == .inside)
        #expect(h.update(distanceBetween: 119, and: 121, accuracy_m: 5, timestamp_s: 1) == nil)
        #expect(h.update(distanceBetween: 90, and: 110, accuracy_m: 5, timestamp_s: 2) == .inside)
        #expect(h.update(distanceBetween: 130, and: .infinity, accuracy_m: 5, timestamp_s: 3) == nil)
    }
}
