import Foundation

/// One writer per output folder: an exclusive `flock` on `PARENT/.NAME.lock`, which holds the
/// owner's process id. A second process that wants the same folder is refused at once
/// (`OutputError.busy`, naming that pid); the kernel drops the lock when its holder dies, so a
/// killed run never blocks the next one; the next holder removes what the killed run left
/// (`Leftovers`, one line on stderr). The lock file is removed on release; a process that
/// locked a file just removed by the releaser notices (its descriptor no longer names the path)
/// and takes the lock again on a fresh file.
///
/// Within one process the lock is re-entrant: a sweep holds it for its whole run and the folder
/// write inside it takes it again.
package final class OutputLock: Sendable {
    /// The lock file's path.
    package let path: String

    /// Held lock files of this process: path → (descriptor, holders).
    private static let held = Locked([String: (fd: Int32, count: Int)]())

    private init(path: String) { self.path = path }

    /// The lock file of output folder `destination`: `PARENT/.NAME.lock`.
    package static func lockPath(destination: String) -> String {
        let url = URL(fileURLWithPath: destination).standardizedFileURL
        return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).lock").path
    }

    /// Takes the lock of `destination` (whose parent must exist).
    /// - Throws: `OutputError.busy` when another process holds it, `.io` when it cannot be made.
    package static func acquire(destination: String) throws(OutputError) -> OutputLock {
        let path = lockPath(destination: destination)
        try held.withLock { (held) throws(OutputError) in
            if let entry = held[path] {
                held[path] = (entry.fd, entry.count + 1)
                return
            }
            let (fd, stale) = try lock(path: path, display: destination)
            held[path] = (fd, 1)
            // Under the lock no live writer of this destination has files next to it: what is
            // there of a process that no longer runs is a killed run's, and goes.
            let url = URL(fileURLWithPath: destination).standardizedFileURL
            var found = ReportFolder.removeStaleTemporaries(
                in: url.deletingLastPathComponent(), base: url.lastPathComponent)
            if let stale {
                found.removed = (found.removed + [URL(fileURLWithPath: path).lastPathComponent]).sorted()
                found.pids.insert(stale)
            }
            Leftovers.announce(removed: found.removed, restored: found.restored, pids: found.pids, near: destination)
        }
        return OutputLock(path: path)
    }

    /// Removes and closes every lock file this process holds, whoever holds it (the process is
    /// exiting on a signal: its lock files are not left for the next run to clean up).
    package static func releaseAll() {
        held.withLock { held in
            for (path, entry) in held {
                Syscalls.unlink(path)
                Syscalls.close(entry.fd)
            }
            held = [:]
        }
    }

    /// Releases the lock (the last holder of this process removes the file, then closes it).
    package func release() {
        Self.held.withLock { held in
            guard let entry = held[path] else { return }
            if entry.count > 1 {
                held[path] = (entry.fd, entry.count - 1)
                return
            }
            held[path] = nil
            Syscalls.unlink(path)
            Syscalls.close(entry.fd)
        }
    }

    /// Opens and locks the lock file; `stalePID` when it names another process (which no longer
    /// holds it, or the lock would not be ours: a killed run; a fresh lock file is empty).
    private static func lock(path: String, display: String) throws(OutputError) -> (Int32, stalePID: Int32?) {
        var stalePID: Int32?
        while true {
            let fd = Syscalls.open(
                path, Syscalls.O_RDWR | Syscalls.O_CREAT | Syscalls.O_CLOEXEC | Syscalls.O_NOFOLLOW, 0o644)
            guard fd >= 0 else {
                throw .io(path: path, operation: "open the lock file", reason: Syscalls.lastErrorText())
            }
            guard Syscalls.lockExclusiveNonBlocking(fd) == 0 else {
                let code = Syscalls.errno
                let pid = owner(fd: fd)
                Syscalls.close(fd)
                if code == Syscalls.EWOULDBLOCK { throw .busy(path: display, pid: pid) }
                throw .io(path: path, operation: "lock", reason: Syscalls.errorText(code))
            }
            // The previous holder may have removed the file between our open and our lock.
            guard let mine = Syscalls.fileIdentity(fd: fd), let named = Syscalls.linkIdentity(path: path),
                mine == named
            else {
                Syscalls.close(fd)
                continue
            }
            if let previous = owner(fd: fd), previous != Syscalls.processID() {
                // Left by a killed run: removed (as a release would) and made afresh.
                stalePID = previous
                Syscalls.unlink(path)
                Syscalls.close(fd)
                continue
            }
            let text = Array("\(Syscalls.processID())\n".utf8)
            _ = Syscalls.ftruncate(fd, 0)
            _ = text.withUnsafeBytes { Syscalls.pwrite(fd, $0.baseAddress, $0.count, 0) }
            return (fd, stalePID)
        }
    }

    /// The process id written in the lock file, when it reads as one.
    private static func owner(fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 16)
        let n = buffer.withUnsafeMutableBytes { Syscalls.pread(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return nil }
        let text = String(decoding: buffer[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return Int32(text)
    }
}
