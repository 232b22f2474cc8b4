/// Where a renderer appends text: a `String` in memory, or a `FileSink` that streams to a file
/// (large sweep outputs are written without ever holding the whole document).
package protocol TextSink {
    mutating func append(_ text: String)
    /// Appends `value.description` (Swift's shortest round-trip form; any double).
    mutating func append(number value: Double)
    /// Appends `value.description`.
    mutating func append(integer value: Int)
    /// Appends text given as its UTF-8 bytes (valid UTF-8).
    mutating func append(utf8 bytes: UnsafeBufferPointer<UInt8>)
}

extension TextSink {
    package mutating func append(number value: Double) { append(DecimalDigits.string(value)) }
    package mutating func append(integer value: Int) { append(String(value)) }
    package mutating func append(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        append(String(decoding: bytes, as: UTF8.self))
    }
}

extension String: TextSink {
    package mutating func append(_ text: String) { self += text }
}

/// Buffered writes to an open file descriptor. The first failure is kept and every later
/// append ignored (like `ferror`), so renderers need no `try` per piece; `finish()` reports it.
package struct FileSink: TextSink {
    /// Bytes held before one `write(2)`: large enough that the sweep's many small pieces cost
    /// few system calls, small enough not to matter for peak memory.
    package static let flushBytes = 1 << 16
    /// Bytes written between two starts of their write-back (`Syscalls.startWriteback`): the
    /// kernel writes a large file out while the rest is rendered, so the `fsync` that ends it waits
    /// for the last MB only (on a 2-core machine's ext4 disk the `fsync` of a 23 MB `sweep.csv`
    /// took 12 ms, with both cores idle, when all of it was left to it; 1.1–4.5 ms with a start
    /// every 4 MiB, 0.7–1.5 ms every 1 MiB). At each start the range started the time before, on
    /// disk by then, leaves the page cache (`Syscalls.dropCachedPages`), and
    /// `FileSystem.createFile` drops the rest after its `fsync`: a report folder's files of this
    /// size or more are written past the cache. Freeing cached pages is kernel work that
    /// otherwise waits for whoever removes the file: when the 97 600-point sweep replaces its
    /// folder, removing the old one takes 4–4.7 ms at its end instead of 6–7 ms (the rest is the
    /// file system freeing the blocks).
    package static let writebackBytes: Int64 = 1 << 20
    package let fd: Int32
    package let path: String
    private var buffer: [UInt8] = []
    private(set) var failure: OutputError?
    /// Bytes written to the file so far, and how many of them have had their write-back started.
    private(set) var written: Int64 = 0
    private(set) var writebackStarted: Int64 = 0
    /// Bytes from the start whose cached pages were dropped (`Syscalls.dropCachedPages`).
    private(set) var dropped: Int64 = 0
    /// Set by `startGzip`: what is appended from then on is written gzip-compressed.
    private var gzip: GzipStream?

    package init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
        buffer.reserveCapacity(Self.flushBytes + 4096)
    }

    package mutating func append(_ text: String) {
        guard failure == nil else { return }
        // A native string's bytes in one copy; the generic `append(contentsOf: text.utf8)`
        // walks them one at a time (≈ 60 instructions a byte on a large sweep's pages).
        if text.utf8.withContiguousStorageIfAvailable({ buffer.append(contentsOf: $0) }) == nil {
            buffer.append(contentsOf: text.utf8)
        }
        if buffer.count >= Self.flushBytes { flush() }
    }

    /// The digits straight into the buffer (`DecimalDigits`), no `String` made for them.
    package mutating func append(number value: Double) {
        guard failure == nil else { return }
        DecimalDigits.append(value, to: &buffer)
        if buffer.count >= Self.flushBytes { flush() }
    }

    package mutating func append(integer value: Int) {
        guard failure == nil else { return }
        DecimalDigits.append(value, to: &buffer)
        if buffer.count >= Self.flushBytes { flush() }
    }

    package mutating func append(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        guard failure == nil else { return }
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.flushBytes { flush() }
    }

    package mutating func flush() { flush(finishing: false) }

    private mutating func flush(finishing: Bool) {
        guard failure == nil else { return }
        do throws(OutputError) {
            if let gzip {
                let (fd, path) = (fd, path)
                var compressed = 0
                try gzip.compress(buffer, finish: finishing) { (bytes) throws(OutputError) in
                    try FileSystem.writeAll(fd: fd, bytes, path: path)
                    compressed += bytes.count
                }
                wrote(compressed)
            } else {
                try FileSystem.writeAll(fd: fd, buffer, path: path)
                wrote(buffer.count)
            }
        } catch { failure = error }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Counts `count` bytes written and starts the write-back of every `writebackBytes`, after
    /// dropping the cached pages of the range started the time before (a failure of either is not
    /// one of the file's: the final `fsync` writes what is left, and pages not dropped stay cached).
    private mutating func wrote(_ count: Int) {
        written += Int64(count)
        guard written - writebackStarted >= Self.writebackBytes else { return }
        if writebackStarted > dropped {
            _ = Syscalls.dropCachedPages(fd, offset: dropped, length: writebackStarted - dropped)
            dropped = writebackStarted
        }
        _ = Syscalls.startWriteback(fd, offset: writebackStarted, length: written - writebackStarted)
        writebackStarted = written
    }

    /// From here on the file is one gzip stream (`GzipStream`) of what is appended; `finish`
    /// ends it. Call it before anything is appended.
    package mutating func startGzip() {
        guard failure == nil else { return }
        flush()
        do throws(OutputError) { gzip = try GzipStream(path: path) } catch { failure = error }
    }

    /// Records a failure of what is being written (e.g. its data could not be read): nothing more
    /// is written and `finish` throws it, so the folder is not put in place.
    package mutating func fail(_ error: OutputError) {
        if failure == nil { failure = error }
    }

    /// Writes what is buffered and reports the first failure.
    package mutating func finish() throws(OutputError) {
        flush(finishing: true)
        gzip = nil
        if let failure { throw failure }
    }
}

extension FileSink {
    /// Appends raw bytes (files rendered in memory before streaming existed).
    package mutating func append(bytes: [UInt8]) {
        flush()
        guard failure == nil else { return }
        if gzip != nil {
            buffer = bytes
            flush()
            return
        }
        do throws(OutputError) {
            try FileSystem.writeAll(fd: fd, bytes, path: path)
            wrote(bytes.count)
        } catch { failure = error }
    }
}
