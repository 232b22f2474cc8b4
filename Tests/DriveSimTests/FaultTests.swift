import Foundation
import GeoPolicy
import Testing
import _TestSupport

@testable import DriveSim

@Suite struct FaultTests {
    /// Every label means what it says, on all 20 replicates of the fault storm.
    @Test func labelsDescribeTheStream() throws {
        let spec = try TestScenarios.catalog("fault-storm")
        let ageTolerance_s = 1e-9
        var counts: [FaultLabel: Int] = [:]
        for r in 0..<spec.replicates {
            let samples = try ScenarioGenerator.generate(spec: spec, replicate: r).samples
            for (i, s) in samples.enumerated() {
                counts[s.fault, default: 0] += 1
                #expect(s.sequence == i)
                switch s.fault {
                case .gap, .delayed:
                    #expect(s.fix == nil)
                case .none:
                    #expect(s.fix!.timestamp_s == s.time_s)
                case .stale:
                    #expect(
                        isClose(
                            s.time_s - s.fix!.timestamp_s, spec.faults.staleAge_s, absoluteTolerance: ageTolerance_s))
                case .outOfOrder:
                    // Delivered right after its successor (or after the gap that swallowed the successor).
                    if let successor = samples[i - 1].fix {
                        #expect(s.fix!.timestamp_s < successor.timestamp_s)
                    } else {
                        #expect(samples[i - 1].fault == .gap)
                    }
                    #expect(samples[0..<i].last { $0.fault == .delayed }?.sampleIndex == s.sampleIndex - 1)
                case .duplicate:
                    let prev = samples[i - 1].fix!
                    #expect(
                        s.fix!.timestamp_s == prev.timestamp_s && s.fix!.latitude.bitPattern == prev.latitude.bitPattern
                    )
                case .timestampJitter:
                    #expect(s.fix!.timestamp_s != s.time_s)
                case .invalidValue:
                    let f = s.fix!
                    #expect(
                        !Coordinate.isValid(latitude: f.latitude, longitude: f.longitude)
                            || !(f.horizontalAccuracy_m >= 0))
                }
                // The explicit gap window [300, 325) s has no fix.
                if s.time_s >= 300 && s.time_s < 325 && s.fault != .outOfOrder { #expect(s.fix == nil) }
            }
        }
        for label in FaultLabel.allCases { #expect(counts[label, default: 0] > 0, "no \(label) in the fault storm") }
        // Per-sample faults: 3 % each of ~15 600 slots; binomial 99 % interval around the non-gap slots.
        let slots = Double(spec.sampling.sampleCount * spec.replicates - counts[.gap, default: 0])
        let p = 0.03
        let half = TestScenarios.z(0.99) * (slots * p * (1 - p)).squareRoot()
        for label in [FaultLabel.duplicate, .timestampJitter] {
            #expect(
                abs(Double(counts[label, default: 0]) - p * slots) <= half + 0.01 * p * slots,
                "\(label): \(counts[label, default: 0])")
        }
    }

    /// Random gap durations follow their distribution: a Poisson process of gaps with
    /// exponential durations leaves a fraction rate·mean/(1 + rate·mean) of time in gaps.
    @Test func randomGapsCoverTheExpectedFraction() throws {
        var spec = try TestScenarios.stationary(noise: NoiseSpec(white: .gaussian(sigma_m: 1)), count: 200_000)
        let ratePerHour = 30.0
        let mean_s = 20.0
        spec.faults = FaultSpec(randomGaps: .init(ratePerHour: ratePerHour, duration: .exponential(mean_s: mean_s)))
        var g = try ScenarioGenerator(spec: spec, replicate: 0)
        var gaps = 0
        var total = 0
        while let s = g.next() {
            total += 1
            if s.fault == .gap { gaps += 1 }
        }
        let load = ratePerHour / 3600 * mean_s
        let expected = load / (1 + load)
        // Overlapping gaps merge, which lowers the fraction slightly; 10 % relative tolerance covers
        // both that and the sampling error (~56 gaps per 10⁴ s).
        #expect(
            isClose(Double(gaps) / Double(total), expected, relativeTolerance: 0.1),
            "gap fraction \(Double(gaps) / Double(total)) vs \(expected)")
    }
}
