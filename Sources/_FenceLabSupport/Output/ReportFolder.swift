import Foundation

/// Errors writing an output folder; each names the path and the system's reason.
package enum OutputError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The destination's parent cannot be created or written.
    case notWritable(path: String, reason: String)
    /// The destination exists and is not a directory.
    case notADirectory(path: String)
    /// The destination holds files and no FenceLab marker: not a folder FenceLab wrote.
    case foreignContent(path: String, names: [String])
    /// The destination holds only names of this kind of report but no marker: a report of a
    /// FenceLab version before markers, or files that only look like one.
    case unmarkedReport(path: String, names: [String])
    /// The destination's marker lists files of another kind of report (`names`).
    case otherReport(path: String, names: [String])
    /// The destination's marker cannot be read or is not one FenceLab writes.
    case badMarker(path: String, reason: String)
    /// One of FenceLab's own files in the destination cannot be replaced (immutable, append-only).
    case notReplaceable(path: String, file: String, reason: String)
    /// The new folder is in place but the replaced one (renamed to `old`) could not be removed.
    case oldNotRemoved(path: String, old: String, reason: String)
    /// Another process holds the destination's lock (`pid` when it could be read).
    case busy(path: String, pid: Int32?)
    /// A file operation failed.
    case io(path: String, operation: String, reason: String)
    /// The destination is a device, FIFO, symbolic link (dangling or not) or other non-regular file.
    case notARegularFile(path: String, kind: String)
    /// The destination is one of the command's own inputs (`input` as given).
    case overwritesInput(path: String, input: String)

    package var description: String {
        switch self {
        case .notWritable(let path, let reason): return "output folder \(path): cannot write there (\(reason))"
        case .notADirectory(let path): return "output folder \(path): exists and is not a directory"
        case .io(let path, let operation, let reason): return "\(path): \(operation) failed (\(reason))"
        case .notARegularFile(let path, let kind):
            return "\(path): refusing to replace \(kind) (only a regular file or a FenceLab report folder is replaced)"
        case .overwritesInput(let path, let input):
            return "\(path): refusing to write over the input \(input); write the output elsewhere"
        case .foreignContent(let path, _), .unmarkedReport(let path, _), .otherReport(let path, _),
            .badMarker(let path, _), .notReplaceable(let path, _, _), .oldNotRemoved(let path, _, _),
            .busy(let path, _):
            return "output folder \(path): \(reason)"
        }
    }

    /// The reason alone, without the path (for errors that name the path themselves).
    package var reason: String {
        switch self {
        case .notWritable(_, let reason): return reason
        case .notADirectory: return "exists and is not a directory"
        case .foreignContent(_, let names):
            return
                "refusing to write there, it holds \(Self.list(names)) and no \(ReportFolder.markerName), so it is not a folder FenceLab wrote; choose an empty or new folder"
        case .unmarkedReport(_, let names):
            return
                "holds \(Self.list(names)) but no \(ReportFolder.markerName): a report of a FenceLab version before markers, or files that only look like one; FenceLab replaces only folders it proves it wrote, so delete that folder (or move its files) and run again"
        case .otherReport(_, let names):
            return
                "holds another kind of FenceLab report (\(Self.list(names))); choose another folder or delete that one"
        case .badMarker(_, let reason):
            return
                "\(ReportFolder.markerName) is not a marker FenceLab writes (\(reason)); delete it or choose another folder"
        case .notReplaceable(_, let file, let reason):
            return
                "cannot replace its '\(file)' (\(reason); an immutable or append-only file?); nothing was written"
        case .oldNotRemoved(_, let old, let reason):
            return
                "the new report is in place, but the replaced one could not be removed (\(reason)); delete \(old) by hand"
        case .busy(_, let pid):
            return
                "another FenceLab process\(pid.map { " (pid \($0))" } ?? "") is writing there; wait for it to finish or choose another folder"
        case .io(_, let operation, let reason): return "\(operation) failed (\(reason))"
        case .notARegularFile(_, let kind): return "refusing to replace \(kind) (only a regular file is replaced)"
        case .overwritesInput(_, let input):
            return "refusing to write over the input \(input); write the output elsewhere"
        }
    }

    /// `'a', 'b', 'c'` — at most five names, then how many more.
    private static func list(_ names: [String]) -> String {
        let shown = names.prefix(5).map { "'\($0)'" }.joined(separator: ", ")
        return names.count > 5 ? "\(shown) and \(names.count - 5) more" : shown
    }
}

/// Atomic replacement of a report folder FenceLab owns.
///
/// Ownership is proved, not guessed from file names: every folder FenceLab writes holds the
/// marker `.fencelab-report.json`, which lists the files FenceLab wrote there. An existing
/// destination is written only when it is empty or holds that marker; then only the files the
/// marker lists are replaced or removed, and anything else in the folder stays.
///
/// All files are written and fsync'ed into a hidden temporary sibling (`.NAME.tmp-PID-N`),
/// the marker first. When the destination holds nothing but FenceLab's files, it is replaced
/// whole: renamed to `.NAME.old-PID-N`, the new folder renamed in, and the old one removed;
/// if the second rename fails, the old folder is renamed back. A reader therefore sees the old
/// report or the new one, never a mix (between the two renames the destination is briefly
/// absent; POSIX offers no portable atomic directory swap; if killed right there, the next
/// write restores the old folder first). When the destination also holds files FenceLab did
/// not write, FenceLab's files are renamed in one by one instead (each atomically; the marker
/// lists the old and the new ones until the last is in). Leftover temporaries of dead
/// processes are removed when the next writer takes the destination's `OutputLock`, which every
/// write holds (`Leftovers`).
package enum ReportFolder {
    /// The marker file every FenceLab report folder holds.
    package static let markerName = ".fencelab-report.json"
    /// The marker's `format`.
    package static let markerFormat = "fencelab-report-folder/1"

    /// What an existing destination holds: FenceLab's files (listed by its marker, present or
    /// not) and the other entries, both sorted.
    struct Existing {
        var listed: [String]
        var foreign: [String]
    }

    /// Checks before any work starts that `destination` can be written: creates missing
    /// parents, requires the parent to be a writable directory (probe: create and remove a
    /// temporary folder), and an existing destination to be empty or a FenceLab report folder
    /// (its marker) whose files can be replaced. `replaceable`: the files this kind of report
    /// writes; a marker listing others belongs to another kind of report and is refused.
    package static func preflight(destination: String, replaceable: Set<String>) throws(OutputError) {
        let dest = URL(fileURLWithPath: destination).standardizedFileURL
        try prepareParent(of: dest, display: destination)
        _ = try existing(dest, display: destination, replaceable: replaceable)
    }

    /// Creates `dest`'s missing parents and checks that the parent takes new entries
    /// (`FileSystem.probeCreate`: a probe folder's block, freed on a file system mounted with
    /// `discard` and no journal, waits for the device to discard it).
    private static func prepareParent(of dest: URL, display destination: String) throws(OutputError) {
        let parent = dest.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        } catch {
            throw .notWritable(path: destination, reason: "cannot create \(parent.path): \(reason(of: error))")
        }
        let probe = parent.appendingPathComponent(".\(dest.lastPathComponent).probe-\(Syscalls.processID())").path
        do { try FileSystem.probeCreate(probe) } catch {
            throw .notWritable(path: destination, reason: "\(parent.path): \(error.reason)")
        }
    }

    /// Writes `files` (name → bytes) as the folder `destination`, atomically (see type doc).
    /// File names must be plain names (no `/`).
    package static func write(
        files: [(name: String, bytes: [UInt8])], to destination: String,
        replaceable: Set<String>
    ) throws(OutputError) {
        try write(
            streams: files.map { file in (file.name, { (sink: inout FileSink) in sink.append(bytes: file.bytes) }) },
            to: destination, replaceable: replaceable)
    }

    /// Like `write(files:)`, but each file's text is rendered straight into its file in the
    /// temporary folder, so a large report is never held whole in memory. With `jobs` > 1 up to
    /// that many files are rendered at once, each on its own thread (their bytes do not depend on
    /// it); the first failure in file order is reported.
    ///
    /// `whenInPlace` is called once the new files are in place and their folder entry is synced
    /// (not when the write fails before that, but also when the replaced folder cannot be removed
    /// afterwards). When a whole folder is replaced and `jobs` > 1 it runs beside the removal of
    /// the replaced one, whose files' pages the kernel frees one unlink at a time (a sweep removes
    /// its resume file there).
    package static func write(
        streams files: [(name: String, render: @Sendable (inout FileSink) -> Void)], to destination: String,
        replaceable: Set<String>, jobs: Int = 1, whenInPlace: (@Sendable () -> Void)? = nil
    ) throws(OutputError) {
        let dest = URL(fileURLWithPath: destination).standardizedFileURL
        try prepareParent(of: dest, display: destination)  // the lock file goes there
        let lock = try OutputLock.acquire(destination: destination)
        defer { lock.release() }
        let parent = dest.deletingLastPathComponent()
        let base = dest.lastPathComponent
        // What the destination holds is read under the lock (which removed what killed runs
        // left, `OutputLock`), after a folder left aside by a killed run is restored.
        let existing = try self.existing(dest, display: destination, replaceable: replaceable)
        var names: [String] = []
        for file in files {
            guard !file.name.contains("/"), !file.name.isEmpty, file.name != ".", file.name != "..",
                file.name != markerName
            else {
                throw OutputError.io(path: file.name, operation: "write", reason: "not a plain file name")
            }
            names.append(file.name)
        }
        let tag = "\(Syscalls.processID())-\(nextSerial())"
        let tmp = parent.appendingPathComponent(".\(base).tmp-\(tag)")
        try FileSystem.makeDirectory(tmp.path)
        do throws(OutputError) {
            // The marker lists the names only, so it is written first, not after the last file:
            // its write and fsync are not left for the end.
            try FileSystem.createFile(tmp.appendingPathComponent(markerName).path, marker(files: names))
            let folder = tmp.path
            let failures: [OutputError?]
            do {
                failures = try WorkPool.map(count: files.count, jobs: max(1, min(jobs, files.count))) { i in
                    do throws(OutputError) {
                        try FileSystem.createFile(folder + "/" + files[i].name, render: files[i].render)
                        return nil
                    } catch { return error }
                }
            } catch { throw OutputError.io(path: folder, operation: "write", reason: "\(error)") }
            if let failure = failures.lazy.compactMap({ $0 }).first { throw failure }
            PhaseClock.mark("files-written")
            if let existing, !existing.foreign.isEmpty {
                try mergeIn(
                    tmp: tmp, dest: dest, display: destination, names: names, previouslyListed: existing.listed)
            } else {
                FileSystem.syncDirectory(tmp.path)
                if try swapIn(
                    tmp: tmp, dest: dest, display: destination,
                    old: parent.appendingPathComponent(".\(base).old-\(tag)"), jobs: jobs, whenInPlace: whenInPlace)
                {
                    return
                }
            }
            FileSystem.syncDirectory(parent.path)
            PhaseClock.mark("in-place")
        } catch {
            try? FileManager.default.removeItem(at: tmp)
            throw error
        }
        whenInPlace?()
    }

    /// The marker's bytes: `{"format":…,"tool":"fencelab","files":[…]}` and a newline, the
    /// files sorted, so the same files give the same marker.
    static func marker(files: [String]) -> [UInt8] {
        // Names are the plain file names of the code (checked by `write`): no escaping needed
        // beyond the two characters JSON requires for such names.
        let list = Set(files).sorted().map { name in
            "\"" + name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }.joined(separator: ",")
        return Array("{\"format\":\"\(markerFormat)\",\"tool\":\"fencelab\",\"files\":[\(list)]}\n".utf8)
    }

    /// Puts `tmp` in place of `dest`. Returns true when it replaced a folder: then the parent is
    /// synced and `whenInPlace` was called (beside the removal of the replaced folder when
    /// `jobs` > 1); false when `dest` was missing and `tmp` was only renamed.
    private static func swapIn(
        tmp: URL, dest: URL, display: String, old: URL, jobs: Int, whenInPlace: (@Sendable () -> Void)?
    ) throws(OutputError) -> Bool {
        guard FileSystem.kind(of: dest.path) != .missing else {
            try FileSystem.rename(tmp.path, to: dest.path)
            return false
        }
        try FileSystem.rename(dest.path, to: old.path)
        do { try FileSystem.rename(tmp.path, to: dest.path) } catch {
            try? FileSystem.rename(old.path, to: dest.path)
            throw error
        }
        FileSystem.syncDirectory(dest.deletingLastPathComponent().path)
        PhaseClock.mark("in-place")
        let failure = Locked<OutputError?>(nil)
        let remove: @Sendable () -> Void = {
            do { try FileManager.default.removeItem(at: old) } catch {
                failure.withLock { $0 = .oldNotRemoved(path: display, old: old.path, reason: reason(of: error)) }
            }
        }
        if let whenInPlace, jobs > 1 {
            // Neither throws: the pool's own failure cannot happen.
            _ = try? WorkPool.map(count: 2, jobs: 2) { i in i == 0 ? remove() : whenInPlace() }
        } else {
            remove()
            whenInPlace?()
        }
        PhaseClock.mark("replaced-removed")
        if let error = failure.withLock({ $0 }) { throw error }
        return true
    }

    /// Renames the new files (and then the marker) from `tmp` into a destination that also holds
    /// files FenceLab did not write; files listed before and not written now are removed.
    private static func mergeIn(
        tmp: URL, dest: URL, display: String, names: [String], previouslyListed: [String]
    ) throws(OutputError) {
        let markerPath = dest.appendingPathComponent(markerName).path
        // Until the last file is in, the marker claims both the old and the new files.
        try FileSystem.atomicWrite(marker(files: names + previouslyListed), to: markerPath)
        for name in names {
            try FileSystem.rename(tmp.appendingPathComponent(name).path, to: dest.appendingPathComponent(name).path)
        }
        for name in previouslyListed where !names.contains(name) {
            let path = dest.appendingPathComponent(name).path
            guard FileSystem.kind(of: path) != .missing else { continue }
            do { try FileManager.default.removeItem(atPath: path) } catch {
                throw .io(path: path, operation: "remove", reason: reason(of: error))
            }
        }
        try FileSystem.rename(tmp.appendingPathComponent(markerName).path, to: markerPath)
        FileSystem.syncDirectory(dest.path)
        try? FileManager.default.removeItem(at: tmp)
    }

    /// What an existing destination holds (nil when missing). It must be a real directory (not a
    /// symbolic link to one), empty or holding a marker whose files are of this kind of report
    /// and can be renamed (an immutable file cannot: checked by renaming it and back).
    private static func existing(
        _ dest: URL, display: String, replaceable: Set<String>
    ) throws(OutputError)
        -> Existing?
    {
        switch FileSystem.kind(of: dest.path) {
        case .missing: return nil
        case .directory: break
        case .regularFile: throw .notADirectory(path: display)
        case let other: throw .notARegularFile(path: display, kind: other.name)
        }
        let entries: [String]
        do { entries = try FileManager.default.contentsOfDirectory(atPath: dest.path).sorted() } catch {
            throw .notWritable(path: display, reason: reason(of: error))
        }
        if entries.isEmpty { return Existing(listed: [], foreign: []) }
        guard entries.contains(markerName) else {
            if entries.allSatisfy(replaceable.contains) { throw .unmarkedReport(path: display, names: entries) }
            throw .foreignContent(path: display, names: entries.filter { !replaceable.contains($0) })
        }
        let listed = try readMarker(dest.appendingPathComponent(markerName).path, display: display)
        let others = listed.filter { !replaceable.contains($0) }
        if !others.isEmpty { throw .otherReport(path: display, names: others) }
        for name in [markerName] + listed where entries.contains(name) {
            try probeRename(dest.appendingPathComponent(name).path, name: name, display: display)
        }
        let owned = Set(listed + [markerName])
        return Existing(listed: listed, foreign: entries.filter { !owned.contains($0) })
    }

    /// The files a marker lists, sorted.
    private static func readMarker(_ path: String, display: String) throws(OutputError) -> [String] {
        guard FileSystem.kind(of: path) == .regularFile else {
            throw .badMarker(path: display, reason: "not a regular file")
        }
        let bytes: [UInt8]
        do { bytes = try InputFileReader.readAll(path: path, limit_bytes: 1 << 16) } catch {
            throw .badMarker(path: display, reason: "\(error)")
        }
        let value: StrictJSON.Value
        do { value = try StrictJSON.parse(bytes) } catch { throw .badMarker(path: display, reason: "\(error)") }
        guard case .object(let members, _) = value,
            members.count == 3, members[0].key == "format", members[1].key == "tool", members[2].key == "files",
            case .string(markerFormat, _) = members[0].value, case .string("fencelab", _) = members[1].value,
            case .array(let items, _) = members[2].value
        else {
            throw .badMarker(
                path: display, reason: "expected {\"format\":\"\(markerFormat)\",\"tool\":\"fencelab\",\"files\":[…]}")
        }
        var names: [String] = []
        for item in items {
            guard case .string(let name, _) = item, !name.isEmpty, !name.contains("/"), name != ".", name != "..",
                name != markerName
            else { throw .badMarker(path: display, reason: "files: not a list of plain file names") }
            names.append(name)
        }
        return Set(names).sorted()
    }

    /// Renames `path` to a hidden sibling and back: fails, naming the file, where the file
    /// system refuses to move it (immutable or append-only attributes), before anything is written.
    private static func probeRename(_ path: String, name: String, display: String) throws(OutputError) {
        let aside = URL(fileURLWithPath: path).deletingLastPathComponent()
            .appendingPathComponent(".\(name).probe-\(Syscalls.processID())").path
        guard Syscalls.rename(path, aside) == 0 else {
            throw .notReplaceable(path: display, file: name, reason: Syscalls.lastErrorText())
        }
        guard Syscalls.rename(aside, path) == 0 else {
            throw .io(path: path, operation: "rename back from \(aside)", reason: Syscalls.lastErrorText())
        }
    }

    /// Removes `.BASE.tmp-PID-N` / `.BASE.old-PID-N` left by processes that no longer run;
    /// an `.old-` folder is renamed back when the destination is missing (killed mid-swap).
    /// Returns the names removed, the one restored and the pids they name. Called under the
    /// destination's `OutputLock`, so no live writer of this destination has files there.
    static func removeStaleTemporaries(
        in parent: URL, base: String
    ) -> (removed: [String], restored: String?, pids: Set<Int32>) {
        var removed: [String] = []
        var restored: String?
        var pids = Set<Int32>()
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: parent.path) else {
            return (removed, restored, pids)
        }
        // Only this output's names are sorted: the parent may hold thousands of entries (sorting
        // a /tmp of 1 800 names was 2.7 % of a 142-point sweep's instructions).
        let own = ".\(base)."
        let markers = [own + "tmp-", own + "old-"]
        for name in entries.filter({ $0.hasPrefix(own) }).sorted() {
            for marker in markers {
                guard let pid = Leftovers.pid(in: name, prefix: marker), Leftovers.isGone(pid) else { continue }
                let leftover = parent.appendingPathComponent(name)
                let dest = parent.appendingPathComponent(base)
                pids.insert(pid)
                // A run killed between its two renames left the old report aside: put it back.
                if marker.hasSuffix(".old-"), restored == nil, FileSystem.kind(of: dest.path) == .missing,
                    (try? FileSystem.rename(leftover.path, to: dest.path)) != nil
                {
                    restored = name
                    continue
                }
                if (try? FileManager.default.removeItem(at: leftover)) != nil { removed.append(name) }
            }
        }
        return (removed, restored, pids)
    }

    /// A process-wide counter for unique temporary names.
    private static let serial = Locked(0)
    private static func nextSerial() -> Int {
        serial.withLock {
            $0 += 1
            return $0
        }
    }

    private static func reason(of error: Error) -> String {
        (error as NSError).localizedDescription
    }
}
