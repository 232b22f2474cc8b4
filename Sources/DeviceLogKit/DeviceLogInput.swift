import Foundation
import _FenceLabSupport

/// A device log's bytes delivered in pieces: a file read chunk by chunk, or bytes already in memory.
///
/// The line formats (CSV, JSON Lines, NMEA) never hold the whole file: `DeviceLogLines` keeps one
/// chunk plus at most one line, so reading costs the parsed fixes plus a constant.
struct DeviceLogByteSource {
    /// Bytes asked for per read (1 MiB for files).
    let chunk_bytes: Int
    private let readNext: (inout [UInt8], Int) throws(DeviceLogProblemAtLine) -> Int

    /// - Parameters:
    ///   - chunk_bytes: bytes asked for per read, ≥ 1.
    ///   - read: appends at most the given count of the next bytes to the buffer and returns how
    ///     many it appended; 0 only at the end of the input.
    init(chunk_bytes: Int, read: @escaping (inout [UInt8], Int) throws(DeviceLogProblemAtLine) -> Int) {
        self.chunk_bytes = max(1, chunk_bytes)
        readNext = read
    }

    /// Appends the next piece to `buffer`; returns its length, 0 at the end.
    func read(appendingTo buffer: inout [UInt8]) throws(DeviceLogProblemAtLine) -> Int {
        try readNext(&buffer, chunk_bytes)
    }

    /// Bytes in memory, handed out `chunk_bytes` at a time.
    static func memory(_ bytes: UnsafeBufferPointer<UInt8>, chunk_bytes: Int = 1 << 20) -> DeviceLogByteSource {
        var offset = 0
        return DeviceLogByteSource(chunk_bytes: chunk_bytes) { buffer, count in
            let n = min(count, bytes.count - offset)
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[offset..<(offset + n)]))
            offset += n
            return n
        }
    }

    /// Consecutive pieces exactly as given (tests: a split at any position).
    static func pieces(_ pieces: [[UInt8]]) -> DeviceLogByteSource {
        var queue = pieces.filter { !$0.isEmpty }[...]
        return DeviceLogByteSource(chunk_bytes: Int.max) { buffer, _ in
            guard let piece = queue.popFirst() else { return 0 }
            buffer.append(contentsOf: piece)
            return piece.count
        }
    }

    /// An open regular file read from its current offset in `chunk_bytes` pieces.
    ///
    /// More than `limit_bytes` in total (a file that grew after its size was checked) is
    /// `.fileTooLarge` with the count read, at most `limit_bytes + 1`; a failed read is `.unreadable`.
    static func file(_ file: InputFileReader, limit_bytes: Int, chunk_bytes: Int = 1 << 20) -> DeviceLogByteSource {
        var total = 0
        return DeviceLogByteSource(chunk_bytes: chunk_bytes) { buffer, count throws(DeviceLogProblemAtLine) in
            let room = max(0, limit_bytes - total)
            let data: Data
            do {
                data = try file.read(upToCount: min(count, room == Int.max ? room : room + 1))
            } catch {
                throw DeviceLogProblemAtLine(line: nil, problem: .unreadable(reason: "read failed"))
            }
            total += data.count
            guard total <= limit_bytes else {
                throw DeviceLogProblemAtLine(
                    line: nil, problem: .fileTooLarge(size_bytes: total, limit_bytes: limit_bytes))
            }
            buffer.append(contentsOf: data)
            return data.count
        }
    }
}

/// Splits a device log into physical lines as it is read, enforcing a maximum line length.
///
/// Lines end at LF; a CR before the LF is dropped (CRLF files). A UTF-8 byte-order mark at the
/// start of the input is skipped. The length check runs on the bytes before any decoding, and at
/// most `maxLineLength_bytes + 2` bytes of a line are buffered before it is refused, so a huge
/// line costs no allocation beyond that. Memory: one chunk of the source plus one line.
struct DeviceLogLines {
    private let source: DeviceLogByteSource
    let maxLineLength_bytes: Int
    /// Unconsumed input is `buffer[start...]`.
    private var buffer: [UInt8] = []
    private var start = 0
    private var exhausted = false
    private var begun = false
    private(set) var lineNumber = 0

    init(_ source: DeviceLogByteSource, maxLineLength_bytes: Int) {
        self.source = source
        self.maxLineLength_bytes = maxLineLength_bytes
    }

    /// Drops the consumed bytes and appends the next piece; false at the end of the input.
    private mutating func fill() throws(DeviceLogProblemAtLine) -> Bool {
        if exhausted { return false }
        if start > 0 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        if try source.read(appendingTo: &buffer) == 0 { exhausted = true }
        return !exhausted
    }

    /// Hands the next line's bytes (without its line break) and 1-based number to `body` and
    /// returns its result; `nil` at the end. The bytes are valid only inside `body`.
    /// - Throws: `.lineTooLong` with the line number when the line exceeds the limit; what the
    ///   source or `body` throws.
    mutating func next<R>(
        _ body: (UnsafeBufferPointer<UInt8>, Int) throws(DeviceLogProblemAtLine) -> R
    ) throws(DeviceLogProblemAtLine) -> R? {
        if !begun {
            begun = true
            while buffer.count < 3, try fill() {}
            if buffer.count >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF { start = 3 }
        }
        if start == buffer.count, !(try fill()) { return nil }
        lineNumber += 1
        // A line without LF within max + 2 bytes is too long even after dropping a CR.
        let cap = maxLineLength_bytes >= Int.max - 2 ? Int.max : max(1, maxLineLength_bytes + 2)
        var scanned = 0
        var end: Int
        var hasLF = false
        while true {
            let stop = cap >= buffer.count - start ? buffer.count : start + cap
            end = start + scanned
            while end < stop, buffer[end] != 0x0A { end += 1 }
            if end < stop {
                hasLF = true
                break
            }
            scanned = end - start
            if scanned >= cap { break }
            if !(try fill()) {
                end = buffer.count
                break
            }
        }
        var contentEnd = end
        if contentEnd > start, buffer[contentEnd - 1] == 0x0D { contentEnd -= 1 }
        if contentEnd - start > maxLineLength_bytes {
            throw DeviceLogProblemAtLine(line: lineNumber, problem: .lineTooLong(limit_bytes: maxLineLength_bytes))
        }
        let (first, line) = (start, lineNumber)
        start = hasLF ? end + 1 : end
        return try buffer.withUnsafeBufferPointer { (all) throws(DeviceLogProblemAtLine) -> R in
            try body(UnsafeBufferPointer(rebasing: all[first..<contentEnd]), line)
        }
    }

    /// Whether every byte not yet read satisfies `predicate` (reads, and consumes, the rest).
    mutating func restSatisfies(_ predicate: (UInt8) -> Bool) throws(DeviceLogProblemAtLine) -> Bool {
        repeat {
            if !buffer[start...].allSatisfy(predicate) { return false }
            start = buffer.count
        } while try fill()
        return true
    }
}
