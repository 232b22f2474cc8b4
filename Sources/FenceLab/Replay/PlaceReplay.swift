import DeviceLogKit
import DriveSim
import GeoPolicy
import _FenceLabSupport

/// The places a replay watches (`--places FILE`, `--monitoring SPEC`): read by the scenario key
/// `places.file`'s reader, so a file that a scenario accepts a replay accepts too.
package struct ReplayPlaces: Sendable, Hashable {
    /// The place file as given.
    package var file: String
    /// The places in file order; names are unique.
    package var places: [NamedPlace]
    /// Which places the app registers with the OS (default `all`).
    package var monitoring: MonitoringStrategy

    package init(file: String, places: [NamedPlace], monitoring: MonitoringStrategy = .all) {
        self.file = file
        self.places = places
        self.monitoring = monitoring
    }

    /// Reads a place file (CSV `name,lat,lon,radius_m[,enter_m,exit_m][,weight]` or GeoJSON points)
    /// for `rule`: a place's own `enter_m`/`exit_m` must suit the rule's kind.
    /// - Throws: `ScenarioError` naming the file, line and key (duplicate names, radius ≤ 0 or
    ///   non-finite, more than `PlaceSetSpec.maxPlaces` places, …).
    package static func load(
        path: String, rule: RuleSpec, monitoring: MonitoringStrategy = .all
    ) throws(ScenarioError) -> ReplayPlaces {
        ReplayPlaces(
            file: path, places: try PlaceSetSpec.read(file: path, rule: rule.fenceRuleSpec), monitoring: monitoring)
    }
}

extension RuleSpec {
    /// The scenario-file form of the rule (its kind and radii; confirmation and input are not
    /// needed to check a place file's radii).
    var fenceRuleSpec: FenceRuleSpec {
        switch self {
        case .hysteresis(let e, let x, let a, _):
            return FenceRuleSpec(kind: .hysteresis(enter_m: e, exit_m: x, maxAccuracy_m: a))
        case .threshold(let r, _): return FenceRuleSpec(kind: .threshold(radius_m: r))
        case .conservative(let r, _): return FenceRuleSpec(kind: .conservative(radius_m: r))
        }
    }

    /// The rule for one place: this rule with the place's radii when it has its own.
    func forPlace(_ place: NamedPlace) -> RuleSpec {
        guard let e = place.enter_m, let x = place.exit_m else { return self }
        switch self {
        case .hysteresis(_, _, let a, let c):
            return .hysteresis(enter_m: e, exit_m: x, maxAccuracy_m: a, confirmation: c)
        case .threshold(_, let c): return .threshold(radius_m: e, confirmation: c)
        case .conservative(_, let c): return .conservative(radius_m: e, confirmation: c)
        }
    }
}

/// Why a device log cannot be replayed against its places (or against one fence).
package enum PlaceReplayError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An event of a log replayed with `--places` names no place.
    case eventWithoutPlace(file: String, line: Int)
    /// An event names a place the place file does not hold.
    case unknownPlace(file: String, line: Int, place: String, placeFile: String)
    /// An event names a place, but the log is replayed against one fence (`--fence`).
    case placeWithOneFence(file: String, line: Int, place: String)
    /// The rule (or a place's radii) cannot run.
    case rule(String)

    package var description: String {
        func shown(_ s: String) -> String { ShownText.shown(s, limit: 40) }
        switch self {
        case .eventWithoutPlace(let f, let l):
            return
                "\(f):\(l): place: the event names no place (a log replayed with --places needs one per event)"
        case .unknownPlace(let f, let l, let p, let pf):
            return "\(f):\(l): place: \"\(shown(p))\" is not a place of \(pf)"
        case .placeWithOneFence(let f, let l, let p):
            return
                "\(f):\(l): place: the event names place \"\(shown(p))\"; replay a log of many places with --places FILE, not --fence"
        case .rule(let m): return m
        }
    }
}

/// One place's share of a replay: its events and the divergences classified for it.
package struct PlaceDivergenceCount: Sendable, Hashable {
    /// The place's position in the place file and its name.
    package var index: Int
    package var name: String
    /// System events naming the place, and how many matched an engine transition.
    package var events: Int
    package var matched: Int
    /// Divergences per class, in `DivergenceClass.allCases` order.
    package var counts: [Int]
    /// Divergences of a failing class.
    package var failing: Int

    package func count(_ kind: DivergenceClass) -> Int {
        DivergenceClass.allCases.firstIndex(of: kind).map { counts[$0] } ?? 0
    }
    /// Every divergence of the place.
    package var total: Int { counts.reduce(0, +) }
}

/// The per-place side of a replay with `--places` (docs/report-format.md, `places`).
package struct PlaceReplaySummary: Sendable, Hashable {
    /// How many places the reports list one by one (the worst first).
    package static let worstShown = 20

    /// The place file as given, its number of places, the monitoring strategy, and the swaps of
    /// the registered set (refreshes that changed it).
    package var file: String
    package var placeCount: Int
    package var monitoring: String
    package var swaps: Int
    /// Every place with an event or a divergence, in place-file order.
    package var perPlace: [PlaceDivergenceCount]

    /// Places with a divergence of a failing class.
    package var placesFailing: Int { perPlace.reduce(0) { $0 + ($1.failing > 0 ? 1 : 0) } }

    /// The places listed in report.md and the HTML page: most failing divergences first, then
    /// most divergences, then place-file order; at most `worstShown`.
    package var worst: [PlaceDivergenceCount] {
        let ranked = perPlace.filter { $0.total > 0 }.sorted {
            ($1.failing, $1.total, $0.index) < ($0.failing, $0.total, $1.index)
        }
        return Array(ranked.prefix(Self.worstShown))
    }

    /// The summary line: places, strategy, swaps, places failing.
    package var line: String {
        "Places \(file): \(placeCount) places, monitoring \(monitoring), \(swaps) swaps; "
            + "\(perPlace.count) with events or divergences, \(placesFailing) with a failing divergence"
    }

    /// One line of a place: `NAME: E events, M matched; class n, …` (the classes with a count).
    package func line(_ p: PlaceDivergenceCount) -> String {
        let classes = DivergenceClass.allCases.filter { p.count($0) > 0 }.map { "\($0.rawValue) \(p.count($0))" }
        return "\(p.name): \(p.events) events, \(p.matched) matched"
            + (classes.isEmpty ? "" : "; " + classes.joined(separator: ", "))
    }
}

extension DeviceReplay {
    /// Refuses a log whose events name places when it is replayed against one fence: any place
    /// in the app's own formats (CSV, JSON Lines: the `place` column exists for `--places`); in
    /// an OwnTracks log, whose transitions always name their region (`desc`), a second region
    /// (one region is the fence).
    /// - Throws: `PlaceReplayError.placeWithOneFence` naming the first such event's line.
    package static func checkOneFence(_ log: DeviceLog) throws(PlaceReplayError) {
        if log.format == .owntracks {
            guard let first = log.events.first(where: { $0.place != nil })?.place else { return }
            if let e = log.events.first(where: { $0.place != nil && $0.place != first }) {
                throw .placeWithOneFence(file: log.file, line: e.line, place: e.place ?? "")
            }
            return
        }
        if let e = log.events.first(where: { $0.place != nil }) {
            throw .placeWithOneFence(file: log.file, line: e.line, place: e.place ?? "")
        }
    }

    /// Replays the log against every place of `places`, each decided by its own monitor (the
    /// rule with the place's radii) on the fixes delivered while the place is registered
    /// (`places.monitoring`; a place registered again starts from a fresh monitor, as the OS
    /// forgets a removed region), and classifies each place's decisions against the events that
    /// name it. `divergences` holds every place's divergences in time order, their details
    /// prefixed with the place's name; `decisions`, `accepted` and `rejections` are the rule's
    /// on every fix (acceptance does not depend on the place).
    /// - Throws: `PlaceReplayError` for an event without a place or naming an unknown one, or an
    ///   invalid rule.
    package static func run(
        _ log: DeviceLog, places: ReplayPlaces, rule: RuleSpec = .default, input: FenceInput = .raw,
        maxAge_s: Double = defaultMaxAge_s, settings: DivergenceSettings = DivergenceSettings()
    ) throws(PlaceReplayError) -> DeviceReplayResult {
        var byName: [String: Int] = [:]
        byName.reserveCapacity(places.places.count)
        for (i, p) in places.places.enumerated() { byName[p.name] = i }
        var eventsOf: [Int: [Int]] = [:]
        for (e, event) in log.events.enumerated() {
            guard let name = event.place else { throw .eventWithoutPlace(file: log.file, line: event.line) }
            guard let p = byName[name] else {
                throw .unknownPlace(file: log.file, line: event.line, place: name, placeFile: places.file)
            }
            eventsOf[p, default: []].append(e)
        }
        let setup = FenceSetup(rule: rule, input: input)
        // The whole log through the rule at the first place: every fix's acceptance and reason.
        var result: DeviceReplayResult
        do {
            result = try run(
                DeviceLog(file: log.file, format: log.format, fixes: log.fixes, events: []),
                center: places.places[0].center, rule: rule,
                input: input, maxAge_s: maxAge_s, settings: settings)
        } catch { throw .rule("replay: \(error)") }
        let clock = ContinuousClock()
        let start = clock.now
        var budget = RegionBudget(strategy: places.monitoring, centers: places.places.map(\.center))
        let perPlace: [[EngineDecision]]
        do {
            if input.kind == .raw {
                let monitors = try places.places.map { p throws(FenceRuleError) in
                    try FenceMonitor(
                        center: p.center, evaluator: rule.forPlace(p).evaluator(), maxAge_s: maxAge_s, logging: .off)
                }
                perPlace = decide(monitors, &budget, log: log)
            } else {
                var monitors: [FilteredFenceMonitor<AnyFenceRule, Haversine>] = []
                monitors.reserveCapacity(places.places.count)
                for p in places.places {
                    let plain = try FenceMonitor(
                        center: p.center, evaluator: rule.forPlace(p).evaluator(), maxAge_s: maxAge_s, logging: .off)
                    guard let filtered = try? FilteredFenceMonitor(monitor: plain, input: input) else {
                        throw PlaceReplayError.rule("replay: input \(input) cannot run")
                    }
                    monitors.append(filtered)
                }
                perPlace = decide(monitors, &budget, log: log)
            }
        } catch let error as PlaceReplayError {
            throw error
        } catch { throw .rule("replay: \(error)") }

        var matched: [MatchedPair] = []
        var merged: [(divergence: Divergence, place: Int, order: Int)] = []
        var counts: [PlaceDivergenceCount] = []
        for p in places.places.indices {
            let own = eventsOf[p] ?? []
            guard !own.isEmpty || perPlace[p].contains(where: { $0.newState != $0.oldState }) else { continue }
            var s = settings
            if s.band_m == nil { s.band_m = rule.forPlace(places.places[p]).flutterBand }
            let report = DivergenceClassifier.classify(
                decisions: perPlace[p], events: own.map { log.events[$0] }, settings: s)
            let name = places.places[p].name
            for m in report.matched {
                matched.append(
                    MatchedPair(eventIndex: own[m.eventIndex], decisionIndex: m.decisionIndex, delay_s: m.delay_s))
            }
            var classCounts = Array(repeating: 0, count: DivergenceClass.allCases.count)
            for var d in report.divergences {
                d.eventIndex = d.eventIndex.map { own[$0] }
                d.relatedEventIndex = d.relatedEventIndex.map { own[$0] }
                d.detail = "place \(ShownText.shown(name, limit: 40)): " + d.detail
                classCounts[DivergenceClass.allCases.firstIndex(of: d.kind)!] += 1
                merged.append((d, p, merged.count))
            }
            if own.isEmpty && report.divergences.isEmpty { continue }
            counts.append(
                PlaceDivergenceCount(
                    index: p, name: name, events: own.count, matched: report.matched.count, counts: classCounts,
                    failing: report.failing.count))
        }
        func key(_ t: Double) -> Double { t.isNaN ? .infinity : t }
        merged.sort { (key($0.divergence.timestamp_s), $0.order) < (key($1.divergence.timestamp_s), $1.order) }
        matched.sort { ($0.eventIndex, $0.decisionIndex) < ($1.eventIndex, $1.decisionIndex) }
        var s = settings
        if s.band_m == nil { s.band_m = rule.flutterBand }
        result.divergences = DivergenceReport(matched: matched, divergences: merged.map(\.divergence), settings: s)
        result.eventCount = log.events.count
        result.ingest = log.ingest
        result.eventLines = log.events.map(\.line)
        result.notCovered = notCovered(log)
        result.rule = setup.description
        result.rulesVersion += places.monitoring.versionSuffix
        result.places = PlaceReplaySummary(
            file: places.file, placeCount: places.places.count, monitoring: places.monitoring.description,
            swaps: budget.swaps, perPlace: counts)
        let elapsed = (clock.now - start).components
        result.elapsed_s += Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
        return result
    }

    /// Fix by fix, as `replay` judges `now`: the budget chooses the registered places and only
    /// they decide on the fix; a place registered again starts from its fresh monitor. Returns
    /// each place's decisions (`EngineDecision.index` is the fix's index in the log).
    static func decide<D: FenceDeciding>(
        _ templates: [D], _ budget: inout RegionBudget, log: DeviceLog
    ) -> [[EngineDecision]] {
        var monitors = templates
        var decisions = [[EngineDecision]](repeating: [], count: templates.count)
        var before: [Int] = []
        before.reserveCapacity(budget.registered.count)
        var frontier_s = -Double.infinity
        for (i, logged) in log.fixes.enumerated() {
            let t = logged.fix.timestamp_s
            if t.isFinite { frontier_s = Swift.max(frontier_s, t) }
            let now = frontier_s.isFinite ? frontier_s : t
            before.removeAll(keepingCapacity: true)
            before.append(contentsOf: budget.registered)
            if budget.update(try? logged.fix.coordinate()) {
                for p in budget.registered where !before.contains(p) { monitors[p] = templates[p] }
            }
            for p in budget.registered {
                let d = monitors[p].process(logged.fix, now_s: now)
                decisions[p].append(
                    EngineDecision(
                        index: i, timestamp_s: t, oldState: d.oldState, newState: d.newState, rejection: d.rejection,
                        distance_m: d.distance_m, accuracy_m: d.accuracy_m))
            }
        }
        return decisions
    }
}
