import GSLKit
import GeoPolicy
import Testing

/// The place index against a scan of every place: candidate supersets, nearest-K sets and order
/// (ties included), and the indexed place-set monitor against one monitor per place.
@Suite struct PlaceIndexTests {
    /// Seeded places around `anchor` within `spread_deg` (longitudes wrapped, latitudes clamped
    /// to the valid range), radii 5 m … 400 m (mixed: large places contain small ones).
    static func places(
        _ rng: RandomSource, count: Int, anchor: Coordinate, spread_deg: Double
    ) throws -> (
        [Coordinate], [Double]
    ) {
        var centers: [Coordinate] = []
        var radii: [Double] = []
        for _ in 0..<count {
            let lat = Swift.min(90, Swift.max(-90, anchor.latitude + (rng.uniform() - 0.5) * spread_deg))
            var lon = anchor.longitude + (rng.uniform() - 0.5) * spread_deg * 4
            if lon > 180 { lon -= 360 }
            if lon < -180 { lon += 360 }
            centers.append(try Coordinate(latitude: lat, longitude: lon))
            radii.append(5 + 395 * rng.uniform() * rng.uniform())
        }
        return (centers, radii)
    }

    static let anchors: [(Double, Double)] = [
        (48.1, 11.5), (0.2, 179.99), (-33.9, -179.995), (89.99, 40), (-89.995, -120),
    ]

    @Test(arguments: 0..<anchors.count)
    func candidatesContainEveryPlaceWithinReach(_ a: Int) throws {
        let rng = try RandomSource(seed: 310 + UInt64(a))
        let anchor = try Coordinate(latitude: Self.anchors[a].0, longitude: Self.anchors[a].1)
        let (centers, reach) = try Self.places(rng, count: 600, anchor: anchor, spread_deg: 0.05)
        let index = PlaceIndex(centers: centers, reach_m: reach)
        let sphere = Haversine()
        var spurious = 0
        for _ in 0..<300 {
            let (q, _) = try Self.places(rng, count: 1, anchor: anchor, spread_deg: 0.05)
            var hits = Set<Int>()
            index.forEachCandidate(near: q[0]) { hits.insert($0) }
            let within = Set(centers.indices.filter { sphere.distance_m(centers[$0], q[0]) <= reach[$0] })
            #expect(within.isSubset(of: hits))
            // The widening is a rounding margin: a candidate lies within its reach + 1 mm.
            let toleranceDistance_m = 1e-3
            spurious += hits.filter { sphere.distance_m(centers[$0], q[0]) > reach[$0] + toleranceDistance_m }.count
        }
        #expect(spurious == 0)
    }

    @Test(arguments: 0..<anchors.count)
    func nearestIsTheScansSetAndOrder(_ a: Int) throws {
        let rng = try RandomSource(seed: 320 + UInt64(a))
        let anchor = try Coordinate(latitude: Self.anchors[a].0, longitude: Self.anchors[a].1)
        var (centers, _) = try Self.places(rng, count: 500, anchor: anchor, spread_deg: 0.05)
        // Exact ties: duplicated centres, and mirror images in longitude about the query meridian.
        centers += centers.prefix(40)
        let q0 = anchor
        for i in 0..<30 {
            let dlat = Double(i % 5) * 0.001
            let dlon = Double(i / 5 + 1) * 0.0005
            let lat = Swift.min(90, Swift.max(-90, q0.latitude + dlat))
            centers.append(try Coordinate(latitude: lat, longitude: wrap(q0.longitude + dlon)))
            centers.append(try Coordinate(latitude: lat, longitude: wrap(q0.longitude - dlon)))
        }
        let index = PlaceIndex(centers: centers)
        let vectors = centers.map(\.unitVector)
        var heap: [(dot: Double, index: Int)] = []
        var queries = [q0]
        queries += try Self.places(rng, count: 200, anchor: anchor, spread_deg: 0.06).0
        for q in queries {
            for k in [1, 7, 20, 100, 700, 1000] {
                index.nearest(k, to: q.unitVector, into: &heap)
                let scan = RegionBudget.scanNearest(k, around: q.unitVector, centers: vectors)
                #expect(Set(heap.map(\.index)) == Set(scan) && heap.count == Swift.min(k, centers.count))
            }
        }
        // The budget's order: nearest first, ties to the lower index.
        var budget = RegionBudget(strategy: .nearest(count: 25, refresh_m: 100), centers: centers)
        _ = budget.update(q0)
        #expect(budget.registered == RegionBudget.scanNearest(25, around: q0.unitVector, centers: vectors))
    }

    func wrap(_ lon: Double) -> Double { lon > 180 ? lon - 360 : (lon < -180 ? lon + 360 : lon) }

    static let ruleCount = 4

    /// The base rule and confirmation of case `r` (the radii are replaced per place).
    static func rule(_ r: Int) throws -> (AnyFenceRule, GeoPolicy.Confirmation?) {
        switch r {
        case 0: return (.hysteresis(try Hysteresis(enter_m: 60, exit_m: 100, maxAccuracy_m: 40)), nil)
        case 1: return (.hysteresis(try Hysteresis(enter_m: 60, exit_m: 100, maxAccuracy_m: 40)), .fixes(3))
        case 2: return (.threshold(try Threshold(radius_m: 50)), .seconds(4))
        default: return (.conservative(try Conservative(radius_m: 80)), nil)
        }
    }

    /// A seeded drive wandering through the places with noise, invalid, inaccurate, stale,
    /// duplicate and out-of-order fixes; every place's state after every fix equals that of its
    /// own monitor (raw and Kalman input).
    @Test(arguments: 0..<ruleCount, [FenceInput.Kind.raw, .kalman])
    func placeSetMonitorDecidesAsAMonitorPerPlace(_ r: Int, _ kind: FenceInput.Kind) throws {
        let input = try FenceInput(kind)
        let rng = try RandomSource(seed: 330 + UInt64(r))
        let anchor = try Coordinate(latitude: 0.001, longitude: 179.999)
        let (centers, radii) = try Self.places(rng, count: 120, anchor: anchor, spread_deg: 0.01)
        let (base, confirmation) = try Self.rule(r)
        // Mixed radii per place, one accuracy gate.
        let evaluators = try centers.indices.map { i -> FenceEvaluator<AnyFenceRule> in
            let rule: AnyFenceRule
            switch base {
            case .hysteresis(let h):
                rule = .hysteresis(
                    try Hysteresis(enter_m: radii[i], exit_m: radii[i] * 1.5, maxAccuracy_m: h.maxAccuracy_m))
            case .threshold: rule = .threshold(try Threshold(radius_m: radii[i]))
            case .conservative: rule = .conservative(try Conservative(radius_m: radii[i]))
            }
            return try FenceEvaluator(rule: rule, confirmation: confirmation)
        }
        var set = try PlaceSetMonitor(centers: centers, evaluators: evaluators, input: input, maxAge_s: 30)
        var scan: [any FenceDeciding] = try centers.indices.map { i -> any FenceDeciding in
            let m = try FenceMonitor<AnyFenceRule, Haversine>(
                center: centers[i], evaluator: evaluators[i], maxAge_s: 30, logging: .off)
            if input == .raw { return m }
            return try FilteredFenceMonitor(monitor: m, input: input)
        }
        let frame = LocalFrame(anchor: anchor)
        var east = -600.0
        var north = -300.0
        var t = 0.0
        var visitedLess = 0
        var before = [FenceState](repeating: .unknown, count: centers.count)
        for step in 0..<2000 {
            east += 3 * (rng.uniform() - 0.3)
            north += 3 * (rng.uniform() - 0.45)
            t += 1
            let c = frame.coordinate(east_m: east + 8 * (rng.uniform() - 0.5), north_m: north)
            var fix = Fix(
                timestamp_s: t, latitude: c.latitude, longitude: c.longitude,
                horizontalAccuracy_m: 3 + 50 * rng.uniform())
            let kind = step % 97
            if kind == 1 {
                fix = Fix(timestamp_s: t - 5, latitude: c.latitude, longitude: c.longitude, horizontalAccuracy_m: 5)
            }
            if kind == 2 { fix = Fix(timestamp_s: t, latitude: .nan, longitude: c.longitude, horizontalAccuracy_m: 5) }
            if kind == 3 {
                fix = Fix(timestamp_s: t, latitude: c.latitude, longitude: c.longitude, horizontalAccuracy_m: -1)
            }
            let now = kind == 4 ? t + 100 : t
            var changed: [Int: FenceState] = [:]
            set.process(fix, now_s: now) { changed[$0] = $1 }
            for p in scan.indices {
                let new = scan[p].process(fix, now_s: now).newState
                #expect(set.state(p) == new, "place \(p) step \(step)")
                #expect(changed[p] == (new != before[p] ? new : nil))
                before[p] = new
            }
            if set.lastVisited < centers.count { visitedLess += 1 }
        }
        // The index does its work: most fixes visit fewer than all places.
        #expect(visitedLess > 1000)
    }
}
