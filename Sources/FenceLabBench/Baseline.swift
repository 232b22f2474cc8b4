import Foundation

/// A report `BaselineStore` can save and load: one per metric.
protocol StoredReport: Codable {
    static var metric: Metric { get }
    var schemaVersion: Int { get }
    var comparison: Comparison? { get set }
}

/// Everything one `--metric time` run produced: what `--format json` prints and `--save-baseline` stores.
struct BenchReport: StoredReport, Sendable {
    /// Bumped when the file layout changes incompatibly.
    var schemaVersion: Int = BenchReport.currentSchemaVersion
    static let currentSchemaVersion = 1
    static let metric = Metric.time
    /// Always `time` when written; absent in baselines written before `--metric` existed.
    var metric: Metric? = .time
    var machine: MachineInfo
    var configuration: RunConfiguration
    var results: [Measurement]
    var comparison: Comparison?
}

/// Errors of the bench tool itself (not of the measured code).
package enum BenchError: Error, CustomStringConvertible {
    case usage(String)
    case baselineMissing(path: String)
    case baselineUnreadable(path: String, reason: String)
    case cannotWrite(path: String, reason: String)
    /// valgrind, its header or objcopy is missing (the message names the Debian package).
    case toolMissing(String)
    /// A tool ran but the count could not be taken.
    case measurementFailed(String)

    package var description: String {
        switch self {
        case .usage(let m): return m
        case .baselineMissing(let path): return "baseline not found: \(path) (create it with --save-baseline)"
        case .baselineUnreadable(let path, let reason):
            return "\(path): not a usable baseline: \(reason)"
        case .cannotWrite(let path, let reason): return "\(path): cannot write: \(reason)"
        case .toolMissing(let m), .measurementFailed(let m): return m
        }
    }

    package var exitCode: Int32 {
        switch self {
        case .usage: return 64
        case .baselineMissing: return 5
        case .baselineUnreadable, .cannotWrite, .toolMissing, .measurementFailed: return 1
        }
    }
}

/// Baseline files under the package root: `Benchmarks/baselines/NAME.json` for `--metric time`,
/// `Benchmarks/baselines/NAME-instructions.json` for `--metric instructions`.
package struct BaselineStore {
    let directory: URL

    /// `FENCELAB_BENCH_BASELINES` if set, else `Benchmarks/baselines` in the nearest
    /// folder at or above the working directory that holds `Package.swift` (the package of the
    /// tool being run, when run from its package: `swift run -c release my-bench`).
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
    package static func validate(name: String) throws(BenchError) {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        guard !name.isEmpty, name.count <= 64, !name.hasPrefix("."), name.allSatisfy(allowed.contains) else {
            throw .usage("baseline name must be 1-64 of A-Z a-z 0-9 . _ - (not starting with '.'), got '\(name)'")
        }
    }

    func path(_ name: String, metric: Metric) -> URL {
        directory.appendingPathComponent(metric == .time ? name + ".json" : "\(name)-\(metric.rawValue).json")
    }

    func exists(_ name: String, metric: Metric) -> Bool {
        FileManager.default.fileExists(atPath: path(name, metric: metric).path)
    }

    /// Writes atomically (temporary file, then rename).
    func save<R: StoredReport>(_ report: R, name: String) throws(BenchError) -> URL {
        let url = path(name, metric: R.metric)
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

    func load<R: StoredReport>(_ name: String, as type: R.Type) throws(BenchError) -> R {
        let url = path(name, metric: R.metric)
        guard FileManager.default.fileExists(atPath: url.path) else { throw .baselineMissing(path: url.path) }
        do {
            let data = try Data(contentsOf: url)
            let decoder = JSONDecoder()
            decoder.nonConformingFloatDecodingStrategy = .convertFromString(
                positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
            // The metric first: a file of the other metric fails on it, not on a missing key.
            let stored = try decoder.decode(StoredMetricHeader.self, from: data).metric ?? .time
            guard stored == R.metric else {
                throw BenchError.baselineUnreadable(
                    path: url.path,
                    reason: "it holds --metric \(stored.rawValue) results, this run is --metric \(R.metric.rawValue)")
            }
            let report = try decoder.decode(R.self, from: data)
            guard report.schemaVersion == BenchReport.currentSchemaVersion else {
                throw BenchError.baselineUnreadable(
                    path: url.path,
                    reason: "schemaVersion \(report.schemaVersion), this tool reads \(BenchReport.currentSchemaVersion)"
                )
            }
            return report
        } catch let error as BenchError {
            throw error
        } catch {
            throw .baselineUnreadable(path: url.path, reason: "\(error)")
        }
    }
}

/// The one key read before the whole file: which metric a baseline holds.
private struct StoredMetricHeader: Decodable {
    var metric: Metric?
}

package enum BenchJSON {
    package static func encode<T: Encodable>(_ value: T) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return try encoder.encode(value)
    }
}
