import Foundation
import GeoPolicy

/// What a FenceLab process killed outright (SIGKILL, a crash, a power cut) leaves next to an
/// output — its temporaries `.NAME.tmp-PID-N`, a report set aside `.NAME.old-PID-N`, its lock
/// file `.NAME.lock` — found and removed by the next run into the same output, with one line
/// on stderr saying what went. A leftover is stale only when the process its name (or the lock
/// file) records no longer runs on this machine, or, for the lock, when no process holds it: a
/// live run's files are never touched.
package enum Leftovers {
    /// The pid in `name` when it is `prefix` + `PID-N` (`.x.gpx.tmp-` + `1234-1`), else nil.
    static func pid(in name: String, prefix: String) -> Int32? {
        guard name.hasPrefix(prefix) else { return nil }
        let rest = name.dropFirst(prefix.count).split(separator: "-", omittingEmptySubsequences: false)
        guard rest.count == 2, let pid = Int32(rest[0]), pid > 0, Int(rest[1]) != nil else { return nil }
        return pid
    }

    /// True when `pid` is not this process and names no running process.
    static func isGone(_ pid: Int32) -> Bool { pid != Syscalls.processID() && Syscalls.processIsGone(pid) }

    /// Removes the stale `.BASE.tmp-PID-N` files of an atomically written file `folder/BASE`
    /// (a temporary is a regular file; anything else of that name is left alone) and says so.
    static func removeFileTemporaries(folder: String, base: String, display: String) {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        var removed: [String] = []
        var pids = Set<Int32>()
        let prefix = ".\(base).tmp-"
        // Only this file's temporaries are sorted, not every name in the folder.
        for name in entries.filter({ $0.hasPrefix(prefix) }).sorted() {
            guard let pid = pid(in: name, prefix: prefix), isGone(pid) else { continue }
            let path = URL(fileURLWithPath: folder).appendingPathComponent(name).path
            guard FileSystem.kind(of: path) == .regularFile, Syscalls.unlink(path) == 0 else { continue }
            removed.append(name)
            pids.insert(pid)
        }
        announce(removed: removed, restored: nil, pids: pids, near: display)
    }

    /// One line on stderr: `fencelab: removed what a killed FenceLab run (pid P) left next to
    /// OUT: NAMES[; restored OUT from NAME]`; nothing when nothing was removed or restored.
    package static func announce(removed: [String], restored: String?, pids: Set<Int32>, near display: String) {
        guard !removed.isEmpty || restored != nil else { return }
        let who = pids.sorted().map(String.init).joined(separator: ", ")
        let runs = pids.count > 1 ? "killed FenceLab runs (pids \(who))" : "a killed FenceLab run (pid \(who))"
        var line = "fencelab: "
        if !removed.isEmpty {
            line += "removed what \(runs) left next to \(display): \(removed.joined(separator: ", "))"
        }
        if let restored {
            line += (removed.isEmpty ? "" : "; ") + "restored \(display) from \(restored), set aside by \(runs)"
        }
        FileHandle.standardError.write(Data((ShownText.escapingControls(line) + "\n").utf8))
    }
}
