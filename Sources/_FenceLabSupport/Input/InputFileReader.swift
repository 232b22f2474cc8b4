import Foundation

/// Why a named input file cannot be read.
package enum InputFileProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nothing at the path (or a dangling symbolic link).
    case missing
    /// Something other than a regular file: a FIFO, a directory, a device, a socket. `kind` names
    /// it ("a FIFO", "a directory", "a character device", …).
    case notRegularFile(kind: String)
    /// The file is larger than the caller's limit, in bytes.
    case tooLarge(size_bytes: Int, limit_bytes: Int)
    /// `open` or `read` failed; the system's reason.
    case unreadable(reason: String)

    package var description: String {
        switch self {
        case .missing: return "no such file"
        case .notRegularFile(let kind): return "not a regular file (\(kind)); give a file on disk"
        case .tooLarge(let size, let limit): return "\(size) bytes, larger than the \(limit)-byte limit"
        case .unreadable(let reason): return reason
        }
    }
}

/// A named input file opened for reading: the one seam every input-file read goes through
/// (scenario files, fixtures, device logs, sweep shards, the input digests of a report).
///
/// Only regular files are read (a symbolic link to one is fine). A FIFO, a directory, a device such
/// as `/dev/zero` or a socket is refused up front, so no reader waits for a writer that never
/// comes or reads an endless stream: the path is `stat`ed first, then opened with `O_NONBLOCK`
/// (opening a FIFO never blocks) and checked again with `fstat` on the descriptor (the path may
/// have been replaced in between). Readers may rewind and read a file twice (a line count, then
/// the parse): a regular file gives the same bytes both times.
package final class InputFileReader {
    /// The path as given; named in every error.
    package let path: String
    /// The size when opened, in bytes (`st_size`).
    package let size_bytes: Int
    private let handle: FileHandle

    /// Opens `path` if it is a regular file.
    /// - Throws: `.missing`, `.notRegularFile(kind:)` or `.unreadable` with the system's reason.
    package init(path: String) throws(InputFileProblem) {
        self.path = path
        guard let st = Syscalls.status(path: path) else {
            if Syscalls.errno == Syscalls.ENOENT || Syscalls.errno == Syscalls.ENOTDIR { throw .missing }
            throw .unreadable(reason: Self.lastError())
        }
        guard let kind = Self.nonRegularKind(st.type) else {
            let fd = Syscalls.open(path, Syscalls.O_RDONLY | Syscalls.O_NONBLOCK | Syscalls.O_CLOEXEC)
            guard fd >= 0 else { throw .unreadable(reason: Self.lastError()) }
            guard let opened = Syscalls.status(fd: fd) else {
                let reason = Self.lastError()
                Syscalls.close(fd)
                throw .unreadable(reason: reason)
            }
            if let kind = Self.nonRegularKind(opened.type) {
                Syscalls.close(fd)
                throw .notRegularFile(kind: kind)
            }
            Syscalls.setBlocking(fd)
            size_bytes = opened.size_bytes
            handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
            return
        }
        throw .notRegularFile(kind: kind)
    }

    /// Opens `path` and refuses it, before reading, when it is over `limit_bytes`.
    package convenience init(path: String, limit_bytes: Int) throws(InputFileProblem) {
        try self.init(path: path)
        guard size_bytes <= limit_bytes else { throw .tooLarge(size_bytes: size_bytes, limit_bytes: limit_bytes) }
    }

    /// Reads the next at most `buffer.count` bytes into `buffer` (`read(2)`, retried on EINTR), for
    /// callers that reuse one buffer; returns the count, 0 at the end of the file.
    /// - Throws: `.unreadable` with the system's reason when the read fails.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputFileProblem) -> Int {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return 0 }
        while true {
            let got = Syscalls.read(handle.fileDescriptor, base, buffer.count)
            if got >= 0 { return got }
            if Syscalls.errno != Syscalls.EINTR { throw .unreadable(reason: "read failed: \(Self.lastError())") }
        }
    }

    /// The next at most `count` bytes; empty at the end of the file.
    /// - Throws: `.unreadable` when the read fails.
    package func read(upToCount count: Int) throws(InputFileProblem) -> Data {
        do { return try handle.read(upToCount: count) ?? Data() } catch {
            throw .unreadable(reason: "read failed: \(error.localizedDescription)")
        }
    }

    /// Back to the first byte (for a second pass over the file).
    package func rewind() throws(InputFileProblem) {
        do { try handle.seek(toOffset: 0) } catch {
            throw .unreadable(reason: "seek failed: \(error.localizedDescription)")
        }
    }

    /// Calls `body` with each piece of the rest of the file, `piece_bytes` at a time (1 MiB).
    package func forEachPiece(
        piece_bytes: Int = 1 << 20, _ body: (UnsafeBufferPointer<UInt8>) -> Void
    ) throws(InputFileProblem) {
        while true {
            let data = try read(upToCount: piece_bytes)
            if data.isEmpty { return }
            data.withUnsafeBytes { body($0.bindMemory(to: UInt8.self)) }
        }
    }

    /// The whole file, refused without reading past `limit_bytes` (a file that grew after it was
    /// opened is refused too).
    package static func readAll(path: String, limit_bytes: Int) throws(InputFileProblem) -> [UInt8] {
        let file = try InputFileReader(path: path, limit_bytes: limit_bytes)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(file.size_bytes)
        while true {
            let data = try file.read(upToCount: 1 << 20)
            if data.isEmpty { return bytes }
            guard data.count <= limit_bytes - bytes.count else {
                throw .tooLarge(size_bytes: bytes.count + data.count, limit_bytes: limit_bytes)
            }
            bytes.append(contentsOf: data)
        }
    }

    /// Lower-case hex SHA-256 of the file's bytes, read in 1 MiB pieces (a 256 MiB device log is
    /// hashed without a copy of it in memory).
    package static func sha256Hex(path: String) throws(InputFileProblem) -> String {
        let file = try InputFileReader(path: path)
        var hasher = SHA256.Hasher()
        try file.forEachPiece { hasher.update($0) }
        return SHA256.hex(digest: hasher.finalize())
    }

    /// SHA-256 (hex) of a file's bytes; empty when it cannot be read (for reports naming a file
    /// that was read just before).
    package static func sha256HexIfReadable(path: String) -> String {
        (try? sha256Hex(path: path)) ?? ""
    }

    /// How an error names a file type other than a regular file; nil for a regular file.
    static func nonRegularKind(_ type: Syscalls.FileType) -> String? {
        switch type {
        case .regular: return nil
        case .directory: return "a directory"
        case .fifo: return "a FIFO"
        case .characterDevice: return "a character device"
        case .blockDevice: return "a block device"
        case .socket: return "a socket"
        case .symbolicLink, .unknown: return "an unknown file type"
        }
    }

    private static func lastError() -> String { Syscalls.lastErrorText() }
}
