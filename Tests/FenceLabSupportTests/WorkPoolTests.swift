import Foundation
import Testing

@testable import _FenceLabSupport

@Suite struct WorkPoolTests {
    /// A pool of spares gives back the last value put back, and makes one only when it is empty.
    @Test func sparePoolReusesWhatWasPutBack() {
        let pool = Locked<[[Int]]>([])
        var made = 0
        func make(_ value: [Int]) -> [Int] {
            made += 1
            return value
        }
        var first = pool.takeSpare { make([]) }
        first.append(7)
        pool.putBack(first)
        pool.putBack([1, 2])
        #expect(pool.takeSpare { make([]) } == [1, 2])
        #expect(pool.takeSpare { make([]) } == [7])
        #expect(made == 1)
        #expect(pool.takeSpare { make([9]) } == [9] && made == 2)
    }

    struct Boom: Error, Equatable { let item: Int }

    @Test func resultsAreInItemOrderForAnyJobCount() throws {
        let expected = (0..<500).map { $0 * $0 }
        for jobs in [1, 2, 3, 8] {
            #expect(try WorkPool.map(count: 500, jobs: jobs) { $0 * $0 } == expected)
        }
        #expect(try WorkPool.map(count: 0, jobs: 4) { $0 }.isEmpty)
    }

    @Test func failureOfAnItemIsRethrown() {
        #expect(throws: Boom(item: 7)) {
            _ = try WorkPool.map(count: 100, jobs: 1) { i -> Int in
                if i == 7 { throw Boom(item: 7) }
                return i
            }
        }
    }

    /// Items finish out of order (item i sleeps (i·7 mod 5) × 0.2 ms); `consume` still sees
    /// 0, 1, 2, ... on the calling thread, for any job count, and never more than `window`
    /// items are claimed ahead of the one it waits for.
    @Test func orderedPoolConsumesInIndexOrderWithinTheWindow() throws {
        for jobs in [1, 2, 3, 8] {
            let aheadMax = Locked(0)
            let consumedSoFar = Locked(0)
            var seen: [Int] = []
            try WorkPool.forEachInOrder(
                count: 300, jobs: jobs, window: 5,
                { i in
                    let ahead = i - consumedSoFar.withLock { $0 }
                    aheadMax.withLock { $0 = max($0, ahead) }
                    usleep(UInt32((i * 7 % 5) * 200))
                    return i * i
                },
                consume: { i, value in
                    #expect(value == i * i)
                    seen.append(i)
                    consumedSoFar.withLock { $0 = i + 1 }
                })
            #expect(seen == Array(0..<300), "jobs \(jobs)")
            // One item may be claimed while the consumer has not yet recorded the last take.
            #expect(aheadMax.withLock { $0 } <= max(5, jobs) + 1, "jobs \(jobs)")
        }
        var none = 0
        try WorkPool.forEachInOrder(count: 0, jobs: 4, { $0 }, consume: { _, _ in none += 1 })
        #expect(none == 0)
    }

    /// The first failure in index order is rethrown, whether `body` or `consume` threw, after
    /// every earlier item was consumed and no later item is consumed; nothing runs afterwards.
    @Test func orderedPoolRethrowsTheFirstFailureInIndexOrder() {
        for jobs in [1, 2, 4] {
            var consumed: [Int] = []
            #expect(throws: Boom(item: 40)) {
                try WorkPool.forEachInOrder(
                    count: 500, jobs: jobs,
                    { i -> Int in
                        // A later item fails first in time: 40 is slow, 41… fail at once.
                        if i == 40 {
                            usleep(20_000)
                            throw Boom(item: 40)
                        }
                        if i > 40 { throw Boom(item: i) }
                        return i
                    }, consume: { i, _ in consumed.append(i) })
            }
            #expect(consumed == Array(0..<40), "jobs \(jobs)")
            consumed = []
            let ran = Locked(0)
            #expect(throws: Boom(item: 12)) {
                try WorkPool.forEachInOrder(
                    count: 10_000, jobs: jobs, window: 4,
                    { i -> Int in
                        ran.withLock { $0 += 1 }
                        return i
                    },
                    consume: { i, _ in
                        if i == 12 { throw Boom(item: 12) }
                        consumed.append(i)
                    })
            }
            #expect(consumed == Array(0..<12), "jobs \(jobs)")
            #expect(ran.withLock { $0 } <= 12 + 1 + max(4, jobs), "jobs \(jobs): items ran after the failure")
        }
    }
}
