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
        let (scenario, dir) = try Self.prepared(Self.scenario(monitoring: "all", suffix: ""))
        defer { try? FileManager.default.removeItem(at: dir) }
        var request = SweepPlacesRequest(
            scenario: scenario, grid: try Self.grid(enter: "10:15:5", exit: "25:30:5"),
            strategies: try SweepPlacesAxis.strategies(budget: "2,all", refresh: "100"))
        request.jobs = 1
        let one = SweepPlacesOutput.files(try SweepPlaces.run(request))
        request.jobs = 2
        let two = SweepPlacesOutput.files(try SweepPlaces.run(request))
        #expect(one.map(\.name) == two.map(\.name))
        for (a, b) in zip(one, two) { #expect(a.bytes == b.bytes, "\(a.name)") }
    }
}
