import DriveSim
import FenceLab
import GeoPolicy

/// The error of a fence input's filter on a drive.
enum FilterScore {
    /// RMSE in metres over the fixes `input`'s filter accepts (all of them, in delivery order),
    /// of the causal estimate after each fix against the fix's truth; nil for raw input or when
    /// the filter accepts none.
    static func rmse_m(fixes: [Fix], truth: [Coordinate], input: FenceInput) -> Double? {
        let model = Haversine()
        var sum = 0.0
        var n = 0
        func add(_ e: KalmanEstimate?, _ t: Coordinate) {
            guard let e else { return }
            let d = model.distance_m(e.position, t)
            sum += d * d
            n += 1
        }
        switch input.kind {
        case .raw: return nil
        case .kalman:
            guard var f = try? KalmanFilter(accelerationDensity_m2ps3: input.accelerationDensity_m2ps3) else {
                return nil
            }
            for (fix, t) in zip(fixes, truth) where (try? f.update(fix)) != nil { add(f.estimate, t) }
        case .imm:
            guard var f = try? IMMFilter(accelerationDensity_m2ps3: input.accelerationDensity_m2ps3) else { return nil }
            for (fix, t) in zip(fixes, truth) where (try? f.update(fix)) != nil { add(f.estimate, t) }
        }
        return n > 0 ? (sum / Double(n)).squareRoot() : nil
    }
}

/// One generated drive (scenario × replicate), kept so that many rules can be evaluated on it.
///
/// Common random numbers: the drive depends only on the scenario and the replicate's derived
/// seed, so every grid point sees exactly the same fixes and truth, and differences between
/// points are due to the rule. Generating once and evaluating many rules also makes an extra
/// grid point cost only the fence decisions and the flutter matching.
package struct SweepDrive: Sendable {
    package let scenario: String
    package let replicate: Int
    let center: Coordinate
    /// Truth time and distance per sample slot (the same for every rule).
    let truth: TruthDistances
    /// Delivered fixes as the scan reads them: times, distances and gate inputs, computed once.
    package let fixArrays: SweepFixArrays
    /// The delivered fixes and their delivery times, kept only when the grid has a filtered input.
    let fixes: [Fix]
    let now_s: [Double]
    /// True visits of the scenario's place (the same for every rule) and the drive's length.
    let trueVisits: [Visit]
    let duration_s: Double
    /// RMSE of each filtered input of the grid on this drive (`FilterScore`).
    let filterRMSE_m: [FenceInput: Double]

    /// Generates replicate `replicate` of `spec` (seeded as in `fencelab run`); `spec.place` must be set.
    /// - Parameter filters: the filtered inputs of the grid, each scored once on the drive.
    package init(spec: ScenarioSpec, replicate: Int, filters: [FenceInput] = []) throws {
        guard let place = spec.place else { throw SweepError.noPlace(file: spec.name) }
        var generator = try ScenarioGenerator(spec: spec, replicate: replicate)
        let samples = generator.collect()
        truth = TruthDistances(samples: samples, center: spec.fence.center)
        duration_s = spec.sampling.duration_s
        trueVisits = Visits.trueVisits(samples: samples, center: spec.fence.center, place: place, end_s: duration_s)
        var fixes: [Fix] = []
        var now: [Double] = []
        var fixTruth: [Coordinate] = []
        fixes.reserveCapacity(samples.count)
        now.reserveCapacity(samples.count)
        for s in samples {
            if let f = s.fix, let t = s.fixTruth {
                fixes.append(f)
                now.append(s.time_s)
                fixTruth.append(t)
            }
        }
        // The scenario's sampling policy, as `fencelab run` applies it.
        if !spec.sampling.policy.isAll {
            let delivered = try SamplingStage.deliveries(spec: spec, replicate: replicate, fixes: fixes, now_s: now)
            fixes = delivered.indices.map { fixes[$0] }
            fixTruth = delivered.indices.map { fixTruth[$0] }
            now = delivered.now_s
        }
        var rmse: [FenceInput: Double] = [:]
        for input in filters where rmse[input] == nil {
            rmse[input] = FilterScore.rmse_m(fixes: fixes, truth: fixTruth, input: input)
        }
        filterRMSE_m = rmse
        self.fixArrays = SweepFixArrays(fixes: fixes, now_s: now, center: spec.fence.center)
        // The fixes themselves only for filtered inputs, which run the filter and the monitor per point.
        self.fixes = filters.isEmpty ? [] : fixes
        self.now_s = filters.isEmpty ? [] : now
        self.center = spec.fence.center
        self.scenario = spec.name
        self.replicate = replicate
    }

    /// Delivered fixes.
    package var fixCount: Int { fixArrays.count }

    /// Runs `point`'s rule over the delivered fixes and over the truth distances (both computed once
    /// per drive; `SweepScan`, the same decisions as `FenceMonitor` with Haversine), matches the
    /// transitions (`Flutter.measure`) and scores the observed visits against the place (`Visits.measure`).
    package func evaluate(_ point: SweepPoint, item: Int, settings: EvaluationSettings) throws -> SweepRecord {
        var scratch = SweepScratch()
        return try evaluate(point, item: item, settings: settings, scratch: &scratch)
    }

    /// As `evaluate(_:item:settings:)`, reusing `scratch`'s buffers and caches across the points
    /// of a drive: the accepted fixes per accuracy gate and the true changes per rule without the
    /// gate (truth has accuracy 0, so the gate never matters there).
    package func evaluate(
        _ point: SweepPoint, item: Int, settings: EvaluationSettings,
        scratch: inout SweepScratch
    ) throws -> SweepRecord {
        let rule = ScanRule(point)
        scratch.prepare(for: self, maxAge_s: settings.maxFixAge_s)
        if point.input != .raw {
            return try evaluateFiltered(point, item: item, settings: settings, rule: rule, scratch: &scratch)
        }
        let gate = scratch.acceptedIndex(self, maxAccuracy_m: rule.maxAccuracy_m, maxAge_s: settings.maxFixAge_s)
        scratch.accepted[gate].now_s.withUnsafeBufferPointer { time in
            scratch.accepted[gate].distance_m.withUnsafeBufferPointer { dist in
                scratch.accepted[gate].accuracy_m.withUnsafeBufferPointer { acc in
                    SweepScan.changes(
                        time_s: time, distance_m: dist, accuracy_m: acc, rule: rule, into: &scratch.observed)
                }
            }
        }
        let t = truthTransitions(rule, scratch: &scratch)
        let flutter: FlutterMetrics
        let visits: VisitMetrics
        do {
            flutter = try Flutter.measure(
                truth: scratch.truths[t],
                observed: SweepScan.transitions(scratch.observed), window_s: settings.window_s)
            visits = try Visits.measure(
                truth: trueVisits, observed: SweepScan.visits(scratch.observed, end_s: duration_s),
                duration_s: duration_s, matchSlack_s: settings.matchSlack_s)
        } catch { throw RunError.metrics(scenario: scenario, error) }
        return SweepRecord(item: item, flutter: flutter, visits: visits)
    }
}

extension SweepDrive {
    /// True transitions of `rule` (without the gate: truth has accuracy 0), cached in `scratch`.
    func truthTransitions(_ rule: ScanRule, scratch: inout SweepScratch) -> Int {
        let truthKey = TruthKey(kind: rule.kind, enter_m: rule.enter_m, exit_m: rule.exit_m, confirm_n: rule.confirm_n)
        if let t = scratch.truthIndex(truthKey) { return t }
        var changes: [StateChange] = []
        truth.time_s.withUnsafeBufferPointer { time in
            truth.distance_m.withUnsafeBufferPointer { dist in
                SweepScan.changes(time_s: time, distance_m: dist, accuracy_m: nil, rule: rule, into: &changes)
            }
        }
        return scratch.addTruth(truthKey, SweepScan.transitions(changes))
    }

    /// A point whose fence decides on a filter's estimate (`kalman`, `imm`): the filter and the
    /// monitor run over the delivered fixes (`FenceDecisions.observe`); the truth is the same as
    /// for raw input (the place and the rule on the noiseless track).
    func evaluateFiltered(
        _ point: SweepPoint, item: Int, settings: EvaluationSettings, rule: ScanRule,
        scratch: inout SweepScratch
    ) throws -> SweepRecord {
        var local = settings
        local.engine = nil
        let underTest: RuleUnderTest<AnyFenceRule>
        do { underTest = try RuleUnderTest(spec: point.rule, input: point.fenceInput) } catch {
            throw RunError.invalidRule(file: scenario, reason: "\(error)")
        }
        let observed = try FenceDecisions.observe(
            fixes: fixes, now_s: now_s, center: center, rule: underTest, settings: local,
            scenario: scenario, replicate: replicate, compareModels: false)
        let t = truthTransitions(rule, scratch: &scratch)
        let flutter: FlutterMetrics
        let visits: VisitMetrics
        do {
            flutter = try Flutter.measure(
                truth: scratch.truths[t], observed: Flutter.transitions(of: observed.states),
                window_s: settings.window_s)
            visits = try Visits.measure(
                truth: trueVisits, observed: Visits.observedVisits(of: observed.states, end_s: duration_s),
                duration_s: duration_s, matchSlack_s: settings.matchSlack_s)
        } catch { throw RunError.metrics(scenario: scenario, error) }
        var record = SweepRecord(item: item, flutter: flutter, visits: visits)
        record.filterRMSE_m = filterRMSE_m[point.fenceInput]
        return record
    }
}

extension SweepDrive {
    /// The sweep's inner loop alone (the `sweep/scan` benchmark): the observed state changes of
    /// every point in `points` on this drive, with the per-gate accepted fixes computed afresh
    /// (once per gate, as for a new drive). Returns the total number of changes.
    package func observedChanges(_ points: [SweepPoint], maxAge_s: Double, scratch: inout SweepScratch) -> Int {
        scratch.drive = nil
        scratch.prepare(for: self, maxAge_s: maxAge_s)
        var total = 0
        for point in points {
            let rule = ScanRule(point)
            let gate = scratch.acceptedIndex(self, maxAccuracy_m: rule.maxAccuracy_m, maxAge_s: maxAge_s)
            scratch.accepted[gate].now_s.withUnsafeBufferPointer { time in
                scratch.accepted[gate].distance_m.withUnsafeBufferPointer { dist in
                    scratch.accepted[gate].accuracy_m.withUnsafeBufferPointer { acc in
                        SweepScan.changes(
                            time_s: time, distance_m: dist, accuracy_m: acc, rule: rule, into: &scratch.observed)
                    }
                }
            }
            total += scratch.observed.count
        }
        return total
    }
}

/// The rule of a truth scan without the accuracy gate (truth has accuracy 0).
struct TruthKey: Equatable {
    var kind: SweepRuleKind
    var enter_m: Double
    var exit_m: Double
    var confirm_n: Int
}

/// Buffers and per-drive caches of the sweep's inner loop, reused across the points of a drive
/// (reset when given another drive).
package struct SweepScratch: Sendable {
    var observed: [StateChange] = []
    /// True transitions of the rules seen since the band (kind, enter, exit) last changed: the
    /// grid's inner dimensions (accuracy gate, confirmation) reuse them; the gate never matters for truth.
    var truthKeys: [TruthKey] = []
    var truths: [[Transition]] = []
    /// Accepted fixes per accuracy gate (a grid has a handful of gates), and the gates.
    var accepted: [AcceptedFixes] = []
    var gates: [Double] = []
    var drive: (scenario: String, replicate: Int, maxAge_s: Double)?
    package init() {}

    mutating func prepare(for drive: SweepDrive, maxAge_s: Double) {
        if let d = self.drive, d.scenario == drive.scenario, d.replicate == drive.replicate, d.maxAge_s == maxAge_s {
            return
        }
        self.drive = (drive.scenario, drive.replicate, maxAge_s)
        gates.removeAll()
        accepted.removeAll()
        truthKeys.removeAll()
        truths.removeAll()
    }

    func truthIndex(_ key: TruthKey) -> Int? { truthKeys.firstIndex(of: key) }

    mutating func addTruth(_ key: TruthKey, _ transitions: [Transition]) -> Int {
        if let last = truthKeys.last, (last.kind, last.enter_m, last.exit_m) != (key.kind, key.enter_m, key.exit_m) {
            truthKeys.removeAll(keepingCapacity: true)
            truths.removeAll(keepingCapacity: true)
        }
        truthKeys.append(key)
        truths.append(transitions)
        return truths.count - 1
    }

    mutating func acceptedIndex(_ drive: SweepDrive, maxAccuracy_m: Double, maxAge_s: Double) -> Int {
        if let k = gates.firstIndex(of: maxAccuracy_m) { return k }
        var fixes = AcceptedFixes()
        SweepScan.accepted(drive.fixArrays, maxAccuracy_m: maxAccuracy_m, maxAge_s: maxAge_s, into: &fixes)
        gates.append(maxAccuracy_m)
        accepted.append(fixes)
        return accepted.count - 1
    }
}
