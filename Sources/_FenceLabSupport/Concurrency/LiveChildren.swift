/// The process groups of the child processes running now (external engines), so that an
/// interrupted command can kill them before it exits instead of leaving them running.
package enum LiveChildren {
    private static let groups = Locked(Set<Int32>())

    /// Records the group that `pid` leads (call right after spawning it).
    package static func register(_ pid: Int32) { groups.withLock { _ = $0.insert(pid) } }

    /// Forgets `pid` (call once it has been killed and reaped).
    package static func unregister(_ pid: Int32) { groups.withLock { _ = $0.remove(pid) } }

    /// The groups recorded now.
    package static var current: Set<Int32> { groups.withLock { $0 } }

    /// Sends SIGKILL to every recorded group (`kill(-pid, SIGKILL)`); the process then exits.
    package static func killAll() {
        for pid in current { Syscalls.killProcessGroup(pid) }
    }
}
