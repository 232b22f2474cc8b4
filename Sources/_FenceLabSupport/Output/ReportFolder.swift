import Foundation

/// Errors writing an output folder; each names the path and the system's reason.
package enum OutputError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The destination's parent cannot be created or written.
    case notWritable(path: String, reason: String)
    /// The destination exists and is not a directory.
    case notADirectory(path: String)
    /// The destination holds files a report folder does not have: refusing to replace it.
    case foreignContent(path: String, example: String)
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
        case .foreignContent(let path, let example):
            return
                "output folder \(path): refusing to replace it, it holds '\(example)' which is not part of a FenceLab report"
        case .io(let path, let operation, let reason): return "\(path): \(operation) failed (\(reason))"
        case .notARegularFile(let path, let kind):
            return "\(path): refusing to replace \(kind) (only a regular file or a FenceLab report folder is replaced)"
        case .overwritesInput(let path, let input):
            return "\(path): refusing to write over the input \(input); write the output elsewhere"
        }
    }

    /// The reason alone, without the path (for errors that name the path themselves).
    package var reason: String {
        switch self {
        case .notWritable(_, let reason): return reason
        case .notADirectory: return "exists and is not a directory"
        case .foreignContent(_, let example): return "holds '\(example)', not part of a FenceLab report"
        case .io(_, let operation, let reason): return "\(operation) failed (\(reason))"
        case .notARegularFile(_, let kind): return "refusing to replace \(kind) (only a regular file is replaced)"
        case .overwritesInput(_, let input):
            return "refusing to write over the input \(input); write the output elsewhere"
        }
    }
}

/// Atomic replacement of a report folder.
///
/// All files are written and fsync'ed into a hidden temporary sibling
/// (`.NAME.tmp-PID-N`), then renamed into place. An existing destination is first
/// renamed to `.NAME.old-PID-N`, the new folder renamed in, and the old one removed;
/// if the second rename fails, the old folder is renamed back. An interrupted run
/// therefore leaves either the old report or the new one at the destination, never a
/// mix (between the two renames the destination is briefly absent; POSIX offers no
/// portable atomic directory swap; if killed right there, the next write restores the
/// old folder first). Leftover temporaries of dead processes are removed at the next write.
package enum ReportFolder {
    /// Checks before any work starts that `destination` can be written: creates missing
    /// parents, requires the parent to be a writable directory (probe: create and remove a
    /// temporary folder), and an existing destination to be a replaceable report folder.
    /// `replaceable`: the names an existing destination may hold and still be replaced (the
    /// files of that kind of report); anything else is refused: `--out ~` must not delete a
    /// home folder.
    package static func preflight(destination: String, replaceable: Set<String>) throws(OutputError) {
        let dest = URL(fileURLWithPath: destination).standardizedFileURL
        let parent = dest.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        } catch {
            throw .notWritable(path: destination, reason: "cannot create \(parent.path): \(reason(of: error))")
        }
        let probe = parent.appendingPathComponent(".\(dest.lastPathComponent).probe-\(Syscalls.processID())")
        do { try FileSystem.makeDirectory(probe.path) } catch {
            throw .notWritable(path: destination, reason: "\(parent.path): \(error.reason)")
        }
        try? FileManager.default.removeItem(at: probe)
        try checkReplaceable(dest, display: destination, replaceable: replaceable)
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
    /// temporary folder, so a large report is never held whole in memory.
    package static func write(
        streams files: [(name: String, render: (inout FileSink) -> Void)], to destination: String,
        replaceable: Set<String>
    ) throws(OutputError) {
        try preflight(destination: destination, replaceable: replaceable)
        let dest = URL(fileURLWithPath: destination).standardizedFileURL
        let parent = dest.deletingLastPathComponent()
        let base = dest.lastPathComponent
        removeStaleTemporaries(in: parent, base: base)
        let tag = "\(Syscalls.processID())-\(nextSerial())"
        let tmp = parent.appendingPathComponent(".\(base).tmp-\(tag)")
        try FileSystem.makeDirectory(tmp.path)
        do throws(OutputError) {
            for file in files {
                guard !file.name.contains("/"), !file.name.isEmpty, file.name != ".", file.name != ".." else {
                    throw OutputError.io(path: file.name, operation: "write", reason: "not a plain file name")
                }
                try FileSystem.createFile(tmp.appendingPathComponent(file.name).path, render: file.render)
            }
            FileSystem.syncDirectory(tmp.path)
            try swapIn(tmp: tmp, dest: dest, old: parent.appendingPathComponent(".\(base).old-\(tag)"))
            FileSystem.syncDirectory(parent.path)
        } catch {
            try? FileManager.default.removeItem(at: tmp)
            throw error
        }
    }

    private static func swapIn(tmp: URL, dest: URL, old: URL) throws(OutputError) {
        guard FileSystem.kind(of: dest.path) != .missing else {
            try FileSystem.rename(tmp.path, to: dest.path)
            return
        }
        try FileSystem.rename(dest.path, to: old.path)
        do { try FileSystem.rename(tmp.path, to: dest.path) } catch {
            try? FileSystem.rename(old.path, to: dest.path)
            throw error
        }
        try? FileManager.default.removeItem(at: old)
    }

    /// An existing destination must be a real directory (not a symbolic link to one) holding
    /// only report files.
    private static func checkReplaceable(_ dest: URL, display: String, replaceable: Set<String>) throws(OutputError) {
        switch FileSystem.kind(of: dest.path) {
        case .missing: return
        case .directory: break
        case .regularFile: throw .notADirectory(path: display)
        case let other: throw .notARegularFile(path: display, kind: other.name)
        }
        let entries: [String]
        do { entries = try FileManager.default.contentsOfDirectory(atPath: dest.path) } catch {
            throw .notWritable(path: display, reason: reason(of: error))
        }
        if let foreign = entries.sorted().first(where: { !replaceable.contains($0) }) {
            throw .foreignContent(path: display, example: foreign)
        }
    }

    /// Removes `.BASE.tmp-PID-N` / `.BASE.old-PID-N` left by processes that no longer run;
    /// an `.old-` folder is renamed back when the destination is missing (killed mid-swap).
    package static func removeStaleTemporaries(in parent: URL, base: String) {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: parent.path) else { return }
        for name in entries {
            for marker in [".\(base).tmp-", ".\(base).old-"] where name.hasPrefix(marker) {
                let rest = name.dropFirst(marker.count)
                guard let pidText = rest.split(separator: "-").first, let pid = Int32(pidText) else { continue }
                guard pid != Syscalls.processID(), Syscalls.processIsGone(pid) else { continue }
                let leftover = parent.appendingPathComponent(name)
                let dest = parent.appendingPathComponent(base)
                // A run killed between its two renames left the old report aside: put it back.
                if marker.hasSuffix(".old-"), FileSystem.kind(of: dest.path) == .missing,
                    (try? FileSystem.rename(leftover.path, to: dest.path)) != nil
                {
                    continue
                }
                try? FileManager.default.removeItem(at: leftover)
            }
        }
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
