import DeviceLogKit
import DriveSim
import Foundation
import GeoPolicy

/// File formats for device-level playback of a generated stream (`fencelab export --format`).
package enum TrackFormat: String, Sendable, Hashable, CaseIterable {
    /// GPX 1.1 waypoints (`wpt`): what Xcode's location simulation plays.
    case gpx
    /// GPX 1.1 track (`trk`/`trkseg`/`trkpt`): for players and GNSS tools that read tracks.
    case gpxTrack = "gpx-track"
    /// CSV with the device-log header: `timestamp,latitude,longitude,horizontal_accuracy,speed,course,event`.
    case csv
    /// JSON Lines with the same fields as the CSV (non-finite numbers as `null`).
    case jsonl
    /// NMEA 0183 `$GPGGA` + `$GPRMC` per fix, checksummed, CRLF (Android emulator `adb emu geo nmea`, gpsd).
    case nmea
    /// KML 2.2 with a `gx:Track` (time + position per fix): for Google Earth.
    case kml
}

/// Writes delivered fixes as GPX, CSV, JSON Lines, NMEA or KML text, fix by fix.
///
/// Rows carry the observed fix (raw, possibly invalid) and the true speed and course
/// (the simulated device reports truth for those); gap items have no fix and no row.
/// GPX, NMEA and KML cannot hold an invalid coordinate, so those fixes are skipped there (and counted).
package enum TrackExport {
    /// The CSV header (device-log columns).
    package static let csvHeader = "timestamp,latitude,longitude,horizontal_accuracy,speed,course,event"
    /// Namespace of FenceLab's GPX extensions (`horizontal_accuracy` m, `speed` m/s, `course` degrees),
    /// the one `docs/device-logs.md` documents for import.
    package static let gpxExtensionNamespace = "https://fencelab.invalid/gpx/1"

    /// Text before the first point.
    package static func header(_ format: TrackFormat, name: String) -> String {
        switch format {
        case .csv: return csvHeader + "\n"
        case .jsonl, .nmea: return ""
        case .gpx, .gpxTrack:
            var h = """
                <?xml version="1.0" encoding="UTF-8"?>
                <gpx version="1.1" creator="fencelab" xmlns="http://www.topografix.com/GPX/1/1" xmlns:fl="\(gpxExtensionNamespace)">
                  <metadata><name>\(xmlEscaped(name))</name></metadata>

                """
            if format == .gpxTrack { h += "  <trk><name>\(xmlEscaped(name))</name><trkseg>\n" }
            return h
        case .kml:
            return """
                <?xml version="1.0" encoding="UTF-8"?>
                <kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2">
                <Document><name>\(xmlEscaped(name))</name>
                <Placemark><name>\(xmlEscaped(name))</name><gx:Track>

                """
        }
    }

    /// Text after the last point (KML: the buffered coordinates, see `kmlRow`).
    package static func footer(_ format: TrackFormat, kmlCoordinates: [String] = []) -> String {
        switch format {
        case .gpx: return "</gpx>\n"
        case .gpxTrack: return "  </trkseg></trk>\n</gpx>\n"
        case .kml: return kmlCoordinates.joined() + "</gx:Track></Placemark>\n</Document>\n</kml>\n"
        case .csv, .jsonl, .nmea: return ""
        }
    }

    /// One row for a delivered item, or nil when it has no fix (gap, delayed) or the format
    /// cannot hold it (GPX, NMEA, KML: invalid coordinate or non-finite time). KML rows are
    /// `kmlRow` (a `gx:Track` lists all times before all coordinates).
    package static func row(_ sample: GeneratedSample, format: TrackFormat, start_unix_s: Double) -> String? {
        guard let fix = sample.fix else { return nil }
        let t = start_unix_s + fix.timestamp_s
        let time = iso8601(t)
        let speed = sample.truthSpeed_mps
        let course = sample.truthCourse_deg
        switch format {
        case .gpx, .gpxTrack:
            guard Coordinate.isValid(latitude: fix.latitude, longitude: fix.longitude), t.isFinite else { return nil }
            let element = format == .gpx ? "wpt" : "trkpt"
            let indent = format == .gpx ? "  " : "    "
            // GPX 1.1 wptType order: time … hdop … extensions. hdop is a DOP (dimensionless), only for a valid accuracy.
            // GPX longitudeType is [-180, 180): the meridian 180 is written as -180.
            let lon = fix.longitude == 180 ? -180 : fix.longitude
            var r = "\(indent)<\(element) lat=\"\(degrees(fix.latitude))\" lon=\"\(degrees(lon))\"><time>\(time)</time>"
            if let h = hdop(fix.horizontalAccuracy_m) { r += "<hdop>\(h)</hdop>" }
            r += "<extensions><fl:horizontal_accuracy>\(metres(fix.horizontalAccuracy_m))</fl:horizontal_accuracy>"
            if speed.isFinite, speed >= 0 { r += "<fl:speed>\(metres(speed))</fl:speed>" }
            if course.isFinite, course >= 0 { r += "<fl:course>\(metres(course))</fl:course>" }
            return r + "</extensions></\(element)>\n"
        case .csv:
            return [
                time, degrees(fix.latitude), degrees(fix.longitude), metres(fix.horizontalAccuracy_m),
                metres(speed), metres(course), "",
            ].joined(separator: ",") + "\n"
        case .jsonl:
            func json(_ x: Double, _ f: (Double) -> String) -> String { x.isFinite ? f(x) : "null" }
            return "{\"timestamp\":\"\(time)\",\"latitude\":\(json(fix.latitude, degrees)),"
                + "\"longitude\":\(json(fix.longitude, degrees)),"
                + "\"horizontal_accuracy\":\(json(fix.horizontalAccuracy_m, metres)),"
                + "\"speed\":\(json(speed, metres)),\"course\":\(json(course, metres)),"
                + "\"event\":\"\"}\n"
        case .nmea:
            guard Coordinate.isValid(latitude: fix.latitude, longitude: fix.longitude), t.isFinite else { return nil }
            return NMEASentence.fix(
                unix_s: t, latitude: fix.latitude, longitude: fix.longitude,
                hdop: hdop(fix.horizontalAccuracy_m), speed_mps: speed, course_deg: course)
        case .kml:
            return kmlRow(sample, start_unix_s: start_unix_s)?.when
        }
    }

    /// KML: the `<when>` line and the `<gx:coord>` line of a fix (longitude first), or nil.
    package static func kmlRow(_ sample: GeneratedSample, start_unix_s: Double) -> (when: String, coord: String)? {
        guard let fix = sample.fix, Coordinate.isValid(latitude: fix.latitude, longitude: fix.longitude) else {
            return nil
        }
        let t = start_unix_s + fix.timestamp_s
        guard t.isFinite else { return nil }
        return (
            "<when>\(iso8601(t))</when>\n",
            "<gx:coord>\(degrees(fix.longitude)) \(degrees(fix.latitude)) 0</gx:coord>\n"
        )
    }

    /// HDOP = accuracy / `GPXAccuracy.uere_m` with two decimals, or nil for an invalid accuracy.
    static func hdop(_ accuracy_m: Double) -> String? {
        accuracy_m.isFinite && accuracy_m >= 0 ? String(format: "%.2f", accuracy_m / GPXAccuracy.uere_m) : nil
    }

    /// Degrees with 9 decimals (0.1 mm), plain decimal (GPX's xsd:decimal has no exponent); NaN as `NaN`.
    static func degrees(_ x: Double) -> String { x.isFinite ? String(format: "%.9f", x) : (x.isNaN ? "NaN" : "\(x)") }
    /// Metres, m/s or degrees of course with 3 decimals; NaN as `NaN`.
    static func metres(_ x: Double) -> String { x.isFinite ? String(format: "%.3f", x) : (x.isNaN ? "NaN" : "\(x)") }

    /// ISO-8601 UTC with milliseconds, `2026-01-01T00:00:00.000Z`, for finite Unix seconds.
    package static func iso8601(_ unix_s: Double) -> String {
        // Int64(exactly:) is nil for NaN, ±∞ and |ms| ≥ 2⁶³ (no trap); the decoder keeps times in 1970…9999.
        guard let totalMs = Int64(exactly: (unix_s * 1000).rounded()) else { return "NaN" }
        let ms = ((totalMs % 1000) + 1000) % 1000
        let c = CivilTime(unix_s: Double((totalMs - ms) / 1000))
        return String(
            format: "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld.%03lldZ",
            c.year, c.month, c.day, c.secondOfDay / 3600, (c.secondOfDay % 3600) / 60, c.secondOfDay % 60, ms)
    }

    static func xmlEscaped(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}

/// A UTC civil date and second of day from whole Unix seconds.
/// Civil date from day count after Hinnant, "chrono-Compatible Low-Level Date Algorithms".
package struct CivilTime: Sendable, Hashable {
    package var year: Int64, month: Int64, day: Int64
    /// Seconds since midnight, 0..<86400.
    package var secondOfDay: Int64

    /// - Parameter unix_s: finite seconds; the fraction is dropped (floor).
    package init(unix_s: Double) {
        let secs = Int64(unix_s.rounded(.down))
        let days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400
        secondOfDay = secs - days * 86400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        day = doy - (153 * mp + 2) / 5 + 1
        month = mp < 10 ? mp + 3 : mp - 9
        year = yoe + era * 400 + (month <= 2 ? 1 : 0)
    }
}

/// NMEA 0183 sentences a fix is exported as.
///
/// Fields FenceLab does not simulate are left empty (satellites, altitude, geoid separation,
/// magnetic variation), as the standard allows for null fields. A fix with an invalid accuracy
/// is written as no fix (GGA quality 0, RMC status V), which the importer keeps with accuracy NaN.
extension NMEASentence {
    /// GGA then RMC for one fix.
    /// - Parameters:
    ///   - unix_s: finite UTC time; shown to 1/100 s.
    ///   - latitude, longitude: valid degrees.
    ///   - hdop: HDOP text, or nil for an invalid accuracy (then written as no fix).
    ///   - speed_mps, course_deg: empty fields when negative or not finite.
    package static func fix(
        unix_s: Double, latitude: Double, longitude: Double, hdop: String?,
        speed_mps: Double, course_deg: Double
    ) -> String {
        let centis = Int64((unix_s * 100).rounded())
        let c = CivilTime(unix_s: Double(centis.quotientRoundedDown(by: 100)))
        let cs = centis - centis.quotientRoundedDown(by: 100) * 100
        let sod = c.secondOfDay
        let time = String(format: "%02lld%02lld%02lld.%02lld", sod / 3600, (sod % 3600) / 60, sod % 60, cs)
        let date = String(format: "%02lld%02lld%02lld", c.day, c.month, ((c.year % 100) + 100) % 100)
        let lat = angle(latitude, degreeDigits: 2, positive: "N", negative: "S")
        let lon = angle(longitude, degreeDigits: 3, positive: "E", negative: "W")
        let speed =
            speed_mps.isFinite && speed_mps >= 0 ? String(format: "%.2f", speed_mps / NMEASentence.knot_mps) : ""
        let course = course_deg.isFinite && course_deg >= 0 ? String(format: "%.2f", course_deg) : ""
        let quality = hdop == nil ? "0" : "1"
        let status = hdop == nil ? "V" : "A"
        return sentence("GPGGA,\(time),\(lat),\(lon),\(quality),,\(hdop ?? ""),,M,,M,,")
            + sentence("GPRMC,\(time),\(status),\(lat),\(lon),\(speed),\(course),\(date),,,A")
    }

    /// `ddmm.mmmmm,N` / `dddmm.mmmmm,E`: degrees and minutes to 1e-5 minute (1.9 cm).
    static func angle(_ degrees: Double, degreeDigits: Int, positive: String, negative: String) -> String {
        let total = Int64((abs(degrees) * 60 * 100_000).rounded())  // 1e-5 minutes
        let whole = total / 6_000_000
        let rest = total % 6_000_000
        let d = String(format: "%0\(degreeDigits)lld", whole)
        return d + String(format: "%02lld.%05lld", rest / 100_000, rest % 100_000) + ","
            + (degrees < 0 ? negative : positive)
    }
}

extension Int64 {
    /// Floor division (rounds toward −∞), for times before 1970.
    fileprivate func quotientRoundedDown(by d: Int64) -> Int64 {
        let q = self / d
        return (self % d != 0 && (self < 0) != (d < 0)) ? q - 1 : q
    }
}
