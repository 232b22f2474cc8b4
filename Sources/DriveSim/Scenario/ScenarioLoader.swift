import Foundation
import _FenceLabSupport

/// A scenario as loaded from disk: the spec, the path it came from and the SHA-256 of its bytes.
public struct LoadedScenario: Sendable, Hashable {
    public let spec: ScenarioSpec
    /// The path as given (or as found inside a given folder).
    public let path: String
    /// Lower-case hex SHA-256 of the file's bytes, for reports.
    public let sha256: String
}

extension ScenarioSpec {
    /// Sub-folders of a scenario folder that hold other kinds of files and are skipped by `loadAll`.
    public static let skippedFolders: Set<String> = ["fixtures", "device-logs", "tuning", "places"]

    /// Loads and strictly decodes one scenario file.
    public static func load(path: String) throws(ScenarioError) -> ScenarioSpec {
        try loadFile(path: path).spec
    }

    /// Loads one scenario file with its hash.
    public static func loadFile(path: String) throws(ScenarioError) -> LoadedScenario {
        let bytes = try readBytes(path)
        return LoadedScenario(spec: try decode(bytes, file: path), path: path, sha256: SHA256.hex(bytes))
    }

    /// Loads every scenario named by `paths`: files as given, folders as their `*.json` files
    /// (recursively, sorted by path, skipping `fixtures/` and `device-logs/`). Fails on the first bad file.
    ///
    /// Each scenario counts once: the same file reached twice (listed again, inside a listed
    /// folder, through `..` or a symbolic link) and two files with the same `name` (reports,
    /// sweep weights and `--weight NAME` address scenarios by name) are refused.
    public static func loadAll(paths: [String]) throws(ScenarioError) -> [LoadedScenario] {
        var seenFiles: [String: String] = [:]
        var seenNames: [String: String] = [:]
        var loaded: [LoadedScenario] = []
        for path in try scenarioFiles(paths: paths) {
            let identity = Syscalls.fileIdentity(path: path).map { "\($0.device):\($0.inode)" } ?? path
            if let first = seenFiles[identity] {
                throw .duplicateScenario(file: path, first: first, reason: "the same file")
            }
            seenFiles[identity] = path
            let scenario = try loadFile(path: path)
            if let first = seenNames[scenario.spec.name] {
                throw .duplicateScenario(file: path, first: first, reason: "the same name '\(scenario.spec.name)'")
            }
            seenNames[scenario.spec.name] = path
            loaded.append(scenario)
        }
        return loaded
    }

    /// The scenario files `loadAll` would read, in order. Each real directory is walked once,
    /// however many symlinks lead to it: a symlink loop neither repeats scenarios nor hangs.
    public static func scenarioFiles(paths: [String]) throws(ScenarioError) -> [String] {
        var out: [String] = []
        var visited = Set<DirectoryIdentity>()
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw .unreadable(file: path, reason: "no such file or folder")
            }
            guard isDirectory.boolValue else {
                out.append(path)
                continue
            }
            try jsonFiles(in: path, visited: &visited, into: &out)
        }
        return out
    }

    /// A directory as the file system knows it (device, inode), whatever path reached it.
    private struct DirectoryIdentity: Hashable {
        var device: UInt64
        var inode: UInt64

        init?(path: String) {
            guard let id = Syscalls.fileIdentity(path: path) else { return nil }
            device = id.device
            inode = id.inode
        }
    }

    private static func jsonFiles(
        in folder: String, visited: inout Set<DirectoryIdentity>,
        into out: inout [String]
    ) throws(ScenarioError) {
        guard let identity = DirectoryIdentity(path: folder) else {
            throw .unreadable(file: folder, reason: "cannot stat the folder")
        }
        guard visited.insert(identity).inserted else { return }
        let fm = FileManager.default
        let entries: [String]
        do { entries = try fm.contentsOfDirectory(atPath: folder) } catch {
            throw .unreadable(file: folder, reason: "\(error.localizedDescription)")
        }
        let base = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        for name in entries.sorted() where !name.hasPrefix(".") {
            let full = base + "/" + name
            var isDirectory: ObjCBool = false
            _ = fm.fileExists(atPath: full, isDirectory: &isDirectory)
            if isDirectory.boolValue {
                if !skippedFolders.contains(name) { try jsonFiles(in: full, visited: &visited, into: &out) }
            } else if name.hasSuffix(".json") {
                out.append(full)
            }
        }
    }

    /// Largest scenario file read, in bytes (16 MiB): far above any real scenario (the
    /// catalog's largest is a few kB), small enough that parsing and errors stay bounded.
    public static let maxFileSize_bytes = 16 << 20

    /// The file's bytes; refuses files over `maxFileSize_bytes` without reading past the limit, and
    /// anything that is not a regular file (a FIFO, `/dev/zero`, a socket) before reading.
    static func readBytes(_ path: String) throws(ScenarioError) -> [UInt8] {
        do { return try InputFileReader.readAll(path: path, limit_bytes: maxFileSize_bytes) } catch {
            switch error {
            case .tooLarge: throw .unreadable(file: path, reason: "larger than the 16 MiB limit for a scenario file")
            default: throw .unreadable(file: path, reason: error.description)
            }
        }
    }
}
