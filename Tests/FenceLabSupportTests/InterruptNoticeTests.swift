import Foundation
import Testing

@testable import _FenceLabSupport

@Suite struct InterruptNoticeCountTests {
    /// The resume-file count reads 1 MiB pieces: newlines on both sides of every piece boundary
    /// and a torn last line (no newline) are counted exactly.
    @Test func newlinesAreCountedAcrossPieceBoundaries() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fl-newlines-\(ProcessInfo.processInfo.processIdentifier).txt"
        ).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var bytes = [UInt8](repeating: 0x61, count: 3 << 20 | 17)
        var expected = 0
        for i in stride(from: 0, to: bytes.count, by: 997) {
            bytes[i] = 0x0A
            expected += 1
        }
        for i in [(1 << 20) - 1, 1 << 20, (2 << 20) - 1, 2 << 20] where bytes[i] != 0x0A {
            bytes[i] = 0x0A
            expected += 1
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(InterruptNotice.newlineCount(path: path) == expected)
        #expect(InterruptNotice.newlineCount(path: path + ".absent") == 0)
    }
}
