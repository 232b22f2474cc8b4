import FenceLab
import Foundation
import Testing
import _TestSupport

@testable import FenceLabSweep

/// The plan and the first drive made on a thread of their own while the destination is checked
/// (`SweepEarlyStart`): the same plan and the same records as without it, the drive handed out
/// once and only to the unit it was made for, and a plan that fails failing the same way.
@Suite struct SweepEarlyStartTests {
    /// The short `edge-loiter-100m` of `SweepBoundedOutputTests.Fixture` on a 61 × 40 × 2 grid.
    static func request(_ root: URL, jobs: Int) throws -> SweepRequest {
        let grid = try SweepGrid(
            kind: .hysteresis, enter: SweepRange(parsing: "40:100:1", option: "--enter"),
            exit: SweepRange(parsing: "101:140:1", option: "--exit"), maxAccuracy: [30], confirm: [1, 2],
            limit: 10_000)
        var request = SweepRequest(grid: grid)
        request.paths = [root.appendingPathComponent("scenarios").path]
        request.jobs = jobs
        return request
    }

    @Test func sameRecordsAndTheDriveOnce() throws {
        let root = try SweepBoundedOutputTests.Fixture("early-same").root
        defer { try? FileManager.default.removeItem(at: root) }
        let request = try Self.request(root, jobs: 2)
        let early = SweepEarlyStart(request)
        let plan = try early.plan()
        #expect(try early.plan().manifest == plan.manifest, "plan() can be asked again")
        #expect(plan.manifest == (try SweepPlan.prepare(request)).manifest)
        // 4 880 points on 2 drives: each drive is cut into pieces that share it.
        let run = try SweepRunner.run(
            plan, request: request, out: root.appendingPathComponent("early").path, early: early)
        // The first unit took the drive: it is not handed out again, nor for any other drive.
        #expect(early.takeDrive(scenario: 0, replicate: 0) == nil)
        #expect(early.takeDrive(scenario: 0, replicate: 1) == nil)
        var alone = request
        alone.jobs = 1
        let plain = try SweepRunner.run(
            try SweepPlan.prepare(alone), request: alone, out: root.appendingPathComponent("plain").path)
        // The records, through the table every point's figures go to (a summary holds its store).
        let early2 = try SweepSummary.make(manifest: run.manifest, store: run.records, jobs: 1)
        let plain1 = try SweepSummary.make(manifest: plain.manifest, store: plain.records, jobs: 1)
        #expect(early2.mix == plain1.mix)
        #expect(SweepOutput.csv(early2) == SweepOutput.csv(plain1))
    }

    @Test func onlyTheFirstDriveIsMade() throws {
        let root = try SweepBoundedOutputTests.Fixture("early-first").root
        defer { try? FileManager.default.removeItem(at: root) }
        let early = SweepEarlyStart(try Self.request(root, jobs: 2))
        _ = try early.plan()
        #expect(early.takeDrive(scenario: 0, replicate: 1) == nil)
        #expect(early.takeDrive(scenario: 1, replicate: 0) == nil)
        #expect(early.takeDrive(scenario: 0, replicate: 0) != nil)
        #expect(early.takeDrive(scenario: 0, replicate: 0) == nil, "handed out once")
    }

    @Test func aPlanThatFailsFailsTheSameWay() throws {
        let root = try SweepBoundedOutputTests.Fixture("early-fails").root
        defer { try? FileManager.default.removeItem(at: root) }
        var request = try Self.request(root, jobs: 2)
        request.paths = [root.appendingPathComponent("no-such-folder").path]
        let early = SweepEarlyStart(request)
        let direct = #expect(throws: (any Error).self) { try SweepPlan.prepare(request) }
        let thrown = #expect(throws: (any Error).self) { try early.plan() }
        #expect(thrown.map { "\($0)" } == direct.map { "\($0)" })
        #expect(early.takeDrive(scenario: 0, replicate: 0) == nil, "no plan, no drive")
    }
}
