import FenceLab
import ReportKit

/// What `sweep.json` and `index.html` show of a grid of more than `fullFormLimit_points` grid
/// points (the bounded form; docs/report-format.md): the recommendation, the seeds' 80/120/30,
/// the closest settings, the best per sampling policy, the first `listedFrontier` settings of
/// each frontier, the `listedTop` best settings by the objective and the best setting at each
/// value of each axis. Every grid point stays in `sweep.csv`. Up to the limit both files list
/// every point (the full form), byte for byte as without a digest.
package struct SweepDigest: Sendable, Hashable {
    /// Grids of at most this many points are written in the full form. Above it sweep.json and
    /// index.html list at most `maxListedPoints(scenarios:)` points, whatever the grid.
    package static let fullFormLimit_points = 20_000
    /// Settings listed of the mix frontier, of the three-way frontier and of each scenario's
    /// flutter frontier (in the order the outputs list them).
    package static let listedFrontier = 200
    /// Settings listed by the objective's ranking (`ranksBefore`).
    package static let listedTop = 50
    /// Values listed per axis (the first in grid order).
    package static let listedAxisValues = 256
    /// Marks a plot draws besides the listed settings: every k-th setting by id, k = ⌈P / this⌉.
    package static let thinnedMarks = 2_000

    /// The axes summarised, in this order, with each point's value on it.
    static let axes: [(name: String, value: @Sendable (SweepPoint) -> AxisValue)] = [
        ("enter_m", { .number($0.enter_m) }), ("exit_m", { .number($0.exit_m) }),
        ("maxAccuracy_m", { .number($0.maxAccuracy_m) }), ("confirm_n", { .number(Double($0.confirm_n)) }),
        ("confirm_s", { .number($0.confirm_s ?? 0) }), ("input", { .text($0.input.rawValue) }),
        ("q_m2s3", { .number($0.q_m2s3) }), ("sampling", { .text($0.sampling) }), ("notify", { .text($0.notify) }),
    ]

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

    /// The digest of `s`, or nil when the grid is within `fullFormLimit_points`.
    static func make(_ s: SweepSummary, limit: Int = fullFormLimit_points) -> SweepDigest? {
        let m = s.manifest
        let mix = s.mix
        let count = m.points.count
        guard count > limit else { return nil }
        let rank = Ranking(mix: mix)
        // The `listedTop` smallest by the ranking, kept sorted (a strict total order).
        var top: [Int] = []
        for i in 0..<count {
            if top.count == listedTop, !rank.before(i, top[top.count - 1]) { continue }
            var k = top.count
            while k > 0, rank.before(i, top[k - 1]) { k -= 1 }
            top.insert(i, at: k)
            if top.count > listedTop { top.removeLast() }
        }
        var axes: [Axis] = []
        for (name, value) in Self.axes {
            var order: [AxisValue] = []
            var best: [AxisValue: Int] = [:]
            for i in 0..<count {
                let v = value(m.points[i])
                if let b = best[v] {
                    if rank.before(i, b) { best[v] = i }
                } else {
                    best[v] = i
                    order.append(v)
                }
            }
            guard order.count > 1 else { continue }
            let shown = order.prefix(listedAxisValues)
            axes.append(
                Axis(
                    name: name, values: shown.map { ($0, best[$0]!) }, valuesLeftOut: order.count - shown.count))
        }
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

    /// The order of `top` and of the best per axis value: the settings that meet every constraint
    /// within the bound on unwanted visits (the recommendation's candidates) by the objective
    /// (`SweepMix.better`), then the other settings that meet every constraint by unwanted visits
    /// per hour and the objective, then the rest by closeness to the constraints (`SweepMix.closer`).
    struct Ranking {
        let mix: SweepMix

        func tier(_ i: Int) -> Int {
            guard mix.points.feasible(i) else { return 2 }
            return mix.unwantedBound.map { mix.points.unwantedPerHour[i] <= $0 } ?? false ? 0 : 1
        }

        func before(_ a: Int, _ b: Int) -> Bool {
            let ta = tier(a)
            let tb = tier(b)
            if ta != tb { return ta < tb }
            let p = mix.points
            switch ta {
            case 0: return better(a, b)
            case 1:
                if p.unwantedPerHour[a] != p.unwantedPerHour[b] { return p.unwantedPerHour[a] < p.unwantedPerHour[b] }
                return better(a, b)
            default: return closer(a, b)
            }
        }

        /// `SweepMix.closer` on the columns.
        func closer(_ a: Int, _ b: Int) -> Bool {
            let p = mix.points
            let va = p.violations(a)
            let vb = p.violations(b)
            if va.count != vb.count { return va.count < vb.count }
            let sa = SweepMix.shortfall(va)
            let sb = SweepMix.shortfall(vb)
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
