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
    /// Truth time and distance per sample slot (the same for every rule and every sampling policy:
    /// the noiseless track at the base rate).
    let truth: TruthDistances
    /// What the app is given under each sampling policy of the grid (index: `SweepPlan.samplings`).
    let deliveries: [SweepDeliveries]
    /// True visits of the scenario's place (the same for every rule) and the drive's length.
    let trueVisits: [Visit]
    /// True visits that end within the drive (the user leaves the place).
    let trueExits: Int
    let duration_s: Double

    /// Generates replicate `replicate` of `spec` (seeded as in `fencelab run`); `spec.place` must be set.
    /// - Parameters:
    ///   - filters: the filtered inputs of the grid, each scored once per sampling policy on the drive.
    ///   - samplings: the sampling policies of the grid (nil: the scenario's own). Every policy is
    ///     applied to the same measured fixes (common random numbers): the drive is generated once.
    package init(
        spec: ScenarioSpec, replicate: Int, filters: [FenceInput] = [], samplings: [SamplingPolicy?] = [nil]
    ) throws {
        guard let place = spec.place else { throw SweepError.noPlace(file: spec.name) }
        var generator = try ScenarioGenerator(spec: spec, replicate: replicate)
        let samples = generator.collect()
        truth = TruthDistances(samples: samples, center: spec.fence.center)
        duration_s = spec.sampling.duration_s
        trueVisits = Visits.trueVisits(
            truth: truth, samples: samples, center: spec.fence.center, place: place, end_s: duration_s)
        trueExits = trueVisits.count(where: { !$0.openAtEnd })
        var fixes: [Fix] = []
        var now: [Double] = []
        var fixTruth: [Coordinate] = []
        fixes.reserveCapacity(samples.count)
        now.reserveCapacity(samples.count)
        fixTruth.reserveCapacity(samples.count)
        for s in samples {
            if let f = s.fix, let t = s.fixTruth {
                fixes.append(f)
                now.append(s.time_s)
                fixTruth.append(t)
            }
        }
        var out: [SweepDeliveries] = []
        for sampling in samplings {
            // The policy as `fencelab run` applies it (the scenario's own when nil).
            let policy = sampling ?? spec.sampling.policy
            var f = fixes
            var n = now
            var t = fixTruth
            if !policy.isAll {
                let delivered = try SamplingStage.deliveries(
                    policy, spec: spec, replicate: replicate, fixes: fixes, now_s: now)
                f = delivered.indices.map { fixes[$0] }
                t = delivered.indices.map { fixTruth[$0] }
                n = delivered.now_s
            }
            var rmse: [FenceInput: Double] = [:]
            for input in filters where rmse[input] == nil {
                rmse[input] = FilterScore.rmse_m(fixes: f, truth: t, input: input)
            }
            out.append(
                SweepDeliveries(
                    fixArrays: SweepFixArrays(fixes: f, now_s: n, center: spec.fence.center),
                    // The fixes themselves only for filtered inputs, which run the filter and the monitor per point.
                    fixes: filters.isEmpty ? [] : f, now_s: filters.isEmpty ? [] : n, filterRMSE_m: rmse,
                    cost: SamplingStage.cost(deliveryTimes: n, duration_s: duration_s)))
        }
        deliveries = out
        self.center = spec.fence.center
        self.scenario = spec.name
        self.replicate = replicate
    }

    /// Delivered fixes under the first sampling policy.
    package var fixArrays: SweepFixArrays { deliveries[0].fixArrays }

    /// The delivered fixes (first sampling policy) a gate of `maxAccuracy_m` and staleness limit
    /// `maxAge_s` accepts, as the scan reads them (`SweepScan.accepted`).
    package func accepted(maxAccuracy_m: Double, maxAge_s: Double) -> AcceptedFixes {
        var out = AcceptedFixes()
        SweepScan.accepted(fixArrays, maxAccuracy_m: maxAccuracy_m, maxAge_s: maxAge_s, timestamps: false, into: &out)
        return out
    }

    /// Delivered fixes under the first sampling policy.
    package var fixCount: Int { fixArrays.count }

    /// Runs `point`'s rule over the delivered fixes and over the truth distances (both computed once
    /// per drive; `SweepScan`, the same decisions as `FenceMonitor` with Haversine), matches the
    /// transitions (`Flutter.measure`) and scores the observed visits against the place (`Visits.measure`).
    package func evaluate(
        _ point: SweepPoint, item: Int, settings: EvaluationSettings, sampling: Int = 0,
        notify: NotificationPolicy? = nil
    ) throws -> SweepRecord {
        var scratch = SweepScratch()
        return try evaluate(
            point, item: item, settings: settings, sampling: sampling, notify: notify, scratch: &scratch)
    }

    /// As `evaluate(_:item:settings:)`, reusing `scratch`'s buffers and caches across the points
    /// of a drive: the accepted fixes per accuracy gate and the true changes per rule without the
    /// gate (truth has accuracy 0, so the gate never matters there).
    /// - Parameters:
    ///   - sampling: the point's sampling policy, as an index into the drive's `deliveries`.
    ///   - notify: the notification policy scored with the point (`SweepRecord.notifications`),
    ///     nil for none measured.
    package func evaluate(
        _ point: SweepPoint, item: Int, settings: EvaluationSettings, sampling: Int = 0,
        notify: NotificationPolicy? = nil, scratch: inout SweepScratch
    ) throws -> SweepRecord {
        let rule = ScanRule(point)
        scratch.prepare(for: self, maxAge_s: settings.maxFixAge_s)
        if point.input != .raw {
            return try evaluateFiltered(
                point, item: item, settings: settings, rule: rule, sampling: sampling, notify: notify,
                scratch: &scratch)
        }
        let gate = scratch.acceptedIndex(
            self, sampling: sampling, maxAccuracy_m: rule.maxAccuracy_m, maxAge_s: settings.maxFixAge_s,
            timestamps: rule.confirm_s > 0)
        scratch.accepted[gate].now_s.withUnsafeBufferPointer { time in
            scratch.accepted[gate].distance_m.withUnsafeBufferPointer { dist in
                scratch.accepted[gate].accuracy_m.withUnsafeBufferPointer { acc in
                    scratch.accepted[gate].timestamp_s.withUnsafeBufferPointer { stamp in
                        SweepScan.changes(
                            time_s: time, distance_m: dist, accuracy_m: acc, rule: rule, into: &scratch.observed,
                            timestamp_s: stamp)
                    }
                }
            }
        }
        let t = truthTransitions(rule, scratch: &scratch)
        return try scoreRaw(
            item: item, settings: settings, sampling: sampling, notify: notify, observed: scratch.observed,
            truth: scratch.truths[t], scratch: &scratch)
    }

    /// The record of a raw-input point from its determined-state changes on the delivered fixes
    /// (`observed`) and its true transitions: transition matching (`Flutter.measure`), the
    /// observed visits against the place (`Visits.measure`) and the notifications of `notify`.
    func scoreRaw(
        item: Int, settings: EvaluationSettings, sampling: Int, notify: NotificationPolicy?,
        observed: [StateChange], truth: [Transition], scratch: inout SweepScratch
    ) throws -> SweepRecord {
        let flutter: FlutterMetrics
        let visits: VisitMetrics
        // The observed transitions and visits go into the worker's two buffers (no arrays made per point).
        SweepScan.transitions(observed, into: &scratch.observedTransitions)
        SweepScan.visits(observed, end_s: duration_s, into: &scratch.observedVisits)
        do {
            flutter = try Flutter.measure(
                truth: truth, observed: scratch.observedTransitions, window_s: settings.window_s,
                buffers: &scratch.flutterBuffers)
            visits = try Visits.measure(
                truth: trueVisits, observed: scratch.observedVisits, duration_s: duration_s,
                matchSlack_s: settings.matchSlack_s, buffers: &scratch.visitBuffers)
        } catch { throw RunError.metrics(scenario: scenario, error) }
        var r = record(item: item, flutter: flutter, visits: visits, sampling: sampling)
        if let notify {
            try scoreNotifications(
                notify, changes: observed.lazy.map { (time_s: $0.time_s, inside: $0.inside) },
                settings: settings, into: &r)
        }
        return r
    }

    /// The record of a point's figures with the drive's own: cost and true exits.
    func record(item: Int, flutter: FlutterMetrics, visits: VisitMetrics, sampling: Int) -> SweepRecord {
        var r = SweepRecord(item: item, flutter: flutter, visits: visits)
        r.trueExits = trueExits
        r.fixesPerHour = deliveries[sampling].cost.fixesPerHour
        r.wakeupsPerHour = deliveries[sampling].cost.wakeupsPerHour
        return r
    }

    /// The notifications `policy` makes of the rule's determined-state changes, scored against
    /// the true visits (`NotificationMetrics.measure`), into `r`.
    func scoreNotifications<Changes: Sequence>(
        _ policy: NotificationPolicy, changes: Changes, settings: EvaluationSettings, into r: inout SweepRecord
    ) throws where Changes.Element == (time_s: Double, inside: Bool) {
        let notes = policy.notifications(of: changes, end_s: duration_s)
        let n: NotificationMetrics
        do {
            n = try NotificationMetrics.measure(
                truth: trueVisits, notifications: notes, duration_s: duration_s, matchSlack_s: settings.matchSlack_s,
                dwell_s: policy.dwell_s)
        } catch { throw RunError.metrics(scenario: scenario, error) }
        r.notifications = SweepNotificationFigures(
            entries: n.entries, unwanted: n.unwanted, falseDwells: n.falseDwells, matchedDwells: n.matchedDwells,
            dwellVisits: n.dwellVisits ?? 0, dwellLatencyP95_s: n.dwellLatencyP95_s)
    }
}

extension SweepDrive {
    /// True transitions of `rule` (without the gate: truth has accuracy 0), cached in `scratch`.
    func truthTransitions(_ rule: ScanRule, scratch: inout SweepScratch) -> Int {
        let truthKey = TruthKey(rule)
        if let t = scratch.truthIndex(truthKey) { return t }
        var changes: [StateChange] = []
        truth.time_s.withUnsafeBufferPointer { time in
            truth.distance_m.withUnsafeBufferPointer { dist in
                SweepScan.changes(time_s: time, distance_m: dist, accuracy_m: nil, rule: rule, into: &changes)
            }
        }
        return scratch.addTruth(truthKey, SweepScan.transitions(changes))
    }

    /// The true transitions of the lane rules `keys`, eight per pass over the truth slots
    /// (`SweepScan.lanes`), appended to `scratch`'s lists in order: the keys already name the
    /// positions they get (`evaluate(_ items:…)` claims them).
    func truthLanes(_ keys: [TruthKey], scratch: inout SweepScratch) {
        truth.time_s.withUnsafeBufferPointer { time in
            truth.distance_m.withUnsafeBufferPointer { dist in
                for start in stride(from: 0, to: keys.count, by: SweepLanes.width) {
                    let chunk = keys[start..<min(keys.count, start + SweepLanes.width)]
                    SweepScan.lanes(
                        time_s: time, stamp_s: time, distance_m: dist, SweepLanes(chunk.lazy.map(\.rule)),
                        into: &scratch.laneChanges)
                    for (l, key) in chunk.enumerated() {
                        let t = scratch.appendClaimedTruth(SweepScan.transitions(scratch.laneChanges[l]))
                        assert(scratch.truthKeys[key] == t, "SweepDrive: truths are appended as claimed")
                    }
                }
            }
        }
    }

    /// Evaluates a drive's `items` (in order) into `records`: the same records as `evaluate(_:…)`
    /// point by point. Raw-input hysteresis points are scanned eight per pass over the fixes their
    /// sampling policy and accuracy gate accept (`SweepScan.lanes`), and the true transitions of
    /// their rules eight per pass over the truth, each rule's once per drive (the cache of
    /// `scratch`); other points take `evaluate(_:…)`. When several items fail, the error of the
    /// first of them is thrown.
    package func evaluate(
        _ items: [SweepItem], settings: EvaluationSettings, scratch: inout SweepScratch,
        into records: inout [SweepRecord]
    ) throws {
        scratch.prepare(for: self, maxAge_s: settings.maxFixAge_s)
        scratch.reserveTruths(items.count)
        // The records in item order, in the worker's slots (kept from call to call: made afresh
        // per piece, their pages were faulted in again for every piece, 3 400 faults on the
        // 14 200-point, 20-replicate grid with two workers).
        var results: [SweepRecord?] = []
        swap(&results, &scratch.results)
        defer { swap(&results, &scratch.results) }
        results.removeAll(keepingCapacity: true)
        results.append(contentsOf: repeatElement(nil, count: items.count))
        var firstError: (position: Int, error: any Error)?
        func fail(_ k: Int, _ error: any Error) {
            if firstError == nil || k < firstError!.position { firstError = (k, error) }
        }
        // The lane points by (sampling, gate), in order of first appearance; the others at once.
        var groups: [GateKey: Int] = [:]
        var members: [[Int]] = []
        var keys: [GateKey] = []
        // Each lane point's true transitions by position in the scratch's lists: a rule seen
        // before keeps its list (one lookup); a new rule claims the next position (a lookup and
        // an insertion), and its list is made below, eight rules per pass. Not the subscript with
        // `default:`, whose modify accessor puts the default's closure in two heap contexts per
        // point (195 000 allocations on the 97 600-point grid).
        var missing: [TruthKey] = []
        var truthSlot = [Int](repeating: -1, count: items.count)
        var others: [Int] = []
        let firstNew = scratch.truths.count
        for (k, it) in items.enumerated() {
            let rule = ScanRule(it.point)
            guard it.point.input == .raw, SweepScan.inLanes(rule) else {
                others.append(k)
                continue
            }
            let truthKey = TruthKey(rule)
            if let known = scratch.truthIndex(truthKey) {
                truthSlot[k] = known
            } else {
                let next = firstNew + missing.count
                scratch.truthKeys[truthKey] = next
                missing.append(truthKey)
                truthSlot[k] = next
            }
            let key = GateKey(sampling: it.sampling, timestamps: rule.confirm_s > 0, maxAccuracy_m: rule.maxAccuracy_m)
            if let g = groups[key] {
                members[g].append(k)
            } else {
                groups[key] = members.count
                members.append([k])
                keys.append(key)
            }
        }
        truthLanes(missing, scratch: &scratch)
        // The other points, point by point (after the lane truths, which their truths may share).
        for k in others {
            let it = items[k]
            do {
                results[k] = try evaluate(
                    it.point, item: it.item, settings: settings, sampling: it.sampling, notify: it.notify,
                    scratch: &scratch)
            } catch { fail(k, error) }
        }
        for (g, key) in keys.enumerated() {
            let gate = scratch.acceptedIndex(
                self, sampling: key.sampling, maxAccuracy_m: key.maxAccuracy_m, maxAge_s: settings.maxFixAge_s,
                timestamps: key.timestamps)
            let fixes = scratch.accepted[gate]
            let group = members[g]
            for start in stride(from: 0, to: group.count, by: SweepLanes.width) {
                let chunk = group[start..<min(group.count, start + SweepLanes.width)]
                fixes.now_s.withUnsafeBufferPointer { time in
                    fixes.distance_m.withUnsafeBufferPointer { dist in
                        (key.timestamps ? fixes.timestamp_s : fixes.now_s).withUnsafeBufferPointer { stamp in
                            SweepScan.lanes(
                                time_s: time, stamp_s: stamp, distance_m: dist,
                                SweepLanes(chunk.lazy.map { ScanRule(items[$0].point) }), into: &scratch.laneChanges)
                        }
                    }
                }
                for (l, k) in chunk.enumerated() {
                    let it = items[k]
                    do {
                        results[k] = try scoreRaw(
                            item: it.item, settings: settings, sampling: it.sampling, notify: it.notify,
                            observed: scratch.laneChanges[l], truth: scratch.truths[truthSlot[k]], scratch: &scratch)
                    } catch { fail(k, error) }
                }
            }
        }
        if let firstError { throw firstError.error }
        for r in results {
            guard let r else { preconditionFailure("SweepDrive: every item is evaluated") }
            records.append(r)
        }
    }

    /// A point whose fence decides on a filter's estimate (`kalman`, `imm`): the filter and the
    /// monitor run over the delivered fixes (`FenceDecisions.observe`); the truth is the same as
    /// for raw input (the place and the rule on the noiseless track).
    func evaluateFiltered(
        _ point: SweepPoint, item: Int, settings: EvaluationSettings, rule: ScanRule, sampling: Int,
        notify: NotificationPolicy?, scratch: inout SweepScratch
    ) throws -> SweepRecord {
        let d = deliveries[sampling]
        var local = settings
        local.engine = nil
        let underTest: RuleUnderTest<AnyFenceRule>
        do { underTest = try RuleUnderTest(spec: point.rule, input: point.fenceInput) } catch {
            throw RunError.invalidRule(file: scenario, reason: "\(error)")
        }
        let observed = try FenceDecisions.observe(
            fixes: d.fixes, now_s: d.now_s, center: center, rule: underTest, settings: local,
            scenario: scenario, replicate: replicate, compareModels: false)
        let t = truthTransitions(rule, scratch: &scratch)
        let flutter: FlutterMetrics
        let visits: VisitMetrics
        do {
            flutter = try Flutter.measure(
                truth: scratch.truths[t], observed: Flutter.transitions(of: observed.states),
                window_s: settings.window_s, buffers: &scratch.flutterBuffers)
            visits = try Visits.measure(
                truth: trueVisits, observed: Visits.observedVisits(of: observed.states, end_s: duration_s),
                duration_s: duration_s, matchSlack_s: settings.matchSlack_s, buffers: &scratch.visitBuffers)
        } catch { throw RunError.metrics(scenario: scenario, error) }
        var r = record(item: item, flutter: flutter, visits: visits, sampling: sampling)
        r.filterRMSE_m = d.filterRMSE_m[point.fenceInput]
        if let notify {
            try scoreNotifications(
                notify, changes: NotificationMetrics.changes(of: observed.states), settings: settings, into: &r)
        }
        return r
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
        // The lane rules by gate (as `evaluate(_ items:…)` groups them), in order of first appearance.
        var lanes: [[ScanRule]] = []
        var laneGates: [Int] = []
        for point in points {
            let rule = ScanRule(point)
            let gate = scratch.acceptedIndex(
                self, sampling: 0, maxAccuracy_m: rule.maxAccuracy_m, maxAge_s: maxAge_s, timestamps: rule.confirm_s > 0
            )
            if SweepScan.inLanes(rule) {
                if let g = laneGates.firstIndex(of: gate) {
                    lanes[g].append(rule)
                } else {
                    laneGates.append(gate)
                    lanes.append([rule])
                }
                continue
            }
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
        for (g, rules) in lanes.enumerated() {
            let fixes = scratch.accepted[laneGates[g]]
            for start in stride(from: 0, to: rules.count, by: SweepLanes.width) {
                let chunk = rules[start..<min(rules.count, start + SweepLanes.width)]
                fixes.now_s.withUnsafeBufferPointer { time in
                    fixes.distance_m.withUnsafeBufferPointer { dist in
                        (chunk.first!.confirm_s > 0 ? fixes.timestamp_s : fixes.now_s).withUnsafeBufferPointer {
                            stamp in
                            SweepScan.lanes(
                                time_s: time, stamp_s: stamp, distance_m: dist, SweepLanes(chunk),
                                into: &scratch.laneChanges)
                        }
                    }
                }
                for l in chunk.indices { total += scratch.laneChanges[l - start].count }
            }
        }
        return total
    }
}

/// One work item of a drive: a grid point with its item index, its sampling policy (an index
/// into the drive's `deliveries`) and the notification policy scored with it.
package struct SweepItem: Sendable {
    package var point: SweepPoint
    package var item: Int
    package var sampling: Int
    package var notify: NotificationPolicy?

    package init(point: SweepPoint, item: Int, sampling: Int = 0, notify: NotificationPolicy? = nil) {
        self.point = point
        self.item = item
        self.sampling = sampling
        self.notify = notify
    }
}

/// What the app is given under one sampling policy on one drive: the scan's arrays, the fixes
/// themselves for filtered inputs, the filters' errors and the cost.
struct SweepDeliveries: Sendable {
    /// Delivered fixes as the scan reads them: times, distances and gate inputs, computed once.
    let fixArrays: SweepFixArrays
    /// The delivered fixes and their delivery times, kept only when the grid has a filtered input.
    let fixes: [Fix]
    let now_s: [Double]
    /// RMSE of each filtered input of the grid on these fixes (`FilterScore`).
    let filterRMSE_m: [FenceInput: Double]
    /// Fixes and wake-ups per hour.
    let cost: CostMetrics
}

/// The key of a scratch's accepted fixes: a sampling policy and an accuracy gate.
struct GateKey: Hashable {
    var sampling: Int
    /// Whether the fixes' own times are kept (a time confirmation needs them).
    var timestamps: Bool
    var maxAccuracy_m: Double
}

/// The rule of a truth scan without the accuracy gate (truth has accuracy 0).
struct TruthKey: Hashable {
    var kind: SweepRuleKind
    var enter_m: Double
    var exit_m: Double
    var confirm_n: Int
    var confirm_s: Double

    init(_ rule: ScanRule) {
        kind = rule.kind
        enter_m = rule.enter_m
        exit_m = rule.exit_m
        confirm_n = rule.confirm_n
        confirm_s = rule.confirm_s
    }

    /// The truth scan's rule (no gate).
    var rule: ScanRule {
        ScanRule(
            kind: kind, enter_m: enter_m, exit_m: exit_m, maxAccuracy_m: .infinity, confirm_n: confirm_n,
            confirm_s: confirm_s)
    }
}

/// Buffers and per-drive caches of the sweep's inner loop, reused across the points of a drive
/// (reset when given another drive).
package struct SweepScratch: Sendable {
    var observed: [StateChange] = []
    /// The changes of each lane of a `SweepScan.lanes` pass.
    var laneChanges = [[StateChange]](repeating: [], count: SweepLanes.width)
    /// A point's observed transitions and visits (`SweepDrive.scoreRaw`).
    var observedTransitions: [Transition] = []
    var observedVisits: [Visit] = []
    /// The arrays transition matching and visit scoring work in, point after point.
    var flutterBuffers = Flutter.Buffers()
    var visitBuffers = Visits.Buffers()
    /// True transitions of the rules seen on the drive (the gate never matters for truth), by
    /// rule: each computed once per drive, up to `maxCachedTruths` of them at a time.
    var truthKeys: [TruthKey: Int] = [:]
    var truths: [[Transition]] = []
    /// Accepted fixes per (sampling policy, accuracy gate) (a grid has a handful), and the keys.
    var accepted: [AcceptedFixes] = []
    var gates: [GateKey] = []
    var drive: (scenario: String, replicate: Int, maxAge_s: Double)?
    /// The records of `SweepDrive.evaluate(_ items:…)` by item, before they go out in order.
    var results: [SweepRecord?] = []
    package init() {}

    /// Most true-transition lists kept per drive: the cache is emptied when it is full, so a grid
    /// of a million settings holds at most this many lists (a few tens of transitions each).
    static let maxCachedTruths = 16_384

    mutating func prepare(for drive: SweepDrive, maxAge_s: Double) {
        if let d = self.drive, d.scenario == drive.scenario, d.replicate == drive.replicate, d.maxAge_s == maxAge_s {
            return
        }
        self.drive = (drive.scenario, drive.replicate, maxAge_s)
        gates.removeAll()
        accepted.removeAll()
        // The rule cache keeps its capacity from drive to drive: grown afresh per drive it was
        // resized eight times on the 142-point grid (0.9 % of that sweep's instructions).
        truthKeys.removeAll(keepingCapacity: true)
        truths.removeAll(keepingCapacity: true)
    }

    func truthIndex(_ key: TruthKey) -> Int? { truthKeys[key] }

    /// Makes room for `count` more true-transition lists without emptying the cache on the way.
    mutating func reserveTruths(_ count: Int) {
        if truths.count + count > Self.maxCachedTruths {
            truthKeys.removeAll(keepingCapacity: true)
            truths.removeAll(keepingCapacity: true)
        }
        truthKeys.reserveCapacity(Swift.min(truths.count + count, Self.maxCachedTruths))
    }

    /// Appends the list of a key that already names its position (claimed in `truthKeys`).
    mutating func appendClaimedTruth(_ transitions: [Transition]) -> Int {
        truths.append(transitions)
        return truths.count - 1
    }

    mutating func addTruth(_ key: TruthKey, _ transitions: [Transition]) -> Int {
        if truths.count >= Self.maxCachedTruths { reserveTruths(1) }
        truthKeys[key] = truths.count
        truths.append(transitions)
        return truths.count - 1
    }

    mutating func acceptedIndex(
        _ drive: SweepDrive, sampling: Int, maxAccuracy_m: Double, maxAge_s: Double, timestamps: Bool
    ) -> Int {
        let key = GateKey(sampling: sampling, timestamps: timestamps, maxAccuracy_m: maxAccuracy_m)
        if let k = gates.firstIndex(of: key) { return k }
        var fixes = AcceptedFixes()
        SweepScan.accepted(
            drive.deliveries[sampling].fixArrays, maxAccuracy_m: maxAccuracy_m, maxAge_s: maxAge_s,
            timestamps: timestamps, into: &fixes)
        gates.append(key)
        accepted.append(fixes)
        return accepted.count - 1
    }
}
