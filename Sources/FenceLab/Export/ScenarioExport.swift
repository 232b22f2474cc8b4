import DeviceLogKit
import DriveSim
import Foundation
import _FenceLabSupport

/// Why an export failed (beyond a refused scenario file, which is a `ScenarioError`).
package enum ExportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `--format` is not one of `ScenarioExport.formats`.
    case unknownFormat(String)
    /// `--start` is not an ISO-8601 time with a zone, or out of range for the format.
    case badStart(value: String, reason: String)
    /// The output file could not be written; nothing was left behind.
    case writeFailed(path: String, reason: String)

    package var description: String {
        switch self {
        case .unknownFormat(let f):
            return "--format must be \(ScenarioExport.formats.joined(separator: ", ")), got '\(f)'"
        case .badStart(let value, let reason): return "--start '\(DeviceLogLexical.shown(value))': \(reason)"
        case .writeFailed(let path, let reason): return "\(path): cannot write: \(reason)"
        }
    }
}

/// Exports one replicate of a scenario for playback (`fencelab export`): GPX waypoints or
/// track, CSV, JSON Lines, NMEA or KML.
///
/// The export writes coordinates because the user asked for them. Output goes to a
/// temporary file next to the target and is renamed into place, so a failure leaves nothing half-written.
package enum ScenarioExport {
    /// What an export wrote.
    package struct Summary: Sendable, Hashable {
        package var scenario: String
        package var replicate: Int
        package var format: String
        /// Points written.
        package var points: Int
        /// Delivered fixes not written because the format cannot hold an invalid coordinate (GPX, NMEA, KML).
        package var skippedInvalid: Int
        /// Written points whose timestamp is not after the previous point's: injected faults
        /// (duplicate, out-of-order, stale delivery) that a device would deliver as such.
        package var nonIncreasingTimestamps: Int
        /// Unix seconds of t = 0 of the drive.
        package var start_unix_s: Double

        /// "wrote 1200 points of NAME replicate 0 as gpx to FILE, starting 2026-…; 75 non-increasing timestamps (…)".
        package func line(destination: String) -> String {
            var line =
                "export: wrote \(points) points of \(scenario) replicate \(replicate) as \(format) to \(destination), "
                + "starting \(TrackExport.iso8601(start_unix_s))"
            if nonIncreasingTimestamps > 0 {
                line +=
                    "; \(nonIncreasingTimestamps) non-increasing timestamp\(nonIncreasingTimestamps == 1 ? "" : "s") "
                    + "(injected faults: duplicate, late or stale deliveries, played as delivered)"
            }
            if skippedInvalid > 0 {
                line += "; \(skippedInvalid) fixes with invalid coordinates skipped (\(format) cannot hold them)"
            }
            return line
        }
    }

    /// The format names accepted by `--format`.
    package static let formats = TrackFormat.allCases.map(\.rawValue)

    /// Unix seconds of `date` rounded down to the whole minute: the default `--start`.
    package static func defaultStart(now: Date = Date()) -> Double {
        (now.timeIntervalSince1970 / 60).rounded(.down) * 60
    }

    /// Parses `--start`: ISO-8601 / RFC 3339 with a zone (`2026-03-01T12:00:00Z`), years 1970–9999.
    package static func parseStart(_ text: String) throws(ExportError) -> Double {
        let bytes = Array(text.utf8)
        guard bytes.count >= 10, bytes[4] == UInt8(ascii: "-"), bytes[0...3].allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            throw .badStart(value: text, reason: "expected an ISO-8601 time with a zone, e.g. 2026-03-01T12:00:00Z")
        }
        switch DeviceLogLexical.timestamp(Substring(text)) {
        case .success(let t):
            guard t >= 0 else { throw .badStart(value: text, reason: "must be at or after 1970-01-01T00:00:00Z") }
            return t
        case .failure(let p): throw .badStart(value: text, reason: p.reason)
        }
    }

    /// Renders the export as text; times are `start_unix_s` + the fix's time in the drive.
    /// - Parameter start_unix_s: t = 0 of the drive; nil: the scenario's `sampling.start_unix_s`
    ///   (2026-01-01T00:00:00Z unless the file sets it), so library output is reproducible.
    package static func render(
        spec: ScenarioSpec, format name: String, replicate: Int,
        start_unix_s: Double? = nil
    ) throws -> (text: String, summary: Summary) {
        let start_unix_s = start_unix_s ?? spec.sampling.start_unix_s
        guard let format = TrackFormat(rawValue: name) else { throw ExportError.unknownFormat(name) }
        if format == .nmea {
            // RMC dates carry a two-digit year; the importer reads 80–99 as 19xx and 00–79 as 20xx.
            let end = start_unix_s + spec.sampling.duration_s
            guard start_unix_s >= 315_532_800, end < 3_471_292_800 else {
                throw ExportError.badStart(
                    value: TrackExport.iso8601(start_unix_s),
                    reason: "NMEA dates have a two-digit year: the drive must lie within 1980–2079")
            }
        }
        var text = TrackExport.header(format, name: "\(spec.name) replicate \(replicate)")
        var coordinates: [String] = []
        var points = 0
        var skipped = 0
        var nonIncreasing = 0
        var previous_s = -Double.infinity
        var generator = try ScenarioGenerator(spec: spec, replicate: replicate)
        while let s = generator.next() {
            guard let fix = s.fix else { continue }
            let row: String?
            if format == .kml, let k = TrackExport.kmlRow(s, start_unix_s: start_unix_s) {
                row = k.when
                coordinates.append(k.coord)
            } else {
                row = format == .kml ? nil : TrackExport.row(s, format: format, start_unix_s: start_unix_s)
            }
            guard let row else {
                skipped += 1
                continue
            }
            text += row
            points += 1
            if !(fix.timestamp_s > previous_s) { nonIncreasing += 1 }
            if fix.timestamp_s.isFinite { previous_s = max(previous_s, fix.timestamp_s) }
        }
        text += TrackExport.footer(format, kmlCoordinates: coordinates)
        return (
            text,
            Summary(
                scenario: spec.name, replicate: replicate, format: name, points: points, skippedInvalid: skipped,
                nonIncreasingTimestamps: nonIncreasing, start_unix_s: start_unix_s)
        )
    }

    /// Loads `scenarioPath`, renders replicate `replicate` and writes it atomically to `outPath`
    /// (temporary file + rename), or returns the text when `outPath` is nil. A destination that
    /// is not a regular file (`/dev/full`, a FIFO, a symbolic link) is refused before any work.
    /// - Parameter start_unix_s: t = 0 of the drive; nil: the scenario's `sampling.start_unix_s` when
    ///   the file sets it, else `defaultStart()` (now, rounded down to the minute).
    package static func export(
        scenarioPath: String, format: String, replicate: Int, outPath: String?,
        start_unix_s: Double? = nil
    ) throws -> (text: String?, summary: Summary) {
        if let outPath {
            do {
                try FileSystem.checkNotAnInput(output: outPath, inputs: [scenarioPath])
                try FileSystem.checkFileDestination(outPath)
            } catch {
                throw ExportError.writeFailed(path: outPath, reason: error.reason)
            }
        }
        let spec = try ScenarioSpec.load(path: scenarioPath)
        let start = start_unix_s ?? (spec.sampling.startIsExplicit ? spec.sampling.start_unix_s : defaultStart())
        let (text, summary) = try render(spec: spec, format: format, replicate: replicate, start_unix_s: start)
        guard let outPath else { return (text, summary) }
        try writeAtomically(text, to: outPath)
        return (nil, summary)
    }

    /// Writes `text` as the regular file `path`, atomically (`FileSystem.atomicWrite`).
    package static func writeAtomically(_ text: String, to path: String) throws {
        do { try FileSystem.atomicWrite(Array(text.utf8), to: path) } catch {
            throw ExportError.writeFailed(path: path, reason: error.reason)
        }
    }
}
