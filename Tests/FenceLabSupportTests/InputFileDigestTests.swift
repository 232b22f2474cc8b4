import Foundation
import Testing

@testable import _FenceLabSupport

/// `run.inputFiles` carries the SHA-256 of every fixture and device log: read in 1 MiB chunks,
/// it must equal the digest of the whole file (FIPS 180-4 vector for "abc"; a file of several
/// chunks against the one-shot digest), and an unreadable path gives "".
@Suite struct InputFileDigestTests {
    static func temporaryFile(_ bytes: [UInt8]) throws -> String {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("fencelab-digest-\(UUID().uuidString)").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func shortFileMatchesThePublishedVector() throws {
        let path = try Self.temporaryFile(Array("abc".utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(
            InputFileReader.sha256HexIfReadable(path: path)
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func fileOfSeveralChunksMatchesTheOneShotDigest() throws {
        let bytes = (0..<(3 * (1 << 20) + 17)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let path = try Self.temporaryFile(bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(InputFileReader.sha256HexIfReadable(path: path) == SHA256.hex(bytes))
    }

    @Test func missingFileHasNoDigest() {
        #expect(InputFileReader.sha256HexIfReadable(path: "/nonexistent/fencelab/digest") == "")
    }
}
