import Foundation
import Testing
import _FenceLabSupport

/// `InputFileReader`: the one seam for named input files reads regular files (twice if asked)
/// and refuses everything else before reading.
@Suite struct InputFileReaderTests {
    static func tempDir() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fencelab-inputfile-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func regularFileIsReadAndRewound() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("a.csv").path
        let bytes = Array("one\ntwo\n".utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let file = try InputFileReader(path: path)
        #expect(file.size_bytes == 8)
        #expect([UInt8](try file.read(upToCount: 100)) == bytes)
        #expect(try file.read(upToCount: 100).isEmpty)
        try file.rewind()
        #expect([UInt8](try file.read(upToCount: 3)) == Array("one".utf8))
        #expect(try InputFileReader.readAll(path: path, limit_bytes: 8) == bytes)
        #expect(throws: InputFileProblem.tooLarge(size_bytes: 8, limit_bytes: 7)) {
            try InputFileReader.readAll(path: path, limit_bytes: 7)
        }
        // A symbolic link to a regular file is a regular file.
        let link = dir.appendingPathComponent("link.csv").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        #expect(try InputFileReader.readAll(path: link, limit_bytes: 100) == bytes)
        // Hashed piece by piece from the file: the digest of the bytes in memory.
        #expect(try InputFileReader.sha256Hex(path: path) == SHA256.hex(bytes))
    }

    @Test func everythingElseIsRefusedBeforeReading() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("f.csv").path
        #expect(mkfifo(fifo, 0o600) == 0)
        // Opening a FIFO without a writer would block: the reader must refuse it without opening it blocking.
        #expect(throws: InputFileProblem.notRegularFile(kind: "a FIFO")) { try InputFileReader(path: fifo) }
        #expect(throws: InputFileProblem.notRegularFile(kind: "a character device")) {
            try InputFileReader(path: "/dev/zero")
        }
        #expect(throws: InputFileProblem.notRegularFile(kind: "a directory")) { try InputFileReader(path: dir.path) }
        #expect(throws: InputFileProblem.missing) { try InputFileReader(path: dir.appendingPathComponent("none").path) }
        let dangling = dir.appendingPathComponent("dangling.csv").path
        try FileManager.default.createSymbolicLink(
            atPath: dangling, withDestinationPath: dir.appendingPathComponent("none").path)
        #expect(throws: InputFileProblem.missing) { try InputFileReader(path: dangling) }
        #expect(InputFileProblem.notRegularFile(kind: "a FIFO").description.hasPrefix("not a regular file (a FIFO)"))
    }
}
