import Foundation

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
    public static let skippedFolders: Set<String> = ["fixtures", "device-logs", "tuning"]

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
    public static func loadAll(paths: [String]) throws(ScenarioError) -> [LoadedScenario] {
        try scenarioFiles(paths: paths).map { (p) throws(ScenarioError) in try loadFile(path: p) }
    }

    /// The scenario files `loadAll` would read, in order.
    public static func scenarioFiles(paths: [String]) throws(ScenarioError) -> [String] {
        var out: [String] = []
        let fm = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw .unreadable(file: path, reason: "no such file or folder")
            }
            guard isDirectory.boolValue else { out.append(path); continue }
            out += try jsonFiles(in: path)
        }
        return out
    }

    private static func jsonFiles(in folder: String) throws(ScenarioError) -> [String] {
        let fm = FileManager.default
        let entries: [String]
        do { entries = try fm.contentsOfDirectory(atPath: folder) } catch {
            throw .unreadable(file: folder, reason: "\(error.localizedDescription)")
        }
        var out: [String] = []
        let base = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        for name in entries.sorted() where !name.hasPrefix(".") {
            let full = base + "/" + name
            var isDirectory: ObjCBool = false
            _ = fm.fileExists(atPath: full, isDirectory: &isDirectory)
            if isDirectory.boolValue {
                if !skippedFolders.contains(name) { out += try jsonFiles(in: full) }
            } else if name.hasSuffix(".json") {
                out.append(full)
            }
        }
        return out
    }

    static func readBytes(_ path: String) throws(ScenarioError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .unreadable(file: path, reason: FileManager.default.fileExists(atPath: path) ? "permission denied or not a file" : "no such file")
        }
        return [UInt8](data)
    }
}
