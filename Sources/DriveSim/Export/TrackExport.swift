import Foundation
import GeoPolicy

/// File formats for device-level playback of a generated stream.
public enum TrackFormat: String, Sendable, Hashable, CaseIterable {
    /// GPX 1.1 with `wpt` (what Xcode's location simulation plays) and a `trk` of `trkpt`, each with ISO-8601 `time`.
    case gpx
    /// CSV with the device-log header of docs/device-logs.md: `timestamp,latitude,longitude,horizontal_accuracy,speed,course,event`.
    case csv
    /// JSON Lines with the same fields as the CSV (non-finite numbers as `null`).
    case jsonl
}

/// Writes delivered fixes as GPX, CSV or JSON Lines text, line by line.
///
/// Rows carry the observed fix (raw, possibly invalid) and the true speed and course
/// (the simulated device reports truth for those); gap items have no fix and no row.
/// GPX cannot hold invalid coordinates, so those fixes are skipped there (and counted).
public enum TrackExport {
    /// The CSV header (device-log columns, docs/device-logs.md).
    public static let csvHeader = "timestamp,latitude,longitude,horizontal_accuracy,speed,course,event"

    /// Text before the first point (GPX: the XML declaration, `gpx` and `metadata`; CSV: the header).
    public static func header(_ format: TrackFormat, name: String) -> String {
        switch format {
        case .csv: return csvHeader + "\n"
        case .jsonl: return ""
        case .gpx:
            return """
                <?xml version="1.0" encoding="UTF-8"?>
                <gpx version="1.1" creator="fencelab" xmlns="http://www.topografix.com/GPX/1/1">
                  <metadata><name>\(xmlEscaped(name))</name></metadata>

                """
        }
    }

    /// GPX only: closes the waypoints and opens the track.
    public static func gpxTrackOpening(name: String) -> String {
        "  <trk><name>\(xmlEscaped(name))</name><trkseg>\n"
    }

    /// Text after the last point.
    public static func footer(_ format: TrackFormat) -> String {
        format == .gpx ? "  </trkseg></trk>\n</gpx>\n" : ""
    }

    /// One row for a delivered item, or nil when it has no fix (gap, delayed) or, for GPX,
    /// an invalid coordinate. `element` is `wpt` or `trkpt` for GPX and ignored otherwise.
    public static func row(_ sample: GeneratedSample, format: TrackFormat, start_unix_s: Double,
                           element: String = "wpt") -> String? {
        guard let fix = sample.fix else { return nil }
        let time = iso8601(start_unix_s + fix.timestamp_s)
        switch format {
        case .gpx:
            guard Coordinate.isValid(latitude: fix.latitude, longitude: fix.longitude), fix.timestamp_s.isFinite else { return nil }
            let indent = element == "wpt" ? "  " : "    "
            return "\(indent)<\(element) lat=\"\(degrees(fix.latitude))\" lon=\"\(degrees(fix.longitude))\"><time>\(time)</time></\(element)>\n"
        case .csv:
            return [time, degrees(fix.latitude), degrees(fix.longitude), metres(fix.horizontalAccuracy_m),
                    metres(sample.truthSpeed_mps), metres(sample.truthCourse_deg), ""].joined(separator: ",") + "\n"
        case .jsonl:
            func json(_ x: Double, _ f: (Double) -> String) -> String { x.isFinite ? f(x) : "null" }
            return "{\"timestamp\":\"\(time)\",\"latitude\":\(json(fix.latitude, degrees)),"
                + "\"longitude\":\(json(fix.longitude, degrees)),"
                + "\"horizontal_accuracy\":\(json(fix.horizontalAccuracy_m, metres)),"
                + "\"speed\":\(json(sample.truthSpeed_mps, metres)),\"course\":\(json(sample.truthCourse_deg, metres)),"
                + "\"event\":\"\"}\n"
        }
    }

    /// Degrees with 9 decimals (0.1 mm), plain decimal (GPX's xsd:decimal has no exponent); NaN as `NaN`.
    static func degrees(_ x: Double) -> String { x.isFinite ? String(format: "%.9f", x) : (x.isNaN ? "NaN" : "\(x)") }
    /// Metres, m/s or degrees of course with 3 decimals; NaN as `NaN`.
    static func metres(_ x: Double) -> String { x.isFinite ? String(format: "%.3f", x) : (x.isNaN ? "NaN" : "\(x)") }

    /// ISO-8601 UTC with milliseconds, `2026-01-01T00:00:00.000Z`, for finite Unix seconds.
    /// Civil date from day count after Hinnant, "chrono-Compatible Low-Level Date Algorithms".
    public static func iso8601(_ unix_s: Double) -> String {
        guard unix_s.isFinite else { return "NaN" }
        let totalMs = Int64((unix_s * 1000).rounded())
        let ms = ((totalMs % 1000) + 1000) % 1000
        let secs = (totalMs - ms) / 1000
        let days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400
        let sod = secs - days * 86400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        return String(format: "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld.%03lldZ",
                      y, m, d, sod / 3600, (sod % 3600) / 60, sod % 60, ms)
    }

    static func xmlEscaped(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
