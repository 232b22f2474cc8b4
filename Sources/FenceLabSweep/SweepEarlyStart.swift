import DriveSim
import Foundation
import _FenceLabSupport

/// The start of a sweep with more than one worker: its plan, and then the drive of its first
/// work unit (scenario 0, replicate 0), are made on a helper thread while the calling
/// thread checks the destination and takes its lock (`SweepJob.sweep`). The first worker then
/// starts on a made drive instead of making it while the second waits for it (a cut unit's
/// pieces share its drive, `SharedDrive`), so the ≈ 2 ms of that drive leave the part of the
/// start that runs on one thread. The plan and the drive are the ones the calling thread and the
/// worker would make (the same inputs, the drive's own seed), so nothing else changes: a plan
/// that fails is rethrown by `plan()`, after the destination's checks as before; a drive that
/// fails, or a first unit that is not to run (resumed, or another shard's), leaves the worker to
/// make its drive as without it.
package final class SweepEarlyStart: Sendable {
    private let prepared = Awaited<Result<SweepPlan, any Error>>()
    /// The first drive (nil when it could not be made), until a work unit takes it.
    private let firstDrive = Awaited<Locked<SweepDrive?>>()

    /// Starts making `request`'s plan and its first drive on a helper thread.
    package init(_ request: SweepRequest) {
        HelperThreads.shared.start { [prepared, firstDrive] in
            let plan = Result { try SweepPlan.prepare(request) }
            prepared.set(plan)
            var drive: SweepDrive?
            if case .success(let plan) = plan, let first = plan.scenarios.first, first.spec.replicates > 0 {
                drive = try? SweepDrive(
                    spec: first.spec, replicate: 0, filters: plan.filters, samplings: plan.samplings)
            }
            firstDrive.set(Locked(drive))
        }
    }

    /// The plan (waiting for it), or the error that preparing it threw.
    package func plan() throws -> SweepPlan {
        try prepared.value().get()
    }

    /// The drive of `scenario`'s `replicate` if it is the one made here (waiting for it), and
    /// only once: nil for any other drive, when making it failed, or when it was taken before.
    func takeDrive(scenario: Int, replicate: Int) -> SweepDrive? {
        guard scenario == 0, replicate == 0 else { return nil }
        return firstDrive.value().withLock { drive in
            defer { drive = nil }
            return drive
        }
    }
}
