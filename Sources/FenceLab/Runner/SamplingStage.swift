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

    /// The timer phase of `policy` in replicate `replicate`: `phases(...)`'s `timer_s` (the
    /// batch's phase for a policy whose only timer is the batch); 0 for a policy without a timer.
    package static func phase_s(
        _ policy: SamplingPolicy, spec: ScenarioSpec, replicate: Int
    ) throws(ScenarioError) -> Double {
        let p = try phases(policy, spec: spec, replicate: replicate)
        switch policy.selection {
        case .interval, .adaptive, .rampup: return p.timer_s
        case .all, .distance, .elasticDistance: return p.batch_s
        }
    }

    /// The timer phases of `policy` in replicate `replicate`, from their own seeded stream: each
    /// uniform on [0, P) with P its timer's period. `interval:S` draws one phase on [0, S), which
    /// its batch shares; a policy whose only timer is `+batch:B` draws one on [0, B). `adaptive`
    /// and `rampup` draw one per timer, in spec order — the faster period's, the slower's, then
    /// the batch's if any. A policy without a timer draws nothing (all phases 0).
    package static func phases(
        _ policy: SamplingPolicy, spec: ScenarioSpec, replicate: Int
    ) throws(ScenarioError) -> SamplingPhases {
        guard policy.usesPhase else { return SamplingPhases(all: 0) }
        let seed = SeedDerivation.replicateSeed(scenarioSeed: spec.seed, replicate: replicate)
        let rng: RandomSource
        do {
            rng = try RandomSource(
                kind: spec.generator, seed: SeedDerivation.streamSeed(replicateSeed: seed, stream: phaseStream))
        } catch {
            throw .generator(scenario: spec.name, reason: error.description)
        }
        switch policy.selection {
        case .interval(let s):
            return SamplingPhases(all: rng.uniform() * s)
        case .adaptive(let fast, let slow, _, _), .rampup(_, let fast, let slow):
            let timer = rng.uniform() * fast
            let slowTimer = rng.uniform() * slow
            let batch = policy.batch_s.map { rng.uniform() * $0 } ?? 0
            return SamplingPhases(timer_s: timer, slowTimer_s: slowTimer, batch_s: batch)
        case .all, .distance, .elasticDistance:
            // usesPhase: the batch is the only timer.
            return SamplingPhases(all: rng.uniform() * (policy.batch_s ?? 0))
        }
    }

    /// What the policies may know of `spec`'s fence (`SamplingContext`): its centre and the edge
    /// `rampup` measures from — the place's radius when the scenario has a `place`, else the
    /// enter radius of the scenario's own `fence.rule` (hysteresis `enter_m`, otherwise
    /// `radius_m`). Never the rule under test, so a sweep's rule settings share one delivery.
    package static func context(spec: ScenarioSpec) -> SamplingContext {
        let edge: Double
        if let place = spec.place {
            edge = place.radius_m
        } else {
            switch spec.fence.rule.kind {
            case .hysteresis(let enter, _, _): edge = enter
            case .threshold(let r), .conservative(let r): edge = r
            }
        }
        return SamplingContext(center: spec.fence.center, edge_m: edge)
    }

    /// The indices of `fixes` (measured, delivered by the device at `now_s`) that the app
    /// receives, and the time it receives each; all of them, unchanged, for `SamplingPolicy.all`.
    /// One phase for every timer; `rampup` needs `context`.
    package static func deliveries(
        _ policy: SamplingPolicy, phase_s: Double, context: SamplingContext? = nil, fixes: [Fix], now_s: [Double]
    ) -> (indices: [Int], now_s: [Double]) {
        deliveries(policy, phases: SamplingPhases(all: phase_s), context: context, fixes: fixes, now_s: now_s)
    }

    /// As above with each timer's own phase.
    package static func deliveries(
        _ policy: SamplingPolicy, phases: SamplingPhases, context: SamplingContext?, fixes: [Fix], now_s: [Double]
    ) -> (indices: [Int], now_s: [Double]) {
        if policy.isAll { return (Array(fixes.indices), now_s) }
        var gate = SamplingGate(policy: policy, phases: phases, context: context)
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
    /// device at `now_s`): the phases drawn, then `deliveries`. What `fencelab run`, the sweep's
    /// drives and the tests all call, so they deliver the same fixes.
    package static func deliveries(
        spec: ScenarioSpec, replicate: Int, fixes: [Fix], now_s: [Double]
    ) throws(ScenarioError) -> (indices: [Int], now_s: [Double]) {
        try deliveries(spec.sampling.policy, spec: spec, replicate: replicate, fixes: fixes, now_s: now_s)
    }

    /// As `deliveries(spec:replicate:fixes:now_s:)` with `policy` in place of the scenario's own:
    /// how a sweep evaluates several policies on one generated drive (the phases come from the
    /// same stream and the context from the scenario, so the scenario's own policy gives the
    /// same deliveries either way, whatever rule is evaluated on them).
    package static func deliveries(
        _ policy: SamplingPolicy, spec: ScenarioSpec, replicate: Int, fixes: [Fix], now_s: [Double]
    ) throws(ScenarioError) -> (indices: [Int], now_s: [Double]) {
        let phases = try phases(policy, spec: spec, replicate: replicate)
        return deliveries(policy, phases: phases, context: context(spec: spec), fixes: fixes, now_s: now_s)
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
