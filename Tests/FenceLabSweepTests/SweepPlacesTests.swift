import DriveSim
import FenceLab
import FenceLabSweep
import Foundation
import GeoPolicy
import Testing

/// Sweeps over place sets: the monitoring axis, the per-place constraint and its binding places,
/// agreement with `fencelab run` at the scenario's own setting, and independence of `jobs`.
@Suite struct SweepPlacesTests {
    static let tolerance = 1e-12

    /// A 1.2 km walk past 12 places 100 m apart (12 m places, the rule 15/30 m for all of them).
    static func scenario(monitoring: String, suffix: String) -> String {
        #"""
        {"name":"walk","description":"d","rulesVersion":"hysteresis-15-30-acc30\#(suffix)","seed":7,"replicates":3,
         "fence":{"center":[52.5,13.4],"rule":{"kind":"hysteresis","enter_m":15,"exit_m":30,"maxAccuracy_m":30}},
         "places":{"generate":{"kind":"grid","origin":[52.5,13.4],"bearing_deg":90,"rows":1,"columns":12,
                               "spacing_m":100,"radius_m":12},
                   "monitoring":"\#(monitoring)"},
         "route":{"kind":"tour","speed_kmh":5,"stops":[{"place":"shop-01","dwell_s":0},{"place":"shop-12"}]},
         "sampling":{"rate_hz":1,"duration_s":1000},
         "noise":{"model":"gaussian","sigma_m":3},
         "accuracy":{"model":"drms"}}
        """#
    }

    static func prepared(_ text: String) throws -> (PreparedScenario, URL) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sweep-places-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent("walk.json")
        try text.write(to: file, atomically: true, encoding: .utf8)
        var run = RunRequest()
        run.paths = [file.path]
        return (try ScenarioRunner.prepare(run)[0], dir)
    }

    /// The "all" scenario on a 2 × 2 grid with budgets 2 and all, refreshed every 100 s, and the
    /// folder to remove.
    static func budgetRequest() throws -> (SweepPlacesRequest, URL) {
        let (scenario, dir) = try prepared(scenario(monitoring: "all", suffix: ""))
        let request = SweepPlacesRequest(
            scenario: scenario, grid: try grid(enter: "10:15:5", exit: "25:30:5"),
            strategies: try SweepPlacesAxis.strategies(budget: "2,all", refresh: "100"))
        return (request, dir)
    }

    static func grid(enter: String = "15:15:1", exit: String = "30:30:1") throws -> SweepGrid {
        try SweepGrid(parsing: .hysteresis, enter: enter, exit: exit, maxAccuracy: nil, confirm: nil, limit: nil)
    }

    @Test func monitoringAxisParses() throws {
        let s = try SweepPlacesAxis.strategies(budget: "all,20,20", refresh: "50,150")
        #expect(s == [.all, .nearest(count: 20, refresh_m: 50), .nearest(count: 20, refresh_m: 150)])
        #expect(try SweepPlacesAxis.strategies(budget: nil, refresh: nil) == nil)
        #expect(throws: SweepPlacesError.invalidBudget(value: 0)) {
            try SweepPlacesAxis.strategies(budget: "0", refresh: "50")
        }
        #expect(throws: SweepPlacesError.invalidBudget(value: -3)) {
            try SweepPlacesAxis.strategies(budget: "-3", refresh: "50")
        }
        #expect(throws: SweepPlacesError.invalidRefresh(value_m: 0)) {
            try SweepPlacesAxis.strategies(budget: "5", refresh: "0")
        }
        #expect(throws: SweepPlacesError.invalidRefresh(value_m: -1)) {
            try SweepPlacesAxis.strategies(budget: "5", refresh: "10,-1")
        }
        #expect(throws: SweepPlacesError.budgetWithoutRefresh) {
            try SweepPlacesAxis.strategies(budget: "5", refresh: nil)
        }
        #expect(throws: SweepPlacesError.malformedBudget(text: "5x")) {
            try SweepPlacesAxis.strategies(budget: "5x", refresh: "10")
        }
        #expect(SweepPlacesError.malformedBudget(text: "").isUsage && !SweepPlacesError.invalidBudget(value: 0).isUsage)
    }

    /// At the scenario's own rule and strategy the sweep's figures are those `fencelab run` reports.
    @Test func ownSettingMatchesTheRun() throws {
        let (scenario, dir) = try Self.prepared(
            Self.scenario(monitoring: "nearest:3+refresh:400", suffix: "+nearest3-refresh400"))
        defer { try? FileManager.default.removeItem(at: dir) }
        let summary = try SweepPlaces.run(
            SweepPlacesRequest(scenario: scenario, grid: try Self.grid(), strategies: nil))
        var run = RunRequest()
        run.paths = [scenario.path]
        run.jobs = 1
        let report = try ScenarioRunner.run(try ScenarioRunner.prepare(run), request: run)
        let m = report.scenarios[0].metrics
        let p = try #require(summary.points.first { $0.point.rule.isSeedReference == false })
        #expect(p.point.monitoring == .nearest(count: 3, refresh_m: 400))
        let recall = try #require(m.estimate("places.recall"))
        #expect(abs((p.recall?.mean ?? -1) - recall.mean) < Self.tolerance)
        let unwanted =
            (m.estimate("places.falsePerHour")?.mean ?? -1) + (m.estimate("places.fragmentsPerHour")?.mean ?? -1)
        #expect(abs(p.unwantedPerHour.mean - unwanted) < 1e-9)  // per hour
        #expect(abs(p.swapsPerHour.mean - (m.estimate("places.swapsPerHour")?.mean ?? -1)) < 1e-9)  // per hour
        #expect(abs(p.oscillationsPerHour.mean - (m.estimate("places.oscillationsPerHour")?.mean ?? -1)) < 1e-9)
        #expect(p.places.reduce(0) { $0 + $1.trueVisits } == 36)  // 12 places × 3 replicates
    }

    /// A refresh radius far beyond the walk misses places it never registers (notMonitored) and
    /// fails the worst-place constraint, naming those places; 50 m refreshes meet it.
    @Test func budgetAxisNamesTheBindingPlaces() throws {
        let (scenario, dir) = try Self.prepared(Self.scenario(monitoring: "all", suffix: ""))
        defer { try? FileManager.default.removeItem(at: dir) }
        let strategies = try #require(try SweepPlacesAxis.strategies(budget: "3,all", refresh: "50,5000"))
        var request = SweepPlacesRequest(scenario: scenario, grid: try Self.grid(), strategies: strategies)
        request.minRecall = 0.9
        let summary = try SweepPlaces.run(request)
        func point(_ m: MonitoringStrategy) throws -> SweepPlacePointSummary {
            try #require(summary.points.first { $0.point.monitoring == m && !$0.point.rule.isSeedReference })
        }
        let far = try point(.nearest(count: 3, refresh_m: 5000))
        let near = try point(.nearest(count: 3, refresh_m: 50))
        let all = try point(.all)
        #expect((far.notMonitoredShare ?? 0) > 0.9)
        #expect(!far.meets)
        // Only the 3 places nearest the start are ever registered: the 9 others bind.
        #expect(far.binding.count == 9)
        #expect(far.binding.allSatisfy { far.places[$0].recall == 0 })
        #expect(near.meets && all.meets)
        #expect(near.swapsPerHour.mean > 10 && all.swapsPerHour.mean == 0)  // per hour
        let chosen = try #require(summary.recommended)
        #expect(summary.points[chosen].meets)
        #expect(!summary.frontier.isEmpty && summary.frontier.contains(chosen))
        let csv = String(decoding: SweepPlacesOutput.files(summary)[1].bytes, as: UTF8.self)
        let farRow = try #require(csv.split(separator: "\n").first { $0.hasPrefix("\(far.id),") })
        #expect(farRow.hasSuffix(far.binding.map { summary.placeNames[$0] }.joined(separator: ";")))
    }

    /// The weighted constraint lets a point through whose weighted recall meets the bound while a
    /// place does not.
    @Test func weightedConstraintDiffersFromWorst() throws {
        let (scenario, dir) = try Self.prepared(
            Self.scenario(monitoring: "nearest:3+refresh:400", suffix: "+nearest3-refresh400"))
        defer { try? FileManager.default.removeItem(at: dir) }
        var request = SweepPlacesRequest(scenario: scenario, grid: try Self.grid(), strategies: nil)
        request.minRecall = 0.5
        let worst = try SweepPlaces.run(request)
        request.constraint = .weighted
        let weighted = try SweepPlaces.run(request)
        for (a, b) in zip(worst.points, weighted.points) {
            let r = try #require(a.recall?.mean)
            #expect(b.meets == (r >= 0.5))
            #expect(a.meets == ((a.worstRecall ?? 0) >= 0.5))
        }
    }

    /// The files do not depend on the number of threads.
    @Test func jobsDoNotChangeTheFiles() throws {
        let (request0, dir) = try Self.budgetRequest()
        defer { try? FileManager.default.removeItem(at: dir) }
        var request = request0
        request.jobs = 1
        let one = SweepPlacesOutput.files(try SweepPlaces.run(request))
        request.jobs = 2
        let two = SweepPlacesOutput.files(try SweepPlaces.run(request))
        #expect(one.map(\.name) == two.map(\.name))
        for (a, b) in zip(one, two) { #expect(a.bytes == b.bytes, "\(a.name)") }
    }

    /// A record's line reads back to the same figures (sparse places, the hours exactly), and a
    /// malformed line is refused naming the file, the line and the key.
    @Test func recordLinesReadBackExactly() throws {
        var figures = [PlaceFigures](repeating: PlaceFigures(), count: 5)
        figures[1] = PlaceFigures(trueVisits: 2, matchedVisits: 1, falseVisits: 3, ruleMissed: 1)
        figures[4] = PlaceFigures(fragments: 1, attributionErrors: 1, orderingErrors: 2, notMonitored: 7)
        let weights = [1, 0.3, 2, 1, 1.0 / 3]
        let metrics = PlaceSetMetrics(
            perPlace: figures, weights: weights, oscillations: 4, trueOscillations: 1, driveHours: 700.0 / 3600,
            swaps: 9)
        let record = SweepPlacesRecord(item: 17, metrics: metrics)
        #expect(!record.jsonLine.contains("[0,") && !record.jsonLine.contains("[2,"), "only places with figures")
        let back = try SweepPlacesRecord(parsing: record.jsonLine, weights: weights, file: "items.jsonl", line: 3)
        #expect(back == record)
        #expect(record.jsonLine.hasSuffix("\"}") && record.jsonLine.contains(",\"sum\":\""))
        let changed = record.jsonLine.replacingOccurrences(of: "\"swaps\":9", with: "\"swaps\":8")
        do {
            _ = try SweepPlacesRecord(parsing: changed, weights: weights, file: "items.jsonl", line: 2)
            Issue.record("a changed value with the old sum was read")
        } catch {
            #expect("\(error)".hasPrefix("items.jsonl: line 2: sum "), "\(error)")
        }
        let bad = record.jsonLine.replacingOccurrences(of: "\"swaps\":9", with: "\"swaps\":-1")
        #expect(throws: SweepError.self) {
            try SweepPlacesRecord(parsing: bad, weights: weights, file: "items.jsonl", line: 3)
        }
        do {
            _ = try SweepPlacesRecord(parsing: bad, weights: weights, file: "items.jsonl", line: 3)
        } catch {
            #expect("\(error)".hasPrefix("items.jsonl: line 3: swaps:"), "\(error)")
        }
        let outside = record.jsonLine.replacingOccurrences(of: "[4,", with: "[5,")
        #expect(throws: SweepError.self) {
            try SweepPlacesRecord(parsing: outside, weights: weights, file: "items.jsonl", line: 1)
        }
    }

    /// Three shards' records, in any order of evaluation, make the summary of the whole run.
    @Test func shardsCoverEveryItemOnceAndMakeTheWholeSummary() throws {
        let (request0, dir) = try Self.budgetRequest()
        defer { try? FileManager.default.removeItem(at: dir) }
        var request = request0
        request.jobs = 2
        let whole = try SweepPlaces.run(request)
        var folders: [String] = []
        for k in [2, 0, 1] {
            let shard = Shard(index: k, count: 3)
            let (set, records) = try SweepPlaces.evaluate(request, shard: shard)
            #expect(records.allSatisfy { shard.owns($0.item) })
            #expect(records.map(\.item) == records.map(\.item).sorted())
            let folder = dir.appendingPathComponent("s\(k)").path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for file in SweepPlacesShard.files(SweepPlacesManifest(request, set: set, shard: shard), records) {
                try Data(file.bytes).write(to: URL(fileURLWithPath: folder).appendingPathComponent(file.name))
            }
            folders.append(folder)
        }
        let merged = try SweepPlacesShard.load(folders: folders)
        #expect(merged == whole)
        #expect(throws: SweepError.self) { try SweepPlacesShard.load(folders: Array(folders.prefix(2))) }
    }
}
