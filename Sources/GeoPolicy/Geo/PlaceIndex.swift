/// A static spatial index of place centres: a k-d tree on the centres' unit vectors.
///
/// Two queries, both exact supersets or exact answers of a scan of every place:
/// - `forEachCandidate(near:_:)`: every place whose reach (a per-place great-circle radius in
///   metres) can contain a point; the caller decides with its own distance (the reach is widened
///   by `relativeMargin` and `absoluteMarginChord` so that rounding never drops a place);
/// - `nearest(_:to:into:)`: the K places of largest dot product with a point (nearest by great
///   circle), ties to the lower place index — the same set as the scan `RegionBudget` used.
///
/// Why unit vectors: the chord |u − v| grows monotonically with the great-circle distance, so one
/// Euclidean tree serves the whole sphere — no seam at the date line (±180° are the same vectors),
/// no shrinking cells near the poles (geohash or latitude/longitude grid cells become slivers
/// there), and no global cell size: each node keeps the largest reach below it, so a mall of
/// 300 m containing shops of 20 m only widens the search in the mall's own subtree.
///
/// Build O(N log² N) (median splits by sorting, leaves of at most `leafSize`); a query visits
/// O(log N + hits) nodes (a loop over an explicit stack) of a tree of depth ≤ 2 + log₂ N and allocates nothing.
public struct PlaceIndex: Sendable {
    /// Most places in a leaf.
    public static let leafSize = 8
    /// Relative widening of each reach chord before the candidate test (rounding of the chord and
    /// of the caller's haversine distance is ≈ 1e-15 relative: this is a wide safety factor).
    public static let relativeMargin = 1e-9
    /// Absolute widening of each reach chord (unit sphere), ≈ 6 µm on the Earth.
    public static let absoluteMarginChord = 1e-12
    /// Slack on the dot-product bound below which a node cannot hold a nearer place (a dot of unit
    /// vectors rounds within a few 1e-16): ≈ 0.9 m on the Earth, never a wrong prune.
    public static let dotMargin = 1e-14

    @usableFromInline struct Node: Sendable {
        var lower: SIMD3<Double>
        var upper: SIMD3<Double>
        /// Largest widened reach chord of the places below.
        var reachChord: Double
        var start: Int32
        var end: Int32
        /// Children (−1 for a leaf).
        var left: Int32
        var right: Int32
    }

    /// Place count.
    public let count: Int
    var nodes: [Node] = []
    /// Unit vectors, place indices and widened reach chords in tree order.
    var points: [SIMD3<Double>]
    var ids: [Int32]
    var chords: [Double]

    /// - Parameters:
    ///   - centers: place centres, in place order (at most `Int32.max` of them).
    ///   - reach_m: per place, the great-circle radius in metres within which a point is a
    ///     candidate (finite, ≥ 0; larger than half the circumference means everywhere); empty
    ///     when only `nearest` is used.
    ///   - sphereRadius_m: the sphere the caller measures on (default the seeds' 6 371 000 m).
    public init(centers: [Coordinate], reach_m: [Double] = [], sphereRadius_m: Double = EarthModel.sphereRadius_m) {
        precondition(reach_m.isEmpty || reach_m.count == centers.count, "one reach per place")
        count = centers.count
        let vectors = centers.map(\.unitVector)
        let chord = reach_m.map { r -> Double in
            let half = r / (2 * sphereRadius_m)
            let c = half >= Double.pi / 2 ? 2 : 2 * _sin(half)
            return c * (1 + Self.relativeMargin) + Self.absoluteMarginChord
        }
        var order = Array(0..<Int32(centers.count))
        points = []
        ids = []
        chords = []
        nodes.reserveCapacity(2 * (centers.count / Self.leafSize + 1))
        if !centers.isEmpty { _ = build(&order, 0, centers.count, vectors) }
        ids = order
        points = order.map { vectors[Int($0)] }
        chords = chord.isEmpty ? [] : order.map { chord[Int($0)] }
        for i in nodes.indices {
            var m = 0.0
            if !chords.isEmpty { for j in Int(nodes[i].start)..<Int(nodes[i].end) { m = Swift.max(m, chords[j]) } }
            nodes[i].reachChord = m
        }
    }

    /// Builds the node for `order[lo..<hi]`; returns its index.
    private mutating func build(_ order: inout [Int32], _ lo: Int, _ hi: Int, _ v: [SIMD3<Double>]) -> Int32 {
        var lower = v[Int(order[lo])]
        var upper = lower
        for i in lo..<hi {
            lower = pointwiseMin(lower, v[Int(order[i])])
            upper = pointwiseMax(upper, v[Int(order[i])])
        }
        let me = Int32(nodes.count)
        nodes.append(
            Node(lower: lower, upper: upper, reachChord: 0, start: Int32(lo), end: Int32(hi), left: -1, right: -1))
        guard hi - lo > Self.leafSize else { return me }
        let extent = upper - lower
        let axis = extent.x >= extent.y && extent.x >= extent.z ? 0 : (extent.y >= extent.z ? 1 : 2)
        order[lo..<hi].sort { (v[Int($0)][axis], $0) < (v[Int($1)][axis], $1) }
        let mid = (lo + hi) / 2
        let l = build(&order, lo, mid, v)
        let r = build(&order, mid, hi, v)
        nodes[Int(me)].left = l
        nodes[Int(me)].right = r
        return me
    }

    /// Squared distance from `q` to the node's box.
    @inline(__always)
    static func boxDistance2(_ n: Node, _ q: SIMD3<Double>) -> Double {
        let below = pointwiseMax(n.lower - q, .zero)
        let above = pointwiseMax(q - n.upper, .zero)
        let d = below + above
        return (d * d).sum()
    }

    /// Most nodes pending at once in `forEachCandidate`'s descent: the tree's depth is at most
    /// 2 + log₂ N < 34 for N ≤ `Int32.max`, and one sibling waits per level.
    static let maxPending = 64

    /// Calls `body` with the index of every place whose widened reach contains `point` (a
    /// superset of those within their reach by the haversine distance), in tree order.
    ///
    /// The descent is a loop over an explicit stack (on the call stack, left child on top so the
    /// order is the recursion's) through unchecked buffers: per fix it is the monitor's hot path.
    public func forEachCandidate(near point: Coordinate, _ body: (Int) -> Void) {
        guard !nodes.isEmpty, !chords.isEmpty else { return }
        let q = point.unitVector
        nodes.withUnsafeBufferPointer { nodes in
            points.withUnsafeBufferPointer { points in
                chords.withUnsafeBufferPointer { chords in
                    ids.withUnsafeBufferPointer { ids in
                        withUnsafeTemporaryAllocation(of: Int32.self, capacity: Self.maxPending) { pending in
                            pending[0] = 0
                            var top = 1
                            while top > 0 {
                                top -= 1
                                let n = nodes[Int(pending[top])]
                                guard Self.boxDistance2(n, q) <= n.reachChord * n.reachChord else { continue }
                                if n.left < 0 {
                                    for j in Int(n.start)..<Int(n.end) {
                                        let d = points[j] - q
                                        if (d * d).sum() <= chords[j] * chords[j] { body(Int(ids[j])) }
                                    }
                                    continue
                                }
                                pending[top] = n.right
                                pending[top + 1] = n.left
                                top += 2
                            }
                        }
                    }
                }
            }
        }
    }

    /// The `k` places nearest to `u` (a unit vector): largest dot product `(c * u).sum()`, ties to
    /// the lower index, written to `heap` (cleared first; capacity kept) as a max-heap of
    /// "farther" (its root the farthest kept place). The same set as a scan of every place.
    public func nearest(_ k: Int, to u: SIMD3<Double>, into heap: inout [(dot: Double, index: Int)]) {
        heap.removeAll(keepingCapacity: true)
        let n = Swift.min(k, count)
        guard n > 0 else { return }
        nearest(0, u, n, &heap)
    }

    private func nearest(_ i: Int32, _ u: SIMD3<Double>, _ n: Int, _ heap: inout [(dot: Double, index: Int)]) {
        let node = nodes[Int(i)]
        if heap.count == n {
            // For unit vectors, dot = 1 − |p − u|²/2: the box bounds every dot below it.
            let bound = 1 - Self.boxDistance2(node, u) / 2
            if bound < heap[0].dot - Self.dotMargin { return }
        }
        if node.left < 0 {
            for j in Int(node.start)..<Int(node.end) {
                BoundedHeap.offer((dot: (points[j] * u).sum(), index: Int(ids[j])), capacity: n, &heap)
            }
            return
        }
        // The nearer child first, so the bound tightens sooner.
        let l = nodes[Int(node.left)]
        let r = nodes[Int(node.right)]
        if Self.boxDistance2(l, u) <= Self.boxDistance2(r, u) {
            nearest(node.left, u, n, &heap)
            nearest(node.right, u, n, &heap)
        } else {
            nearest(node.right, u, n, &heap)
            nearest(node.left, u, n, &heap)
        }
    }
}

/// The bounded max-heap of "farther" places that the nearest-K selections share.
enum BoundedHeap {
    /// Farther: smaller dot product, then larger index (so among equals the lower index stays).
    @inline(__always)
    static func worse(_ a: (dot: Double, index: Int), _ b: (dot: Double, index: Int)) -> Bool {
        a.dot < b.dot || (a.dot == b.dot && a.index > b.index)
    }

    /// Keeps `item` when the heap has room or `item` is nearer than its root.
    @inline(__always)
    static func offer(_ item: (dot: Double, index: Int), capacity n: Int, _ heap: inout [(dot: Double, index: Int)]) {
        if heap.count < n {
            heap.append(item)
            var j = heap.count - 1
            while j > 0 {
                let parent = (j - 1) / 2
                guard worse(heap[j], heap[parent]) else { break }
                heap.swapAt(j, parent)
                j = parent
            }
        } else if worse(heap[0], item) {
            heap[0] = item
            var j = 0
            while true {
                let l = 2 * j + 1
                let r = l + 1
                var m = j
                if l < n, worse(heap[l], heap[m]) { m = l }
                if r < n, worse(heap[r], heap[m]) { m = r }
                if m == j { break }
                heap.swapAt(j, m)
                j = m
            }
        }
    }
}
