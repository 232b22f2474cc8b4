import Foundation
import GSLKit
import Testing
import _TestSupport

@testable import FenceLab
@testable import FenceLabSweep

/// One recommendation for a weighted mix, scored against the place.
@Suite(.serialized) struct SweepMixTests {
    /// Two short scenarios around a 100 m place: a car parked 115 m out (no true visit) and a
    /// drive that parks 40 m from the centre (one true visit). A tiny fence (enter 10 m) never fires
    /// next to the parked car, so it wins that scenario alone, but it misses the visit.
    static func writeScenarios(_ root: URL) throws {
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let common = """
            "rulesVersion": "hysteresis-80-120-acc30", "replicates": 4,
            "fence": {"center": [52.52, 13.405], "rule": {"kind": "hysteresis", "enter_m": 80, "exit_m": 120, "maxAccuracy_m": 30}},
            "place": {"radius_m": 100},
            "sampling": {"rate_hz": 1, "duration_s": 900},
            "accuracy": {"model": "drms"}
            """
        let parked = """
            {"name": "parked-outside", "description": "parked 115 m out", "seed": 41, "weight": 3, \(common),
             "route": {"kind": "stationary", "distance_m": 115, "bearing_deg": 90},
             "noise": {"model": "gaussian", "sigma_m": 8}}
            """
        let driveIn = """
            {"name": "drive-in", "description": "drives in, parks 40 m from the centre", "seed": 42, \(common),
             "route": {"kind": "waypoints", "points": [[52.52, 13.39], [52.52, 13.40441]],
                       "speed": {"profile": "accelerate-cruise-brake", "cruise_kmh": 40, "accel_mps2": 1.5, "brake_mps2": 2}},
             "noise": {"model": "gaussian", "sigma_m": 6}}
            """
        try Data(parked.utf8).write(to: root.appendingPathComponent("parked-outside.json"))
        try Data(driveIn.utf8).write(to: root.appendingPathComponent("drive-in.json"))
    }

    static func request(_ root: URL, shard: Shard? = nil) throws -> SweepRequest {
        let grid = try SweepGrid(
            kind: .hysteresis, enter: SweepRange(parsing: "10:100:30", option: "--enter"),
            exit: SweepRange(parsing: "110:170:30", option: "--exit"), maxAccuracy: [30], confirm: [1, 2])
        var r = SweepRequest(grid: grid)
        r.paths = [root.path]
        r.shard = shard
        r.jobs = 2
        return r
    }

    @Test func degenerateSmallFenceLosesTheMixAndShardsAgree() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-mix-\(getpid())")
        try? FileManager.default.removeItem(at: root)
        defer { try? FileManager.default.removeItem(at: root) }
        let scenarios = root.appendingPathComponent("scenarios")
        try Self.writeScenarios(scenarios)
        let whole = try #require(
            try SweepJob.sweep(try Self.request(scenarios), out: root.appendingPathComponent("whole").path).summary)
        let m = whole.manifest
        let mix = whole.mix
        let parked = try #require(whole.scenarios.first { $0.scenario.name == "parked-outside" })
        let driveIn = try #require(whole.scenarios.first { $0.scenario.name == "drive-in" })
        #expect(parked.scenario.weight == 3 && driveIn.scenario.weight == 1)

        // Per scenario, the tiny fence would win the parked car: no unwanted visit at all …
        let tiny = try #require(m.points.indices.first { m.points[$0].enter_m == 10 })
        #expect(parked.cells[tiny].visits.unwantedPerHour == 0)
        #expect(parked.cells.allSatisfy { $0.visits.unwantedPerHour >= parked.cells[tiny].visits.unwantedPerHour })
        // … but it misses the visit, so it fails the recall constraint and is not recommended.
        #expect(try #require(driveIn.cells[tiny].visits.recall).mean < m.minRecall)
        #expect(!mix.points[tiny].feasible)

        let r = try #require(mix.recommended, "\(mix.reasons)")
        #expect(r != tiny)
        let v = driveIn.cells[r].visits
        #expect(try #require(v.recall).mean >= m.minRecall)
        #expect(try #require(v.lateEntryP95_s).mean <= m.maxLatency_s)
        #expect(mix.points[r].matchedVisits > 0)
        #expect(mix.frontier.contains(r), "recommended \(r) not on the mix frontier \(mix.frontier.sorted())")
        // Nothing feasible beats it on the objective.
        for p in mix.points where p.feasible { #expect(p.unwantedPerHour >= mix.points[r].unwantedPerHour) }
        // The objective is the weighted mean: recompute it from the cells.
        let expected = (3 * parked.cells[r].visits.unwantedPerHour + driveIn.cells[r].visits.unwantedPerHour) / 4
        #expect(isClose(mix.points[r].unwantedPerHour, expected, absoluteTolerance: 1e-12))

        // Shards merge to the same recommendation and the same bytes.
        var folders: [String] = []
        for k in 0..<3 {
            let folder = root.appendingPathComponent("shard-\(k)").path
            _ = try SweepJob.sweep(try Self.request(scenarios, shard: try Shard(parsing: "\(k)/3")), out: folder)
            folders.append(folder)
        }
        let merged = try SweepJob.merge(folders: folders, out: root.appendingPathComponent("merged").path)
        #expect(merged.mix.recommended == r)
        for name in SweepOutput.fileNames {
            let a = try Data(contentsOf: root.appendingPathComponent("whole/\(name)"))
            let b = try Data(contentsOf: root.appendingPathComponent("merged/\(name)"))
            #expect(a == b, "\(name) differs after merging shards")
        }
    }

    /// Weights from `--weight` override the file, and an unknown name is refused before any work.
    @Test func weightOverridesAndUnknownNames() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-mix-w-\(getpid())")
        try? FileManager.default.removeItem(at: root)
        defer { try? FileManager.default.removeItem(at: root) }
        try Self.writeScenarios(root)
        var request = try Self.request(root)
        request.weights = ["drive-in": 5]
        let plan = try SweepPlan.prepare(request)
        #expect(plan.manifest.scenarios.map(\.weight) == [5, 3])
        request.weights = ["nosuch": 1]
        #expect(throws: SweepError.unknownWeightScenario(name: "nosuch", known: ["drive-in", "parked-outside"])) {
            try SweepPlan.prepare(request)
        }
    }

    /// A mix without any true visit recommends nothing (a fence that never fires would win).
    @Test func noTrueVisitAnywhereRecommendsNothing() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-mix-none-\(getpid())")
        try? FileManager.default.removeItem(at: root)
        defer { try? FileManager.default.removeItem(at: root) }
        try Self.writeScenarios(root)
        try FileManager.default.removeItem(at: root.appendingPathComponent("drive-in.json"))
        let s = try #require(
            try SweepJob.sweep(try Self.request(root), out: root.appendingPathComponent("out").path).summary)
        #expect(s.mix.recommended == nil)
        #expect(s.mix.reasons.first?.contains("no scenario has a true visit") == true)
    }

    /// Constraints nothing meets: no recommendation, the outputs say so and list the closest
    /// settings, none of which misses every visit.
    @Test func impossibleConstraintsListTheClosestSettings() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-mix-tight-\(getpid())")
        try? FileManager.default.removeItem(at: root)
        defer { try? FileManager.default.removeItem(at: root) }
        try Self.writeScenarios(root)
        // Small enter radii only: the drive-in is noticed after the true entry (latency > 0) or not at all.
        let grid = try SweepGrid(
            kind: .hysteresis, enter: SweepRange(parsing: "10:40:30", option: "--enter"),
            exit: SweepRange(parsing: "110:170:30", option: "--exit"), maxAccuracy: [30], confirm: [1, 2])
        var request = SweepRequest(grid: grid)
        request.paths = [root.path]
        request.maxLatency_s = 0
        request.minRecall = 1
        let s = try #require(try SweepJob.sweep(request, out: root.appendingPathComponent("out").path).summary)
        #expect(s.mix.recommended == nil)
        #expect(!s.mix.closest.isEmpty && s.mix.closest.count <= 5)
        for id in s.mix.closest {
            #expect(s.mix.points[id].matchedVisits > 0)
            #expect(!s.mix.points[id].violations.isEmpty)
        }
        #expect(
            s.mix.reasons.first?.hasPrefix("No setting meets recall ≥ 1 and p95 entry latency ≤ 0 s") == true,
            "\(s.mix.reasons)")
        let md = SweepOutput.markdown(s)
        #expect(md.contains("No recommended setting.") && md.contains("| closest |"))
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(SweepOutput.json(s).utf8)) as? [String: Any])
        let rec = try #require(json["recommendation"] as? [String: Any])
        #expect(rec["point"] is NSNull)
        #expect((rec["closest"] as? [Any])?.count == s.mix.closest.count)
    }
}
