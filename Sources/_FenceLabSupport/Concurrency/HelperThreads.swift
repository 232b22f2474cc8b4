import Foundation

/// The threads that run a pool's items beside its calling thread (`WorkPool`) and the work a
/// sweep starts beside its own (its plan and first drive, its resume file's opening, its flutter
/// frontiers, its digest's ranking): made when no idle one is left, kept for the life of the
/// process and reused, the one that finished last first.
///
/// Dispatch's global queue, which ran them before, runs on Linux as many threads as there are
/// cores and adds more only slowly while they wait (six pieces of work that waited for one
/// another all ran after 4.9 s): on the 97 600-point sweep at `--jobs 2`, `index.html`'s thread
/// started 15–22 ms after `sweep.csv`'s while the ranking's two threads held both, and the
/// table's own helper waited as long. Here every piece of work started gets a thread at once:
/// `--jobs 2` took 221.0 against 227.1 ms, 224.9 against 230.0 ms and 224.6 against 229.8 ms
/// (medians of 12, 16 and 8 interleaved rounds; `docs/benchmarks.md`).
package final class HelperThreads: Sendable {
    /// The process's helper threads.
    package static let shared = HelperThreads()

    /// Threads without work, the one that finished last at the end.
    private let idle = Locked<[Helper]>([])

    /// Runs `body` on a helper thread (an idle one, or a new one when none is); `wait()` on the
    /// result returns once `body` has returned and let go of what it captured.
    @discardableResult
    package func start(_ body: @escaping @Sendable () -> Void) -> HelperWork {
        let started = HelperWork(body)
        if let helper = idle.withLock({ $0.popLast() }) {
            helper.post(started)
        } else {
            let helper = Helper()
            helper.post(started)
            Thread.detachNewThread { [self] in
                while true {
                    let work = helper.next()
                    work.run()
                    // Idle again before the waiter goes on, so that work it starts next finds
                    // this thread instead of making another.
                    idle.withLock { $0.append(helper) }
                    work.finish()
                }
            }
        }
        return started
    }

    /// One helper thread's mailbox: one piece of work at a time, posted only while it is idle.
    private final class Helper: @unchecked Sendable {
        private let condition = NSCondition()
        private var work: HelperWork?

        func post(_ work: HelperWork) {
            condition.lock()
            self.work = work
            condition.signal()
            condition.unlock()
        }

        /// The next work, waiting for it.
        func next() -> HelperWork {
            condition.lock()
            defer { condition.unlock() }
            while work == nil { condition.wait() }
            return work.take()!
        }
    }
}

/// Work started on a helper thread (`HelperThreads.start`).
package final class HelperWork: @unchecked Sendable {
    private var body: (@Sendable () -> Void)?
    private let done = Awaited<Void>()

    fileprivate init(_ body: @escaping @Sendable () -> Void) { self.body = body }

    /// Runs the work and lets it go (before `finish`, so before `wait()` returns: a caller may
    /// lend it a closure that must not outlive the call, `withoutActuallyEscaping` in `WorkPool`).
    fileprivate func run() {
        var work = body.take()
        work?()
        work = nil
    }

    /// Lets `wait()` return.
    fileprivate func finish() { done.set(()) }

    /// Returns once the work has returned.
    package func wait() { done.value() }
}
