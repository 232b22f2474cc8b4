import GSLKit
import Testing
import _TestSupport

@Suite struct RandomSourceTests {
    /// Published values for mt19937 seeded 42, gsl_ran_gaussian(σ = 1).
    @Test func mt19937Seed42GaussianMatchesDocumentedValues() throws {
        let rng = try RandomSource(kind: .mt19937, seed: 42)
        let expected = [1.221921217398, 0.869635816822, 1.588556366368]
        for value in expected {
            let draw = rng.gaussian(sigma: 1)
            #expect(isClose(draw, value, absoluteTolerance: 1e-12), "got \(draw), expected \(value)")
        }
        #expect(rng.gslName == "mt19937")
    }

    @Test func seedZeroIsRefused() {
        #expect(throws: GSLError.self) { try RandomSource(seed: 0) }
        #expect(throws: GSLError.self) { try RandomSource(seed: UInt64(UInt32.max) + 1) }
    }

    @Test func sameSeedSameStreamDifferentSeedDifferentStream() throws {
        let a = try RandomSource(kind: .taus2, seed: 7)
        let b = try RandomSource(kind: .taus2, seed: 7)
        let c = try RandomSource(kind: .taus2, seed: 8)
        let xa = (0..<100).map { _ in a.uniform() }
        let xb = (0..<100).map { _ in b.uniform() }
        let xc = (0..<100).map { _ in c.uniform() }
        #expect(xa == xb)
        #expect(xa != xc)
    }

    @Test func versionIsReported() {
        #expect(GSLRuntime.version.split(separator: ".").count >= 2)
    }
}
