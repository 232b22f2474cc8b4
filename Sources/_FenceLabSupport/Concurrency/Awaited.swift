import Foundation

/// A value that one thread sets once and any number of threads wait for: the result of work
/// started on a helper thread (`HelperWork`, a sweep's resume file being opened, its plan and
/// first drive made beside the output folder's checks).
package final class Awaited<Value: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var stored: Value?

    package init() {}

    /// Sets the value and wakes every waiter. Called once.
    package func set(_ value: Value) {
        condition.lock()
        defer { condition.unlock() }
        precondition(stored == nil, "Awaited: set twice")
        stored = value
        condition.broadcast()
    }

    /// The value, waiting until it is set.
    package func value() -> Value {
        condition.lock()
        defer { condition.unlock() }
        while stored == nil { condition.wait() }
        return stored!
    }

    /// The value if it is set by now, nil otherwise.
    package var current: Value? {
        condition.lock()
        defer { condition.unlock() }
        return stored
    }
}
