import Foundation

/// The one seam between FenceLab's outputs and the POSIX file calls (`open`, `write`,
/// `fsync`, `rename`, `lstat`, `strerror`, through `Syscalls`): every report folder, sweep file and export
/// goes through `writeAll` and `atomicWrite` here, so the rules live in one place —
/// write everything or fail with the system's reason, fsync before rename, and never
/// replace what is not ours (a device such as `/dev/full`, a FIFO, a symbolic link).
package enum FileSystem {
    /// What is at a path, without following a final symbolic link (`lstat`).
    package enum Kind: Equatable {
        case missing, regularFile, directory, symbolicLink
        case other(String)

        /// How an error message names a kind the caller will not replace.
        var name: String {
            switch self {
            case .missing: return "missing"
            case .regularFile: return "a regular file"
            case .directory: return "a directory"
            case .symbolicLink: return "a symbolic link"
            case .other(let kind): return kind
            }
        }
    }

    package static func kind(of path: String) -> Kind {
        guard let status = Syscalls.status(path: path, followingLinks: false) else { return .missing }
        switch status.type {
        case .regular: return .regularFile
        case .directory: return .directory
        case .symbolicLink: return .symbolicLink
        case .fifo: return .other("a FIFO")
        case .characterDevice: return .other("a character device")
        case .blockDevice: return .other("a block device")
        case .socket: return .other("a socket")
        case .unknown: return .other("not a regular file")
        }
    }

    /// The system's text for the current `errno`.
    package static func lastError() -> String { Syscalls.lastErrorText() }

    /// The most one `write(2)` or `pwrite(2)` moves. A larger buffered write lets Linux's page
    /// cache (ext4 with large folios, kernel 6.18) take folios of 128 KiB and more, which come from
    /// memory the system has not touched lately: on the 2-core machine writing 23 MB into a new
    /// file took 100–160 ms in 128 KiB–1 MiB writes and under 10 ms in 64 KiB writes (`dd`, three
    /// rounds each). More system calls cost far less than that (one per 64 KiB).
    package static let writePieceBytes = 64 << 10

    /// Writes all of `bytes` to `fd` in pieces of at most `writePieceBytes`, retrying short
    /// writes and EINTR.
    package static func writeAll(fd: Int32, _ bytes: [UInt8], path: String) throws(OutputError) {
        // `withUnsafeBytes` rethrows untyped errors: the typed one is carried out as a value.
        let failure = bytes.withUnsafeBytes { raw -> OutputError? in
            do throws(OutputError) {
                try repeatTransfer(count: raw.count, operation: "write", path: path) { done in
                    Syscalls.write(fd, raw.baseAddress! + done, min(writePieceBytes, raw.count - done))
                }
                return nil
            } catch { return error }
        }
        if let failure { throw failure }
    }

    /// Creates `path` (which must not exist), writes `bytes`, fsyncs and closes it; a file of
    /// `FileSink.writebackBytes` or more then leaves the page cache.
    package static func createFile(_ path: String, _ bytes: [UInt8]) throws(OutputError) {
        try createFile(
            path,
            writing: { (fd) throws(OutputError) in
                try writeAll(fd: fd, bytes, path: path)
                return Int64(bytes.count)
            })
    }

    /// Creates `path` (it must not exist), lets `render` stream the text into it, fsyncs and
    /// closes it: a large file is written without being held whole in memory, and past the page
    /// cache (`FileSink.writebackBytes`).
    package static func createFile(_ path: String, render: (inout FileSink) -> Void) throws(OutputError) {
        try createFile(
            path,
            writing: { (fd) throws(OutputError) in
                var sink = FileSink(fd: fd, path: path)
                render(&sink)
                try sink.finish()
                return sink.written
            })
    }

    /// Creates `path` exclusively, lets `write` fill the descriptor (it returns the bytes it
    /// wrote), fsyncs it, drops its pages
    /// from the cache (on disk now) when it holds `FileSink.writebackBytes` or more, and closes
    /// it; on a failure the descriptor is closed. A smaller file stays cached: a report folder's
    /// marker is what the next run into the folder reads first, and read back from the disk it
    /// kept about a third of traced sweeps on the 2-core VM waiting 1.7–10 ms at their start.
    private static func createFile(
        _ path: String, writing write: (Int32) throws(OutputError) -> Int64
    ) throws(OutputError) {
        let fd = Syscalls.open(path, Syscalls.O_WRONLY | Syscalls.O_CREAT | Syscalls.O_EXCL | Syscalls.O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .io(path: path, operation: "create", reason: lastError()) }
        do throws(OutputError) {
            let size = try write(fd)
            guard Syscalls.fsync(fd) == 0 else { throw .io(path: path, operation: "fsync", reason: lastError()) }
            if size >= FileSink.writebackBytes { _ = Syscalls.dropCachedPages(fd, offset: 0, length: 0) }
        } catch {
            Syscalls.close(fd)
            throw error
        }
        guard Syscalls.close(fd) == 0 else { throw .io(path: path, operation: "close", reason: lastError()) }
    }

    /// Refuses, before any work, an output file path that holds something other than a
    /// regular file (device, FIFO, directory, symbolic link — dangling or not) or whose
    /// folder is missing.
    package static func checkFileDestination(_ path: String) throws(OutputError) {
        let k = kind(of: path)
        guard k == .missing || k == .regularFile else { throw .notARegularFile(path: path, kind: k.name) }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard kind(of: folder) == .directory || (kind(of: folder) == .symbolicLink && isDirectory(folder)) else {
            throw .notWritable(path: path, reason: "\(folder) is not a folder")
        }
    }

    /// Writes `bytes` as the regular file `path`: a temporary sibling is written and fsynced,
    /// then renamed over `path`, so readers see the old file or the new one, never a part.
    package static func atomicWrite(_ bytes: [UInt8], to path: String) throws(OutputError) {
        try atomicWrite(to: path) { $0.append(bytes: bytes) }
    }

    /// `atomicWrite` of the text `render` streams (never held whole in memory).
    package static func atomicWrite(to path: String, render: (inout FileSink) -> Void) throws(OutputError) {
        try checkFileDestination(path)
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        Leftovers.removeFileTemporaries(folder: folder, base: url.lastPathComponent, display: path)
        let number = serial.withLock { count in
            count += 1
            return count
        }
        let tmp = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).tmp-\(Syscalls.processID())-\(number)").path
        do throws(OutputError) {
            try createFile(tmp, render: render)
            try rename(tmp, to: path)
        } catch {
            Syscalls.unlink(tmp)
            throw error
        }
        syncDirectory(folder)
    }

    package static func rename(_ from: String, to: String) throws(OutputError) {
        let rc = Syscalls.rename(from, to)
        guard rc == 0 else { throw .io(path: to, operation: "rename", reason: lastError()) }
    }

    /// Creates `path` as an empty file (it must not exist, and is not followed if a link) and
    /// removes it again: whether the folder takes new entries. An empty file has no block for
    /// the file system to free, unlike a probe folder.
    package static func probeCreate(_ path: String) throws(OutputError) {
        let fd = Syscalls.open(
            path, Syscalls.O_WRONLY | Syscalls.O_CREAT | Syscalls.O_EXCL | Syscalls.O_CLOEXEC | Syscalls.O_NOFOLLOW,
            0o600)
        guard fd >= 0 else { throw .io(path: path, operation: "create", reason: lastError()) }
        Syscalls.close(fd)
        removeFile(path)
    }

    package static func makeDirectory(_ path: String) throws(OutputError) {
        guard Syscalls.mkdir(path, 0o755) == 0 else { throw .io(path: path, operation: "mkdir", reason: lastError()) }
    }

    /// fsync of a folder, so a rename inside it survives a crash; best effort.
    package static func syncDirectory(_ path: String) {
        let fd = Syscalls.open(path, Syscalls.O_RDONLY | Syscalls.O_DIRECTORY | Syscalls.O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = Syscalls.fsync(fd)
        Syscalls.close(fd)
    }

    /// Opens an existing regular file for appending.
    package static func openForAppending(_ path: String) throws(OutputError) -> Int32 {
        let fd = Syscalls.open(path, Syscalls.O_WRONLY | Syscalls.O_APPEND | Syscalls.O_CLOEXEC | Syscalls.O_NOFOLLOW)
        guard fd >= 0 else { throw .io(path: path, operation: "open", reason: lastError()) }
        return fd
    }

    /// Creates a private scratch file in `directory` and unlinks it at once: it lives only as the
    /// returned descriptor (read and write), so nothing is left behind, even after a crash.
    package static func openScratch(directory: String, prefix: String) throws(OutputError) -> Int32 {
        let template = (directory as NSString).appendingPathComponent(".\(prefix)-XXXXXX")
        let fd = Syscalls.openUnlinkedTemporary(template: template)
        guard fd >= 0 else { throw .io(path: directory, operation: "create a scratch file in", reason: lastError()) }
        return fd
    }

    /// Writes all of `bytes` at `offset` of `fd` (`pwrite`) in pieces of at most
    /// `writePieceBytes`, retrying short writes and EINTR.
    package static func writeAll(
        fd: Int32, _ bytes: UnsafeRawBufferPointer, offset: Int, path: String
    ) throws(OutputError) {
        try repeatTransfer(count: bytes.count, operation: "write", path: path) { done in
            Syscalls.pwrite(fd, bytes.baseAddress! + done, min(writePieceBytes, bytes.count - done), offset + done)
        }
    }

    /// Reads exactly `bytes.count` bytes at `offset` of `fd` (`pread`), retrying short reads and EINTR.
    package static func readAll(
        fd: Int32, into bytes: UnsafeMutableRawBufferPointer, offset: Int, path: String
    ) throws(OutputError) {
        try repeatTransfer(count: bytes.count, operation: "read", path: path) { done in
            Syscalls.pread(fd, bytes.baseAddress! + done, bytes.count - done, offset + done)
        }
    }

    /// Calls `step(bytesDone)` (one `pread`/`pwrite` of the rest) until `count` bytes have moved.
    private static func repeatTransfer(
        count: Int, operation: String, path: String, _ step: (Int) -> Int
    ) throws(OutputError) {
        var done = 0
        while done < count {
            let n = step(done)
            if n < 0 {
                if Syscalls.errno == Syscalls.EINTR { continue }
                throw .io(path: path, operation: operation, reason: lastError())
            }
            if n == 0 { throw .io(path: path, operation: operation, reason: "unexpected end of file") }
            done += n
        }
    }

    package static func closeFile(_ fd: Int32) {
        Syscalls.close(fd)
    }

    package static func removeFile(_ path: String) {
        Syscalls.unlink(path)
    }

    /// `path` as the file system sees it: absolute, with `.`, `..` and symbolic links resolved,
    /// also when its last components do not exist yet (the longest existing ancestor is
    /// resolved and the rest appended), so `alias/new` names the same place as `target/new`.
    package static func resolvedPath(_ path: String) -> String {
        var url = URL(fileURLWithPath: path).standardizedFileURL
        var rest: [String] = []
        while Syscalls.realPath(url.path) == nil, url.path != "/" {
            rest.insert(url.lastPathComponent, at: 0)
            url.deleteLastPathComponent()
        }
        var base = Syscalls.realPath(url.path) ?? url.path
        for component in rest { base = (base as NSString).appendingPathComponent(component) }
        return base
    }

    /// True when `path` is `folder` or lies inside it, after `resolvedPath` on both.
    package static func isSameOrInside(_ path: String, _ folder: String) -> Bool {
        let p = resolvedPath(path)
        let f = resolvedPath(folder)
        return p == f || p.hasPrefix(f == "/" ? "/" : f + "/")
    }

    /// Refuses an output file that is one of the command's inputs (resolved, symbolic links
    /// included): writing it would replace what is being read.
    package static func checkNotAnInput(output: String, inputs: [String]) throws(OutputError) {
        for input in inputs where resolvedPath(input) == resolvedPath(output) {
            throw .overwritesInput(path: output, input: input)
        }
    }

    package static func isDirectory(_ path: String) -> Bool {
        Syscalls.status(path: path)?.type == .directory
    }

    /// A process-wide counter for unique temporary names.
    private static let serial = Locked(0)
}

/// Standard output for data a command prints in bulk (an export without `--out`, the
/// engine protocol's answers): every byte written or a typed error, never a trap
/// (`FileHandle.write` traps on ENOSPC, e.g. `> /dev/full`).
package enum StandardOutput {
    package static func write(_ text: String) throws(OutputError) {
        try FileSystem.writeAll(fd: 1, Array(text.utf8), path: "standard output")
    }
}
