import Testing

@testable import FenceLabSweep

/// The objective's weights: one exact power-of-two scaling, so extreme weights rank as ordinary
/// ones and ordinary weights give the same bits as before.
@Suite struct ScoringWeightsTests {
    static func manifest(_ weights: [Double]) -> SweepManifest {
        SweepManifest(
            toolVersion: "test", rule: .hysteresis, points: [],
            scenarios: weights.enumerated().map { i, w in
                SweepScenario(
                    name: "s\(i)", sha256: "", seed: 1, replicates: 1, generator: "mt19937", duration_s: 3600, weight: w
                )
            },
            window_s: 60, maxFixAge_s: 30, maxLatency_s: 60, minRecall: 0.95, matchSlack_s: 60, shard: 0, shards: 1,
            items: 0)
    }

    @Test func ordinaryWeightsScaleExactly() {
        #expect(Self.manifest([2, 1, 4, 3, 1]).scoringWeights == [0.5, 0.25, 1, 0.75, 0.25])
        #expect(Self.manifest([1]).scoringWeights == [1])
        #expect(Self.manifest([0.3, 0.6]).scoringWeights == [0.3 * 2, 0.6 * 2])
    }

    @Test(arguments: [1e308, .greatestFiniteMagnitude, Double.leastNonzeroMagnitude, 1e-300])
    func extremeEqualWeightsBecomeEqualWeightsNearOne(weight: Double) {
        let w = Self.manifest([weight, weight, weight]).scoringWeights
        #expect(w.allSatisfy { $0 == w[0] && $0 >= 1 && $0 < 2 }, "\(w)")
        // The weighted mean of per-scenario rates stays finite and equals the plain mean.
        let rates = [0.5, 1.25, 3.0]
        let mean = zip(w, rates).map(*).reduce(0, +) / w.reduce(0, +)
        #expect(abs(mean - rates.reduce(0, +) / 3) <= 1e-15)
    }
}
