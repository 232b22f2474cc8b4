import DriveSim
import FenceLab
import GeoPolicy
import _FenceLabSupport

/// Why a place-set sweep is refused (before any work starts).
package enum SweepPlacesError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `--budget` text that is neither `all` nor a whole number (usage error, exit 64).
    case malformedBudget(text: String)
    /// A budget K ≤ 0 or above `MonitoringStrategy.maxCount` (bad input, exit 2).
    case invalidBudget(value: Int)
    /// A refresh radius ≤ 0 m (bad input, exit 2).
    case invalidRefresh(value_m: Double)
    /// `--budget` names a K but no `--refresh` is given (usage error, exit 64).
    case budgetWithoutRefresh
    /// `--place-constraint` other than `worst` or `weighted` (usage error, exit 64).
    case malformedConstraint(text: String)
    /// An axis or option that needs a place set, on a scenario without one.
    case needsPlaceSet(option: String, file: String)
    /// A place-set sweep takes one scenario; `files` were given.
    case oneScenario(files: [String])
    /// An option a place-set sweep does not evaluate (usage error, exit 64).
    case unsupported(option: String)

    /// True for text that does not parse or a combination that is not offered (exit 64).
    package var isUsage: Bool {
        switch self {
        case .malformedBudget, .budgetWithoutRefresh, .malformedConstraint, .unsupported: return true
        case .invalidBudget, .invalidRefresh, .needsPlaceSet, .oneScenario: return false
        }
    }

    package var description: String {
        switch self {
        case .malformedBudget(let t):
            return "--budget: expected a comma-separated list of all and whole numbers K, got '\(ShownText.shown(t))'"
        case .invalidBudget(let k):
            return "--budget: K = \(k) must be within 1...\(MonitoringStrategy.maxCount) places"
        case .invalidRefresh(let r): return "--refresh: \(r) must be finite and > 0 m"
        case .budgetWithoutRefresh: return "--budget: a budget K needs --refresh R (metres), e.g. --refresh 150"
        case .malformedConstraint(let t):
            return "--place-constraint: expected worst or weighted, got '\(ShownText.shown(t))'"
        case .needsPlaceSet(let o, let f): return "\(o): \(f) has no place set (scenario key places)"
        case .oneScenario(let f):
            return "a place-set sweep takes one scenario, got \(f.count): \(f.prefix(3).joined(separator: ", "))"
        case .unsupported(let o): return "\(o) is not evaluated by a place-set sweep"
        }
    }
}

/// How the recall constraint of a place-set sweep applies (`--place-constraint`).
package enum PlaceConstraint: String, Sendable, Hashable, CaseIterable {
    /// Every place with true visits (over all replicates) must reach `--min-recall` (default).
    case worst
    /// The weighted recall over places (mean over replicates) must reach `--min-recall`.
    case weighted
}

/// The monitoring axis of a place-set sweep: `--budget all,10,20 --refresh 50,150`.
package enum SweepPlacesAxis {
    /// The strategies of `--budget` × `--refresh` in the order given (`all` once, each K with
    /// every R), duplicates dropped; nil when neither option is given (the scenario's own).
    package static func strategies(budget: String?, refresh: String?) throws(SweepPlacesError) -> [MonitoringStrategy]?
    {
        guard budget != nil || refresh != nil else { return nil }
        var ks: [Int?] = []
        for part in (budget ?? "all").split(separator: ",", omittingEmptySubsequences: false) {
            let t = part.trimmingCharacters(in: .whitespaces)
            if t == "all" {
                ks.append(nil)
                continue
            }
            guard let k = Int(t) else { throw .malformedBudget(text: budget ?? "") }
            guard k >= 1, k <= MonitoringStrategy.maxCount else { throw .invalidBudget(value: k) }
            ks.append(k)
        }
        var radii: [Double] = []
        if let refresh {
            do { radii = try parseSweepList(refresh, option: "--refresh") } catch {
                if case .nonFinite = error { throw .invalidRefresh(value_m: .infinity) }
                throw .malformedBudget(text: refresh)
            }
            if let bad = radii.first(where: { !($0 > 0) }) { throw .invalidRefresh(value_m: bad) }
        }
        var out: [MonitoringStrategy] = []
        for k in ks {
            guard let k else {
                if !out.contains(.all) { out.append(.all) }
                continue
            }
            guard !radii.isEmpty else { throw .budgetWithoutRefresh }
            for r in radii where !out.contains(.nearest(count: k, refresh_m: r)) {
                out.append(.nearest(count: k, refresh_m: r))
            }
        }
        return out
    }
}

/// One point of a place-set sweep: a rule setting (its radii replace every place's own) and the
/// monitoring strategy that chooses the registered places.
package struct SweepPlacePoint: Sendable, Hashable {
    package var rule: SweepPoint
    package var monitoring: MonitoringStrategy

    /// `hysteresis 12/25 acc30 confirm1 nearest:20+refresh:150`.
    package var label: String { rule.label + " " + monitoring.description }

    /// The budget K, or nil for `all`.
    package var budget: Int? {
        if case .nearest(let k, _) = monitoring { return k }
        return nil
    }

    /// The refresh radius R in metres, or nil for `all`.
    package var refresh_m: Double? {
        if case .nearest(_, let r) = monitoring { return r }
        return nil
    }
}

/// What a place-set sweep is asked.
package struct SweepPlacesRequest: Sendable {
    package var scenario: PreparedScenario
    package var points: [SweepPlacePoint]
    package var settings = EvaluationSettings()
    package var minRecall = SweepRequest.defaultMinRecall
    package var constraint = PlaceConstraint.worst
    /// Bound on the weighted unwanted (false + fragment) visits per hour; nil: the fewest reached.
    package var maxUnwanted: Double?
    package var jobs = 1

    /// The grid: every rule point × every strategy (nil: the scenario's own), rule points outer.
    package init(scenario: PreparedScenario, grid: SweepGrid, strategies: [MonitoringStrategy]?) {
        self.scenario = scenario
        let own = scenario.spec.places?.monitoring ?? .all
        points = grid.points.flatMap { p in (strategies ?? [own]).map { SweepPlacePoint(rule: p, monitoring: $0) } }
    }
}

/// One drive of a place-set sweep: its delivered fixes and, once, every place's true visits from
/// the noiseless track (the same for every rule setting and every strategy).
package struct SweepPlaceDrive: Sendable {
    package let fixes: [Fix]
    package let now_s: [Double]
    package let trueVisits: [[Visit]]
    package let duration_s: Double

    /// Generates replicate `replicate` of `spec` (seeded as in `fencelab run`), delivered under
    /// the scenario's own sampling policy; `spec.places` must be set.
    package init(spec: ScenarioSpec, set: PlaceSetSpec, replicate: Int) throws {
        var generator = try ScenarioGenerator(spec: spec, replicate: replicate)
        let samples = generator.collect()
        duration_s = spec.sampling.duration_s
        var time: [Double] = []
        var truth: [Coordinate] = []
        var lastSlot = -1
        for s in samples where s.sampleIndex > lastSlot {
            lastSlot = s.sampleIndex
            time.append(s.time_s)
            truth.append(s.truth)
        }
        trueVisits = PlaceSetTruth.trueVisits(
            set: set, index: PlaceSetTruth.index(set), time_s: time, truth: truth,
            end_s: spec.sampling.duration_s)
        var f: [Fix] = []
        var n: [Double] = []
        for s in samples {
            if let fix = s.fix, s.fixTruth != nil {
                f.append(fix)
                n.append(s.time_s)
            }
        }
        if !spec.sampling.policy.isAll {
            let delivered = try SamplingStage.deliveries(spec: spec, replicate: replicate, fixes: f, now_s: n)
            f = delivered.indices.map { f[$0] }
            n = delivered.now_s
        }
        fixes = f
        now_s = n
    }

    /// The place-set figures of `point` on this drive: every place's own monitor with the point's
    /// rule, registered by the point's strategy (`PlaceSetEvaluation.budgeted`, as `fencelab
    /// run`), scored against the drive's true visits (`PlaceSetScoring`).
    package func evaluate(
        _ point: SweepPlacePoint, set: PlaceSetSpec, settings: EvaluationSettings
    ) throws -> PlaceSetMetrics {
        let evaluator = try point.rule.rule.evaluator()
        let monitors = try set.places.map { place in
            try FenceMonitor(
                center: place.center, evaluator: evaluator, distanceModel: Haversine(),
                maxAge_s: settings.maxFixAge_s, logging: .off)
        }
        var budget = RegionBudget(strategy: point.monitoring, centers: set.places.map(\.center))
        let (observed, registrations) = PlaceSetEvaluation.budgeted(
            monitors, &budget, fixes: fixes, now_s: now_s, end_s: duration_s)
        let monitoredAt: ((Int, Double) -> Bool)? =
            point.monitoring.isAll ? nil : { p, t in registrations[p].contains { $0.start <= t && t < $0.end } }
        var metrics = try PlaceSetScoring.measure(
            truth: trueVisits, observed: observed, weights: set.places.map(\.weight), duration_s: duration_s,
            matchSlack_s: settings.matchSlack_s, window_s: settings.window_s, monitoredAt: monitoredAt)
        metrics.swaps = budget.swaps
        return metrics
    }
}

/// Runs a place-set sweep: each replicate's drive generated once (on up to `jobs` threads, results
/// in replicate order, so the figures do not depend on `jobs`), every point evaluated on it.
///
/// Work item = replicate · P + point (P the points); `--shard K/N` owns the items ≡ K (mod N),
/// generates the drives of the replicates it owns an item of, and evaluates only its items.
package enum SweepPlaces {
    package static func run(_ request: SweepPlacesRequest) throws -> SweepPlacesSummary {
        let (set, records) = try evaluate(request, shard: .whole)
        return try SweepPlacesSummary.make(
            request.judgement(set), perDrive: SweepPlacesRecord.perDrive(records, points: request.points.count))
    }

    /// The records of the items `shard` owns, in item order, and the scenario's place set.
    package static func evaluate(
        _ request: SweepPlacesRequest, shard: Shard
    ) throws -> (set: PlaceSetSpec, records: [SweepPlacesRecord]) {
        let spec = request.scenario.spec
        guard let set = spec.places else {
            throw SweepPlacesError.needsPlaceSet(option: "sweep", file: request.scenario.path)
        }
        let points = request.points
        let settings = request.settings
        let count = points.count
        let replicates = (0..<spec.replicates).filter { r in (0..<count).contains { shard.owns(r * count + $0) } }
        let perDrive: [[SweepPlacesRecord]] = try WorkPool.map(count: replicates.count, jobs: request.jobs) { i in
            let r = replicates[i]
            let drive = try SweepPlaceDrive(spec: spec, set: set, replicate: r)
            return try (0..<count).filter { shard.owns(r * count + $0) }.map { p in
                SweepPlacesRecord(
                    item: r * count + p, metrics: try drive.evaluate(points[p], set: set, settings: settings))
            }
        }
        return (set, perDrive.flatMap { $0 })
    }
}

/// What `SweepPlaces.sweepIfPlaces` did: a whole sweep's summary, or a shard folder's items.
package enum SweepPlacesOutcome: Sendable {
    case summary(SweepPlacesSummary)
    case shard(Shard, items: Int)
}

extension SweepPlacesRequest {
    /// The judgement of this request's figures (`SweepPlacesSummary.make`).
    func judgement(_ set: PlaceSetSpec) -> SweepPlacesJudgement {
        SweepPlacesJudgement(
            scenario: scenario.spec.name, placeNames: set.places.map(\.name), points: points, minRecall: minRecall,
            constraint: constraint, maxUnwanted: maxUnwanted)
    }
}

extension SweepPlaces {
    /// What a place-set sweep takes beyond the one-fence request (`--budget`, `--refresh`,
    /// `--place-constraint`); `strategies` nil: the scenario's own monitoring strategy.
    package struct Options: Sendable {
        package var strategies: [MonitoringStrategy]?
        package var constraint = PlaceConstraint.worst
        /// The one-fence options given on the command line that a place-set sweep does not evaluate.
        package var unsupported: [String] = []

        package init(strategies: [MonitoringStrategy]? = nil, constraint: PlaceConstraint = .worst) {
            self.strategies = strategies
            self.constraint = constraint
        }
    }

    /// The place-set sweep of `request` when its scenarios carry a place set, written to `out`
    /// atomically — the sweep's files, or with `request.shard` the shard folder (`shard.json`,
    /// `items.jsonl`) for `fencelab merge`; nil when none does (a one-fence sweep, untouched).
    /// Refused before any work:
    /// a place-set option on scenarios without one, more than one scenario with a place set or a
    /// mix of both kinds, an unsupported option.
    package static func sweepIfPlaces(
        _ request: SweepRequest, options: Options, out: String
    ) throws -> SweepPlacesOutcome? {
        var load = RunRequest()
        load.paths = request.paths
        load.replicates = request.replicates
        load.seed = request.seed
        let scenarios = try ScenarioRunner.prepare(load)
        let withPlaces = scenarios.filter { $0.spec.places != nil }
        guard !withPlaces.isEmpty else {
            if options.strategies != nil, let first = scenarios.first {
                throw SweepPlacesError.needsPlaceSet(option: "--budget/--refresh", file: first.path)
            }
            return nil
        }
        guard scenarios.count == 1 else { throw SweepPlacesError.oneScenario(files: scenarios.map(\.path)) }
        if let option = options.unsupported.first { throw SweepPlacesError.unsupported(option: option) }
        let replaceable = Set(request.shard == nil ? SweepPlacesOutput.fileNames : SweepMerge.shardFileNames)
        try ReportFolder.preflight(destination: out, replaceable: replaceable)
        var places = SweepPlacesRequest(scenario: scenarios[0], grid: request.grid, strategies: options.strategies)
        places.settings = request.settings
        places.minRecall = request.minRecall
        places.maxUnwanted = request.maxUnwanted
        places.constraint = options.constraint
        places.jobs = request.jobs
        if let shard = request.shard {
            let (set, records) = try evaluate(places, shard: shard)
            let manifest = SweepPlacesManifest(places, set: set, shard: shard)
            try ReportFolder.write(files: SweepPlacesShard.files(manifest, records), to: out, replaceable: replaceable)
            return .shard(shard, items: records.count)
        }
        let summary = try run(places)
        try ReportFolder.write(files: SweepPlacesOutput.files(summary), to: out, replaceable: replaceable)
        return .summary(summary)
    }
}
