import Foundation
import GeoPolicy
import Testing

@testable import FenceLabSweep

/// The grid's points are computed from its axes (`SweepPointAxes`); these tests hold them to the
/// construction they replace: every product point into a set, the seeds' 80/120/30 added, sorted,
/// crossed with the notification policies and then the sampling policies.
@Suite struct SweepPointListTests {
    /// The set-and-sort construction, as `SweepGrid.init` built its points before the axes.
    static func builtBySet(
        kind: SweepRuleKind, enter: [Double], exit: [Double], maxAccuracy: [Double], confirm: [Int],
        inputs: [FenceInput.Kind], kalmanQ: [Double], sampling: [SamplingPolicy]?, confirmSeconds: [Double],
        notify: [NotificationPolicy]?
    ) -> [SweepPoint] {
        var notifications: [String] = []
        for n in notify ?? [] where !notifications.contains(n.description) { notifications.append(n.description) }
        let seconds = Array(Set(confirmSeconds.map { $0 > 0 ? $0 : 0 })).sorted()
        var policies: [String?] = []
        for p in sampling ?? [] where !policies.contains(p.description) { policies.append(p.description) }
        if policies.isEmpty { policies = [nil] }
        var set = Set<SweepPoint>()
        switch kind {
        case .hysteresis:
            for e in enter {
                for x in exit where x > e {
                    for a in maxAccuracy {
                        for c in confirm {
                            set.insert(SweepPoint(kind: kind, enter_m: e, exit_m: x, maxAccuracy_m: a, confirm_n: c))
                        }
                    }
                }
            }
        case .threshold, .conservative:
            for e in enter {
                for c in confirm {
                    set.insert(SweepPoint(kind: kind, enter_m: e, exit_m: e, maxAccuracy_m: .infinity, confirm_n: c))
                }
            }
        }
        let stages: [(FenceInput.Kind, Double)] = inputs.flatMap { kind in
            kind == .raw ? [(kind, FenceInput.defaultAccelerationDensity_m2ps3)] : kalmanQ.map { (kind, $0) }
        }
        set = Set(
            set.flatMap { p in
                stages.map {
                    SweepPoint(
                        kind: p.kind, enter_m: p.enter_m, exit_m: p.exit_m, maxAccuracy_m: p.maxAccuracy_m,
                        confirm_n: p.confirm_n, input: $0.0, q_m2s3: $0.1)
                }
            })
        if seconds != [0] {
            set = Set(
                set.flatMap { p in
                    seconds.map { t in
                        var q = p
                        q.confirm_s = t > 0 ? t : nil
                        return q
                    }
                })
        }
        set.insert(.seedReference)
        var block = set.sorted()
        if !notifications.isEmpty {
            block = notifications.flatMap { n in
                block.map { p in
                    var q = p
                    q.notify = n
                    return q
                }
            }
        }
        return policies.count == 1 && policies[0] == nil ? block : policies.flatMap { s in block.map { $0.sampled(s) } }
    }

    /// A deterministic generator (SplitMix64), so a failure names a reproducible case.
    struct Mix64 {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        /// 1…n values from `pool`, duplicates allowed, in random order.
        mutating func pick<T>(_ pool: [T], upTo n: Int) -> [T] {
            (0..<(1 + below(n))).map { _ in pool[below(pool.count)] }
        }
    }

    @Test func pointsFromTheAxesEqualTheSetAndSortConstructionOnRandomGrids() throws {
        var rng = Mix64(state: 20_240_607)
        // Radii around the seeds' 80/120 (so it is sometimes in the product, sometimes inserted),
        // gates around its 30 m, fractional values, duplicates through `pick`.
        let radii: [Double] = [0, 10, 40, 75.5, 80, 100, 119, 120, 120.25, 150, 200]
        let gates: [Double] = [10, 25, 30, 30, 50, 1e9]
        let confirms = [1, 1, 2, 3, 8]
        let qs: [Double] = [0.1, 0.5, 1, FenceInput.defaultAccelerationDensity_m2ps3, 4]
        let seconds: [Double] = [0, 0, 5, 10, 30]
        let samplings = try ["interval:1", "interval:30", "distance:50", "adaptive:30:300"].map {
            try SamplingPolicy.parse($0)
        }
        let notifies = try ["none", "cooldown:300", "dwell:120"].map { try NotificationPolicy.parse($0) }
        var checked = 0
        var inserted = 0
        for _ in 0..<400 {
            let kind = SweepRuleKind.allCases[rng.below(3)]
            let enter = rng.pick(radii, upTo: 5)
            let exit = rng.pick(radii, upTo: 5)
            let gate = rng.pick(gates, upTo: 3)
            let confirm = rng.pick(confirms, upTo: 3)
            var inputs = rng.pick(FenceInput.Kind.allCases, upTo: 3)
            if rng.below(2) == 0 { inputs = [.raw] }
            let q = rng.pick(qs, upTo: 3)
            let secs = rng.below(2) == 0 ? [0] : rng.pick(seconds, upTo: 3)
            let sampling = rng.below(2) == 0 ? nil : rng.pick(samplings, upTo: 3)
            let notify = rng.below(2) == 0 ? nil : rng.pick(notifies, upTo: 3)
            let expected = Self.builtBySet(
                kind: kind, enter: enter, exit: exit, maxAccuracy: gate, confirm: confirm, inputs: inputs,
                kalmanQ: q, sampling: sampling, confirmSeconds: secs, notify: notify)
            let made = try? SweepGrid(
                kind: kind, enter: SweepRange(values: enter), exit: SweepRange(values: exit), maxAccuracy: gate,
                confirm: confirm, inputs: inputs, kalmanQ: q, sampling: sampling, confirmSeconds: secs,
                notify: notify, limit: nil)
            guard let grid = made else {
                // Refused exactly when no exit radius is above an enter radius (hysteresis).
                #expect(kind == .hysteresis)
                #expect(!enter.contains { e in exit.contains { $0 > e } })
                continue
            }
            #expect(grid.points.axes != nil)
            #expect(grid.points.count == expected.count)
            #expect(Array(grid.points) == expected, "kind \(kind) enter \(enter) exit \(exit) gate \(gate)")
            #expect(grid.referenceIndex == expected.firstIndex(where: \.isSeedReference))
            #expect(grid.points.referenceIds == expected.indices.filter { expected[$0].isSeedReference })
            #expect(grid.samplings == SweepGrid.samplings(of: expected))
            let specs = grid.points.notifications
            let samplingSpecs = grid.samplings
            for i in expected.indices {
                #expect(
                    grid.points.samplingOrdinal(i, in: samplingSpecs)
                        == samplingSpecs.firstIndex(of: expected[i].sampling))
                #expect(grid.points.notifyOrdinal(i, in: specs) == specs.firstIndex(of: expected[i].notify))
            }
            // The same points stored as an array are equal to the computed ones, and hash alike.
            let stored = SweepPointList(expected)
            #expect(stored == grid.points)
            #expect(stored.hashValue == grid.points.hashValue)
            // Whether the points carry a notification policy, read without making a point.
            #expect(grid.points.scoresNotifications == (expected.first?.notify != nil))
            #expect(stored.scoresNotifications == (expected.first?.notify != nil))
            if grid.points.axes?.extraAt != nil { inserted += 1 }
            checked += 1
        }
        // The random grids cover both cases of the seeds' setting, and most grids are valid.
        #expect(checked > 200)
        #expect(inserted > 20 && inserted < checked)
    }

    @Test func singleValueAxesAndTheBigGridKeepTheirPlaces() throws {
        // One value per axis: the seeds' 80/120/30 itself, no extra point.
        let one = try SweepGrid(
            kind: .hysteresis, enter: SweepRange(values: [80]), exit: SweepRange(values: [120]), maxAccuracy: [30],
            confirm: [1], limit: nil)
        #expect(Array(one.points) == [.seedReference])
        #expect(one.referenceIndex == 0)
        // The large sweep's grid: 61 × 200 radius pairs (exits 101…300 above enters 40…100) × 10
        // gates × 8 confirmations = 976 000 points, 80/120/30 among them; spot-checked ids.
        let big = try SweepGrid(
            kind: .hysteresis, enter: SweepRange(parsing: "40:100:1", option: "--enter"),
            exit: SweepRange(parsing: "101:300:1", option: "--exit"),
            maxAccuracy: [20, 25, 30, 35, 40, 45, 50, 55, 60, 65], confirm: Array(1...8), limit: nil)
        #expect(big.points.count == 976_000)
        let first = big.points[0]
        #expect(first == SweepPoint(kind: .hysteresis, enter_m: 40, exit_m: 101, maxAccuracy_m: 20, confirm_n: 1))
        let last = big.points[big.points.count - 1]
        #expect(last == SweepPoint(kind: .hysteresis, enter_m: 100, exit_m: 300, maxAccuracy_m: 65, confirm_n: 8))
        // 40 enter radii before 80, each with 200 exits × 80 settings; then exits 101…119 (19).
        let reference = (40 * 200 + 19) * 80 + 2 * 8
        #expect(big.referenceIndex == reference)
        #expect(big.points[reference] == .seedReference)
        var previous = big.points[0]
        for i in Swift.stride(from: 997, to: big.points.count, by: 997) {
            let p = big.points[i]
            #expect(previous < p)
            previous = p
        }
    }
}
