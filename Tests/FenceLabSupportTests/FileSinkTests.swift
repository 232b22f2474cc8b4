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
}
