/// Order statistics without a full sort: selection in expected linear time.
///
/// Hoare's FIND (C. A. R. Hoare 1961, "Algorithm 65: Find", CACM 4(7)) with a median-of-three
/// pivot, as in Wirth's "Algorithms + Data Structures = Programs" (1976, §2.3.4): after
/// `select(rank:)` the element at `rank` is the one a full ascending sort would put there, every
/// element before it is ≤ it and every element after it is ≥ it. Several ranks in ascending order
/// shrink the range from the left, so the quantiles of a report cost ≈ 2–3 passes over the data
/// instead of an n log n sort. A range that needs more than `maxRounds` partitions (adversarial
/// input; never seen on measured data) is finished by the standard library's sort, so the worst
/// case stays O(n log n). Values must be totally ordered by `<` (no NaN); −0 and +0 compare equal,
/// so either may come back where the data holds both (as with any comparison sort).
enum OrderStatistics {
    /// Partition rounds per rank before falling back to sorting the remaining range.
    static let maxRounds = 64

    /// Moves the `rank`-th smallest element of `a[lower...]` to `a[rank]`, with smaller-or-equal
    /// elements before it and larger-or-equal after it (within `lower..<a.count`).
    /// - Parameters: `lower` ≤ `rank` < `a.count`.
    static func select(_ a: UnsafeMutableBufferPointer<Double>, rank k: Int, lower: Int) {
        precondition(lower <= k && k < a.count, "OrderStatistics.select: rank \(k) outside \(lower)..<\(a.count)")
        var left = lower
        var right = a.count - 1
        var rounds = 0
        while right > left {
            if k == left {  // the minimum of the range: one pass, no partition
                var m = left
                for i in (left + 1)...right where a[i] < a[m] { m = i }
                a.swapAt(left, m)
                return
            }
            rounds += 1
            if rounds > maxRounds {
                var range = UnsafeMutableBufferPointer(rebasing: a[left...right])
                range.sort()
                return
            }
            // Median of three: a[left] ≤ a[mid] ≤ a[right] bound both scans below.
            let mid = left + (right - left) / 2
            if a[mid] < a[left] { a.swapAt(mid, left) }
            if a[right] < a[left] { a.swapAt(right, left) }
            if a[right] < a[mid] { a.swapAt(right, mid) }
            let pivot = a[mid]
            var i = left
            var j = right
            while i <= j {
                while a[i] < pivot { i += 1 }
                while pivot < a[j] { j -= 1 }
                if i <= j {
                    a.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            // Now a[left...j] ≤ pivot ≤ a[i...right], and everything strictly between j and i equals pivot.
            if k <= j {
                right = j
            } else if k >= i {
                left = i
            } else {
                return
            }
        }
    }

    /// `quantiles(reordering:probabilities: [p, q])` of the values in `a` (non-empty, no NaN),
    /// `p` ≤ `q` within 0...1, without the arrays: the same order statistics selected in the same
    /// order, the same arithmetic, so the same bits. Selects in `a` itself.
    static func pair(in a: UnsafeMutableBufferPointer<Double>, _ p: Double, _ q: Double) -> (Double, Double) {
        let n = a.count
        let lp = Int(p * Double(n - 1))
        let lq = Int(q * Double(n - 1))
        // The ranks `quantiles` selects: lp, lp + 1, lq, lq + 1 (below n), ascending, each once.
        var lower = 0
        if lp < n {
            select(a, rank: lp, lower: lower)
            lower = lp + 1
        }
        if lp + 1 < n {
            select(a, rank: lp + 1, lower: lower)
            lower = lp + 2
        }
        if lq < n, lq >= lower {
            select(a, rank: lq, lower: lower)
            lower = lq + 1
        }
        if lq + 1 < n, lq + 1 >= lower { select(a, rank: lq + 1, lower: lower) }
        return (typeSeven(a, p), typeSeven(a, q))
    }

    /// The type-7 quantile at `p` of `a` whose order statistics ⌊p·(n − 1)⌋ and the one after it
    /// are in place (selected): GSL's arithmetic, see `quantiles(reordering:probabilities:)`.
    @inline(__always)
    static func typeSeven(_ a: UnsafeMutableBufferPointer<Double>, _ p: Double) -> Double {
        let n = a.count
        let index = p * Double(n - 1)
        let lhs = Int(index)
        let delta = index - Double(lhs)
        return lhs == n - 1 ? a[lhs] : (1 - delta) * a[lhs] + delta * a[lhs + 1]
    }

    /// Type-7 quantiles (`gsl_stats_quantile_from_sorted_data` on the sorted data, computed with
    /// the same arithmetic: index = p·(n − 1), lhs = ⌊index⌋, δ = index − lhs,
    /// result = (1 − δ)·x₍lhs₎ + δ·x₍lhs+1₎, or x₍n−1₎ when lhs = n − 1) of `work` (non-empty, no NaN),
    /// selecting only the order statistics they need. `probabilities` within 0...1.
    /// Selects in `work` itself: its order changes, nothing is copied.
    static func quantiles(reordering work: inout [Double], probabilities: [Double]) -> [Double] {
        let n = work.count
        // The order statistics needed, ascending and unique, in a stack buffer (no allocation).
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * probabilities.count) { ranks in
            var count = 0
            func insert(_ r: Int) {
                var i = count
                while i > 0, ranks[i - 1] > r { i -= 1 }
                if i > 0, ranks[i - 1] == r { return }
                var j = count
                while j > i {
                    ranks[j] = ranks[j - 1]
                    j -= 1
                }
                ranks[i] = r
                count += 1
            }
            for p in probabilities {
                let lhs = Int(p * Double(n - 1))
                insert(lhs)
                if lhs < n - 1 { insert(lhs + 1) }
            }
            return work.withUnsafeMutableBufferPointer { a in
                var lower = 0
                for r in ranks[0..<count] {
                    select(a, rank: r, lower: lower)
                    lower = r + 1
                }
                return probabilities.map { typeSeven(a, $0) }
            }
        }
    }
}
