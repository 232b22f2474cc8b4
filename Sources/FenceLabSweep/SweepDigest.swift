import FenceLab
import ReportKit
import _FenceLabSupport

/// What `sweep.json` and `index.html` show of a grid of more than `fullFormLimit_points` grid
/// points (the bounded form; docs/report-format.md): the recommendation, the seeds' 80/120/30,
/// the closest settings, the best per sampling policy, the first `listedFrontier` settings of
/// each frontier, the `listedTop` best settings by the objective and the best setting at each
/// value of each axis. Every grid point stays in `sweep.csv`. Up to the limit both files list
/// every point (the full form), byte for byte as without a digest.
package struct SweepDigest: Sendable, Hashable {
    /// Grids of at most this many points are written in the full form. Above it sweep.json and
    /// index.html list at most `maxListedPoints(scenarios:)` points, whatever the grid.
    package static let fullFormLimit_points = 3_000
    /// Settings listed of the mix frontier, of the three-way frontier and of each scenario's
    /// flutter frontier (in the order the outputs list them).
    package static let listedFrontier = 200
    /// Settings listed by the objective's ranking (`ranksBefore`).
    package static let listedTop = 50
    /// Values listed per axis (the first in grid order).
    package static let listedAxisValues = 256
    /// Marks a plot draws besides the listed settings: every k-th setting by id, k = ⌈P / this⌉.
    package static let thinnedMarks = 2_000

    /// The axes summarised, in this order.
    static let axes = AxisKey.allCases

    /// An axis summarised (its raw value: the axis's name in sweep.json and index.html) and each
    /// point's value on it (a switch, not a closure per axis: the ranking reads every axis of
    /// every point, and a closure call retained and released its context each time).
    enum AxisKey: String, CaseIterable, Sendable {
        case enter = "enter_m"
        case exit = "exit_m"
        case maxAccuracy = "maxAccuracy_m"
        case confirmN = "confirm_n"
        case confirmS = "confirm_s"
        case input
        case q = "q_m2s3"
        case sampling, notify

        func value(_ p: SweepPoint) -> AxisValue {
            switch self {
            case .enter: return .number(p.enter_m)
            case .exit: return .number(p.exit_m)
            case .maxAccuracy: return .number(p.maxAccuracy_m)
            case .confirmN: return .number(Double(p.confirm_n))
            case .confirmS: return .number(p.confirm_s ?? 0)
            case .input: return .text(p.input.rawValue)
            case .q: return .number(p.q_m2s3)
            case .sampling: return .text(p.sampling)
            case .notify: return .text(p.notify)
            }
        }
    }

    /// The most points a bounded sweep.json lists: the recommendation, the references (one per
    /// sampling policy), the closest, the best per sampling policy, three frontiers' worth
    /// (mix, three-way, one per scenario), the top settings and every axis value's best.
    package static func maxListedPoints(scenarios: Int, samplingPolicies: Int) -> Int {
        1 + 2 * samplingPolicies + SweepMix.listedClosest + (2 + scenarios) * listedFrontier + listedTop
            + axes.count * listedAxisValues
    }

    /// One value of an axis.
    enum AxisValue: Hashable, Sendable {
        case number(Double)
        case text(String?)

        var json: JSONValue {
            switch self {
            case .number(let v): return v.isFinite ? .number(v) : .null
            case .text(let t): return t.map(JSONValue.string) ?? .null
            }
        }
    }

    /// An axis with more than one value: per value (in grid order, at most `listedAxisValues`)
    /// the best setting by `ranksBefore`.
    package struct Axis: Sendable, Hashable {
        package var name: String
        var values: [(value: AxisValue, point: Int)]
        /// Values of the axis beyond the listed ones.
        package var valuesLeftOut: Int

        package static func == (a: Axis, b: Axis) -> Bool {
            a.name == b.name && a.valuesLeftOut == b.valuesLeftOut && a.values.map(\.point) == b.values.map(\.point)
                && a.values.map(\.value) == b.values.map(\.value)
        }
        package func hash(into h: inout Hasher) {
            h.combine(name)
            h.combine(valuesLeftOut)
            for v in values { h.combine(v.point) }
        }
    }

    /// The grid's point count, and the limit above which the digest applies.
    package var points: Int, limit_points: Int
    /// Every listed point, ascending: the points of sweep.json's `points` and `results`.
    package var listed: [Int]
    /// The best `listedTop` settings, best first.
    package var top: [Int]
    package var axes: [Axis]
    /// The first `listedFrontier` of the mix and three-way frontiers, in their output order.
    package var mixFrontier: [Int], costFrontier: [Int]
    /// Per scenario, the first `listedFrontier` of its flutter frontier, by latency.
    package var flutterFrontier: [[Int]]
    /// What the plots draw, ascending: the listed points and every `markStride`-th point by id.
    package var marks: [Int]
    package var markStride: Int

    /// Points of the grid not listed.
    package var pointsLeftOut: Int { points - listed.count }

    /// The part of the digest that ranks every point (`top` and the axes' bests): it needs the
    /// mix's figures and bound, not its frontiers.
    struct Ranked: Sendable {
        var top: [Int]
        var axes: [Axis]
    }

    /// The ranking's top settings and the best setting per axis value, found in runs of points
    /// (`SweepCells.chunks`) on `jobs` threads, each point made once and ranked against the run's
    /// best (its tier and shortfall computed once, `Ranking.Key`), then merged in point order: the
    /// ranking is a strict total order, so the run's bests are the candidates of the whole grid's
    /// and the merge gives the bests of one pass, whatever `jobs`.
    static func ranked(_ mix: SweepMix, points: SweepPointList, jobs: Int = 1) -> Ranked {
        let count = points.count
        let rank = Ranking(mix: mix)
        let runs = SweepCells.chunks(count: count, jobs: jobs)
        var top: [Int] = []
        var merged = [AxisBest](repeating: AxisBest(), count: Self.axes.count)
        // Ranking a point cannot fail.
        try? WorkPool.forEachInOrder(
            count: runs.count, jobs: jobs, window: 2 * max(1, jobs),
            { k in RunBest(runs[k], points: points, rank: rank) },
            consume: { _, run in
                for i in run.top { Self.insert(i, into: &top, rank: rank, keyOf: rank.key) }
                for a in merged.indices { merged[a].merge(run.axes[a], rank: rank) }
            })
        var axes: [Axis] = []
        for (a, axis) in Self.axes.enumerated() {
            let order = merged[a].order
            guard order.count > 1 else { continue }
            let shown = order.prefix(listedAxisValues)
            axes.append(
                Axis(
                    name: axis.rawValue, values: shown.indices.map { (order[$0], merged[a].best[$0]) },
                    valuesLeftOut: order.count - shown.count))
        }
        return Ranked(top: top, axes: axes)
    }

    /// The digest of `s` from its ranking (`ranked`), the frontiers and the listed points.
    static func make(_ s: SweepSummary, ranked: Ranked, limit: Int) -> SweepDigest {
        let m = s.manifest
        let mix = s.mix
        let count = m.points.count
        let top = ranked.top
        let axes = ranked.axes
        let mixFrontier = Array(SweepOutput.mixFrontierOrder(mix).prefix(listedFrontier))
        let costFrontier = Array(SweepOutput.costFrontierOrder(mix).prefix(listedFrontier))
        let flutter = s.scenarios.map { Array($0.frontierByLatency.prefix(listedFrontier)) }
        var set = Set<Int>(top)
        if let r = mix.recommended { set.insert(r) }
        set.formUnion(m.referencePoints)
        set.formUnion(mix.closest)
        set.formUnion(mix.bestPerSampling.compactMap(\.point))
        set.formUnion(mixFrontier)
        set.formUnion(costFrontier)
        for f in flutter { set.formUnion(f) }
        for a in axes { set.formUnion(a.values.map(\.point)) }
        let listed = set.sorted()
        let stride = (count + thinnedMarks - 1) / thinnedMarks
        for i in Swift.stride(from: 0, to: count, by: stride) { set.insert(i) }
        return SweepDigest(
            points: count, limit_points: limit, listed: listed, top: top, axes: axes, mixFrontier: mixFrontier,
            costFrontier: costFrontier,
            flutterFrontier: flutter, marks: set.sorted(), markStride: stride)
    }

    /// Inserts `i` into `top`, the `listedTop` smallest by the ranking kept sorted (a strict
    /// total order); `keyOf` gives a point's `Ranking.Key` (computed, or looked up when the
    /// caller holds them: most points are compared with the last of a full `top` only).
    static func insert(_ i: Int, into top: inout [Int], rank: Ranking, keyOf: (Int) -> Ranking.Key) {
        let ki = keyOf(i)
        if top.count == listedTop, !rank.before(i, ki, top[top.count - 1], keyOf(top[top.count - 1])) { return }
        var k = top.count
        while k > 0, rank.before(i, ki, top[k - 1], keyOf(top[k - 1])) { k -= 1 }
        top.insert(i, at: k)
        if top.count > listedTop { top.removeLast() }
    }

    /// One axis's values in the order they first appear and the best point at each.
    struct AxisBest: Sendable {
        var order: [AxisValue] = []
        var best: [Int] = []
        var slot: [AxisValue: Int] = [:]

        /// Takes a later run's bests (values in their order of first appearance in it).
        mutating func merge(_ run: AxisBest, rank: Ranking) {
            for (k, v) in run.order.enumerated() {
                let id = run.best[k]
                if let j = slot[v] {
                    if rank.before(id, best[j]) { best[j] = id }
                } else {
                    slot[v] = order.count
                    order.append(v)
                    best.append(id)
                }
            }
        }
    }

    /// What one run of points contributes: its `listedTop` best and, per axis, its best point
    /// at each value.
    struct RunBest: Sendable {
        var top: [Int] = []
        var axes: [AxisBest]

        /// Values of an axis up to which a value's slot is found by comparing them in order.
        static let searchedValues = 8

        init(_ range: Range<Int>, points: SweepPointList, rank: Ranking) {
            axes = [AxisBest](repeating: AxisBest(), count: SweepDigest.axes.count)
            var keys: [Ranking.Key] = []
            keys.reserveCapacity(range.count)
            // The last value seen on each axis and its slot: most axes keep one value over many
            // consecutive points, so most points need no look-up; an axis of a few values (the
            // innermost changes at every point) is searched in order rather than hashed.
            var last = [(value: AxisValue, slot: Int)?](repeating: nil, count: axes.count)
            for i in range {
                let key = rank.key(i)
                keys.append(key)
                SweepDigest.insert(i, into: &top, rank: rank) { keys[$0 - range.lowerBound] }
                let p = points[i]
                for a in axes.indices {
                    let v = SweepDigest.axes[a].value(p)
                    let slot: Int
                    if let l = last[a], l.value == v {
                        slot = l.slot
                    } else if let j = axes[a].order.count <= Self.searchedValues
                        ? axes[a].order.firstIndex(of: v) : axes[a].slot[v]
                    {
                        slot = j
                        last[a] = (v, j)
                    } else {
                        axes[a].slot[v] = axes[a].order.count
                        last[a] = (v, axes[a].order.count)
                        axes[a].order.append(v)
                        axes[a].best.append(i)
                        continue
                    }
                    let b = axes[a].best[slot]
                    if rank.before(i, key, b, keys[b - range.lowerBound]) { axes[a].best[slot] = i }
                }
            }
        }
    }

    /// The order of `top` and of the best per axis value: the settings that meet every constraint
    /// within the bound on unwanted visits (the recommendation's candidates) by the objective
    /// (`SweepMix.better`), then the other settings that meet every constraint by unwanted visits
    /// per hour and the objective, then the rest by closeness to the constraints (`SweepMix.closer`).
    struct Ranking: Sendable {
        let mix: SweepMix

        func tier(_ i: Int) -> Int {
            guard mix.points.feasible(i) else { return 2 }
            return mix.unwantedBound.map { mix.points.unwantedPerHour[i] <= $0 } ?? false ? 0 : 1
        }

        /// What `before` asks of a point besides its columns: its tier and, in the last tier,
        /// its violation count and shortfall (`SweepMix.closer`), computed once per point.
        struct Key: Sendable {
            var tier: Int
            var violations = 0
            var shortfall = 0.0
        }

        func key(_ i: Int) -> Key {
            let t = tier(i)
            guard t == 2 else { return Key(tier: t) }
            return Key(tier: t, violations: mix.points.violationCount(i), shortfall: mix.points.shortfall(i))
        }

        func before(_ a: Int, _ b: Int) -> Bool { before(a, key(a), b, key(b)) }

        /// `before(a, b)` with the points' keys.
        func before(_ a: Int, _ ka: Key, _ b: Int, _ kb: Key) -> Bool {
            if ka.tier != kb.tier { return ka.tier < kb.tier }
            let p = mix.points
            switch ka.tier {
            case 0: return better(a, b)
            case 1:
                if p.unwantedPerHour[a] != p.unwantedPerHour[b] { return p.unwantedPerHour[a] < p.unwantedPerHour[b] }
                return better(a, b)
            default:
                // `closer(a, b)`.
                if ka.violations != kb.violations { return ka.violations < kb.violations }
                if ka.shortfall != kb.shortfall { return ka.shortfall < kb.shortfall }
                return better(a, b)
            }
        }

        /// `SweepMix.closer` on the columns.
        func closer(_ a: Int, _ b: Int) -> Bool {
            let p = mix.points
            let ca = p.violationCount(a)
            let cb = p.violationCount(b)
            if ca != cb { return ca < cb }
            let sa = p.shortfall(a)
            let sb = p.shortfall(b)
            if sa != sb { return sa < sb }
            return better(a, b)
        }

        /// `SweepMix.better` on the columns (no violations list is built).
        func better(_ a: Int, _ b: Int) -> Bool {
            let p = mix.points
            if p.cost[a] != p.cost[b] { return p.cost[a] < p.cost[b] }
            if p.unwantedPerHour[a] != p.unwantedPerHour[b] { return p.unwantedPerHour[a] < p.unwantedPerHour[b] }
            if p.worstEntryP95_s[a] != p.worstEntryP95_s[b] { return p.worstEntryP95_s[a] < p.worstEntryP95_s[b] }
            let ra = p.worstRecall(a) ?? 1
            let rb = p.worstRecall(b) ?? 1
            if ra != rb { return ra > rb }
            return a < b
        }
    }
}
