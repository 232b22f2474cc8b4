import DriveSim
import Foundation
import GeoPolicy

/// What one work item (scenario × replicate) produced.
package struct ReplicateResult: Sendable {
    package var metrics: ReplicateMetrics
    /// Plot data for this replicate (fence-relative metres; coordinates only if asked).
    package var plots: ScenarioPlots
    /// Generator and engine work, for throughput.
    package var generatedFixes: Int
    package var generation_s: Double
    package var engineFixes: Int
    package var engine_s: Double
}

/// Settings shared by every work item of a run.
package struct EvaluationSettings: Sendable {
    /// Matching window for flutter (default 60 s, docs/metrics.md).
    package var window_s: Double = Flutter.defaultWindow_s
    /// Widening of each true visit on both sides when matching visits (default 60 s, docs/metrics.md).
    package var matchSlack_s: Double = Visits.defaultMatchSlack_s
    /// Fixes older than this relative to the injected `now` are `stale` (default 30 s).
    package var maxFixAge_s: Double = 30
    /// Kalman process noise (white-acceleration density, m²/s³).
    package var accelerationDensity_m2ps3: Double = 1
    /// Keep raw coordinates in plot data (`--include-coordinates`).
    package var includeCoordinates = false
    /// Drive an external engine instead of the built-in `FenceMonitor` for the fence decisions.
    package var engine: ExternalEngine?

    package init() {}
}

/// Errors of a run that are not bad input files.
package enum RunError: Error, Sendable, CustomStringConvertible {
    case rulesVersionMismatch(file: String, scenario: String, rule: String)
    case invalidRule(file: String, reason: String)
    case engine(scenario: String, replicate: Int, ExternalEngineError)
    case metrics(scenario: String, MetricsError)
    case track(scenario: String, replicate: Int, String)
    /// No scenario file under the given paths.
    case noScenarios(paths: [String])

    package var description: String {
        switch self {
        case .rulesVersionMismatch(let file, let s, let r):
            return
                "\(file): rulesVersion: the scenario was recorded for \(s) but its rule is \(r); review the expected results and update rulesVersion deliberately"
        case .invalidRule(let file, let reason): return "\(file): fence.rule: \(reason)"
        case .engine(let s, let r, let e): return "scenario \(s), replicate \(r): \(e)"
        case .metrics(let s, let e): return "scenario \(s): \(e)"
        case .track(let s, let r, let e): return "scenario \(s), replicate \(r): \(e)"
        case .noScenarios(let paths): return "no scenario files found in \(paths.joined(separator: ", "))"
        }
    }
}

extension FenceRuleSpec {
    /// The engine's rule spec for a scenario's `fence.rule`.
    package var ruleSpec: RuleSpec {
        // Both keys: both must hold (`Confirmation.fixesAndSeconds`).
        let confirmation: Confirmation?
        switch (confirm_n, confirm_s) {
        case (let n?, let s?): confirmation = .fixesAndSeconds(fixes: n, seconds: s)
        case (let n?, nil): confirmation = .fixes(n)
        case (nil, let s?): confirmation = .seconds(s)
        case (nil, nil): confirmation = nil
        }
        switch kind {
        case .hysteresis(let e, let x, let a):
            return .hysteresis(enter_m: e, exit_m: x, maxAccuracy_m: a, confirmation: confirmation)
        case .threshold(let r): return .threshold(radius_m: r, confirmation: confirmation)
        case .conservative(let r): return .conservative(radius_m: r, confirmation: confirmation)
        }
    }

    /// Inner and outer radius to draw (enter/exit; radius twice for single-radius rules).
    var plotRadii_m: (Double, Double) {
        switch kind {
        case .hysteresis(let e, let x, _): return (e, x)
        case .threshold(let r), .conservative(let r): return (r, r)
        }
    }
}

/// The per-replicate pipeline: generate, decide, filter, smooth, fill, score.
enum ReplicateEvaluation {
    static func run(
        spec: ScenarioSpec, replicate: Int, rule: RuleSpec,
        settings: EvaluationSettings
    ) throws -> ReplicateResult {
        try run(spec: spec, replicate: replicate, rule: RuleUnderTest(spec: rule), settings: settings)
    }

    /// The pipeline with any rule type: the observed fixes and the noiseless truth are both
    /// decided by fresh copies of `rule.evaluator` (the scenario's `fence.rule` is not used).
    static func run<Rule: FenceRule>(
        spec: ScenarioSpec, replicate: Int, rule: RuleUnderTest<Rule>,
        settings: EvaluationSettings
    ) throws -> ReplicateResult {
        var settings = settings
        // The Kalman block scores the filter the fence decides on: the input stage's q, else the
        // scenario's `fence.rule.q_m2s3`, else the run's.
        if rule.input.kind != .raw {
            settings.accelerationDensity_m2ps3 = rule.input.accelerationDensity_m2ps3
        } else if let q = spec.fence.rule.q_m2s3 {
            settings.accelerationDensity_m2ps3 = q
        }
        let clock = ContinuousClock()
        let t0 = clock.now
        var generator = try ScenarioGenerator(spec: spec, replicate: replicate)
        let samples = generator.collect()
        let generation = t0.duration(to: clock.now)

        // Delivered fixes in delivery order, with their `now` and truth.
        var fixes: [Fix] = []
        var now: [Double] = []
        var fixTruth: [Coordinate] = []
        var labels: [String] = []
        var truthVelocity: [SIMD2<Double>?] = []
        for s in samples {
            if let f = s.fix, let truth = s.fixTruth {
                fixes.append(f)
                now.append(s.time_s)
                fixTruth.append(truth)
                labels.append(s.fault.rawValue)
                // The true velocity is known at the delivery time only: for fixes measured then.
                truthVelocity.append(f.timestamp_s == s.time_s ? s.truthHeading * s.truthSpeed_mps : nil)
            }
        }
        // The sampling policy: what the app is given of what the device measured, and when.
        if !spec.sampling.policy.isAll {
            let delivered = try SamplingStage.deliveries(spec: spec, replicate: replicate, fixes: fixes, now_s: now)
            fixes = delivered.indices.map { fixes[$0] }
            fixTruth = delivered.indices.map { fixTruth[$0] }
            labels = delivered.indices.map { labels[$0] }
            // A fix handed over later than measured has no true velocity at its delivery time.
            truthVelocity = zip(delivered.indices, delivered.now_s).map { i, t in t == now[i] ? truthVelocity[i] : nil }
            now = delivered.now_s
        }
        let cost = SamplingStage.cost(deliveryTimes: now, duration_s: spec.sampling.duration_s)
        let decisions = try FenceDecisions.observe(
            fixes: fixes, now_s: now, center: spec.fence.center, rule: rule,
            settings: settings, scenario: spec.name, replicate: replicate)
        let engine = decisions.engine

        // The truth's distance from the centre once per slot, for its fence states and its visits.
        let truthDistances = TruthDistances(samples: samples, center: spec.fence.center)
        let truthStates = try FenceDecisions.truth(truthDistances, rule: rule)
        var flutter = try Flutter.measure(
            truth: Flutter.transitions(of: truthStates),
            observed: Flutter.transitions(of: decisions.states),
            window_s: settings.window_s)
        flutter.modelDisagreements = decisions.modelDisagreements
        var visits: VisitMetrics?
        var notify: NotificationMetrics?
        if let place = spec.place {
            let end_s = spec.sampling.duration_s
            let truth = Visits.trueVisits(
                truth: truthDistances, samples: samples, center: spec.fence.center, place: place, end_s: end_s)
            do {
                visits = try Visits.measure(
                    truth: truth, observed: Visits.observedVisits(of: decisions.states, end_s: end_s),
                    duration_s: end_s, matchSlack_s: settings.matchSlack_s)
                // The notification policy on the rule's decisions, scored against the same truth.
                let policy = spec.notification
                if !policy.isNone {
                    let notes = policy.notifications(
                        of: NotificationMetrics.changes(of: decisions.states), end_s: end_s)
                    notify = try NotificationMetrics.measure(
                        truth: truth, notifications: notes, duration_s: end_s, matchSlack_s: settings.matchSlack_s,
                        dwell_s: policy.dwell_s)
                }
            } catch { throw RunError.metrics(scenario: spec.name, error) }
        }

        var places: PlaceSetMetrics?
        if let set = spec.places {
            places = try PlaceSetEvaluation.measure(
                set: set, spec: spec, samples: samples, fixes: fixes, now_s: now, settings: settings,
                replicate: replicate)
        }

        var rejections: [Rejection] = []
        var faults: [LabelledFault] = []
        for (i, reason) in decisions.rejections.enumerated() {
            if let reason { rejections.append(Rejection(fixIndex: i, reason: reason)) }
            if labels[i] != "none" { faults.append(LabelledFault(fixIndex: i, label: labels[i])) }
        }
        let track = try TrackEvaluation.run(
            fixes: fixes, fixTruth: fixTruth, truthVelocity: truthVelocity,
            samples: samples, settings: settings,
            scenario: spec.name, replicate: replicate)

        var metrics = ReplicateMetrics(
            flutter: flutter, rejections: RejectionMetrics.measure(rejections: rejections, faults: faults),
            kalman: track.kalman, gapFill: track.gapFill,
            throughput: Throughput(
                engineFixes_per_s: rate(fixes.count, engine),
                generatorFixes_per_s: rate(samples.count, generation)),
            visits: visits)
        metrics.consistency = track.consistency
        metrics.cost = cost
        metrics.notify = notify
        metrics.places = places
        let plots = PlotData.make(
            spec: spec, samples: samples, fixes: fixes, decisions: decisions,
            truthStates: truthStates, track: track, includeCoordinates: settings.includeCoordinates,
            ruleLabel: rule.label, ruleRadii_m: rule.plotRadii_m, truthDistances: truthDistances)
        return ReplicateResult(
            metrics: metrics, plots: plots, generatedFixes: samples.count,
            generation_s: seconds(generation), engineFixes: fixes.count, engine_s: seconds(engine))
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }

    static func rate(_ count: Int, _ d: Duration) -> Double {
        let s = seconds(d)
        return s > 0 ? Double(count) / s : 0
    }
}
