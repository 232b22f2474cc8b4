import Foundation

/// A value that several threads share, reachable only while its lock is held.
///
/// The one shape of shared mutable state in the harness (work-pool slots, progress counters,
/// the sweep's resume-file descriptor, an engine's stderr tail): a `final class` owning an
/// `NSLock` and the value, with `withLock` as the only access, so no caller can touch the
/// value unlocked or forget to unlock on an early return or a throw. A class rather than
/// `Synchronization.Mutex`: a `Mutex` is `~Copyable`, so it cannot be captured by the escaping
/// closures that share it here (the engine's reader `Thread`, the work-pool runners).
package final class Locked<Value> {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value; rethrows `body`'s error with its type.
    package func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// A pool of spare values: a thread that runs item after item takes a buffer, fills it and puts
/// it back, so its arrays (and their pages) are allocated once per pool, not once per item.
extension Locked {
    /// The last value put back, or `make()` when none is.
    package func takeSpare<Element>(or make: () -> Element) -> Element where Value == [Element] {
        withLock { $0.popLast() } ?? make()
    }

    /// Hands `element` back for a later `takeSpare`.
    package func putBack<Element>(_ element: Element) where Value == [Element] {
        withLock { $0.append(element) }
    }
}

// Safe to share when the value itself may cross threads: every access holds the lock.
extension Locked: @unchecked Sendable where Value: Sendable {}
