import Foundation
import GSLKit
import GeoPolicy
import _TestSupport

@testable import DriveSim

/// Scenario builders and helpers shared by the DriveSim tests.
enum TestScenarios {
    static func catalog(_ name: String) throws -> ScenarioSpec {
        try ScenarioSpec.load(path: TestPaths.packageRoot.appendingPathComponent("scenarios/\(name).json").path)
    }

    /// A stationary scenario at the fence centre with the given noise, `count` samples at `rate_hz`.
    static func stationary(
        noise: NoiseSpec, count: Int, rate_hz: Double = 1, accuracy: AccuracySpec = AccuracySpec(),
        center: (Double, Double) = (52.52, 13.405)
    ) throws -> ScenarioSpec {
        ScenarioSpec(
            name: "test", description: "test", rulesVersion: "threshold-100", seed: 99, replicates: 4,
            fence: FenceSpec(
                center: try Coordinate(latitude: center.0, longitude: center.1),
                rule: FenceRuleSpec(kind: .threshold(radius_m: 100))),
            route: .stationary(distance_m: 0, bearing_deg: 0),
            sampling: SamplingSpec(rate_hz: rate_hz, duration_s: Double(count) / rate_hz),
            noise: noise, accuracy: accuracy)
    }

    /// Every field of every item as bit patterns (NaN-safe equality for determinism checks).
    static func signature(_ samples: [GeneratedSample]) -> [UInt64] {
        var out: [UInt64] = []
        out.reserveCapacity(samples.count * 12)
        for s in samples {
            out += [
                UInt64(s.sequence), UInt64(s.sampleIndex), s.time_s.bitPattern,
                s.truth.latitude.bitPattern, s.truth.longitude.bitPattern, s.truthSpeed_mps.bitPattern,
                UInt64(FaultLabel.allCases.firstIndex(of: s.fault)!),
            ]
            if let f = s.fix {
                out += [
                    f.timestamp_s.bitPattern, f.latitude.bitPattern, f.longitude.bitPattern,
                    f.horizontalAccuracy_m.bitPattern,
                ]
            } else {
                out.append(0xDEAD)
            }
        }
        return out
    }

    /// Two-sided standard normal quantile for a confidence level, e.g. 0.99 → 2.5758.
    static func z(_ confidence: Double) -> Double { try! Statistics.normalQuantile(probability: 0.5 + confidence / 2) }
}
