import DriveSim
import GeoPolicy

/// The place-set stage of a replicate: every place's true visits from the noiseless track and
/// observed visits from its own rule (the scenario's `fence.rule` with the place's radii) on the
/// delivered fixes, scored by `PlaceSetScoring` (docs/metrics.md "Places").
enum PlaceSetEvaluation {
    static func measure(
        set: PlaceSetSpec, spec: ScenarioSpec, samples: [GeneratedSample], fixes: [Fix], now_s: [Double],
        settings: EvaluationSettings, replicate: Int
    ) throws -> PlaceSetMetrics {
        let end_s = spec.sampling.duration_s
        // The truth at every sample slot (the first delivery of each slot), as for one place.
        var time: [Double] = []
        var truth: [Coordinate] = []
        var lastSlot = -1
        for s in samples where s.sampleIndex > lastSlot {
            lastSlot = s.sampleIndex
            time.append(s.time_s)
            truth.append(s.truth)
        }
        // The built-in monitor decides for every place: an external engine watches one fence.
        var local = settings
        local.engine = nil
        var trueVisits: [[Visit]] = []
        var observed: [[Visit]] = []
        trueVisits.reserveCapacity(set.places.count)
        observed.reserveCapacity(set.places.count)
        for (i, place) in set.places.enumerated() {
            trueVisits.append(
                Visits.trueVisits(
                    time_s: time, truth: truth, center: place.center, place: set.placeSpec(i), end_s: end_s))
            let rule: RuleUnderTest<AnyFenceRule>
            do {
                rule = try RuleUnderTest(
                    spec: spec.fence.rule.forPlace(place).ruleSpec, input: spec.fence.rule.fenceInput)
            } catch {
                throw RunError.invalidRule(file: spec.name, reason: "place \(place.name): \(error)")
            }
            let decisions = try FenceDecisions.observe(
                fixes: fixes, now_s: now_s, center: place.center, rule: rule, settings: local,
                scenario: spec.name, replicate: replicate, compareModels: false)
            observed.append(Visits.observedVisits(of: decisions.states, end_s: end_s))
        }
        do {
            return try PlaceSetScoring.measure(
                truth: trueVisits, observed: observed, weights: set.places.map(\.weight), duration_s: end_s,
                matchSlack_s: settings.matchSlack_s, window_s: settings.window_s)
        } catch { throw RunError.metrics(scenario: spec.name, error) }
    }
}
