import DriveSim
import GeoPolicy

/// The place-set stage of a replicate: every place's true visits from the noiseless track and
/// observed visits from its own rule (the scenario's `fence.rule` with the place's radii) on the
/// delivered fixes, scored by `PlaceSetScoring` (docs/metrics.md "Places").
package enum PlaceSetEvaluation {
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
        let trueVisits = PlaceSetTruth.trueVisits(
            set: set, index: PlaceSetTruth.index(set), time_s: time, truth: truth, end_s: end_s)
        var observed: [[Visit]] = []
        var budget = RegionBudget(strategy: set.monitoring, centers: set.places.map(\.center))
        var registrations: [[(start: Double, end: Double)]] = []
        if set.monitoring.isAll {
            observed = try indexed(set: set, spec: spec, fixes: fixes, now_s: now_s, settings: local, end_s: end_s)
        } else if spec.fence.rule.input == .raw {
            let monitors = try set.places.map { place in
                try FenceMonitor(
                    center: place.center, evaluator: try rule(for: place, spec).evaluator, distanceModel: Haversine(),
                    maxAge_s: settings.maxFixAge_s, logging: .off)
            }
            (observed, registrations) = budgeted(monitors, &budget, fixes: fixes, now_s: now_s, end_s: end_s)
        } else {
            let monitors = try set.places.map { place in
                let r = try rule(for: place, spec)
                do {
                    return try FilteredFenceMonitor(
                        monitor: try FenceMonitor(
                            center: place.center, evaluator: r.evaluator, distanceModel: Haversine(),
                            maxAge_s: settings.maxFixAge_s, logging: .off),
                        input: r.input)
                } catch { throw RunError.invalidRule(file: spec.name, reason: "place \(place.name): \(error)") }
            }
            (observed, registrations) = budgeted(monitors, &budget, fixes: fixes, now_s: now_s, end_s: end_s)
        }
        // A true visit is the budget's miss when its place was not registered when the truth entered it.
        let monitoredAt: ((Int, Double) -> Bool)? =
            set.monitoring.isAll
            ? nil
            : { p, t in registrations[p].contains { $0.start <= t && t < $0.end } }
        do {
            var metrics = try PlaceSetScoring.measure(
                truth: trueVisits, observed: observed, weights: set.places.map(\.weight), duration_s: end_s,
                matchSlack_s: settings.matchSlack_s, window_s: settings.window_s, monitoredAt: monitoredAt)
            metrics.swaps = budget.swaps
            return metrics
        } catch { throw RunError.metrics(scenario: spec.name, error) }
    }

    /// Every place decided on the fixes by one `PlaceSetMonitor` (the places within reach of each
    /// fix and those not at rest): each place's observed visits, from its state changes only.
    static func indexed(
        set: PlaceSetSpec, spec: ScenarioSpec, fixes: [Fix], now_s: [Double], settings: EvaluationSettings,
        end_s: Double
    ) throws -> [[Visit]] {
        let evaluators = try set.places.map { try rule(for: $0, spec).evaluator }
        var monitor: PlaceSetMonitor
        do {
            monitor = try PlaceSetMonitor(
                centers: set.places.map(\.center), evaluators: evaluators, input: spec.fence.rule.fenceInput,
                maxAge_s: settings.maxFixAge_s)
        } catch { throw RunError.invalidRule(file: spec.name, reason: "\(error)") }
        var changes = [[StateSample]](repeating: [], count: set.places.count)
        for i in fixes.indices {
            let t = now_s[i]
            monitor.process(fixes[i], now_s: t) { p, state in changes[p].append(StateSample(time_s: t, state: state)) }
        }
        return changes.map { Visits.observedVisits(of: $0, end_s: end_s) }
    }

    /// The same observed visits by a monitor per place over every fix (the index's test oracle).
    static func scanned(
        set: PlaceSetSpec, spec: ScenarioSpec, fixes: [Fix], now_s: [Double], settings: EvaluationSettings,
        end_s: Double, replicate: Int
    ) throws -> [[Visit]] {
        try set.places.map { place in
            let decisions = try FenceDecisions.observe(
                fixes: fixes, now_s: now_s, center: place.center, rule: try rule(for: place, spec), settings: settings,
                scenario: spec.name, replicate: replicate, compareModels: false)
            return Visits.observedVisits(of: decisions.states, end_s: end_s)
        }
    }

    /// The rule deciding one place: the scenario's with the place's radii, on its input stage.
    static func rule(for place: NamedPlace, _ spec: ScenarioSpec) throws -> RuleUnderTest<AnyFenceRule> {
        do {
            return try RuleUnderTest(spec: spec.fence.rule.forPlace(place).ruleSpec, input: spec.fence.rule.fenceInput)
        } catch { throw RunError.invalidRule(file: spec.name, reason: "place \(place.name): \(error)") }
    }

    /// Fix by fix: the budget chooses the registered places; only they decide on the fix. A place
    /// registered again starts from its fresh monitor (the OS forgets a removed region's state);
    /// a removed place hears nothing, so a stay open at its removal stays open until the rule,
    /// registered again, decides outside. Returns each place's observed visits and the spans
    /// (delivery time of the choosing fix to that of the next choice without it) it was registered.
    package static func budgeted<D: FenceDeciding>(
        _ templates: [D], _ budget: inout RegionBudget, fixes: [Fix], now_s: [Double], end_s: Double
    ) -> (observed: [[Visit]], registrations: [[(start: Double, end: Double)]]) {
        var monitors = templates
        var states = [[StateSample]](repeating: [], count: templates.count)
        var registrations = [[(start: Double, end: Double)]](repeating: [], count: templates.count)
        var before: [Int] = []
        before.reserveCapacity(budget.registered.count)
        for i in fixes.indices {
            let t = now_s[i]
            before.removeAll(keepingCapacity: true)
            before.append(contentsOf: budget.registered)
            if budget.update(try? fixes[i].coordinate()) {
                for p in before where !budget.isRegistered[p] {
                    registrations[p][registrations[p].count - 1].end = t
                }
                for p in budget.registered where registrations[p].last.map({ $0.end <= t }) ?? true {
                    registrations[p].append((t, .infinity))
                    monitors[p] = templates[p]
                }
            }
            // Only changes are kept (what `observedVisits` reads): memory grows with transitions, not fixes.
            for p in budget.registered {
                let state = monitors[p].process(fixes[i], now_s: t).newState
                if states[p].last?.state != state { states[p].append(StateSample(time_s: t, state: state)) }
            }
        }
        return (states.map { Visits.observedVisits(of: $0, end_s: end_s) }, registrations)
    }
}
