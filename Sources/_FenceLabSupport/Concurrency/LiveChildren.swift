/// The child processes running now (external engines, each the leader of its own process group,
/// each with its own marker), so that an interrupted command can kill them before it exits
/// instead of leaving them running, and so that the descendants of one engine can be told from
/// another's (`Descendants`).
package enum LiveChildren {
    /// The environment variable every engine process is started with: `FENCELAB_ENGINE_ID=P.N`,
    /// FenceLab's pid and the engine's serial number. Processes the engine starts inherit it,
    /// which is how its descendants are found after they left its process group and session.
    package static let markerName = "FENCELAB_ENGINE_ID"

    private struct State {
        /// Group leader → its marker value.
        var groups: [Int32: String] = [:]
        var started = 0
        /// Set once the process is stopping: no child starts any more.
        var closed = false
    }

    private static let state = Locked(State())

    /// Starts a child with `start(environmentEntry)` while no other child starts and no
    /// descendant scan runs (`whileNoneStarts`), and records it with its marker. `start` gets the
    /// `FENCELAB_ENGINE_ID=…` entry to put in the child's environment and returns its pid.
    /// Returns the pid and the marker value, or nil (nothing started) once the process is stopping.
    package static func start<Failure: Error>(
        _ start: (String) throws(Failure) -> Int32
    ) throws(Failure) -> (pid: Int32, marker: String)? {
        try state.withLock { (s: inout State) throws(Failure) -> (pid: Int32, marker: String)? in
            guard !s.closed else { return nil }
            s.started += 1
            let marker = "\(Syscalls.processID()).\(s.started)"
            let pid = try start("\(markerName)=\(marker)")
            s.groups[pid] = marker
            return (pid, marker)
        }
    }

    /// Forgets `pid` (call once it has been killed and reaped).
    package static func unregister(_ pid: Int32) { state.withLock { _ = $0.groups.removeValue(forKey: pid) } }

    /// True once a child was started (so there may be descendants to end).
    package static var anyStarted: Bool { state.withLock { $0.started > 0 } }

    /// The groups recorded now.
    package static var current: Set<Int32> { state.withLock { Set($0.groups.keys) } }

    /// Runs `body` with the leaders recorded now while no child can start (so a child that has
    /// just started is never mistaken for an orphan).
    package static func whileNoneStarts<Result>(_ body: (Set<Int32>) -> Result) -> Result {
        state.withLock { body(Set($0.groups.keys)) }
    }

    /// Stops further starts and sends SIGKILL to every recorded group (`kill(-pid, SIGKILL)`);
    /// the process then exits.
    package static func killAll() {
        let groups = state.withLock { s -> [Int32] in
            s.closed = true
            return Array(s.groups.keys)
        }
        for pid in groups { Syscalls.killProcessGroup(pid) }
    }
}
