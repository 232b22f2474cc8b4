import Foundation
import Testing

@testable import _FenceLabSupport

/// The pools' helper threads: every piece of work started gets a thread at once, however many
/// wait, `wait()` returns once the work has returned, and idle threads are reused.
@Suite struct HelperThreadsTests {
    /// Six pieces of work that each wait until all six run, within 2 s: Dispatch's global queue
    /// on Linux, which adds threads beyond the cores only slowly, ran all six after 4.9 s.
    @Test func everyPieceOfWorkGetsAThreadAtOnce() {
        let count = 6
        let arrived = Locked(0)
        let allHere = DispatchSemaphore(value: 0)
        let sawAll = Locked(0)
        let pool = HelperThreads()
        let works = (0..<count).map { _ in
            pool.start {
                let n = arrived.withLock { n in
                    n += 1
                    return n
                }
                if n == count { for _ in 0..<count { allHere.signal() } }
                if allHere.wait(timeout: .now() + 2) == .success { sawAll.withLock { $0 += 1 } }
            }
        }
        for work in works { work.wait() }
        #expect(sawAll.withLock { $0 } == count, "every piece ran while the others waited")
    }

    /// `wait()` returns after the work's effects, and a later start runs on a thread that an
    /// earlier one left idle.
    @Test func waitSeesTheWorkAndThreadsAreReused() {
        let threads = Locked<Set<UInt64>>([])
        let record: @Sendable () -> Void = { threads.withLock { _ = $0.insert(UInt64(pthread_self())) } }
        let value = Locked(0)
        let pool = HelperThreads()  // not the shared one, which other suites' pools use meanwhile
        let first = pool.start {
            record()
            value.withLock { $0 = 42 }
        }
        first.wait()
        #expect(value.withLock { $0 } == 42)
        let before = threads.withLock { $0 }
        // One at a time: each finds the thread the previous one left idle.
        for _ in 0..<20 { pool.start { record() }.wait() }
        let after = threads.withLock { $0 }
        #expect(after == before, "\(after.count) threads for 21 pieces run one at a time")
    }

    /// A value set once on one thread reaches every thread that waits for it, and reads nil before.
    @Test func awaitedValueReachesEveryWaiter() {
        let answer = Awaited<Int>()
        #expect(answer.current == nil)
        let pool = HelperThreads()
        let seen = Locked<[Int]>([])
        let waiters = (0..<3).map { _ in
            pool.start {
                let value = answer.value()
                seen.withLock { $0.append(value) }
            }
        }
        pool.start { answer.set(7) }.wait()
        for waiter in waiters { waiter.wait() }
        #expect(seen.withLock { $0 } == [7, 7, 7])
        #expect(answer.current == 7 && answer.value() == 7)
    }
}
