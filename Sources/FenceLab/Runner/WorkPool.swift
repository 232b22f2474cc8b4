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

/// The pool's shared state: the next item to hand out, whether a failure stopped the run,
/// and one result slot per item.
private struct ResultSlots<T: Sendable>: Sendable {
    var next = 0
    var stopped = false
    var slots: [Result<T, any Error>?]
}

private final class ResultBox<T: Sendable>: Sendable {
    private let state: Locked<ResultSlots<T>>
    private let count: Int

    init(count: Int) {
        self.count = count
        state = Locked(ResultSlots(slots: Array(repeating: nil, count: count)))
    }

    func claim() -> Int? {
        state.withLock { s in
            guard !s.stopped, s.next < count else { return nil }
            defer { s.next += 1 }
            return s.next
        }
    }

    func store(_ i: Int, _ r: Result<T, any Error>) {
        state.withLock { s in
            s.slots[i] = r
            if case .failure = r { s.stopped = true }
        }
    }

    func serialised(_ f: () -> Void) {
        state.withLock { _ in f() }
    }

    /// Values in order; the failure of the lowest-numbered failed item is rethrown (deterministic).
    func results() throws -> [T] {
        let slots = state.withLock { $0.slots }
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
