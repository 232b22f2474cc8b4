import Foundation

/// Everything one run produced: what `--format json` prints and `--save-baseline` stores.
struct BenchReport: Codable, Sendable {
    /// Bumped when the file layout changes incompatibly.
    var schemaVersion: Int = BenchReport.currentSchemaVersion
    static let currentSchemaVersion = 1
    var machine: MachineInfo
    var configuration: RunConfiguration
    var results: [Measurement]
    var comparison: Comparison?
}

/// Errors of the bench tool itself (not of the measured code).
enum BenchError: Error, CustomStringConvertible {
    case usage(String)
    case baselineMissing(path: String)
    case baselineUnreadable(path: String, reason: String)
    case cannotWrite(path: String, reason: String)

    var description: String {
        switch self {
        case let .usage(m): return m
        case let .baselineMissing(path): return "baseline not found: \(path) (create it with --save-baseline)"
        case let .baselineUnreadable(path, reason): return "\(path): not a fencelab-bench baseline: \(reason)"
        case let .cannotWrite(path, reason): return "\(path): cannot write: \(reason)"
        }
    }

    var exitCode: Int32 {
        switch self {
        case .usage: return 64
        case .baselineMissing: return 5
        case .baselineUnreadable, .cannotWrite: return 1
        }
    }
}

/// Baseline files: `Benchmarks/baselines/NAME.json` under the package root.
struct BaselineStore {
    let directory: URL

    /// `FENCELAB_BENCH_BASELINES` if set, else `Benchmarks/baselines` in the nearest
    /// folder at or above the working directory that holds `Package.swift`.
    static func standard() -> BaselineStore {
        if let dir = ProcessInfo.processInfo.environment["FENCELAB_BENCH_BASELINES"], !dir.isEmpty {
            return BaselineStore(directory: URL(fileURLWithPath: dir))
        }
        var url = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        while url.path != "/" {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { break }
            url.deleteLastPathComponent()
        }
        if url.path == "/" { url = URL(fileURLWithPath: FileManager.default.currentDirectoryPath) }
        return BaselineStore(directory: url.appendingPathComponent("Benchmarks/baselines"))
    }

    /// A name is 1–64 of `A–Z a–z 0–9 . _ -`, not starting with a dot.
    static func validate(name: String) throws(BenchError) {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        guard !name.isEmpty, name.count <= 64, !name.hasPrefix("."), name.allSatisfy(allowed.contains) else {
            throw .usage("baseline name must be 1-64 of A-Z a-z 0-9 . _ - (not starting with '.'), got '\(name)'")
        }
    }

    func path(_ name: String) -> URL { directory.appendingPathComponent(name + ".json") }

    /// Writes atomically (temporary file, then rename).
    func save(_ report: BenchReport, name: String) throws(BenchError) -> URL {
        let url = path(name)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            var stored = report
            stored.comparison = nil
            try BenchJSON.encode(stored).write(to: url, options: .atomic)
        } catch {
            throw .cannotWrite(path: url.path, reason: "\(error)")
        }
        return url
    }

    func load(_ name: String) throws(BenchError) -> BenchReport {
        let url = path(name)
        guard FileManager.default.fileExists(atPath: url.path) else { throw .baselineMissing(path: url.path) }
        do {
            let data = try Data(contentsOf: url)
            let decoder = JSONDecoder()
            decoder.nonConformingFloatDecodingStrategy = .convertFromString(
                positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
            let report = try decoder.decode(BenchReport.self, from: data)
            guard report.schemaVersion == BenchReport.currentSchemaVersion else {
                throw BenchError.baselineUnreadable(
                    path: url.path, reason: "schemaVersion \(report.schemaVersion), this tool reads \(BenchReport.currentSchemaVersion)")
            }
            return report
        } catch let error as BenchError {
            throw error
        } catch {
            throw .baselineUnreadable(path: url.path, reason: "\(error)")
        }
    }
}

enum BenchJSON {
    static func encode<T: Encodable>(_ value: T) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return try encoder.encode(value)
    }
}
