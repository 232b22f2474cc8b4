import Testing

@testable import GSLKit

/// `PooledQuantiles` (two passes, the pool never held) against `Statistics.quantiles` on the whole
/// pool and GSL's sort-based oracle: the same order statistics and arithmetic, so equal bit for bit.
@Suite struct PooledQuantilesTests {
    /// The calibration's QQ probabilities plus both ends.
    static let probabilities = [0.0, 1] + (1...199).map { Double($0) / 200 }

    static func pooled(
        _ parts: [[Double]], stride: Int, secondPass: [[Double]]? = nil,
        probabilities: [Double] = probabilities
    ) throws -> (quantiles: [Double], held: Int, samples: Int) {
        var q = PooledQuantiles(probabilities: probabilities, stride: stride)
        for part in parts {
            var work = part
            q.summarize(&work)
        }
        let samples = q.heldAfterFirstPass
        for part in secondPass ?? parts { for x in part { q.collect(x) } }
        let held = q.heldInSecondPass
        return (try q.quantiles(), held, samples)
    }

    @Test func equalToTheWholePoolOnSeededPartsOfEveryShape() throws {
        let rng = try RandomSource(seed: 31)
        for (partCount, partSize) in [(1, 1), (1, 7), (3, 1), (2, 100), (20, 500), (5, 4_001)] {
            let gaussian = (0..<partCount).map { _ in (0..<partSize).map { _ in rng.gaussian(sigma: 4) } }
            let ties = gaussian.map { $0.map { ($0 / 3).rounded() } }
            let constant = gaussian.map { $0.map { _ in 2.5 } }
            let sorted = gaussian.map { $0.sorted() }
            for parts in [gaussian, ties, constant, sorted] {
                let whole = parts.flatMap { $0 }
                let expected = try Statistics.quantiles(whole, probabilities: Self.probabilities)
                #expect(expected == Statistics.quantilesBySortingWithGSL(whole, probabilities: Self.probabilities))
                for stride in [1, 2, 3, 32, 10_000] {
                    let got = try Self.pooled(parts, stride: stride).quantiles
                    #expect(got == expected, "\(partCount) × \(partSize), stride \(stride)")
                }
            }
        }
    }

    /// Pass 2 may deliver the values in another order and grouping, and parts may differ in size.
    @Test func secondPassOrderAndUnevenPartsDoNotMatter() throws {
        let rng = try RandomSource(seed: 32)
        let parts = [1, 0, 2_000, 37, 500].map { n in
            (0..<n).map { _ in rng.gaussian(sigma: 1) * rng.gaussian(sigma: 1) }
        }
        let whole = parts.flatMap { $0 }
        let expected = try Statistics.quantiles(whole, probabilities: Self.probabilities)
        let regrouped = [Array(whole.reversed().prefix(1_000)), Array(whole.reversed().dropFirst(1_000))]
        #expect(try Self.pooled(parts, stride: 16, secondPass: regrouped).quantiles == expected)
    }

    /// What is held: ≈ 1/stride of the pool after pass 1, and in pass 2 at most 2·parts·stride
    /// values per order statistic needed (here 401 for 201 probabilities), whatever the pool size:
    /// for 20 parts of 100 000 values, under a tenth of the pool in all.
    @Test func holdsAFractionOfThePool() throws {
        let rng = try RandomSource(seed: 33)
        let parts = (0..<20).map { _ in (0..<100_000).map { _ in rng.gaussian(sigma: 1) } }
        let r = try Self.pooled(parts, stride: 32)
        #expect(r.quantiles == (try Statistics.quantiles(parts.flatMap { $0 }, probabilities: Self.probabilities)))
        #expect(r.samples <= 2_000_000 / 32 + 2 * 20)
        #expect(r.held <= 401 * 2 * 20 * 32)
        #expect(r.samples + r.held < 2_000_000 / 10, "samples \(r.samples) + held \(r.held) of 2 000 000")
    }

    @Test func badInputIsRefusedWithTheReason() throws {
        #expect(throws: GSLError.self) { try Self.pooled([], stride: 4) }
        #expect(throws: GSLError.self) { try Self.pooled([[1, .nan, 3]], stride: 4) }
        #expect(throws: GSLError.self) { try Self.pooled([[1, 2, 3]], stride: 4, probabilities: [1.5]) }
        #expect(throws: GSLError.self) { try Self.pooled([[1, 2, 3]], stride: 4, secondPass: [[1, 2]]) }
    }
}

/// `Statistics.quantilePair` gives the bits of `quantiles` with the same two probabilities, on
/// the stack and (above `pairStack_values`) on the heap, with ties, ±0 and one value.
@Suite struct QuantilePairTests {
    @Test func pairEqualsQuantilesBitForBit() throws {
        let rng = try RandomSource(seed: 44)
        let pairs: [(Double, Double)] = [(0.5, 0.95), (0, 1), (0.25, 0.25), (0.9, 0.99), (0, 0)]
        for n in [1, 2, 3, 5, 20, 255, 256, 257, 1000] {
            var values: [Double] = []
            for _ in 0..<n {
                let u = rng.uniform()
                values.append(u < 0.1 ? -0.0 : u < 0.2 ? 0 : (u * 40).rounded() - 12)
            }
            for (p, q) in pairs {
                let expected = try Statistics.quantiles(values, probabilities: [p, q])
                let got = try Statistics.quantilePair(values, p, q)
                #expect(
                    got.0.bitPattern == expected[0].bitPattern && got.1.bitPattern == expected[1].bitPattern,
                    "n \(n), p \(p), q \(q): \(got) against \(expected)")
                // Selected in a buffer of the caller's, reordering it: the same bits, the same values.
                var work = values
                let inPlace = try work.withUnsafeMutableBufferPointer { buffer throws(GSLError) in
                    try Statistics.quantilePair(reordering: buffer, p, q)
                }
                #expect(
                    inPlace.0.bitPattern == expected[0].bitPattern && inPlace.1.bitPattern == expected[1].bitPattern,
                    "in place: n \(n), p \(p), q \(q): \(inPlace) against \(expected)")
                #expect(work.sorted() == values.sorted(), "n \(n): the buffer holds the same values")
            }
        }
    }

    @Test func badInputIsRefusedAsQuantilesRefusesIt() {
        #expect(throws: GSLError.self) { try Statistics.quantilePair([], 0.5, 0.95) }
        #expect(throws: GSLError.self) { try Statistics.quantilePair([1, .nan], 0.5, 0.95) }
        #expect(throws: GSLError.self) { try Statistics.quantilePair([1, 2], 0.95, 0.5) }
        #expect(throws: GSLError.self) { try Statistics.quantilePair([1, 2], -0.1, 0.5) }
        for (values, p, q) in [([], 0.5, 0.95), ([1, .nan], 0.5, 0.95), ([1, 2], 0.95, 0.5), ([1, 2], -0.1, 0.5)]
            as [([Double], Double, Double)]
        {
            var work = values
            #expect(throws: GSLError.self) {
                try work.withUnsafeMutableBufferPointer { buffer throws(GSLError) in
                    try Statistics.quantilePair(reordering: buffer, p, q)
                }
            }
        }
    }
}
