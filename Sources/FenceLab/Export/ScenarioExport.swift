import DriveSim
import Foundation

/// Why an export failed (beyond a refused scenario file, which is a `ScenarioError`).
public enum ExportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `--format` is not gpx, csv or jsonl.
    case unknownFormat(String)
    /// The output file could not be written; nothing was left behind.
    case writeFailed(path: String, reason: String)

    public var description: String {
        switch self {
        case let .unknownFormat(f): return "--format must be gpx, csv or jsonl, got '\(f)'"
        case let .writeFailed(path, reason): return "\(path): cannot write: \(reason)"
        }
    }
}

/// Exports one replicate of a scenario as GPX, CSV or JSON Lines (`fencelab export`).
///
/// The export writes coordinates because the user asked for them. Output goes to a
/// temporary file next to the target and is renamed into place, so a failure leaves nothing half-written.
public enum ScenarioExport {
    /// What an export wrote.
    public struct Summary: Sendable, Hashable {
        public var scenario: String
        public var replicate: Int
        public var format: String
        /// Points written (for GPX: per list, wpt and trkpt each hold this many).
        public var points: Int
        /// Delivered fixes not written because GPX cannot hold an invalid coordinate.
        public var skippedInvalid: Int
    }

    /// The format names accepted by `--format`.
    public static let formats = TrackFormat.allCases.map(\.rawValue)

    /// Renders the export as text.
    public static func render(spec: ScenarioSpec, format name: String, replicate: Int) throws -> (text: String, summary: Summary) {
        guard let format = TrackFormat(rawValue: name) else { throw ExportError.unknownFormat(name) }
        var text = TrackExport.header(format, name: "\(spec.name) replicate \(replicate)")
        var points = 0, skipped = 0
        let start = spec.sampling.start_unix_s
        var generator = try ScenarioGenerator(spec: spec, replicate: replicate)
        while let s = generator.next() {
            guard s.fix != nil else { continue }
            if let row = TrackExport.row(s, format: format, start_unix_s: start, element: "wpt") {
                text += row
                points += 1
            } else {
                skipped += 1
            }
        }
        if format == .gpx {
            // Second pass for the track: the same replicate regenerates byte-identically.
            text += TrackExport.gpxTrackOpening(name: spec.name)
            var again = try ScenarioGenerator(spec: spec, replicate: replicate)
            while let s = again.next() {
                if let row = TrackExport.row(s, format: .gpx, start_unix_s: start, element: "trkpt") { text += row }
            }
        }
        text += TrackExport.footer(format)
        return (text, Summary(scenario: spec.name, replicate: replicate, format: name, points: points, skippedInvalid: skipped))
    }

    /// Loads `scenarioPath`, renders replicate `replicate` and writes it atomically to `outPath`
    /// (temporary file + rename), or returns the text when `outPath` is nil. A destination that
    /// is not a regular file (`/dev/full`, a FIFO, a symbolic link) is refused before any work.
    public static func export(scenarioPath: String, format: String, replicate: Int, outPath: String?) throws -> (text: String?, summary: Summary) {
        if let outPath {
            do { try FileSystem.checkFileDestination(outPath) } catch { throw ExportError.writeFailed(path: outPath, reason: error.reason) }
        }
        let spec = try ScenarioSpec.load(path: scenarioPath)
        let (text, summary) = try render(spec: spec, format: format, replicate: replicate)
        guard let outPath else { return (text, summary) }
        try writeAtomically(text, to: outPath)
        return (nil, summary)
    }

    /// Writes `text` as the regular file `path`, atomically (`FileSystem.atomicWrite`).
    public static func writeAtomically(_ text: String, to path: String) throws {
        do { try FileSystem.atomicWrite(Array(text.utf8), to: path) } catch {
            throw ExportError.writeFailed(path: path, reason: error.reason)
        }
    }
}
