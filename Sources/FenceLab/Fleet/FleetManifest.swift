import Foundation

/// One log of a fleet and the cohort it belongs to.
package struct FleetEntry: Sendable, Hashable {
    /// The log's path, resolved against the manifest's folder.
    package var path: String
    /// The path as the manifest wrote it (reports show this one).
    package var name: String
    /// Cohort keys and values in manifest column order (`device`, `os`, `app`, then any extra).
    package var keys: [String]
    package var values: [String]
    /// Where the entry was read: `MANIFEST:LINE` or the sidecar's path.
    package var origin: String

    package init(path: String, name: String, keys: [String], values: [String], origin: String) {
        self.path = path
        self.name = name
        self.keys = keys
        self.values = values
        self.origin = origin
    }

    /// The value of cohort key `key`, nil when the entry has none.
    package func value(_ key: String) -> String? { keys.firstIndex(of: key).map { values[$0] } }
}

/// Why a fleet could not be read: each case names the manifest line, the sidecar or the option.
package struct FleetError: Error, Sendable, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}

/// A fleet of device logs: a manifest CSV (`file,device,os,app[,place][,…]`) or a folder of logs
/// each with a `LOG.meta.json` sidecar (a flat JSON object of string values).
package enum FleetManifest {
    /// The columns every manifest and sidecar carries, in order.
    package static let requiredKeys = ["device", "os", "app"]

    /// Reads `path` (a manifest file or a folder); every entry's file must exist, no file twice, and
    /// every entry must carry the same cohort keys.
    package static func load(_ path: String) throws(FleetError) -> [FleetEntry] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw FleetError("--device-logs \(path): no such file or folder")
        }
        let entries = isDirectory.boolValue ? try sidecars(path) : try manifest(path)
        guard !entries.isEmpty else { throw FleetError("--device-logs \(path): no device logs listed") }
        var seen: [String: String] = [:]
        for e in entries {
            let key = URL(fileURLWithPath: e.path).standardizedFileURL.path
            if let first = seen[key] {
                throw FleetError("\(e.origin): duplicate file \(e.name) (first listed at \(first))")
            }
            seen[key] = e.origin
            guard FileManager.default.fileExists(atPath: e.path) else {
                throw FleetError("\(e.origin): file \(e.name) does not exist")
            }
        }
        let keys = Set(entries[0].keys)
        for e in entries where Set(e.keys) != keys {
            let missing = keys.subtracting(e.keys).sorted() + Set(e.keys).subtracting(keys).sorted()
            throw FleetError("\(e.origin): cohort key \(missing.joined(separator: ", ")) absent from some logs")
        }
        return entries
    }

    static func manifest(_ path: String) throws(FleetError) -> [FleetEntry] {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8)
        else { throw FleetError("--device-logs \(path): cannot read the manifest as UTF-8 text") }
        let folder = (path as NSString).deletingLastPathComponent
        var header: [String]?
        var entries: [FleetEntry] = []
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.hasSuffix("\r") ? String(raw.dropLast()) : String(raw)
            if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            let origin = "\(path):\(i + 1)"
            guard let columns = header else {
                guard fields.first == "file", Array(fields.dropFirst().prefix(3)) == requiredKeys else {
                    throw FleetError("\(origin): the header must begin file,device,os,app")
                }
                for (j, c) in fields.enumerated() where c.isEmpty || fields[..<j].contains(c) {
                    throw FleetError("\(origin): column \(j + 1) is \(c.isEmpty ? "unnamed" : "repeated (\(c))")")
                }
                header = fields
                continue
            }
            guard fields.count == columns.count else {
                throw FleetError("\(origin): \(fields.count) fields, the header has \(columns.count)")
            }
            guard !fields[0].isEmpty else { throw FleetError("\(origin): empty file name") }
            var keys: [String] = []
            var values: [String] = []
            for j in 1..<columns.count where !fields[j].isEmpty {
                keys.append(columns[j])
                values.append(fields[j])
            }
            let resolved = fields[0].hasPrefix("/") ? fields[0] : (folder as NSString).appendingPathComponent(fields[0])
            // Equal key lists share one array (memory: one entry per log).
            if let last = entries.last, last.keys == keys { keys = last.keys }
            entries.append(FleetEntry(path: resolved, name: fields[0], keys: keys, values: values, origin: origin))
        }
        guard header != nil else { throw FleetError("\(path):1: empty manifest (no header)") }
        return entries
    }

    static func sidecars(_ folder: String) throws(FleetError) -> [FleetEntry] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        var entries: [FleetEntry] = []
        for name in names where name.hasSuffix(".meta.json") {
            let sidecar = (folder as NSString).appendingPathComponent(name)
            let log = String(name.dropLast(".meta.json".count))
            guard let data = FileManager.default.contents(atPath: sidecar),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { throw FleetError("\(sidecar): not a JSON object") }
            var keys: [String] = []
            var values: [String] = []
            for key in requiredKeys + object.keys.filter({ !requiredKeys.contains($0) }).sorted() {
                guard let v = object[key] else { continue }
                guard let s = v as? String, !s.isEmpty else {
                    throw FleetError("\(sidecar): key \(key) must be a non-empty string")
                }
                keys.append(key)
                values.append(s)
            }
            for key in requiredKeys where !keys.contains(key) {
                throw FleetError("\(sidecar): cohort key \(key) absent")
            }
            entries.append(
                FleetEntry(
                    path: (folder as NSString).appendingPathComponent(log), name: log, keys: keys, values: values,
                    origin: sidecar))
        }
        return entries
    }
}
