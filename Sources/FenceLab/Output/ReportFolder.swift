import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Errors writing an output folder; each names the path and the system's reason.
public enum OutputError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The destination's parent cannot be created or written.
    case notWritable(path: String, reason: String)
    /// The destination exists and is not a directory.
    case notADirectory(path: String)
    /// The destination holds files a report folder does not have: refusing to replace it.
    case foreignContent(path: String, example: String)
    /// A file operation failed.
    case io(path: String, operation: String, reason: String)

    public var description: String {
        switch self {
        case let .notWritable(path, reason): return "output folder \(path): cannot write there (\(reason))"
        case let .notADirectory(path): return "output folder \(path): exists and is not a directory"
        case let .foreignContent(path, example):
            return "output folder \(path): refusing to replace it, it holds '\(example)' which is not part of a FenceLab report"
        case let .io(path, operation, reason): return "\(path): \(operation) failed (\(reason))"
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
public enum ReportFolder {
    /// Names an existing destination may contain and still be replaced (the report files,
    /// plus names a later version may add). Anything else is refused: `--out ~` must not
    /// delete a home folder.
    public static var replaceableNames: Set<String> { Set(ReportWriter.fileNames) }

    /// Checks before any work starts that `destination` can be written: creates missing
    /// parents, requires the parent to be a writable directory (probe: create and remove a
    /// temporary folder), and an existing destination to be a replaceable report folder.
    /// `replaceable`: the names an existing destination may hold (default: a run report's).
    public static func preflight(destination: String, replaceable: Set<String> = replaceableNames) throws(OutputError) {
        let dest = URL(fileURLWithPath: destination).standardizedFileURL
        let parent = dest.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        } catch {
            throw .notWritable(path: destination, reason: "cannot create \(parent.path): \(reason(of: error))")
        }
        let probe = parent.appendingPathComponent(".\(dest.lastPathComponent).probe-\(getpid())")
        if mkdir(probe.path, 0o755) != 0 {
            throw .notWritable(path: destination, reason: "\(parent.path): \(String(cString: strerror(errno)))")
        }
        rmdir(probe.path)
        try checkReplaceable(dest, display: destination, replaceable: replaceable)
    }

    /// Writes `files` (name → bytes) as the folder `destination`, atomically (see type doc).
    /// File names must be plain names (no `/`).
    public static func write(files: [(name: String, bytes: [UInt8])], to destination: String,
                             replaceable: Set<String> = replaceableNames) throws(OutputError) {
        try write(streams: files.map { file in (file.name, { (sink: inout FileSink) in sink.append(bytes: file.bytes) }) },
                  to: destination, replaceable: replaceable)
    }

    /// Like `write(files:)`, but each file's text is rendered straight into its file in the
    /// temporary folder, so a large report is never held whole in memory.
    public static func write(streams files: [(name: String, render: (inout FileSink) -> Void)], to destination: String,
                             replaceable: Set<String> = replaceableNames) throws(OutputError) {
        try preflight(destination: destination, replaceable: replaceable)
        let dest = URL(fileURLWithPath: destination).standardizedFileURL
        let parent = dest.deletingLastPathComponent(), base = dest.lastPathComponent
        removeStaleTemporaries(in: parent, base: base)
        let tag = "\(getpid())-\(nextSerial())"
        let tmp = parent.appendingPathComponent(".\(base).tmp-\(tag)")
        guard mkdir(tmp.path, 0o755) == 0 else {
            throw .io(path: tmp.path, operation: "mkdir", reason: String(cString: strerror(errno)))
        }
        do throws(OutputError) {
            for file in files {
                guard !file.name.contains("/"), !file.name.isEmpty, file.name != ".", file.name != ".." else {
                    throw OutputError.io(path: file.name, operation: "write", reason: "not a plain file name")
                }
                try writeFile(tmp.appendingPathComponent(file.name).path, file.render)
            }
            try syncDirectory(tmp.path)
            try swapIn(tmp: tmp, dest: dest, old: parent.appendingPathComponent(".\(base).old-\(tag)"))
            try? syncDirectory(parent.path)
        } catch {
            try? FileManager.default.removeItem(at: tmp)
            throw error
        }
    }

    private static func swapIn(tmp: URL, dest: URL, old: URL) throws(OutputError) {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dest.path, isDirectory: &isDir) else {
            guard rename(tmp.path, dest.path) == 0 else {
                throw .io(path: dest.path, operation: "rename", reason: String(cString: strerror(errno)))
            }
            return
        }
        guard rename(dest.path, old.path) == 0 else {
            throw .io(path: dest.path, operation: "rename aside", reason: String(cString: strerror(errno)))
        }
        guard rename(tmp.path, dest.path) == 0 else {
            let why = String(cString: strerror(errno))
            _ = rename(old.path, dest.path)
            throw .io(path: dest.path, operation: "rename", reason: why)
        }
        try? FileManager.default.removeItem(at: old)
    }

    private static func checkReplaceable(_ dest: URL, display: String, replaceable: Set<String>) throws(OutputError) {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dest.path, isDirectory: &isDir) else { return }
        guard isDir.boolValue else { throw .notADirectory(path: display) }
        let entries: [String]
        do { entries = try FileManager.default.contentsOfDirectory(atPath: dest.path) } catch {
            throw .notWritable(path: display, reason: reason(of: error))
        }
        if let foreign = entries.sorted().first(where: { !replaceable.contains($0) }) {
            throw .foreignContent(path: display, example: foreign)
        }
    }

    private static func writeFile(_ path: String, _ render: (inout FileSink) -> Void) throws(OutputError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard fd >= 0 else { throw .io(path: path, operation: "create", reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var sink = FileSink(fd: fd, path: path)
        render(&sink)
        try sink.finish()
        guard fsync(fd) == 0 else { throw .io(path: path, operation: "fsync", reason: String(cString: strerror(errno))) }
    }

    private static func syncDirectory(_ path: String) throws(OutputError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY)
        guard fd >= 0 else { throw .io(path: path, operation: "open", reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        _ = fsync(fd)
    }

    /// Removes `.BASE.tmp-PID-N` / `.BASE.old-PID-N` left by processes that no longer run;
    /// an `.old-` folder is renamed back when the destination is missing (killed mid-swap).
    static func removeStaleTemporaries(in parent: URL, base: String) {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: parent.path) else { return }
        for name in entries {
            for marker in [".\(base).tmp-", ".\(base).old-"] where name.hasPrefix(marker) {
                let rest = name.dropFirst(marker.count)
                guard let pidText = rest.split(separator: "-").first, let pid = Int32(pidText) else { continue }
                guard pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
                let leftover = parent.appendingPathComponent(name), dest = parent.appendingPathComponent(base)
                // A run killed between its two renames left the old report aside: put it back.
                if marker.hasSuffix(".old-"), !FileManager.default.fileExists(atPath: dest.path),
                   rename(leftover.path, dest.path) == 0 {
                    continue
                }
                try? FileManager.default.removeItem(at: leftover)
            }
        }
    }

    /// A process-wide counter for unique temporary names.
    private static let serial = Locked(0)
    private static func nextSerial() -> Int { serial.withLock { $0 += 1; return $0 } }

    private static func reason(of error: Error) -> String {
        (error as NSError).localizedDescription
    }
}

/// `write(2)`, named once per platform.
func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.write(fd, buffer, count)
    #else
    return Darwin.write(fd, buffer, count)
    #endif
}
