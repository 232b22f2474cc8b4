import DriveSim
import Foundation
import GeoPolicy

/// The fence decisions of one replicate: per delivered fix, the state after it and the rejection reason.
package struct FenceDecisions {
    package var states: [StateSample]
    var rejections: [String?]
    var modelDisagreements: Int?
    /// Time spent in the engine's per-fix work (built-in monitor, or the external engine's whole exchange).
    var engine: Duration

    /// Runs the delivered fixes through the built-in `FenceMonitor` (or the external engine)
    /// with the injected `now`; counts where a WGS84 monitor would have decided differently
    /// (unless `compareModels` is false: sweeps skip the second monitor, `modelDisagreements` is nil).
    static func observe(
        fixes: [Fix], now_s: [Double], center: Coordinate, rule: RuleSpec,
        settings: EvaluationSettings, scenario: String, replicate: Int,
        compareModels: Bool = true
    ) throws -> FenceDecisions {
        try observe(
            fixes: fixes, now_s: now_s, center: center, rule: RuleUnderTest(spec: rule),
            settings: settings, scenario: scenario, replicate: replicate, compareModels: compareModels)
    }

    /// Runs the delivered fixes through a `FenceMonitor` with a fresh copy of `rule.evaluator`
    /// (or through the external engine of `settings`, which needs a built-in rule) with the
    /// injected `now`; counts where a WGS84 monitor would have decided differently.
    package static func observe<Rule: FenceRule>(
        fixes: [Fix], now_s: [Double], center: Coordinate, rule: RuleUnderTest<Rule>,
        settings: EvaluationSettings, scenario: String, replicate: Int,
        compareModels: Bool = true
    ) throws -> FenceDecisions {
        if let engine = settings.engine {
            guard let spec = rule.engineSpec else {
                throw RunError.invalidRule(
                    file: scenario,
                    reason:
                        "\(rule.rulesVersion) is not a built-in rule; the engine protocol describes only hysteresis, threshold and conservative"
                )
            }
            guard rule.input.kind == .raw else {
                throw RunError.invalidRule(
                    file: scenario,
                    reason:
                        "input \(rule.input.kind.rawValue): an external engine decides on the fixes it is sent; the input stage is the built-in engine's"
                )
            }
            let answers: [EngineAnswer]
            let fence = try EngineFence(center: center, spec: spec)
            let clock = ContinuousClock()
            let start = clock.now
            do { answers = try engine.run(fence: fence, fixes: fixes, now_s: now_s) } catch {
                throw RunError.engine(scenario: scenario, replicate: replicate, error)
            }
            return FenceDecisions(
                states: zip(now_s, answers).map { StateSample(time_s: $0, state: $1.state) },
                rejections: answers.map(\.rejected), modelDisagreements: nil,
                engine: start.duration(to: clock.now))
        }
        let sphere = try FenceMonitor(
            center: center, evaluator: rule.evaluator, distanceModel: Haversine(),
            maxAge_s: settings.maxFixAge_s, logging: .off)
        let ellipsoid = try FenceMonitor(
            center: center, evaluator: rule.evaluator, distanceModel: WGS84(),
            maxAge_s: settings.maxFixAge_s, logging: .off)
        guard rule.input.kind != .raw else {
            return decide(fixes: fixes, now_s: now_s, sphere, compareModels ? ellipsoid : nil)
        }
        do {
            return decide(
                fixes: fixes, now_s: now_s, try FilteredFenceMonitor(monitor: sphere, input: rule.input),
                compareModels ? try FilteredFenceMonitor(monitor: ellipsoid, input: rule.input) : nil)
        } catch {
            throw RunError.invalidRule(file: scenario, reason: "\(error)")
        }
    }

    /// Raw input: `decide` with the ellipsoid's distance computed only where it can change the
    /// twin's decision. The sphere's distance of each fix bounds the ellipsoid's
    /// (`WGS84.distanceBounds(sphereDistance_m:)`); where the rule decides the same at both ends
    /// of that interval the twin decides without it (`FenceMonitor.processState`), so the count is
    /// exactly that of the full twin.
    static func decide<Rule: FenceRule>(
        fixes: [Fix], now_s: [Double], _ sphere: FenceMonitor<Rule, Haversine>,
        _ ellipsoid: FenceMonitor<Rule, WGS84>?
    ) -> FenceDecisions {
        var sphere = sphere
        var states: [StateSample] = []
        var rejections: [String?] = []
        var distances: [Double] = []
        states.reserveCapacity(fixes.count)
        rejections.reserveCapacity(fixes.count)
        distances.reserveCapacity(ellipsoid == nil ? 0 : fixes.count)
        // The engine proper, timed alone: this is the `throughput.engineFixes_per_s` figure.
        let clock = ContinuousClock()
        let start = clock.now
        for i in fixes.indices {
            let d = sphere.process(fixes[i], now_s: now_s[i])
            states.append(StateSample(time_s: now_s[i], state: d.newState))
            rejections.append(d.rejection?.rawValue)
            if ellipsoid != nil { distances.append(d.distance_m) }
        }
        let engine = start.duration(to: clock.now)
        guard var ellipsoid else {
            return FenceDecisions(states: states, rejections: rejections, modelDisagreements: nil, engine: engine)
        }
        // The same fixes on the ellipsoid: how often the distance model changes a decision.
        var disagreements = 0
        for i in fixes.indices {
            let sphereDistance_m = distances[i]
            let state = ellipsoid.processState(fixes[i], now_s: now_s[i]) { _ in
                WGS84.distanceBounds(sphereDistance_m: sphereDistance_m)
            }
            if state != states[i].state { disagreements += 1 }
        }
        return FenceDecisions(states: states, rejections: rejections, modelDisagreements: disagreements, engine: engine)
    }

    /// Runs the fixes through `sphere` (timed: the `throughput.engineFixes_per_s` figure) and, when
    /// given, through `ellipsoid` to count where the distance model changes a decision.
    static func decide<Decider: FenceDeciding, Twin: FenceDeciding>(
        fixes: [Fix], now_s: [Double], _ sphere: Decider,
        _ ellipsoid: Twin?
    ) -> FenceDecisions {
        var sphere = sphere
        var states: [StateSample] = []
        var rejections: [String?] = []
        states.reserveCapacity(fixes.count)
        rejections.reserveCapacity(fixes.count)
        // The engine proper, timed alone: this is the `throughput.engineFixes_per_s` figure.
        let clock = ContinuousClock()
        let start = clock.now
        for i in fixes.indices {
            let d = sphere.process(fixes[i], now_s: now_s[i])
            states.append(StateSample(time_s: now_s[i], state: d.newState))
            rejections.append(d.rejection?.rawValue)
        }
        let engine = start.duration(to: clock.now)
        guard var ellipsoid else {
            return FenceDecisions(states: states, rejections: rejections, modelDisagreements: nil, engine: engine)
        }
        // The same fixes on the ellipsoid: how often the distance model changes a decision.
        var disagreements = 0
        for i in fixes.indices where ellipsoid.process(fixes[i], now_s: now_s[i]).newState != states[i].state {
            disagreements += 1
        }
        return FenceDecisions(states: states, rejections: rejections, modelDisagreements: disagreements, engine: engine)
    }

    /// The same rule on the noiseless truth (accuracy 0) at every sample slot: the true states.
    static func truth(samples: [GeneratedSample], center: Coordinate, rule: RuleSpec) throws -> [StateSample] {
        try truth(TruthDistances(samples: samples, center: center), rule: RuleUnderTest(spec: rule))
    }

    /// The rule (a fresh copy of `rule.evaluator`) on the noiseless truth (accuracy 0) at every
    /// sample slot: the true states.
    static func truth<Rule: FenceRule>(
        samples: [GeneratedSample], center: Coordinate,
        rule: RuleUnderTest<Rule>
    ) throws -> [StateSample] {
        try truth(TruthDistances(samples: samples, center: center), rule: rule)
    }

    /// The true states from precomputed truth distances (sweeps compute them once per drive).
    static func truth(_ track: TruthDistances, rule: RuleSpec) throws -> [StateSample] {
        try truth(track, rule: RuleUnderTest(spec: rule))
    }

    static func truth<Rule: FenceRule>(_ track: TruthDistances, rule: RuleUnderTest<Rule>) throws -> [StateSample] {
        var evaluator = rule.evaluator
        var states: [StateSample] = []
        states.reserveCapacity(track.time_s.count)
        for (t, d) in zip(track.time_s, track.distance_m) {
            states.append(StateSample(time_s: t, state: evaluator.update(distance_m: d, accuracy_m: 0, timestamp_s: t)))
        }
        return states
    }
}

/// The truth at every sample slot (first delivery of each slot): time and Haversine distance from the fence centre.
package struct TruthDistances: Sendable {
    package var time_s: [Double] = []
    package var distance_m: [Double] = []

    package init(samples: [GeneratedSample], center: Coordinate) {
        let model = Haversine()
        time_s.reserveCapacity(samples.count)
        distance_m.reserveCapacity(samples.count)
        let origin = Haversine.Target(center)
        var lastSlot = -1
        for s in samples where s.sampleIndex > lastSlot {
            lastSlot = s.sampleIndex
            time_s.append(s.time_s)
            distance_m.append(model.distance_m(from: origin, s.truth))
        }
    }
}
