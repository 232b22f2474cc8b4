import Foundation

/// Runs independent work items on a fixed number of threads and returns their
/// results in item order, so the output never depends on `jobs` or scheduling.
package enum WorkPool {
    /// The number of cores this process may use, read once (Foundation reads the CPU set and the
    /// cgroup's CPU quota from /sys at every call, and every request's default `jobs` asks).
    package static let availableCores: Int = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// Calls `body(i)` for every `i` in `0..<count` on up to `jobs` threads.
    /// Items are taken in index order; results come back in index order.
    /// `onDone` is called (serialised) after each item, e.g. for progress.
    /// The results are all kept (no window): `forEachInOrder` with an appending consumer.
    package static func map<T: Sendable>(
        count: Int, jobs: Int, onDone: (@Sendable (Int) -> Void)? = nil,
        _ body: @Sendable (Int) throws -> T
    ) throws -> [T] {
        var results: [T] = []
        results.reserveCapacity(count)
        try forEachInOrder(count: count, jobs: jobs, window: count, onDone: onDone, body) { _, value in
            results.append(value)
        }
        return results
    }
}

extension WorkPool {
    /// Calls `body(i)` for every `i` in `0..<count` on up to `jobs` threads and hands each
    /// result to `consume` on the calling thread, in index order, as soon as it and every
    /// earlier one are done; results are not kept, so memory does not grow with `count`.
    /// At most `window` items run or wait ahead of the one `consume` needs next (a slow item
    /// cannot make the finished ones pile up). `onDone` is called (serialised) after each item.
    ///
    /// Errors: the first failure in index order, of `body` or of `consume`, stops handing out
    /// items and is rethrown once the running ones have finished (deterministic: every earlier
    /// item was consumed).
    package static func forEachInOrder<T: Sendable>(
        count: Int, jobs: Int, window: Int? = nil, onDone: (@Sendable (Int) -> Void)? = nil,
        _ body: @Sendable (Int) throws -> T, consume: (Int, T) throws -> Void
    ) throws {
        guard count > 0 else { return }
        let workers = max(1, min(jobs, count))
        if workers == 1 {
            for i in 0..<count {
                let value = try body(i)
                onDone?(i)
                try consume(i, value)
            }
            return
        }
        let handoff = OrderedHandoff<T>(count: count, window: max(window ?? 4 * workers, workers))
        try withoutActuallyEscaping(body) { body in
            let run: @Sendable (Int) -> Void = { i in
                let result: Result<T, any Error>
                do { result = .success(try body(i)) } catch { result = .failure(error) }
                handoff.store(i, result, onDone: onDone)
            }
            // `jobs - 1` helper threads only run items; the calling thread consumes and, while the
            // next result is not ready, runs items too, so `jobs` threads compute and none only waits.
            let helpers = (1..<workers).map { _ in
                HelperThreads.shared.start { while let i = handoff.claim(waiting: true) { run(i) } }
            }
            defer {
                handoff.stop()
                for helper in helpers { helper.wait() }
            }
            while true {
                switch handoff.nextStep() {
                case .consume(let i, let result): try consume(i, try result.get())
                case .run(let i): run(i)
                case .finished: return
                }
            }
        }
    }
}

/// The ordered pool's shared state: items are claimed in index order, finished results wait
/// in `ready` until the consumer takes them in index order.
private final class OrderedHandoff<T: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private let count: Int
    private let window: Int
    private var next = 0
    private var consumed = 0
    private var stopped = false
    private var ready: [Int: Result<T, any Error>] = [:]

    package init(count: Int, window: Int) {
        self.count = count
        self.window = window
    }

    /// The next item to run; waits while `window` items are ahead of the consumer (or, with
    /// `waiting` false, returns nil then). nil: no more.
    package func claim(waiting: Bool) -> Int? {
        condition.lock()
        defer { condition.unlock() }
        return claimLocked(waiting: waiting)
    }

    private func claimLocked(waiting: Bool) -> Int? {
        while waiting, !stopped, next < count, next - consumed >= window { condition.wait() }
        guard !stopped, next < count, next - consumed < window else { return nil }
        defer { next += 1 }
        return next
    }

    package func store(_ i: Int, _ result: Result<T, any Error>, onDone: (@Sendable (Int) -> Void)?) {
        condition.lock()
        defer { condition.unlock() }
        ready[i] = result
        if case .failure = result { stopped = true }
        onDone?(i)
        condition.broadcast()
    }

    package enum Step {
        /// The next result in index order.
        case consume(Int, Result<T, any Error>)
        /// An item for the calling thread to run (the next result is not ready yet).
        case run(Int)
        /// Every item was consumed, or no further item will run.
        case finished
    }

    /// What the calling thread does next: consume the next result in index order if it is
    /// ready, else run an item if one may be claimed, else wait for the next result.
    package func nextStep() -> Step {
        condition.lock()
        defer { condition.unlock() }
        while consumed < count {
            if let r = ready.removeValue(forKey: consumed) {
                defer { consumed += 1 }
                condition.broadcast()
                return .consume(consumed, r)
            }
            if let i = claimLocked(waiting: false) { return .run(i) }
            if stopped, consumed >= next { return .finished }
            condition.wait()
        }
        return .finished
    }

    /// No further item is handed out (the consumer is done or failed).
    package func stop() {
        condition.lock()
        defer { condition.unlock() }
        stopped = true
        condition.broadcast()
    }
}
