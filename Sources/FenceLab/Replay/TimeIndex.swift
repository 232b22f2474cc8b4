import GeoPolicy

/// Searches over times in non-decreasing order, for the divergence classifier: every query is a
/// binary search (O(log n)), so a classification is O(n log n) in the fixes and events.
///
/// The searches compare exactly as a linear scan over the same times would (`t <= x`, `t > x`,
/// `abs(t - x) <= w`, each computed as written, rounding included): the rounded gap `abs(t - x)`
/// never grows as `t` approaches `x` from either side, so each predicate holds on one contiguous
/// run of positions and the search finds its ends.
struct SortedTimes {
    /// The times, non-decreasing, finite.
    let times: [Double]

    var count: Int { times.count }

    /// The first position in `range` where `predicate` holds, `range.upperBound` when it holds
    /// nowhere; `predicate` is false on a prefix of `range` and true on the rest.
    static func partitionPoint(_ range: Range<Int>, _ predicate: (Int) -> Bool) -> Int {
        var low = range.lowerBound
        var high = range.upperBound
        while low < high {
            let mid = low + (high - low) / 2
            if predicate(mid) { high = mid } else { low = mid + 1 }
        }
        return low
    }

    /// Positions with a time at or before `t` (`times[i] <= t`): the first position after them.
    func countAtOrBefore(_ t: Double) -> Int {
        Self.partitionPoint(0..<times.count) { !(times[$0] <= t) }
    }

    /// The first position whose time is not before `t` (`!(times[i] < t)`).
    func firstNotBefore(_ t: Double) -> Int {
        Self.partitionPoint(0..<times.count) { !(times[$0] < t) }
    }

    /// The positions whose time lies within `window` of `t` (`abs(times[i] - t) <= window`).
    func within(_ window: Double, of t: Double) -> Range<Int> {
        let low = Self.partitionPoint(0..<times.count) { times[$0] >= t || abs(times[$0] - t) <= window }
        let high = Self.partitionPoint(low..<times.count) { times[$0] >= t && !(abs(times[$0] - t) <= window) }
        return low..<high
    }

    /// Of the positions in `candidates` (an ascending list, `member(p)` saying which are still
    /// eligible), the first whose gap `abs(times[p] - t)` is the smallest, or nil when none is
    /// eligible. What a scan in position order keeping the first strictly smaller gap returns.
    /// `before`: the last eligible position at or before the time `t`; `after`: the first
    /// eligible one after it; `firstEligible(from:)`: the first eligible position ≥ a position.
    func nearest(
        to t: Double, before: Int?, after: Int?, firstEligible: (Int) -> Int?
    ) -> (position: Int, gap: Double)? {
        let gapBefore = before.map { abs(times[$0] - t) }
        let gapAfter = after.map { abs(times[$0] - t) }
        guard let b = before, let gb = gapBefore else { return after.map { ($0, gapAfter!) } }
        if let a = after, let ga = gapAfter, ga < gb { return (a, ga) }
        // The gaps before `t` never grow towards it: those equal to `gb` are one run ending at `b`.
        let runStart = Self.partitionPoint(0..<(b + 1)) { abs(times[$0] - t) <= gb }
        return (firstEligible(runStart) ?? b, gb)
    }
}

/// A set of positions 0..<n from which positions are removed, answering "the first present
/// position at or after p" and "the last at or before p" in near-constant amortised time
/// (union–find with path halving; Tarjan 1975).
struct ShrinkingPositions {
    /// next[i] == i when i is present (or i == n, the end); else a present-or-later position.
    private var next: [Int32]
    /// previous[i + 1] == i + 1 when i is present (previous[0] == 0, the start).
    private var previous: [Int32]

    init(count n: Int) {
        next = (0...n).map { Int32($0) }
        previous = (0...n).map { Int32($0) }
    }

    mutating func remove(_ p: Int) {
        next[p] = Int32(p + 1)
        previous[p + 1] = Int32(p)
    }

    /// The first present position ≥ p, nil when none.
    mutating func first(atOrAfter p: Int) -> Int? {
        var i = p
        while next[i] != Int32(i) {
            let up = Int(next[i])
            next[i] = next[up]
            i = up
        }
        return i == next.count - 1 ? nil : i
    }

    /// The last present position ≤ p, nil when none (p may be -1).
    mutating func last(atOrBefore p: Int) -> Int? {
        var j = p + 1
        while previous[j] != Int32(j) {
            let down = Int(previous[j])
            previous[j] = previous[down]
            j = down
        }
        return j == 0 ? nil : j - 1
    }
}
