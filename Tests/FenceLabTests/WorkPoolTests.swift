import Testing
import FenceLab

@Suite struct WorkPoolTests {
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
}
