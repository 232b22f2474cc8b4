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
        // Small inputs (tests, the places sweep); the sweep's summary uses `frontier(of:)`.
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
        nonDominated(count: keys.count) { keys[$0] }
    }

    /// `nonDominated(_:)` of the keys `key(0)…key(count − 1)`, made when compared rather than
    /// held: besides the result it takes 4 bytes per key for the order and 8 for the distinct y
    /// values (the keys as an array took 32 each, and the order and the y values 24 more).
    /// `chunk_keys`: keys whose y values are sorted at a time (`distinctChunk_keys`; tests pass
    /// small ones to cross chunk boundaries).
    static func nonDominated(
        count: Int, chunk_keys: Int = distinctChunk_keys, key: (Int) -> SIMD3<Double>
    ) -> [Bool] {
        precondition(count <= Int(Int32.max), "Pareto: more keys than 32-bit ids hold")
        var result = [Bool](repeating: true, count: count)
        var order: [Int32] = []
        order.reserveCapacity(count)
        for i in 0..<count {
            let k = key(i)
            if !(k.x.isNaN || k.y.isNaN || k.z.isNaN) { order.append(Int32(i)) }
        }
        order.sort { i, j in
            let a = key(Int(i))
            let b = key(Int(j))
            if a.x != b.x { return a.x < b.x }
            if a.y != b.y { return a.y < b.y }
            return a.z < b.z
        }
        // The distinct y values, ascending: the y values of `chunk_keys` keys at a time,
        // sorted and merged into the distinct ones so far, so that this takes 8 bytes per distinct
        // value (a sweep's latencies repeat), not per key.
        var unique: [Double] = []
        var chunk: [Double] = []
        chunk.reserveCapacity(Swift.min(order.count, chunk_keys))
        for start in stride(from: 0, to: order.count, by: chunk_keys) {
            chunk.removeAll(keepingCapacity: true)
            for k in start..<Swift.min(order.count, start + chunk_keys) { chunk.append(key(Int(order[k])).y) }
            chunk.sort()
            unique = mergeDistinct(unique, chunk)
        }
        chunk = []
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
            let first = key(Int(order[start]))
            var end = start + 1
            while end < order.count, key(Int(order[end])) == first { end += 1 }
            var best = Double.nan
            var i = rank(first.y, includingEqual: true)
            while i > 0 {
                best = smaller(best, tree[i])
                i -= i & -i
            }
            if best <= first.z { for k in start..<end { result[Int(order[k])] = false } }
            var j = rank(first.y, includingEqual: false) + 1
            while j < tree.count {
                tree[j] = smaller(tree[j], first.z)
                j += j & -j
            }
            start = end
        }
        return result
    }

    /// Keys whose y values `nonDominated` sorts at a time.
    static let distinctChunk_keys = 1 << 16

    /// The distinct values of two ascending arrays, ascending (`==` decides distinct: −0 and +0
    /// are one value, the first seen kept). `a` must hold distinct values.
    static func mergeDistinct(_ a: [Double], _ b: [Double]) -> [Double] {
        var out: [Double] = []
        out.reserveCapacity(a.count + b.count)
        var i = 0
        var j = 0
        while i < a.count || j < b.count {
            let v: Double
            if j == b.count || (i < a.count && a[i] <= b[j]) {
                v = a[i]
                i += 1
            } else {
                v = b[j]
                j += 1
            }
            if out.last != v { out.append(v) }
        }
        return out
    }
}

/// A set of grid point ids, one bit per id up to the largest: the frontiers of a large grid hold
/// most of its points (946 740 of 976 000 on one flutter frontier), which a `Set<Int>` kept at
/// ≈ 20 bytes each. Iterates in ascending order.
package struct SweepPointSet: Sequence, Sendable, Hashable, ExpressibleByArrayLiteral {
    private var words: [UInt64] = []
    package private(set) var count = 0

    package init() {}

    package init(arrayLiteral ids: Int...) { self.init(ids) }

    package init(_ ids: some Sequence<Int>) {
        for id in ids { insert(id) }
    }

    /// The ids `i` with `member[i]`.
    init(members member: [Bool]) {
        words = [UInt64](repeating: 0, count: (member.count + 63) / 64)
        for i in member.indices where member[i] {
            words[i >> 6] |= 1 << UInt64(i & 63)
            count += 1
        }
    }

    package var isEmpty: Bool { count == 0 }

    package func contains(_ id: Int) -> Bool {
        id >= 0 && id >> 6 < words.count && words[id >> 6] & (1 << UInt64(id & 63)) != 0
    }

    package mutating func insert(_ id: Int) {
        precondition(id >= 0, "SweepPointSet: negative id \(id)")
        if id >> 6 >= words.count { words += [UInt64](repeating: 0, count: id >> 6 + 1 - words.count) }
        let bit: UInt64 = 1 << UInt64(id & 63)
        if words[id >> 6] & bit == 0 {
            words[id >> 6] |= bit
            count += 1
        }
    }

    package struct Iterator: IteratorProtocol {
        let words: [UInt64]
        var word = 0
        var rest: UInt64

        init(words: [UInt64]) {
            self.words = words
            rest = words.first ?? 0
        }

        package mutating func next() -> Int? {
            while rest == 0 {
                word += 1
                guard word < words.count else { return nil }
                rest = words[word]
            }
            let bit = rest.trailingZeroBitCount
            rest &= rest - 1
            return word << 6 + bit
        }
    }

    package func makeIterator() -> Iterator { Iterator(words: words) }

    package var underestimatedCount: Int { count }

    /// The words without trailing zero words: equal sets compare and hash alike.
    private var trimmed: ArraySlice<UInt64> {
        var end = words.count
        while end > 0, words[end - 1] == 0 { end -= 1 }
        return words[..<end]
    }

    package static func == (a: SweepPointSet, b: SweepPointSet) -> Bool {
        a.count == b.count && a.trimmed.elementsEqual(b.trimmed)
    }

    package func hash(into hasher: inout Hasher) {
        for w in trimmed { hasher.combine(w) }
    }
}
