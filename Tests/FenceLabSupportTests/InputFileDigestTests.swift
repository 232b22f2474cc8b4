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

/// CRC-32C of the sweep's record lines: the published check value and the bit-by-bit definition
/// at every length around the eight-byte steps.
@Suite struct CRC32CTests {
    /// RFC 3720 B.4 / the CRC catalogue: CRC-32C("123456789") = 0xE3069283; 32 zero bytes: 0x8A9136AA.
    @Test func publishedVectors() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(CRC32C.checksum([]) == 0)
    }

    @Test(arguments: [1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 431, 512])
    func equalsTheBitwiseDefinition(length: Int) {
        let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 17) }
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        }
        #expect(CRC32C.checksum(bytes) == crc ^ 0xFFFF_FFFF)
    }
}
