/// One evaluated setting in the trade-off between false alarms and reaction time.
package struct TradeOffPoint: Sendable, Hashable {
    package var id: Int
    /// Mean spurious transitions (lower is better).
    package var spurious: Double
    /// Mean median detection latency in seconds (lower is better; NaN when nothing was detected).
    package var latency_s: Double
    /// Mean missed true transitions.
    package var missed: Double
    /// Hysteresis band width (ties go to the narrower band).
    package var band_m: Double

    /// The latency the frontier and the objective compare: `latency_s`, or for NaN (nothing
    /// matched) −∞ when nothing was missed either (no true transition: nothing to wait for) and
    /// +∞ when true transitions were all missed.
    package var effectiveLatency_s: Double {
        guard latency_s.isNaN else { return latency_s }
        return missed == 0 ? -.infinity : .infinity
    }

    package init(id: Int, spurious: Double, latency_s: Double, missed: Double, band_m: Double) {
        self.id = id
        self.spurious = spurious
        self.latency_s = latency_s
        self.missed = missed
        self.band_m = band_m
    }
}

/// The per-scenario flutter Pareto frontier of a sweep (the recommendation is over the mix: `SweepMix`).
package enum TradeOff {
    /// Ids of the points no other point dominates in (spurious, effective latency, missed), all minimised
    /// (`TradeOffPoint.effectiveLatency_s`: NaN latency counts as −∞ with nothing missed, +∞ otherwise).
    /// Ids must be unique. O(n log n) (`Pareto.nonDominated`).
    package static func frontier(_ points: [TradeOffPoint]) -> Set<Int> {
        let keep = Pareto.nonDominated(points.map { SIMD3($0.spurious, $0.effectiveLatency_s, $0.missed) })
        var result = Set<Int>()
        for (p, kept) in zip(points, keep) where kept { result.insert(p.id) }
        return result
    }

    /// The definition, point against point (O(n²)): the reference `frontier` is tested against.
    static func frontierByDefinition(_ points: [TradeOffPoint]) -> Set<Int> {
        func lat(_ p: TradeOffPoint) -> Double { p.effectiveLatency_s }
        var result = Set<Int>()
        for p in points {
            let dominated = points.contains { q in
                q.id != p.id && q.spurious <= p.spurious && lat(q) <= lat(p) && q.missed <= p.missed
                    && (q.spurious < p.spurious || lat(q) < lat(p) || q.missed < p.missed)
            }
            if !dominated { result.insert(p.id) }
        }
        return result
    }
}

/// Pareto dominance over three minimised objectives.
enum Pareto {
    /// For each key, true when no other key is ≤ it in all three components and < in one (Double
    /// comparisons: a key with a NaN component is never dominated and dominates nothing; equal keys
    /// do not dominate each other; −0 equals +0).
    ///
    /// O(n log n): the keys are sorted lexicographically, so any key that dominates another comes
    /// before it in a group of different keys; walking the groups in that order, a key is dominated
    /// exactly when an earlier key has y ≤ its y and z ≤ its z (its x is ≤ by the order, and it
    /// differs somewhere). That is a prefix minimum of z over the y ranks (a Fenwick tree).
    static func nonDominated(_ keys: [SIMD3<Double>]) -> [Bool] {
        var result = [Bool](repeating: true, count: keys.count)
        var order = keys.indices.filter { !(keys[$0].x.isNaN || keys[$0].y.isNaN || keys[$0].z.isNaN) }
        order.sort { i, j in
            let a = keys[i]
            let b = keys[j]
            if a.x != b.x { return a.x < b.x }
            if a.y != b.y { return a.y < b.y }
            return a.z < b.z
        }
        var ys = order.map { keys[$0].y }
        ys.sort()
        var unique: [Double] = []
        unique.reserveCapacity(ys.count)
        for y in ys where unique.last.map({ $0 != y }) ?? true { unique.append(y) }
        ys = []
        // Fenwick tree of prefix minima of z over y ranks; NaN = nothing inserted yet.
        var tree = [Double](repeating: .nan, count: unique.count + 1)
        func smaller(_ a: Double, _ b: Double) -> Double { a.isNaN ? b : (b < a ? b : a) }
        /// The number of distinct y values < y, or ≤ y with `includingEqual`.
        func rank(_ y: Double, includingEqual: Bool) -> Int {
            var lo = 0
            var hi = unique.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if unique[mid] < y || (includingEqual && unique[mid] == y) { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }
        var start = 0
        while start < order.count {
            let key = keys[order[start]]
            var end = start + 1
            while end < order.count, keys[order[end]] == key { end += 1 }
            var best = Double.nan
            var i = rank(key.y, includingEqual: true)
            while i > 0 {
                best = smaller(best, tree[i])
                i -= i & -i
            }
            if best <= key.z { for k in start..<end { result[order[k]] = false } }
            var j = rank(key.y, includingEqual: false) + 1
            while j < tree.count {
                tree[j] = smaller(tree[j], key.z)
                j += j & -j
            }
            start = end
        }
        return result
    }
}
