import Foundation
import Testing
import _TestSupport

/// No two paths of the repository differ only by letter case: on a case-insensitive file system
/// (macOS's default, where iOS engineers clone) they would collide at checkout.
@Suite struct PathCaseTests {
    /// Groups of paths that are equal when lower-cased, each group sorted, the groups sorted.
    static func caseClashes(_ paths: [String]) -> [[String]] {
        Dictionary(grouping: paths) { $0.lowercased() }.values.filter { $0.count > 1 }.map { $0.sorted() }
            .sorted { $0[0] < $1[0] }
    }

    /// Every file and folder below `root`, relative, without build products and tool state.
    static func repositoryPaths(root: URL) throws -> [String] {
        let skipped: Set<String> = [".build", ".git", ".swiftpm", ".index-build"]
        var out: [String] = []
        var pending = [""]
        let fm = FileManager.default
        while let relative = pending.popLast() {
            let folder = relative.isEmpty ? root : root.appendingPathComponent(relative)
            for name in try fm.contentsOfDirectory(atPath: folder.path) where !skipped.contains(name) {
                let path = relative.isEmpty ? name : relative + "/" + name
                out.append(path)
                var isDirectory: ObjCBool = false
                if fm.fileExists(atPath: root.appendingPathComponent(path).path, isDirectory: &isDirectory),
                    isDirectory.boolValue
                {
                    pending.append(path)
                }
            }
        }
        return out
    }

    @Test func clashesAreFound() {
        let paths = ["Sources/FenceLab", "Sources/fencelab", "Sources/FenceLab/A.swift", "docs/a.txt", "Docs/B.txt"]
        #expect(Self.caseClashes(paths) == [["Sources/FenceLab", "Sources/fencelab"]])
        #expect(Self.caseClashes(["a/b", "a/c"]).isEmpty)
    }

    @Test func noTwoPathsDifferOnlyByCase() throws {
        let paths = try Self.repositoryPaths(root: TestPaths.packageRoot)
        #expect(paths.count > 200, "the scan found only \(paths.count) paths")
        #expect(
            Self.caseClashes(paths).isEmpty,
            "paths that collide on a case-insensitive file system: \(Self.caseClashes(paths))")
    }
}
