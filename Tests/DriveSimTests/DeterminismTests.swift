import Foundation
import GSLKit
import Testing

@testable import DriveSim

@Suite struct DeterminismTests {
    @Test func replicateSeedsAreDeterministicInRangeAndDistinct() {
        var seen = Set<UInt64>()
        for r in 0..<2000 {
            let s = SeedDerivation.replicateSeed(scenarioSeed: 7, replicate: r)
            #expect(s >= 1 && s <= UInt64(UInt32.max))
            #expect(s == SeedDerivation.replicateSeed(scenarioSeed: 7, replicate: r))
            seen.insert(s)
        }
        #expect(seen.count == 2000)
        #expect(SeedDerivation.replicateSeed(scenarioSeed: 0, replicate: 0) != 0)
        #expect(
            SeedDerivation.replicateSeed(scenarioSeed: 7, replicate: 0)
                != SeedDerivation.replicateSeed(scenarioSeed: 8, replicate: 0))
    }

    /// SplitMix64 reference: the first outputs of the generator seeded 0 are
    /// 0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4 (Vigna, splitmix64.c).
    @Test func splitMixMatchesReferenceOutputs() {
        #expect(SeedDerivation.splitMix64(0) == 0xE220_A839_7B1D_CDAF)
        #expect(SeedDerivation.splitMix64(0x9E37_79B9_7F4A_7C15) == 0x6E78_9E6A_A1B9_65F4)
    }

    @Test(arguments: ["fault-storm", "urban-canyon", "edge-loiter-100m", "polar-crossing"])
    func sameSpecAndReplicateGiveIdenticalStreams(_ name: String) throws {
        let spec = try TestScenarios.catalog(name)
        let a = try ScenarioGenerator.generate(spec: spec, replicate: 3).samples
        let b = try ScenarioGenerator.generate(spec: spec, replicate: 3).samples
        #expect(TestScenarios.signature(a) == TestScenarios.signature(b))
        let c = try ScenarioGenerator.generate(spec: spec, replicate: 4).samples
        #expect(TestScenarios.signature(a) != TestScenarios.signature(c))
    }

    @Test func streamsDoNotDependOnThreadsOrOrder() async throws {
        let spec = try TestScenarios.catalog("fault-storm")
        let n = 8
        var sequential: [[UInt64]] = []
        for r in (0..<n).reversed() {
            sequential.insert(
                TestScenarios.signature(try ScenarioGenerator.generate(spec: spec, replicate: r).samples), at: 0)
        }
        let parallel = try await withThrowingTaskGroup(of: (Int, [UInt64]).self) { group in
            for r in 0..<n {
                group.addTask {
                    (r, TestScenarios.signature(try ScenarioGenerator.generate(spec: spec, replicate: r).samples))
                }
            }
            var out = [[UInt64]](repeating: [], count: n)
            for try await (r, sig) in group { out[r] = sig }
            return out
        }
        #expect(parallel == sequential)
    }

    /// Faults use their own stream: removing them leaves every untouched fix identical.
    @Test func faultsDoNotChangeTheNoise() throws {
        let spec = try TestScenarios.catalog("fault-storm")
        var clean = spec
        clean.faults = FaultSpec()
        let faulty = try ScenarioGenerator.generate(spec: spec, replicate: 0).samples
        let plain = try ScenarioGenerator.generate(spec: clean, replicate: 0).samples
        #expect(plain.count == spec.sampling.sampleCount)
        var compared = 0
        for s in faulty where s.fault == .none {
            let p = plain[s.sampleIndex]
            #expect(s.fix == p.fix && s.truth == p.truth)
            compared += 1
        }
        #expect(compared > spec.sampling.sampleCount / 2)
    }

    @Test func replicateOutOfRangeIsRefused() throws {
        let spec = try TestScenarios.catalog("edge-loiter-100m")
        #expect(
            throws: ScenarioError.invalidReplicate(
                scenario: spec.name, replicate: spec.replicates, replicates: spec.replicates)
        ) {
            try ScenarioGenerator(spec: spec, replicate: spec.replicates)
        }
    }
}
