import Testing
import GSLKit

@Suite struct DriveSimSmokeTests {
    @Test func generatorAvailable() throws {
        let r = try RandomSource(seed: 1)
        #expect((0..<1000).map { _ in r.uniform() }.allSatisfy { $0 >= 0 && $0 < 1 })
    }
}
