import Foundation
import GeoPolicy
import Testing
import _TestSupport

@testable import DeviceLogKit

/// NMEA 0183 import: checksums against published sentences, GGA/RMC/GST to fixes, midnight
/// rollover, strict refusals.
@Suite struct NMEAReaderTests {
    /// `$BODY*hh` lines (CRLF) from bodies.
    static func log(_ bodies: [String]) -> [UInt8] { Array(bodies.map(NMEASentence.sentence).joined().utf8) }

    static func parse(
        _ bytes: [UInt8], options: DeviceLogReadOptions = .standard
    ) throws(DeviceLogError) -> DeviceLog {
        try DeviceLogImporter.parse(bytes: bytes, file: "t.nmea", format: .nmea, options: options)
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
        // 2026-12-31T23:59:59Z, 2027-01-01T00:00:00Z
        #expect(log.fixes.map(\.fix.timestamp_s) == [1_798_761_599, 1_798_761_600])
    }
    @Test(arguments: [
        ("GPGGA,120000.00,5230.6,N,01324.3,E,1,08,1.6,,M,,M,,*00", 1, "checksum 00 does not match"),
        ("GPGGA,120000.00,5230.6,N,01324.3,E,1,08,1.6,,M,,M,,", 1, "no checksum"),
        ("hello", 1, "must start with '$'"),
        ("$GPGGA,120000.00,5230.6,N*ZZ", 1, "two hex digits"),
    ])
    func damagedLinesNameTheLineUnderStrict(raw: String, line: Int, message: String) throws {
        let text = raw.hasPrefix("$") || raw == "hello" ? raw : "$" + raw
        #expect {
            _ = try Self.parse(Array((text + "\r\n").utf8), options: DeviceLogReadOptions(strict: true))
        } throws: { error in
            let e = error as? DeviceLogError
            return e?.line == line && e?.description.contains(message) == true
        }
    }
    @Test(arguments: [
        (["GPGGA,120000.00,5230.6,N,01324.3,E,1"], "GGA needs at least 8 fields"),
        (["GPRMC,120000.00,X,5230.6,N,01324.3,E,,,010326,,,A"], "RMC status must be A or V"),
        (["GPGGA,120000.00,5230.6,N,01324.3,E,1,08,1.6,,M,,M,,"], "give --date YYYY-MM-DD"),
        (["GPRMC,120000.00,A,5230.6,N,01324.3,E,,,010326,,,A"], "has no accuracy; give --assume-accuracy M"),
        (["GPGGA,120000.00,5230.6,Q,01324.3,E,1,08,1.6,,M,,M,,"], "latitude"),
        (["GPGGA,120000.00,5260.0,N,01324.3,E,1,08,1.6,,M,,M,,"], "latitude"),
        (["GPGGA,126000.00,5230.6,N,01324.3,E,1,08,1.6,,M,,M,,"], "NMEA time must be hhmmss"),
        (["GPRMC,120000.00,A,5230.6,N,01324.3,E,,,310226,,,A"], "date field out of range"),
        (["GPGGA,120000.00,5230.6,N,01324.3,E,1,08,x,,M,,M,,"], "GGA HDOP"),
        (["GPGSV,1,1,01"], "NMEA: no fix: every sentence was skipped (otherSentence 1 (first at line 1))"),
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
    /// GPX export → import keeps the accuracy the extension carries (3 decimals) and derives nothing from hdop.
}

/// A JSON Lines number literal beyond the double range is refused naming its key; CSV keeps
/// such a value raw (its contract: well-formed rows with invalid values are kept and the engine
/// rejects them), and JSON Lines still reads the spelt non-finite strings.
@Suite struct OverflowingNumberTests {
    @Test func jsonLinesLiteralBeyondDoubleIsRefusedNamingTheKey() throws {
        let line = #"{"timestamp": 100, "latitude": 1, "longitude": 2, "horizontal_accuracy": 1e999}"# + "\n"
        #expect(throws: DeviceLogError.self) {
            _ = try DeviceLogImporter.parse(bytes: Array(line.utf8), file: "a.jsonl", format: .jsonl)
        }
        do { _ = try DeviceLogImporter.parse(bytes: Array(line.utf8), file: "a.jsonl", format: .jsonl) } catch {
            #expect(error.description.hasPrefix("a.jsonl:1: "), "\(error)")
            #expect(
                error.description.contains("horizontal_accuracy: 1e999 is beyond the range of a double"), "\(error)")
        }
        let spelt = #"{"timestamp": 100, "latitude": 1, "longitude": 2, "horizontal_accuracy": "Infinity"}"# + "\n"
        let log = try DeviceLogImporter.parse(bytes: Array(spelt.utf8), file: "a.jsonl", format: .jsonl)
        #expect(log.fixes.count == 1 && log.fixes[0].fix.horizontalAccuracy_m == .infinity)
    }
}
