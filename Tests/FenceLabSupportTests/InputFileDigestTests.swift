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

/// The allocation-free 64-bit prefix of SHA-256 that checksums sweep record lines.
@Suite struct SHA256PrefixTests {
    /// Every padding case: empty, one block with room for the length, the length spilling into a
    /// second block (56…63 bytes), exact blocks, and record-sized lines.
    @Test(arguments: [0, 1, 3, 55, 56, 63, 64, 65, 119, 120, 128, 319, 320, 1000])
    func equalsTheFirstEightBytesOfTheDigest(length: Int) {
        let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let expected = SHA256.digest(bytes).prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        #expect(bytes.withUnsafeBufferPointer { SHA256.leading64Bits(of: $0) } == expected)
    }

    /// FIPS 180-4 example: SHA-256("abc") begins ba7816bf 8f01cfea.
    @Test func publishedVector() {
        let abc = Array("abc".utf8)
        #expect(abc.withUnsafeBufferPointer { SHA256.leading64Bits(of: $0) } == 0xba78_16bf_8f01_cfea)
    }
}
