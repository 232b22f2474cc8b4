import FenceLab
import Foundation
import Testing
import _TestSupport

@testable import FenceLabSweep
@testable import _FenceLabSupport

/// The passes over every point that run in runs of points on several threads (the aggregation in
/// `SweepSummary.make`, the rows of sweep.csv) and the formatting they use: the same values and
/// bytes as one pass, point by point, for every `jobs`.
@Suite struct SweepChunkedOutputTests {
    // MARK: Numbers

    @Test func integersAreTheirDescription() {
        var values = [0, 1, 9, 10, 11, 99, 100, 101, 4096, -1, -9, -10, -12_345, Int.max, Int.min, Int.min + 1]
        var g = SystemRandomNumberGenerator()
        for _ in 0..<2000 { values.append(Int.random(in: -1_000_000_000...1_000_000_000, using: &g)) }
        for v in values {
            var out: [UInt8] = []
            DecimalDigits.append(v, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == v.description, "\(v)")
        }
    }

    @Test func doublesAreTheirDescription() {
        var values: [Double] = [
            0, -0.0, 1, -1, 3, 80, 120.5, 0.1, 1e-5, 1.5e-7, 2.5e16, 1e21, 123_456_789.125, -3.75, 1e15, 1e16,
            DecimalDigits.limit, DecimalDigits.limit - 1, -DecimalDigits.limit,
            -DecimalDigits.limit + 1, 0.30000000000000004, 3599.9999999999995, .greatestFiniteMagnitude,
            .leastNonzeroMagnitude, .leastNormalMagnitude, -.greatestFiniteMagnitude,
        ]
        var g = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            values.append(Double(Int.random(in: -5_000_000_000...5_000_000_000, using: &g)))
            values.append(Double.random(in: -1e4...1e4, using: &g))
            values.append(Double(Int.random(in: 0...100, using: &g)) / Double(Int.random(in: 1...7, using: &g)))
            values.append(Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &g)))
        }
        for v in values where v.isFinite {
            var out: [UInt8] = []
            DecimalDigits.append(v, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == v.description, "\(v.bitPattern)")
        }
    }

    // MARK: Cells

    /// The cell as it was computed before the shared buffer: an array per figure.
    static func referenceCell(
        point: Int, _ records: [SweepRecord], scenario: String, hours: Double
    ) throws -> SweepCell {
        func est(_ values: [Double], _ key: String) throws -> Estimate {
            do { return try Estimate.of(values, key: key) } catch { throw RunError.metrics(scenario: scenario, error) }
        }
        func optional(_ values: [Double], _ key: String) throws -> Estimate? {
            values.isEmpty ? nil : try est(values, key)
        }
        let visits = SweepVisitCell(
            trueVisits: try est(records.map { Double($0.trueVisits) }, "visits.trueVisits"),
            matchedVisits: try est(records.map { Double($0.matchedVisits) }, "visits.matchedVisits"),
            recall: try optional(
                records.filter { $0.trueVisits > 0 }.map { Double($0.matchedVisits) / Double($0.trueVisits) },
                "visits.recall"),
            falseVisits: try est(records.map { Double($0.falseVisits) }, "visits.falseVisits"),
            fragments: try est(records.map { Double($0.fragments) }, "visits.fragments"),
            falsePerHour: try est(records.map { Double($0.falseVisits) / hours }, "visits.falsePerHour"),
            fragmentsPerHour: try est(records.map { Double($0.fragments) / hours }, "visits.fragmentsPerHour"),
            earlyEntries: try est(records.map { Double($0.earlyEntries) }, "visits.earlyEntries"),
            entryLatencyP95_s: try optional(records.compactMap(\.entryLatencyP95_s), "visits.entryLatency_s.p95"),
            lateEntryP95_s: try optional(records.compactMap(\.lateEntryP95_s), "visits.lateEntryP95_s"),
            exitLatencyP95_s: try optional(records.compactMap(\.exitLatencyP95_s), "visits.exitLatency_s.p95"),
            trueExits: try est(records.map { Double($0.trueExits) }, "visits.trueExits"))
        var notifications: SweepNotifyCell?
        let figures = records.compactMap(\.notifications)
        if figures.count == records.count, !figures.isEmpty {
            let pairs = zip(records, figures)
            notifications = SweepNotifyCell(
                entriesPerTrueVisit: try optional(
                    pairs.filter { $0.0.trueVisits > 0 }.map { Double($0.1.entries) / Double($0.0.trueVisits) },
                    "notify.entriesPerTrueVisit"),
                unwantedPerHour: try est(figures.map { Double($0.unwanted) / hours }, "notify.unwantedPerHour"),
                falseDwellsPerHour: try est(
                    figures.map { Double($0.falseDwells) / hours }, "notify.falseDwellsPerHour"),
                dwellRecall: try optional(
                    figures.filter { $0.dwellVisits > 0 }.map { Double($0.matchedDwells) / Double($0.dwellVisits) },
                    "notify.dwellRecall"),
                dwellLatencyP95_s: try optional(figures.compactMap(\.dwellLatencyP95_s), "notify.dwellLatency_s.p95"))
        }
        return SweepCell(
            point: point,
            spurious: try est(records.map { Double($0.spurious) }, "flutter.spurious"),
            missed: try est(records.map { Double($0.missed) }, "flutter.missed"),
            flaps: try est(records.map { Double($0.flaps) }, "flutter.flaps"),
            transitions: try est(records.map { Double($0.transitions) }, "flutter.transitions"),
            truthTransitions: try est(records.map { Double($0.truthTransitions) }, "flutter.truthTransitions"),
            latencyMedian_s: try optional(records.compactMap(\.latencyMedian_s), "flutter.latency_s.median"),
            latencyP95_s: try optional(records.compactMap(\.latencyP95_s), "flutter.latency_s.p95"), visits: visits,
            filterRMSE_m: try optional(records.compactMap(\.filterRMSE_m), "filterRMSE_m"),
            cost: SweepCostCell(
                fixesPerHour: try est(records.map(\.fixesPerHour), "cost.fixesPerHour"),
                wakeupsPerHour: try est(records.map(\.wakeupsPerHour), "cost.wakeupsPerHour")),
            notifications: notifications)
    }

    static func randomRecord(_ item: Int, notified: Bool, using g: inout some RandomNumberGenerator) -> SweepRecord {
        func count() -> Int { Int.random(in: 0...6, using: &g) }
        func figure() -> Double? { Bool.random(using: &g) ? Double.random(in: 0...900, using: &g) : nil }
        var r = SweepRecord(
            item: item, spurious: count(), missed: count(), flaps: count(), transitions: count(),
            truthTransitions: count(), latencyMedian_s: figure(), latencyP95_s: figure())
        r.trueVisits = count()
        r.matchedVisits = min(r.trueVisits, count())
        r.falseVisits = count()
        r.fragments = count()
        r.earlyEntries = count()
        r.entryLatencyP95_s = figure()
        r.lateEntryP95_s = figure()
        r.exitLatencyP95_s = figure()
        r.filterRMSE_m = figure()
        r.trueExits = count()
        r.fixesPerHour = Double.random(in: 0...3600, using: &g)
        r.wakeupsPerHour = Double.random(in: 0...3600, using: &g)
        if notified {
            r.notifications = SweepNotificationFigures(
                entries: count(), unwanted: count(), falseDwells: count(), matchedDwells: count(),
                dwellVisits: count(), dwellLatencyP95_s: figure())
        }
        return r
    }

    @Test func cellsAreTheOnesOfAnArrayPerFigure() throws {
        var g = SystemRandomNumberGenerator()
        for trial in 0..<500 {
            let replicates = 1 + trial % 6
            // Notification figures on every replicate, on none, or on some (then no cell).
            let notified = (0..<replicates).map { trial % 3 == 0 || (trial % 3 == 1 && $0 % 2 == 0) }
            let records = (0..<replicates).map { Self.randomRecord($0, notified: notified[$0], using: &g) }
            let hours = [1.0, 0.5, 1 / 3.0, 2.75][trial % 4]
            let cell = try SweepSummary.cell(point: trial, records, scenario: "s", scenarioHours: hours)
            let reference = try Self.referenceCell(point: trial, records, scenario: "s", hours: hours)
            #expect(cell == reference, "trial \(trial)")
        }
        // A non-finite figure is refused with the same message.
        var bad = Self.randomRecord(0, notified: false, using: &g)
        bad.fixesPerHour = .infinity
        bad.entryLatencyP95_s = .nan
        var message: (String, String) = ("", "")
        do { _ = try SweepSummary.cell(point: 0, [bad], scenario: "s", scenarioHours: 1) } catch {
            message.0 = "\(error)"
        }
        do { _ = try Self.referenceCell(point: 0, [bad], scenario: "s", hours: 1) } catch { message.1 = "\(error)" }
        #expect(!message.0.isEmpty && message.0 == message.1, "\(message)")
    }

    // MARK: Runs of points on several threads

    /// Runs cover the points in order; with more threads they are shorter (down to the minimum),
    /// so that each thread gets `runsPerThread` of them.
    @Test func runsCoverThePointsAndShortenForThreads() {
        for count in [0, 1, 255, 2_440, 14_200, 97_600, 1_000_003] {
            for jobs in [1, 2, 3, 8] {
                let runs = SweepCells.chunks(count: count, jobs: jobs)
                #expect(runs.first?.lowerBound ?? 0 == 0 && runs.last?.upperBound ?? 0 == count)
                #expect(zip(runs, runs.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound && !$0.isEmpty })
                let size = runs.first?.count ?? 0
                #expect(runs.dropLast().allSatisfy { $0.count == size })
                #expect(size <= SweepCells.chunkPoints)
                if jobs == 1 {
                    #expect(count == 0 || size == min(count, SweepCells.chunkPoints), "count \(count)")
                } else if count >= SweepCells.runsPerThread * jobs * SweepCells.minimumChunkPoints {
                    #expect(runs.count >= SweepCells.runsPerThread * jobs, "count \(count), jobs \(jobs)")
                } else {
                    #expect(count == 0 || size == min(count, SweepCells.minimumChunkPoints), "count \(count)")
                }
            }
        }
        // The 14 200-point grid on two threads: 16 runs, not 7 of 2 048.
        #expect(SweepCells.chunks(count: 14_200, jobs: 2).count == 16)
        #expect(SweepCells.chunks(count: 14_200).count == 7)
    }

    /// `edge-loiter-100m` cut to 120 s with 2 replicates, on a 61 × 40 = 2440-point grid: two runs
    /// of points (`SweepCells.chunkPoints`).
    @Test func aggregationAndTableDoNotDependOnJobs() throws {
        let root = try SweepBoundedOutputTests.Fixture("chunked").root
        defer { try? FileManager.default.removeItem(at: root) }
        let grid = try SweepGrid(
            kind: .hysteresis, enter: SweepRange(parsing: "40:100:1", option: "--enter"),
            exit: SweepRange(parsing: "101:140:1", option: "--exit"), maxAccuracy: [30], confirm: [1],
            limit: 10_000)
        var request = SweepRequest(grid: grid)
        request.paths = [root.appendingPathComponent("scenarios").path]
        request.jobs = 1
        let plan = try SweepPlan.prepare(request)
        let run = try SweepRunner.run(plan, request: request, out: root.appendingPathComponent("out").path)
        let points = run.manifest.points.count
        #expect(points == 2440 && points > SweepCells.chunkPoints)

        // Cells not kept: every pass computes them from the records.
        let one = try SweepSummary.make(manifest: run.manifest, store: run.records, keepingCellsUpTo: 0, jobs: 1)
        let three = try SweepSummary.make(manifest: run.manifest, store: run.records, keepingCellsUpTo: 0, jobs: 3)
        #expect(one == three)
        let kept = try SweepSummary.make(manifest: run.manifest, store: run.records, jobs: 2)
        #expect(kept.scenarios[0].cells.kept != nil, "2440 cells fit the budget")
        #expect(kept.mix == one.mix && kept.digest == one.digest)
        // Runs of cells are the cells of one point at a time, kept or not.
        let cells = one.scenarios[0].cells
        #expect(cells.kept == nil)
        // One buffer reused from run to run, as a thread of the table does.
        var buffer = CellBuffer()
        var byRuns: [SweepCell] = []
        for run in SweepCells.chunks(count: points, jobs: 3) { byRuns += cells.cells(run, reusing: &buffer) }
        #expect(byRuns == (0..<points).map { cells[$0] })
        #expect(Array(kept.scenarios[0].cells.cells(0..<points, reusing: &buffer)) == byRuns)

        // The table: the same bytes for any jobs, kept cells or not.
        let table = SweepOutput.csv(one)
        for jobs in [2, 3] {
            var out = ""
            SweepOutput.csv(one, into: &out, jobs: jobs)
            #expect(out == table, "jobs \(jobs)")
        }
        #expect(SweepOutput.csv(kept) == table)
        #expect(table.split(separator: "\n").count == points + 1)

        // The bounded digest (limit lowered below the grid): its top and per-axis bests are
        // found in runs of points and merged, the same for any jobs and the same as ranking
        // the whole grid at once.
        let bounded = try [1, 2, 3].map { jobs in
            try SweepSummary.make(
                manifest: run.manifest, store: run.records, keepingCellsUpTo: 0, fullFormLimit_points: 1000,
                jobs: jobs)
        }
        let digest = try #require(bounded[0].digest)
        #expect(bounded[1].digest == digest && bounded[2].digest == digest)
        // The ranking left running while sweep.csv is written: the summary comes without its
        // digest, and the pending digest completes it to the same summary (once, for every file).
        for jobs in [1, 2] {
            let (early, pending) = try SweepSummary.makePendingDigest(
                manifest: run.manifest, store: run.records, keepingCellsUpTo: 0, fullFormLimit_points: 1000,
                jobs: jobs)
            #expect(early.digest == nil)
            let finished = try #require(pending).summary(early)
            #expect(finished == bounded[0], "jobs \(jobs)")
            #expect(try #require(pending).summary(early) == finished)
            // The files: the same bytes as from the finished summary.
            let folder = root.appendingPathComponent("pending-\(jobs)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let streams = SweepOutput.streams(early, digest: pending, jobs: jobs)
            let reference = SweepOutput.streams(bounded[0])
            #expect(streams.map(\.name) == reference.map(\.name))
            for (made, expected) in zip(streams, reference) {
                let a = folder.appendingPathComponent(made.name).path
                let b = folder.appendingPathComponent("reference-" + made.name).path
                try FileSystem.createFile(a, render: made.render)
                try FileSystem.createFile(b, render: expected.render)
                #expect(try Data(contentsOf: URL(fileURLWithPath: a)) == Data(contentsOf: URL(fileURLWithPath: b)))
            }
        }
        // A grid within the full form has nothing pending.
        #expect(try SweepSummary.makePendingDigest(manifest: run.manifest, store: run.records, jobs: 2).1 == nil)
        // With more than one thread the frontiers are found beside the recommendation and the
        // ranking: the same summary, frontiers included.
        #expect(bounded[1] == bounded[0] && bounded[2] == bounded[0])
        #expect(bounded[2].mix.frontier == bounded[0].mix.frontier)
        #expect(bounded[2].mix.costFrontier == bounded[0].mix.costFrontier)
        #expect(bounded[2].scenarios[0].frontierByLatency == bounded[0].scenarios[0].frontierByLatency)
        let rank = SweepDigest.Ranking(mix: bounded[0].mix)
        let all = (0..<points).sorted { rank.before($0, $1) }
        #expect(digest.top == Array(all.prefix(SweepDigest.listedTop)))
        #expect(digest.axes.map(\.name) == ["enter_m", "exit_m"])
        for axis in digest.axes {
            let value = try #require(SweepDigest.axes.first { $0.rawValue == axis.name }).value
            var order: [SweepDigest.AxisValue] = []
            for p in 0..<points where !order.contains(value(run.manifest.points[p])) {
                order.append(value(run.manifest.points[p]))
            }
            #expect(axis.values.map(\.value) == Array(order.prefix(SweepDigest.listedAxisValues)))
            for (v, point) in axis.values {
                #expect(all.first { value(run.manifest.points[$0]) == v } == point, "\(axis.name) = \(v)")
            }
        }

        // The tally of failed constraints the reasons give (counted by violation tag) is the
        // one of a name per violation, here over every point that misses a constraint.
        let mix = one.mix
        let names = run.manifest.scenarios.map(\.name)
        let failing = mix.points.indices.filter { !mix.points.feasible($0) }
        #expect(failing.count > 100, "the short drives fail the constraints at many settings")
        var tally: [String: Int] = [:]
        for i in failing {
            let p = mix.points[i]
            for v in p.violations {
                let where_ = v.scenario.map { " in \(names[$0])" } ?? ""
                switch v.constraint {
                case .recall: tally["recall < 0.95\(where_)", default: 0] += 1
                case .latency: tally["p95 entry latency > 60 s\(where_)", default: 0] += 1
                case .exitLatency, .unwanted: Issue.record("no such bound given")
                }
            }
            if p.violations.isEmpty { tally["no visit matched at all", default: 0] += 1 }
        }
        #expect(SweepMix.failedConstraints(mix.points, ids: failing, manifest: run.manifest, names: names) == tally)
    }
}
