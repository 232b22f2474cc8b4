import DriveSim
import GSLKit
import GeoPolicy

/// What the app pays for its fixes in a replicate: fixes handed to it and wake-ups (deliveries;
/// a batch is one), per hour of drive. The honest proxies for battery: no invented mAh.
package struct CostMetrics: Sendable, Hashable {
    package var fixesPerHour: Double
    package var wakeupsPerHour: Double

    package init(fixesPerHour: Double, wakeupsPerHour: Double) {
        self.fixesPerHour = fixesPerHour
        self.wakeupsPerHour = wakeupsPerHour
    }
}

/// The sampling-policy stage of a replicate: which of the measured fixes the app is given and
/// when (`SamplingGate`), with the timer phase drawn from the replicate's own GSL stream.
package enum SamplingStage {
    /// The stream of `SeedDerivation.streamSeed` the phase is drawn from (0–3 are the route,
    /// noise, accuracy and fault streams), so a policy never changes the noise.
    static let phaseStream: UInt64 = 4

    /// The timer phase of `policy` in replicate `replicate`: uniform on [0, P) with P the policy's
    /// timer period (the interval's S, else the batch's S), from its own seeded stream; 0 for a
    /// policy without a timer (nothing is drawn).
    package static func phase_s(
        _ policy: SamplingPolicy, spec: ScenarioSpec, replicate: Int
    ) throws(ScenarioError) -> Double {
        let period: Double
        switch (policy.selection, policy.batch_s) {
        case (.interval(let s), _): period = s
        case (_, let b?): period = b
        default: return 0
        }
        let seed = SeedDerivation.replicateSeed(scenarioSeed: spec.seed, replicate: replicate)
        do {
            let rng = try RandomSource(
                kind: spec.generator, seed: SeedDerivation.streamSeed(replicateSeed: seed, stream: phaseStream))
            return rng.uniform() * period
        } catch {
            throw .generator(scenario: spec.name, reason: error.description)
        }
    }

    /// The indices of `fixes` (measured, delivered by the device at `now_s`) that the app
    /// receives, and the time it receives each; all of them, unchanged, for `SamplingPolicy.all`.
    package static func deliveries(
        _ policy: SamplingPolicy, phase_s: Double, fixes: [Fix], now_s: [Double]
    ) -> (indices: [Int], now_s: [Double]) {
        if policy.isAll { return (Array(fixes.indices), now_s) }
        var gate = SamplingGate(policy: policy, phase_s: phase_s)
        var indices: [Int] = []
        var times: [Double] = []
        for i in fixes.indices {
            if let t = gate.offer(fixes[i], now_s: now_s[i]) {
                indices.append(i)
                times.append(t)
            }
        }
        return (indices, times)
    }

    /// The scenario's policy applied to replicate `replicate`'s measured fixes (delivered by the
    /// device at `now_s`): the phase drawn, then `deliveries`. What `fencelab run`, the sweep's
    /// drives and the tests all call, so they deliver the same fixes.
    package static func deliveries(
        spec: ScenarioSpec, replicate: Int, fixes: [Fix], now_s: [Double]
    ) throws(ScenarioError) -> (indices: [Int], now_s: [Double]) {
        try deliveries(spec.sampling.policy, spec: spec, replicate: replicate, fixes: fixes, now_s: now_s)
    }

    /// As `deliveries(spec:replicate:fixes:now_s:)` with `policy` in place of the scenario's own:
    /// how a sweep evaluates several policies on one generated drive (the phase comes from the
    /// same stream, so the scenario's own policy gives the same deliveries either way).
    package static func deliveries(
        _ policy: SamplingPolicy, spec: ScenarioSpec, replicate: Int, fixes: [Fix], now_s: [Double]
    ) throws(ScenarioError) -> (indices: [Int], now_s: [Double]) {
        let phase = try phase_s(policy, spec: spec, replicate: replicate)
        return deliveries(policy, phase_s: phase, fixes: fixes, now_s: now_s)
    }

    /// Fixes and wake-ups per hour: `deliveryTimes.count` fixes, one wake-up per distinct
    /// delivery time, over `duration_s` seconds of drive (> 0).
    package static func cost(deliveryTimes: [Double], duration_s: Double) -> CostMetrics {
        var wakeups = 0
        var last = -Double.infinity
        for t in deliveryTimes where t != last {
            wakeups += 1
            last = t
        }
        let perHour = 3600 / duration_s
        return CostMetrics(
            fixesPerHour: Double(deliveryTimes.count) * perHour, wakeupsPerHour: Double(wakeups) * perHour)
    }
}
