import DeviceLogKit
import DriveSim
import Foundation
import GeoPolicy
import Testing
import _TestSupport

@testable import FenceLab

/// NMEA 0183: export checksums against published sentences, strict import, export → import round trip.
@Suite struct NMEATests {
    /// `$BODY*hh` lines (CRLF) from bodies.
    static func log(_ bodies: [String]) -> [UInt8] { Array(bodies.map(NMEASentence.sentence).joined().utf8) }

    static func parse(_ bytes: [UInt8]) throws(DeviceLogError) -> DeviceLog {
        try DeviceLogImporter.parse(bytes: bytes, file: "t.nmea", format: .nmea)
    }

    /// 2026-03-01T12:00:00Z in Unix seconds.
    static let noonMarch1_s = 1_772_366_400.0

    @Test func checksumsMatchPublishedSentences() {
        // The examples of the NMEA 0183 sentence descriptions (gpsinformation.org, "NMEA data"), with their checksums.
        #expect(NMEASentence.checksum("GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,") == "47")
        #expect(NMEASentence.checksum("GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W") == "6A")
        #expect(
            NMEASentence.sentence("GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
                == "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\r\n")
    }

    @Test func exportedSentencesCarryValidChecksums() throws {
        let spec = try ScenarioSpec.load(
            path: TestPaths.packageRoot.appendingPathComponent("scenarios/dateline-fiji.json").path)
        let (text, summary) = try ScenarioExport.render(
            spec: spec, format: "nmea", replicate: 0, start_unix_s: Self.noonMarch1_s)
        let lines = text.components(separatedBy: "\r\n").dropLast()
        #expect(lines.count == 2 * summary.points && summary.points == 1200)
        #expect(text.hasSuffix("\r\n") && !text.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
        for line in lines {
            // Independent check: XOR of the bytes between '$' and '*'.
            let star = try #require(line.lastIndex(of: "*"))
            let body = line[line.index(after: line.startIndex)..<star]
            let xor = body.utf8.reduce(UInt8(0), ^)
            #expect(UInt8(line[line.index(after: star)...], radix: 16) == xor, "\(line)")
            #expect(line.hasPrefix("$GPGGA,") || line.hasPrefix("$GPRMC,"))
        }
        #expect(
            lines.first == "$GPGGA,120000.00,1651.60224,S,17955.80231,W,1,,1.41,,M,,M,,*62"
                || lines.first?.hasPrefix("$GPGGA,120000.00,") == true)
        #expect(lines[1].contains(",010326,,,A*"))
    }

    @Test func ggaRmcAndGstBecomeFixes() throws {
        let log = try Self.parse(
            Self.log([
                "GPGSV,1,1,01,05,40,083,46",  // ignored type
                "GPGGA,120000.00,5230.60000,N,01324.30000,E,1,08,1.60,34.0,M,,M,,",
                "GPRMC,120000.00,A,5230.60000,N,01324.30000,E,10.00,90.00,010326,,,A",
                "GNGGA,120001.50,5230.66000,N,01324.36000,E,1,08,1.60,34.0,M,,M,,",  // no RMC: date carried
                "GNGST,120001.50,2.0,1.5,1.0,0.0,3.000,4.000,5.0",  // accuracy √(3² + 4²) = 5 m
                "GPGGA,120002.00,5230.70000,S,01324.40000,W,0,00,,,M,,M,,",  // quality 0: kept, accuracy NaN
            ]))
        #expect(log.format == .nmea && log.events.isEmpty && log.fixes.count == 3)
        let a = log.fixes[0]
        let b = log.fixes[1]
        let c = log.fixes[2]
        let coordinateTolerance_deg = 1e-12
        let accuracyTolerance_m = 1e-12
        let speedTolerance_mps = 1e-12
        #expect(a.fix.timestamp_s == Self.noonMarch1_s && a.line == 2)
        #expect(isClose(a.fix.latitude, 52.51, absoluteTolerance: coordinateTolerance_deg))
        #expect(isClose(a.fix.longitude, 13.405, absoluteTolerance: coordinateTolerance_deg))
        #expect(isClose(a.fix.horizontalAccuracy_m, 1.6 * 5, absoluteTolerance: accuracyTolerance_m))
        #expect(isClose(try #require(a.speed_mps), 10 * 1852.0 / 3600, absoluteTolerance: speedTolerance_mps))
        #expect(a.course_deg == 90)
        #expect(b.fix.timestamp_s == Self.noonMarch1_s + 1.5 && b.speed_mps == nil)
        #expect(isClose(b.fix.horizontalAccuracy_m, 5, absoluteTolerance: accuracyTolerance_m))
        #expect(isClose(c.fix.latitude, -(52 + 30.7 / 60), absoluteTolerance: coordinateTolerance_deg))
        #expect(isClose(c.fix.longitude, -(13 + 24.4 / 60), absoluteTolerance: coordinateTolerance_deg))
        #expect(c.fix.horizontalAccuracy_m.isNaN)
    }

    @Test func midnightRolloverWithoutRMC() throws {
        let log = try Self.parse(
            Self.log([
                "GPGGA,235959.00,0000.00000,N,00000.00000,E,1,08,1.0,0,M,,M,,",
                "GPRMC,235959.00,A,0000.00000,N,00000.00000,E,,,311226,,,A",
                "GPGGA,000000.00,0000.00000,N,00000.00000,E,1,08,1.0,0,M,,M,,",
            ]))
        #expect(log.fixes.map(\.fix.timestamp_s) == [1_798_761_599, 1_798_761_600])  // 2026-12-31T23:59:59Z, 2027-01-01T00:00:00Z
    }

    @Test(arguments: [
        ("GPGGA,120000.00,5230.6,N,01324.3,E,1,08,1.6,,M,,M,,*00", 1, "checksum 00 does not match"),
        ("GPGGA,120000.00,5230.6,N,01324.3,E,1,08,1.6,,M,,M,,", 1, "no checksum"),
        ("hello", 1, "must start with '$'"),
        ("$GPGGA,120000.00,5230.6,N*ZZ", 1, "two hex digits"),
    ])
    func malformedLinesNameTheLine(raw: String, line: Int, message: String) throws {
        let text = raw.hasPrefix("$") || raw == "hello" ? raw : "$" + raw
        #expect {
            _ = try Self.parse(Array((text + "\r\n").utf8))
        } throws: { error in
            let e = error as? DeviceLogError
            return e?.line == line && e?.description.contains(message) == true
        }
    }

    @Test(arguments: [
        (["GPGGA,120000.00,5230.6,N,01324.3,E,1"], "GGA needs at least 8 fields"),
        (["GPRMC,120000.00,X,5230.6,N,01324.3,E,,,010326,,,A"], "RMC status must be A or V"),
        (["GPGGA,120000.00,5230.6,N,01324.3,E,1,08,1.6,,M,,M,,"], "no date"),
        (["GPRMC,120000.00,A,5230.6,N,01324.3,E,,,010326,,,A"], "position without accuracy"),
        (["GPGGA,120000.00,5230.6,Q,01324.3,E,1,08,1.6,,M,,M,,"], "latitude"),
        (["GPGGA,120000.00,5260.0,N,01324.3,E,1,08,1.6,,M,,M,,"], "latitude"),
        (["GPGGA,126000.00,5230.6,N,01324.3,E,1,08,1.6,,M,,M,,"], "NMEA time must be hhmmss"),
        (["GPRMC,120000.00,A,5230.6,N,01324.3,E,,,310226,,,A"], "date field out of range"),
        (["GPGGA,120000.00,5230.6,N,01324.3,E,1,08,x,,M,,M,,"], "GGA HDOP"),
        (["GPGSV,1,1,01"], "no data"),
    ])
    func malformedSentencesAreRefused(bodies: [String], message: String) throws {
        #expect {
            _ = try Self.parse(Self.log(bodies))
        } throws: { error in
            (error as? DeviceLogError)?.description.contains(message) == true
        }
    }

    /// Export → import: positions within the 1e-5-minute resolution, accuracy within HDOP's 0.01 × 5 m,
    /// speed within 0.005 kn, times exact to the 1/100 s NMEA shows.
    @Test func exportThenImportRoundTrips() throws {
        let spec = try ScenarioSpec.load(
            path: TestPaths.packageRoot.appendingPathComponent("scenarios/urban-canyon.json").path)
        let nmea = try ScenarioExport.render(spec: spec, format: "nmea", replicate: 1, start_unix_s: Self.noonMarch1_s)
        let csv = try ScenarioExport.render(spec: spec, format: "csv", replicate: 1, start_unix_s: Self.noonMarch1_s)
        let fromNMEA = try Self.parse(Array(nmea.text.utf8))
        let fromCSV = try DeviceLogImporter.parse(bytes: Array(csv.text.utf8), file: "t.csv", format: .csv)
        let valid = fromCSV.fixes.filter { Coordinate.isValid(latitude: $0.fix.latitude, longitude: $0.fix.longitude) }
        #expect(fromNMEA.fixes.count == valid.count && valid.count == nmea.summary.points)
        let positionTolerance_deg = 0.5e-5 / 60 + 1e-9
        let accuracyTolerance_m = 0.005 * GPXAccuracy.uere_m + 1e-3
        let speedTolerance_mps = 0.005 * NMEASentence.knot_mps + 1e-3
        let timeTolerance_s = 0.005 + 1e-3
        for (n, c) in zip(fromNMEA.fixes, valid) {
            #expect(abs(n.fix.latitude - c.fix.latitude) <= positionTolerance_deg)
            #expect(abs(n.fix.longitude - c.fix.longitude) <= positionTolerance_deg)
            #expect(abs(n.fix.timestamp_s - c.fix.timestamp_s) <= timeTolerance_s)
            if c.fix.horizontalAccuracy_m.isFinite && c.fix.horizontalAccuracy_m >= 0 {
                #expect(abs(n.fix.horizontalAccuracy_m - c.fix.horizontalAccuracy_m) <= accuracyTolerance_m)
            }
            if let s = c.speed_mps, s >= 0 { #expect(abs((n.speed_mps ?? .nan) - s) <= speedTolerance_mps) }
        }
    }

    /// GPX export → import keeps the accuracy the extension carries (3 decimals) and derives nothing from hdop.
    @Test func gpxExportThenImportKeepsAccuracySpeedAndCourse() throws {
        let spec = try ScenarioSpec.load(
            path: TestPaths.packageRoot.appendingPathComponent("scenarios/urban-canyon.json").path)
        for format in ["gpx", "gpx-track"] {
            let gpx = try ScenarioExport.render(
                spec: spec, format: format, replicate: 1, start_unix_s: Self.noonMarch1_s)
            let csv = try ScenarioExport.render(
                spec: spec, format: "csv", replicate: 1, start_unix_s: Self.noonMarch1_s)
            let a = try DeviceLogImporter.parse(bytes: Array(gpx.text.utf8), file: "t.gpx", format: .gpx)
            let b = try DeviceLogImporter.parse(bytes: Array(csv.text.utf8), file: "t.csv", format: .csv)
                .fixes.filter { Coordinate.isValid(latitude: $0.fix.latitude, longitude: $0.fix.longitude) }
            #expect(a.fixes.count == b.count)
            for (g, c) in zip(a.fixes, b) {
                #expect(
                    g.fix.latitude == c.fix.latitude && g.fix.longitude == c.fix.longitude
                        && g.fix.timestamp_s == c.fix.timestamp_s)
                #expect(
                    g.fix.horizontalAccuracy_m == c.fix.horizontalAccuracy_m
                        || (g.fix.horizontalAccuracy_m.isNaN && c.fix.horizontalAccuracy_m.isNaN))
                #expect(g.speed_mps == ((c.speed_mps ?? -1) >= 0 ? c.speed_mps : nil))
                #expect(g.course_deg == ((c.course_deg ?? -1) >= 0 ? c.course_deg : nil))
            }
        }
    }
}
