import GSLKit
import Testing

@testable import FenceLab
@testable import FenceLabSweep

/// The O(n log n) frontiers against their point-against-point definitions, on seeded random point
/// sets whose values come from a few levels (many ties and exact duplicates), with ±∞, −0/+0,
/// NaN latencies (mapped to ±∞ by `effectiveLatency_s`) and NaN objectives.
@Suite struct ParetoTests {
    /// One value from a small set of levels, so that ties between points are frequent.
    static func level(_ rng: RandomSource, _ levels: [Double]) -> Double {
        levels[min(levels.count - 1, Int(rng.uniform() * Double(levels.count)))]
    }

    @Test func flutterFrontierEqualsTheDefinition() throws {
        let rng = try RandomSource(seed: 18)
        for round in 0..<300 {
            let n = 1 + Int(rng.uniform() * (round < 200 ? 40 : 400))
            let spread = round % 3 == 0 ? [0.0, 1, 2] : [0.0, -0.0, 0.5, 1, 1.5, 2, 3, 7, .infinity]
            var points: [TradeOffPoint] = []
            for id in 0..<n {
                if id > 0, rng.uniform() < 0.1 {  // an exact duplicate of an earlier point, under a new id
                    var twin = points[Int(rng.uniform() * Double(points.count))]
                    twin.id = id
                    points.append(twin)
                    continue
                }
                let latency =
                    rng.uniform() < 0.15 ? Double.nan : Self.level(rng, [-1, 0, 4.5, 10, 10.5, 30, .infinity])
                let spurious = rng.uniform() < 0.01 ? Double.nan : Self.level(rng, spread)
                points.append(
                    TradeOffPoint(
                        id: id, spurious: spurious, latency_s: latency, missed: Self.level(rng, spread),
                        band_m: 10))
            }
            var shuffler = GSLShuffle(rng)
            points.shuffle(using: &shuffler)
            let fast = TradeOff.frontier(points)
            let slow = TradeOff.frontierByDefinition(points)
            #expect(
                fast == slow,
                "round \(round), \(n) points: only fast \(fast.subtracting(slow).sorted()), only definition \(slow.subtracting(fast).sorted())"
            )
        }
    }

    @Test func mixFrontierEqualsTheDefinition() throws {
        let rng = try RandomSource(seed: 1818)
        for round in 0..<300 {
            let n = 1 + Int(rng.uniform() * (round < 200 ? 40 : 400))
            var points: [MixPoint] = []
            for id in 0..<n {
                if id > 0, rng.uniform() < 0.1 {
                    var twin = points[Int(rng.uniform() * Double(points.count))]
                    twin.point = id
                    points.append(twin)
                    continue
                }
                let recall: Double? = rng.uniform() < 0.2 ? nil : Self.level(rng, [0, 0.5, 0.9, 0.95, 1])
                points.append(
                    MixPoint(
                        point: id, unwantedPerHour: Self.level(rng, [0, -0.0, 0.25, 1, 2, 8]),
                        worstEntryP95_s: Self.level(rng, [0, 5, 12.5, 60, .infinity]), worstRecall: recall,
                        matchedVisits: 1, violations: []))
            }
            var shuffler = GSLShuffle(rng)
            points.shuffle(using: &shuffler)
            let fast = SweepMix.mixFrontier(points)
            let slow = SweepMix.mixFrontierByDefinition(points)
            #expect(
                fast == slow,
                "round \(round), \(n) points: only fast \(fast.subtracting(slow).sorted()), only definition \(slow.subtracting(fast).sorted())"
            )
        }
    }

    /// Hand-checked: a duplicate pair is kept together, a point equal in two objectives and worse in
    /// one is dropped, NaN is never dominated and dominates nothing.
    /// The distinct y values gathered a few keys at a time (chunks of 1, 3 and 7 keys, so every
    /// set crosses chunk boundaries) give the same frontier as the definition.
    @Test func chunkedDistinctValuesGiveTheSameFrontier() throws {
        let rng = try RandomSource(seed: 31)
        let levels: [Double] = [-.infinity, -1, -0.0, 0, 0.5, 2, 2.5, 9, .infinity]
        for round in 0..<200 {
            let n = 1 + Int(rng.uniform() * 120)
            var points: [TradeOffPoint] = []
            for id in 0..<n {
                let latency = rng.uniform() < 0.1 ? Double.nan : Self.level(rng, levels)
                points.append(
                    TradeOffPoint(
                        id: id, spurious: Self.level(rng, levels), latency_s: latency,
                        missed: Self.level(rng, levels), band_m: 10))
            }
            let slow = TradeOff.frontierByDefinition(points)
            for chunk in [1, 3, 7] {
                let keep = Pareto.nonDominated(count: n, chunk_keys: chunk) { i in
                    SIMD3(points[i].spurious, points[i].effectiveLatency_s, points[i].missed)
                }
                let fast = Set(points.indices.filter { keep[$0] }.map { points[$0].id })
                #expect(fast == slow, "round \(round), \(n) points, chunks of \(chunk)")
            }
        }
    }

    /// Merging ascending arrays keeps each value once, −0 and +0 as one, ±∞ at the ends.
    @Test func mergeDistinctKeepsEachValueOnce() {
        let merged = Pareto.mergeDistinct([-1, 0, 2, .infinity], [-.infinity, -1, -0.0, 0, 1, 2, 2, 3])
        #expect(merged == [-.infinity, -1, 0, 1, 2, 3, .infinity])
        #expect(Pareto.mergeDistinct([], [4, 4, 4]) == [4])
        #expect(Pareto.mergeDistinct([1, 5], []) == [1, 5])
    }

    @Test func tiesDuplicatesAndNaN() {
        let keep = Pareto.nonDominated([
            SIMD3(1, 1, 1), SIMD3(1, 1, 1),  // duplicates: both kept
            SIMD3(1, 1, 2),  // equal in x, y, worse in z: dominated
            SIMD3(0, 5, 5),  // best x: kept
            SIMD3(.nan, 0, 0),  // NaN: kept
            SIMD3(2, 2, 2),  // dominated by (1, 1, 1), not rescued by the NaN point
            SIMD3(-0.0, 5, 5),  // equal to (0, 5, 5): both kept
        ])
        #expect(keep == [true, true, false, true, true, false, true])
    }
}

/// `RandomNumberGenerator` over a seeded GSL source, for `shuffle(using:)`.
struct GSLShuffle: RandomNumberGenerator {
    let rng: RandomSource
    init(_ rng: RandomSource) { self.rng = rng }
    mutating func next() -> UInt64 {
        UInt64(rng.uniform() * 4_294_967_296) << 32 | UInt64(rng.uniform() * 4_294_967_296)
    }
}
