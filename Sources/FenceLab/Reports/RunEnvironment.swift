import Foundation
import GSLKit
import _FenceLabSupport

/// Collects run metadata: git commit, toolchain, GSL version, UTC time.
package enum RunEnvironment {
    /// The Swift compiler that built this binary (`ToolVersion.swiftToolchain`).
    package static var swiftToolchain: String { ToolVersion.swiftToolchain }

    /// Metadata for a run starting now.
    /// - Parameters:
    ///   - searchFrom: folder where the search for `.git` starts (walking up); usually the cwd.
    package static func collect(
        generator: String, seeds: [UInt64], rulesVersions: [String],
        searchFrom: String = FileManager.default.currentDirectoryPath,
        now: Date = Date()
    ) -> RunInfo {
        var distinct: [String] = []
        for v in rulesVersions where !distinct.contains(v) { distinct.append(v) }
        return RunInfo(
            toolVersion: ToolVersion.string, gitCommit: gitCommit(searchFrom: searchFrom),
            swiftToolchain: swiftToolchain, gslVersion: GSLRuntime.version, generator: generator,
            seeds: seeds, rulesVersions: distinct, time_utc: utcString(now))
    }

    /// ISO-8601 UTC with whole seconds, locale-independent.
    package static func utcString(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ v: Int?) -> String {
            let s = String(v ?? 0)
            return s.count < 2 ? "0" + s : s
        }
        return "\(c.year ?? 0)-\(two(c.month))-\(two(c.day))T\(two(c.hour)):\(two(c.minute)):\(two(c.second))Z"
    }

    /// The commit of HEAD, read from the `.git` files directly (no `git` process):
    /// follows a worktree's `gitdir:` file and `commondir`, loose refs, then `packed-refs`.
    /// nil when no repository is found or HEAD cannot be resolved.
    package static func gitCommit(searchFrom: String) -> String? {
        var dir = URL(fileURLWithPath: searchFrom).standardizedFileURL
        while true {
            let dotGit = dir.appendingPathComponent(".git")
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: dotGit.path, isDirectory: &isDir) {
                return resolveHead(dotGit: dotGit, isDirectory: isDir.boolValue)
            }
            if dir.path == "/" { return nil }
            dir.deleteLastPathComponent()
        }
    }

    private static func read(_ url: URL) -> String? {
        (try? String(contentsOf: url, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func isHash(_ s: String) -> Bool {
        s.count == 40 && s.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }

    private static func resolveHead(dotGit: URL, isDirectory: Bool) -> String? {
        var gitDir = dotGit
        if !isDirectory {
            guard let text = read(dotGit), text.hasPrefix("gitdir:") else { return nil }
            let path = text.dropFirst("gitdir:".count).trimmingCharacters(in: .whitespaces)
            gitDir =
                path.hasPrefix("/")
                ? URL(fileURLWithPath: path)
                : dotGit.deletingLastPathComponent().appendingPathComponent(path)
        }
        var commonDir = gitDir
        if let common = read(gitDir.appendingPathComponent("commondir")) {
            commonDir = common.hasPrefix("/") ? URL(fileURLWithPath: common) : gitDir.appendingPathComponent(common)
        }
        guard let head = read(gitDir.appendingPathComponent("HEAD")) else { return nil }
        if isHash(head) { return head }
        guard head.hasPrefix("ref:") else { return nil }
        let ref = head.dropFirst(4).trimmingCharacters(in: .whitespaces)
        for base in [gitDir, commonDir] {
            if let hash = read(base.appendingPathComponent(ref)), isHash(hash) { return hash }
        }
        guard let packed = read(commonDir.appendingPathComponent("packed-refs")) else { return nil }
        for line in packed.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, parts[1] == ref, isHash(String(parts[0])) { return String(parts[0]) }
        }
        return nil
    }
}
