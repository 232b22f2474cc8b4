/// Exact type-7 quantiles of a pool too large to hold, from two passes over its values.
///
/// The same values as `Statistics.quantiles(_:probabilities:)` on the whole pool (the same order
/// statistics and the same interpolation arithmetic; tested against it), holding a summary of
/// each part instead of the pool. The pool arrives in parts (e.g. the residual components of one
/// synthetic drive each) twice: pass 1 (`summarize`) sorts each part and keeps every `stride`-th
/// order statistic of it with its rank; these bound, for any x, how many values of the pool lie
/// below x, so each needed order statistic x₍r₎ lies in an interval [a_r, b_r] of sample values
/// known after pass 1. Pass 2 (`collect`, the same values again in any order and parts) counts
/// the values below each interval and keeps only those inside; x₍r₎ is then found by rank within
/// its interval. Memory: 16 bytes per `stride` values in pass 1 and at most ≈ 2·parts·`stride`
/// values per needed order statistic in pass 2, instead of 8 bytes per value. Selection from
/// samples in a few passes with limited storage, after Munro & Paterson (1980), "Selection and
/// sorting with limited storage", Theoretical Computer Science 12(3).
///
/// −0 and +0 compare equal, so either may come back where the pool holds both (as with
/// `Statistics.quantiles`).
public struct PooledQuantiles: Sendable {
    /// Probabilities asked for, each within 0...1.
    public let probabilities: [Double]
    /// Every `stride`-th order statistic of each part is kept in pass 1.
    public let stride: Int

    /// Per part: sampled values (ascending) and their 0-based ranks within the part; the part's
    /// first and last order statistics are always sampled.
    private var parts: [(values: [Double], ranks: [Int], count: Int)] = []
    private var total = 0
    private var firstNonFinite: Double?
    /// Pass 2 state: disjoint ascending intervals, the values inside each, and per gap the count
    /// of values with exactly that many interval lower ends ≤ them.
    private var intervals: [(low: Double, high: Double)] = []
    private var buckets: [[Double]] = []
    private var positionCounts: [Int] = []
    private var collected = 0
    /// The needed ranks (ascending, unique) with the interval holding each.
    private var needed: [(rank: Int, interval: Int)] = []

    /// - Parameters:
    ///   - probabilities: within 0...1 (checked by `quantiles()`).
    ///   - stride: ≥ 1; 1 keeps every value (the whole pool) in pass 1.
    public init(probabilities: [Double], stride: Int = 32) {
        precondition(stride >= 1, "PooledQuantiles: stride must be ≥ 1, got \(stride)")
        self.probabilities = probabilities
        self.stride = stride
    }

    /// Pass 1: one part of the pool. `part` is sorted in place (its order is not kept).
    public mutating func summarize(_ part: inout [Double]) {
        part.withUnsafeMutableBufferPointer { summarize(sorting: $0) }
    }

    /// Pass 1 on doubles in place (e.g. the east/north components of a buffer of `SIMD2<Double>`
    /// viewed as doubles), which are sorted (their order is not kept).
    public mutating func summarize(sorting part: UnsafeMutableBufferPointer<Double>) {
        var part = part
        precondition(needed.isEmpty && collected == 0, "PooledQuantiles: summarize after the second pass began")
        if firstNonFinite == nil, let bad = part.first(where: { !$0.isFinite }) { firstNonFinite = bad }
        guard !part.isEmpty else { return }
        if firstNonFinite != nil {
            total += part.count
            return
        }
        part.sort()
        var values: [Double] = []
        var ranks: [Int] = []
        let sampled = (part.count - 1) / stride + 2
        values.reserveCapacity(sampled)
        ranks.reserveCapacity(sampled)
        var i = 0
        while i < part.count {
            values.append(part[i])
            ranks.append(i)
            i += stride
        }
        if ranks.last != part.count - 1 {
            values.append(part[part.count - 1])
            ranks.append(part.count - 1)
        }
        parts.append((values, ranks, part.count))
        total += part.count
    }

    /// The order statistics type-7 interpolation needs (the arithmetic of `OrderStatistics.quantiles`).
    private static func ranks(count n: Int, probabilities: [Double]) -> [Int] {
        var ranks: [Int] = []
        for p in probabilities {
            let lhs = Int(p * Double(n - 1))
            ranks.append(lhs)
            if lhs < n - 1 { ranks.append(lhs + 1) }
        }
        return Array(Set(ranks)).sorted()
    }

    /// Upper bound of #{pool values < x}: per part, the rank of its first sample ≥ x.
    private func countBelowAtMost(_ x: Double) -> Int {
        var sum = 0
        for p in parts {
            let j = Self.firstIndex(p.values) { $0 >= x }
            sum += j < p.values.count ? p.ranks[j] : p.count
        }
        return sum
    }

    /// Lower bound of #{pool values ≤ x}: per part, one past the rank of its last sample ≤ x.
    private func countAtMostAtLeast(_ x: Double) -> Int {
        var sum = 0
        for p in parts {
            let j = Self.firstIndex(p.values) { $0 > x }
            sum += j > 0 ? p.ranks[j - 1] + 1 : 0
        }
        return sum
    }

    /// First index of ascending `a` where the (monotone) `predicate` holds, or `a.count`.
    private static func firstIndex(_ a: [Double], where predicate: (Double) -> Bool) -> Int {
        var lo = 0
        var hi = a.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if predicate(a[mid]) { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }

    /// Ends pass 1: the interval of each needed order statistic, merged where they overlap.
    private mutating func beginSecondPass() {
        guard needed.isEmpty, firstNonFinite == nil, total > 0 else { return }
        var samples = parts.flatMap(\.values)
        samples.sort()
        var brackets: [(rank: Int, low: Double, high: Double)] = []
        for r in Self.ranks(count: total, probabilities: probabilities.map { min(max($0, 0), 1) }) {
            // a_r: the largest sample with at most r values surely below it (the smallest sample
            // qualifies: nothing is below it). b_r: the smallest sample with at least r + 1 values
            // surely at or below it (the largest sample qualifies: every value is).
            let a = samples[Self.firstIndex(samples) { countBelowAtMost($0) > r } - 1]
            let b = samples[Self.firstIndex(samples) { countAtMostAtLeast($0) >= r + 1 }]
            brackets.append((r, a, b))
        }
        for bracket in brackets {
            if let last = intervals.last, bracket.low <= last.high {
                intervals[intervals.count - 1].high = max(last.high, bracket.high)
            } else {
                intervals.append((bracket.low, bracket.high))
            }
            needed.append((bracket.rank, intervals.count - 1))
        }
        buckets = Array(repeating: [], count: intervals.count)
        positionCounts = Array(repeating: 0, count: intervals.count + 1)
        parts = []
    }

    /// Pass 2: one value of the pool again (any order and grouping; every value once in total).
    public mutating func collect(_ x: Double) {
        beginSecondPass()
        collected += 1
        guard !intervals.isEmpty else { return }
        var lo = 0
        var hi = intervals.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if intervals[mid].low <= x { lo = mid + 1 } else { hi = mid }
        }
        positionCounts[lo] += 1
        if lo > 0, x <= intervals[lo - 1].high { buckets[lo - 1].append(x) }
    }

    /// Values held in pass 2 (inside the intervals), for the memory bound (tests).
    var heldInSecondPass: Int { buckets.reduce(0) { $0 + $1.count } }
    /// Sample values held after pass 1 (tests).
    var heldAfterFirstPass: Int { parts.reduce(0) { $0 + $1.values.count } }

    /// The quantiles, after both passes.
    /// - Throws: `GSLError.invalidArgument` for an empty pool, a non-finite value, a probability
    ///   outside 0...1, or a second pass that did not deliver as many values as the first.
    public mutating func quantiles() throws(GSLError) -> [Double] {
        guard total > 0 else { throw .invalidArgument("quantile needs at least 1 value(s), got 0") }
        if let bad = firstNonFinite { throw .invalidArgument("quantile: a pooled value is not finite (\(bad))") }
        for p in probabilities where !(p >= 0 && p <= 1) {
            throw .invalidArgument("quantile probability must be within 0...1, got \(p)")
        }
        beginSecondPass()
        guard collected == total else {
            throw .invalidArgument("quantile: the second pass delivered \(collected) values, the first \(total)")
        }
        for i in buckets.indices { buckets[i].sort() }
        var below = Array(repeating: 0, count: intervals.count)
        var running = 0
        for j in intervals.indices {
            running += positionCounts[j]
            below[j] = running
        }
        var value: [Int: Double] = [:]
        for (rank, j) in needed {
            let local = rank - below[j]
            precondition(local >= 0 && local < buckets[j].count, "PooledQuantiles: rank \(rank) outside its interval")
            value[rank] = buckets[j][local]
        }
        let n = total
        return probabilities.map { p in
            let index = p * Double(n - 1)
            let lhs = Int(index)
            let delta = index - Double(lhs)
            return lhs == n - 1 ? value[lhs]! : (1 - delta) * value[lhs]! + delta * value[lhs + 1]!
        }
    }
}
