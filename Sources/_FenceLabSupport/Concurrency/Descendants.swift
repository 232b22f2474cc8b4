import Foundation

/// Ends what an external engine left behind: on Linux, processes it started that left its
/// process group or session (`setsid helper &`, a double-forked daemon).
///
/// The command line makes FenceLab a child subreaper (`adoptOrphans`,
/// `prctl(PR_SET_CHILD_SUBREAPER)`): a process whose parent exits is re-parented to FenceLab
/// instead of init, so every process an engine started stays a descendant of FenceLab, found by
/// following the parent links of `/proc/*/stat`. Each engine carries its own marker in its
/// environment (`LiveChildren.markerName`), which the processes it starts inherit, so the
/// descendants of an engine that ended are told from those of engines still running. Ending is
/// SIGTERM (with SIGCONT, for a stopped process), then SIGKILL after `grace_s`; every process that
/// becomes FenceLab's child is reaped.
///
/// Not covered: a process running as another user (a set-user-id program: it cannot be
/// signalled), one started by another parent on the engine's behalf (a service manager, `at`,
/// a remote shell), and everything when FenceLab itself is killed with SIGKILL (the subreaper
/// ends with it). Without `/proc` and the subreaper (other systems) only the engine's process
/// group is killed.
package enum Descendants {
    /// Seconds between SIGTERM and SIGKILL: what a helper that exits on SIGTERM needs to do so
    /// (a sleeping shell or `sleep` ends at once), short enough that a run with one helper per
    /// work item is not slowed by it. An assumption, not a measurement of any engine.
    package static let grace_s = 0.5
    /// Seconds to wait for SIGKILLed processes to be gone before giving up (a process in
    /// uninterruptible sleep ignores even SIGKILL until it wakes).
    package static let killWait_s = 5.0

    private static let adopted = Locked(false)

    /// Makes this process the reaper of its orphaned descendants (Linux; once, before the first
    /// engine starts). False where that is not possible: then only process groups are killed.
    /// For a program that starts nothing but engines (the command line): a library user's own
    /// processes' orphans would be adopted too, and `endAll` would end them.
    @discardableResult
    package static func adoptOrphans() -> Bool {
        adopted.withLock { on in
            if !on { on = Syscalls.becomeChildSubreaper() && FileManager.default.fileExists(atPath: "/proc/self/stat") }
            return on
        }
    }

    /// True once `adoptOrphans` succeeded.
    package static var areAdopted: Bool { adopted.withLock { $0 } }

    /// After an engine ended (its group `pgid` was sent SIGKILL and its leader reaped): reaps the
    /// group's members that became this process's children, then ends every remaining process
    /// that carries the engine's `marker`, with its descendants. Bounded; nothing when the
    /// orphans are not adopted.
    package static func endEngine(group pgid: Int32, marker: String) {
        guard areAdopted else { return }
        let deadline = Syscalls.monotonicSeconds() + 1
        while Syscalls.processGroupExists(pgid) {
            while Syscalls.reapExitedChild(inGroup: pgid) > 0 {}
            if !Syscalls.processGroupExists(pgid) || Syscalls.monotonicSeconds() >= deadline { break }
            Syscalls.sleep(microseconds: 1000)
        }
        let entry = Array("\(LiveChildren.markerName)=\(marker)".utf8)
        end(sparingLiveEngines: true) { ProcessTable.environment(of: $0, contains: entry) }
    }

    /// Ends every descendant of this process (the command is ending: its own exit, an error, a
    /// signal). Nothing when the orphans are not adopted or no engine was ever started.
    package static func endAll() {
        guard areAdopted, LiveChildren.anyStarted else { return }
        end(sparingLiveEngines: false) { _ in true }
    }

    /// Ends the selected descendants and theirs: a few rounds, in case one started another
    /// while it was being ended.
    private static func end(sparingLiveEngines: Bool, selecting select: (Int32) -> Bool) {
        for _ in 0..<3 {
            let targets = LiveChildren.whileNoneStarts { leaders -> [ProcessTable.Entry] in
                // Every process an engine left is a live engine's descendant or descends from one
                // of our children: with no child but the live engines' leaders, which are spared,
                // nothing is left (with none at all, nothing is left to end).
                if let children = ProcessTable.childrenOfSelf(),
                    sparingLiveEngines ? children.isSubset(of: leaders) : children.isEmpty
                {
                    return []
                }
                let spared = sparingLiveEngines ? leaders : []
                let table = ProcessTable.read()
                let me = Syscalls.processID()
                // Orphans that exited on their own: reap them (never a live engine's leader).
                for e in table.values where e.parent == me && e.isZombie && !leaders.contains(e.pid) {
                    _ = Syscalls.reapIfExited(e.pid)
                }
                return ProcessTable.selectedSubtrees(of: me, in: table, sparing: spared, selecting: select)
            }
            if targets.isEmpty { return }
            terminate(targets)
        }
    }

    /// SIGTERM and SIGCONT to each target, SIGKILL to those still running after `grace_s`, and
    /// reaping of those that are (or become) this process's children; bounded by `killWait_s`.
    static func terminate(_ targets: [ProcessTable.Entry]) {
        let me = Syscalls.processID()
        /// True while `t` runs; reaps it when it has ended as this process's child.
        func running(_ t: ProcessTable.Entry) -> Bool {
            // Gone, or its pid now names another process: done with it.
            guard let now = ProcessTable.entry(t.pid), now.startTime == t.startTime else { return false }
            if now.isZombie {
                if now.parent == me { _ = Syscalls.reapIfExited(t.pid) }
                return false
            }
            return true
        }
        for t in targets {
            Syscalls.sendSignal(t.pid, Syscalls.SIGTERM)
            Syscalls.sendSignal(t.pid, Syscalls.SIGCONT)
        }
        var left = targets
        var killed = false
        var deadline = Syscalls.monotonicSeconds() + grace_s
        while true {
            left = left.filter(running)
            if left.isEmpty { break }
            let now = Syscalls.monotonicSeconds()
            if now >= deadline {
                if killed { break }
                for t in left { Syscalls.sendSignal(t.pid, Syscalls.SIGKILL) }
                killed = true
                deadline = now + killWait_s
            }
            Syscalls.sleep(microseconds: 2000)
        }
        // A target that ended before its parent became this process's child when the parent ended.
        for t in targets { _ = running(t) }
    }
}

/// The processes of the system as `/proc/PID/stat` lists them (Linux).
package enum ProcessTable {
    /// One process: its pid, its parent, whether it is a zombie, and its start time (clock ticks
    /// since boot), which tells it from a later process given the same pid.
    package struct Entry: Sendable, Hashable {
        package var pid: Int32
        package var parent: Int32
        package var isZombie: Bool
        package var startTime: UInt64
    }

    /// The children of this process (`/proc/self/task/*/children`: each thread lists those it
    /// parents), or nil where the kernel does not list them (then the whole table is read).
    package static func childrenOfSelf() -> Set<Int32>? {
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return nil }
        var children = Set<Int32>()
        for thread in threads {
            let fd = Syscalls.open("/proc/self/task/\(thread)/children", Syscalls.O_RDONLY | Syscalls.O_CLOEXEC)
            guard fd >= 0 else {
                if Syscalls.errno == Syscalls.ENOENT, thread == threads.first { return nil }
                continue  // a thread that ended meanwhile
            }
            defer { Syscalls.close(fd) }
            var text: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = buffer.withUnsafeMutableBytes { Syscalls.read(fd, $0.baseAddress, 4096) }
                if n < 0, Syscalls.errno == Syscalls.EINTR { continue }
                if n <= 0 { break }
                text += buffer[0..<n]
            }
            for field in text.split(whereSeparator: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\n") }) {
                if let pid = Int32(String(decoding: field, as: UTF8.self)) { children.insert(pid) }
            }
        }
        return children
    }

    /// Every process readable now, by pid.
    package static func read() -> [Int32: Entry] {
        var table: [Int32: Entry] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(name), let e = entry(pid) else { continue }
            table[pid] = e
        }
        return table
    }

    /// The process `pid`, or nil when it does not exist (or its stat line cannot be read).
    package static func entry(_ pid: Int32) -> Entry? {
        let fd = Syscalls.open("/proc/\(pid)/stat", Syscalls.O_RDONLY | Syscalls.O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { Syscalls.close(fd) }
        var bytes = [UInt8](repeating: 0, count: 1024)
        let n = bytes.withUnsafeMutableBytes { Syscalls.read(fd, $0.baseAddress, 1024) }
        guard n > 0 else { return nil }
        return parse(bytes[0..<n], pid: pid)
    }

    /// `PID (COMM) STATE PPID … STARTTIME …`: COMM may hold spaces and parentheses, so the
    /// fields are counted from the last ')'. STATE is field 3, PPID 4, STARTTIME 22 (proc(5)).
    static func parse(_ line: ArraySlice<UInt8>, pid: Int32) -> Entry? {
        guard let close = line.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = line[(close + 1)...].split(separator: UInt8(ascii: " "))
        guard fields.count >= 20, let state = fields[0].first,
            let parent = Int32(String(decoding: fields[1], as: UTF8.self)),
            let start = UInt64(String(decoding: fields[19], as: UTF8.self))
        else { return nil }
        return Entry(pid: pid, parent: parent, isZombie: state == UInt8(ascii: "Z"), startTime: start)
    }

    /// The descendants of `root` (not `root`) outside the subtrees of `spared` (those
    /// processes and theirs), that `select` picks or that descend from one it picks.
    static func selectedSubtrees(
        of root: Int32, in table: [Int32: Entry], sparing spared: Set<Int32>, selecting select: (Int32) -> Bool
    ) -> [Entry] {
        var children: [Int32: [Int32]] = [:]
        for e in table.values where e.pid != e.parent { children[e.parent, default: []].append(e.pid) }
        var result: [Entry] = []
        // (pid, picked: it or an ancestor below root was selected)
        var stack: [(Int32, Bool)] = (children[root] ?? []).map { ($0, false) }
        while let (pid, inherited) = stack.popLast() {
            guard !spared.contains(pid), let e = table[pid] else { continue }
            let picked = inherited || (!e.isZombie && select(pid))
            if picked { result.append(e) }
            stack += (children[pid] ?? []).map { ($0, picked) }
        }
        return result.sorted { $0.pid < $1.pid }
    }

    /// True when `/proc/PID/environ` (the environment the process was started with) holds
    /// exactly the entry `entry` (`NAME=VALUE`); false when it does not or cannot be read.
    package static func environment(of pid: Int32, contains entry: [UInt8]) -> Bool {
        let fd = Syscalls.open("/proc/\(pid)/environ", Syscalls.O_RDONLY | Syscalls.O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { Syscalls.close(fd) }
        var all: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { Syscalls.read(fd, $0.baseAddress, 65536) }
            if n < 0, Syscalls.errno == Syscalls.EINTR { continue }
            if n <= 0 { break }
            all += buffer[0..<n]
            if all.count > 1 << 24 { break }  // the kernel's limit is far below; never read without end
        }
        return all.split(separator: 0, omittingEmptySubsequences: true).contains { $0.elementsEqual(entry) }
    }
}
