import DeviceLogKit
import DriveSim
import Foundation
import GeoPolicy
import Testing
import _TestSupport

@testable import FenceLab

/// NMEA 0183 and GPX export: checksums of the exported sentences, export → import round trips.
@Suite struct NMEAExportTests {
    /// `$BODY*hh` lines (CRLF) from bodies.
    static func log(_ bodies: [String]) -> [UInt8] { Array(bodies.map(NMEASentence.sentence).joined().utf8) }

    static func parse(_ bytes: [UInt8]) throws(DeviceLogError) -> DeviceLog {
        try DeviceLogImporter.parse(bytes: bytes, file: "t.nmea", format: .nmea)
    }

    /// 2026-03-01T12:00:00Z in Unix seconds.
    static let noonMarch1_s = 1_772_366_400.0

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
