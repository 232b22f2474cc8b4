import Foundation

/// Runs independent work items on a fixed number of threads and returns their
/// results in item order, so the output never depends on `jobs` or scheduling.
public enum WorkPool {
    /// The number of cores this process may use.
    public static var availableCores: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    /// Calls `body(i)` for every `i` in `0..<count` on up to `jobs` threads.
    /// Items are taken in index order; results come back in index order.
    /// `onDone` is called (serialised) after each item, e.g. for progress.
    public static func map<T: Sendable>(
        count: Int, jobs: Int, onDone: (@Sendable (Int) -> Void)? = nil,
        _ body: @Sendable (Int) throws -> T
    ) throws -> [T] {
        guard count > 0 else { return [] }
        let box = ResultBox<T>(count: count)
        let workers = max(1, min(jobs, count))
        withoutActuallyEscaping(body) { body in
            let runner: @Sendable (Int) -> Void = { _ in
                while let i = box.claim() {
                    do {
                        let value = try body(i)
                        box.store(i, .success(value))
                    } catch {
                        box.store(i, .failure(error))
                    }
                    if let onDone { box.serialised { onDone(i) } }
                }
            }
            if workers == 1 {
                runner(0)
            } else {
                DispatchQueue.concurrentPerform(iterations: workers, execute: runner)
            }
        }
        return try box.results()
    }
}

private final class ResultBox<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0
    private var stopped = false
    private let count: Int
    private var slots: [Result<T, any Error>?]

    init(count: Int) {
        self.count = count
        slots = Array(repeating: nil, count: count)
    }

    func claim() -> Int? {
        lock.lock(); defer { lock.unlock() }
        guard !stopped, next < count else { return nil }
        defer { next += 1 }
        return next
    }

    func store(_ i: Int, _ r: Result<T, any Error>) {
        lock.lock(); defer { lock.unlock() }
        slots[i] = r
        if case .failure = r { stopped = true }
    }

    func serialised(_ f: () -> Void) {
        lock.lock(); defer { lock.unlock() }
        f()
    }

    /// Values in order; the failure of the lowest-numbered failed item is rethrown (deterministic).
    func results() throws -> [T] {
        var out: [T] = []
        out.reserveCapacity(count)
        for slot in slots {
            switch slot {
            case let .success(v)?: out.append(v)
            case let .failure(e)?: throw e
            case nil: continue  // not run because an earlier item failed
            }
        }
        return out
    }
}
