import Foundation
import Testing

@testable import _FenceLabSupport

/// Paths compared as the file system sees them: `.`/`..`, symbolic links, and names that do
/// not exist yet below a linked folder.
@Suite struct ResolvedPathTests {
    static func tempDir() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-paths-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return Syscalls.realPath(dir.path) ?? dir.path
    }

    @Test func linksDotsAndMissingTailsResolve() throws {
        let dir = try Self.tempDir()
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir + "/shards", withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: dir + "/alias", withDestinationPath: dir + "/shards")
        try Data("x".utf8).write(to: URL(fileURLWithPath: dir + "/in.json"))
        try fm.createSymbolicLink(atPath: dir + "/link.json", withDestinationPath: "in.json")
        #expect(FileSystem.resolvedPath(dir + "/alias/merged") == dir + "/shards/merged")
        #expect(FileSystem.resolvedPath(dir + "/alias/a/b/../c") == dir + "/shards/a/c")
        #expect(FileSystem.resolvedPath(dir + "/link.json") == dir + "/in.json")
        #expect(FileSystem.isSameOrInside(dir + "/alias/merged", dir + "/shards"))
        #expect(!FileSystem.isSameOrInside(dir + "/shards-2", dir + "/shards"))
        #expect(throws: OutputError.overwritesInput(path: dir + "/link.json", input: dir + "/in.json")) {
            try FileSystem.checkNotAnInput(output: dir + "/link.json", inputs: [dir + "/in.json"])
        }
        try FileSystem.checkNotAnInput(output: dir + "/out.csv", inputs: [dir + "/in.json"])
    }
}
