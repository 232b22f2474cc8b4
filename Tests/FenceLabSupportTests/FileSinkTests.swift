import Foundation
import Testing

@testable import _FenceLabSupport

/// `FileSink` writes exactly the bytes of the strings it is given.
@Suite struct FileSinkTests {
    @Test func fileSinkWritesTheBytesItWasGiven() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("filesink-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("out.txt").path
        // Small (inline) strings, large native ones, a substring's copy and non-ASCII text,
        // across several 64 KiB flushes.
        var expected: [UInt8] = []
        try FileSystem.atomicWrite(to: path) { sink in
            for i in 0..<20_000 {
                let piece: String
                switch i % 4 {
                case 0: piece = "\(i),"
                case 1: piece = String(repeating: "wide text ≥ 0.95 ", count: 3)
                case 2: piece = String("substring of a longer line \(i)".dropFirst(3))
                default: piece = "🛰️\n"
                }
                expected.append(contentsOf: piece.utf8)
                sink.append(piece)
            }
        }
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(written.count > 4 * FileSink.flushBytes)
        #expect(written == expected)
    }

    /// Numbers appended as numbers are their `description`, across flushes, beside text.
    @Test func fileSinkWritesNumbersAsTheirDescription() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("filesink-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("numbers.txt").path
        let values: [Double] = [0, -0.0, 1.5, 0.1 + 0.2, 1e21, 3600, -7.25, 1e-7, .nan, -.infinity, 0.125]
        var expected = ""
        try FileSystem.atomicWrite(to: path) { sink in
            for i in 0..<12_000 {
                let v = values[i % values.count] * Double(i % 7 + 1)
                sink.append(number: v)
                sink.append(" ")
                sink.append(integer: i - 6_000)
                sink.append("\n")
                expected += v.description + " " + String(i - 6_000) + "\n"
            }
        }
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(written.count > 2 * FileSink.flushBytes)
        #expect(written == Array(expected.utf8))
    }

    /// A file of several write-back steps: every byte arrives, and the write-back of all but the
    /// last step's bytes was started while it was being written (the final fsync has that much
    /// less to wait for).
    @Test func largeFileStartsItsWritebackInSteps() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("filesink-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("large.csv").path
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        #expect(fd >= 0)
        var sink = FileSink(fd: fd, path: path)
        var expected: [UInt8] = []
        let row = Array("40,120,30,3,0.125,17.5,0.0625,99\n".utf8)
        let rows = Int(2 * FileSink.writebackBytes) / row.count + 1_000
        for _ in 0..<rows {
            row.withUnsafeBufferPointer { sink.append(utf8: $0) }
            expected.append(contentsOf: row)
        }
        try sink.finish()
        #expect(fsync(fd) == 0 && close(fd) == 0)
        #expect(sink.written == Int64(expected.count))
        #if os(Linux)
            // Started at each step boundary crossed: 2 steps of the 2.x steps written.
            #expect(sink.writebackStarted >= 2 * FileSink.writebackBytes)
            #expect(sink.writebackStarted < 2 * FileSink.writebackBytes + Int64(FileSink.flushBytes) + 4_096)
            // At the second start, the range of the first left the page cache.
            #expect(sink.dropped >= FileSink.writebackBytes && sink.dropped < sink.writebackStarted)
        #endif
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == expected)
    }
}
