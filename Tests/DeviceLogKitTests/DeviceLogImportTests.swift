import Foundation
import GeoPolicy
import Testing
import _TestSupport

@testable import DeviceLogKit

/// Parses text as a device log named `file`.
private func parse(
    _ text: String, _ format: DeviceLogFormat, file: String? = nil,
    limits: DeviceLogLimits = .standard
) throws(DeviceLogError) -> DeviceLog {
    try DeviceLogImporter.parse(bytes: Array(text.utf8), file: file ?? "log.\(format)", format: format, limits: limits)
}

private let header = "timestamp,latitude,longitude,horizontal_accuracy"
private let tenMegabytes = String(repeating: "9", count: 10 << 20)

/// One malformed input and the error it must produce.
struct MalformedCase: Sendable, CustomTestStringConvertible {
    var name: String
    var format: DeviceLogFormat
    var text: String
    var line: Int
    var matches: @Sendable (DeviceLogProblem) -> Bool
    var testDescription: String { "\(name) (\(format))" }
}

private let malformedCases: [MalformedCase] = [
    MalformedCase(name: "empty file", format: .csv, text: "", line: 1) { $0 == .emptyFile },
    MalformedCase(name: "empty file", format: .jsonl, text: "", line: 1) { $0 == .emptyFile },
    MalformedCase(name: "empty file", format: .gpx, text: "", line: 1) { $0 == .emptyFile },
    MalformedCase(name: "blank lines only", format: .csv, text: "\n\n", line: 1) { $0 == .emptyFile },
    MalformedCase(name: "header only", format: .csv, text: header + "\n", line: 1) { $0 == .noData },
    MalformedCase(name: "header only (no newline)", format: .csv, text: header, line: 1) { $0 == .noData },
    MalformedCase(name: "blank header", format: .csv, text: "\n1,2,3,4\n", line: 1) { $0 == .missingHeader },
    MalformedCase(name: "gpx without points", format: .gpx, text: "<gpx version=\"1.1\">\n</gpx>\n", line: 3) {
        $0 == .noFix(format: .gpx, skipped: "")
            && $0.description == "GPX: no timed point (no wpt, rtept or trkpt at all)"
    },
    MalformedCase(name: "missing required column", format: .csv, text: "timestamp,latitude,longitude\n1,2,3\n", line: 1)
    {
        $0 == .missingColumn("horizontal_accuracy")
    },
    MalformedCase(
        name: "missing required key", format: .jsonl,
        text: "{\"timestamp\":1,\"latitude\":2,\"longitude\":3}\n", line: 1
    ) { $0 == .missingColumn("horizontal_accuracy") },
    MalformedCase(name: "unknown column", format: .csv, text: header + ",altitude\n1,2,3,4,5\n", line: 1) {
        $0 == .unknownColumn("altitude")
    },
    MalformedCase(
        name: "unknown key", format: .jsonl,
        text: "{\"timestamp\":1,\"latitude\":2,\"longitude\":3,\"horizontal_accuracy\":4,\"alt\":5}\n", line: 1
    ) {
        $0 == .unknownColumn("alt")
    },
    MalformedCase(name: "duplicate column", format: .csv, text: header + ",latitude\n1,2,3,4,5\n", line: 1) {
        $0 == .duplicateColumn("latitude")
    },
    MalformedCase(name: "wrong column count (more)", format: .csv, text: header + "\n1,2,3,4\n1,2,3,4,5\n", line: 3) {
        $0 == .columnCount(expected: 4, found: 5)
    },
    MalformedCase(name: "wrong column count (fewer)", format: .csv, text: header + "\n1,2,3\n", line: 2) {
        $0 == .columnCount(expected: 4, found: 3)
    },
    MalformedCase(name: "non-numeric field", format: .csv, text: header + "\n1,abc,3,4\n", line: 2) {
        $0 == .notANumber(column: "latitude", value: "abc")
    },
    MalformedCase(name: "hex float refused", format: .csv, text: header + "\n1,2,0x1p3,4\n", line: 2) {
        $0 == .notANumber(column: "longitude", value: "0x1p3")
    },
    MalformedCase(
        name: "non-numeric field", format: .jsonl,
        text: "{\"timestamp\":1,\"latitude\":\"north\",\"longitude\":3,\"horizontal_accuracy\":4}", line: 1
    ) {
        $0 == .notANumber(column: "latitude", value: "north")
    },
    MalformedCase(
        name: "non-numeric attribute", format: .gpx,
        text: "<gpx>\n<wpt lat=\"x\" lon=\"1\"><time>2026-03-01T00:00:00Z</time><hdop>1</hdop></wpt></gpx>", line: 2
    ) {
        $0 == .notANumber(column: "lat", value: "x")
    },
    MalformedCase(name: "unparseable timestamp", format: .csv, text: header + "\n1,2,3,4\nyesterday,2,3,4\n", line: 3) {
        if case .badTimestamp(value: "yesterday", _) = $0 { return true } else { return false }
    },
    MalformedCase(name: "timestamp month 13", format: .csv, text: header + "\n2026-13-01T00:00:00Z,2,3,4\n", line: 2) {
        if case .badTimestamp = $0 { return true } else { return false }
    },
    MalformedCase(name: "timestamp without zone", format: .csv, text: header + "\n2026-03-01T12:00:00,2,3,4\n", line: 2)
    {
        if case .badTimestamp = $0 { return true } else { return false }
    },
    MalformedCase(
        name: "timestamp NaN", format: .jsonl,
        text: "{\"timestamp\":\"NaN\",\"latitude\":2,\"longitude\":3,\"horizontal_accuracy\":4}", line: 1
    ) {
        if case .badTimestamp = $0 { return true } else { return false }
    },
    MalformedCase(
        name: "unparseable timestamp", format: .gpx,
        text: "<gpx>\n<wpt lat=\"1\" lon=\"1\">\n<time>noon</time><hdop>1</hdop></wpt></gpx>", line: 2
    ) {
        if case .badTimestamp(value: "noon", _) = $0 { return true } else { return false }
    },
    MalformedCase(name: "bad event", format: .csv, text: header + ",event\n1,2,3,4,arrive\n", line: 2) {
        $0 == .badEvent("arrive")
    },
    MalformedCase(name: "missing value", format: .csv, text: header + "\n1,2,,4\n", line: 2) {
        $0 == .missingValue(column: "longitude")
    },
    MalformedCase(name: "unclosed quote", format: .csv, text: header + "\n\"1,2,3,4\n", line: 2) { $0 == .badQuoting },
    MalformedCase(name: "10 MB single line", format: .csv, text: header + "\n" + tenMegabytes + "\n", line: 2) {
        $0 == .lineTooLong(limit_bytes: 64 << 10)
    },
    MalformedCase(name: "10 MB single line", format: .jsonl, text: tenMegabytes, line: 1) {
        $0 == .lineTooLong(limit_bytes: 64 << 10)
    },
    MalformedCase(
        name: "10 MB text node", format: .gpx,
        text: "<gpx>\n<wpt lat=\"1\" lon=\"2\"><name>" + tenMegabytes + "</name></wpt></gpx>",
        line: 2
    ) { $0 == .xmlTokenTooLong(limit_bytes: 64 << 10) },
    MalformedCase(
        name: "malformed JSON line", format: .jsonl,
        text: "{\"timestamp\":1,\"latitude\":2,\"longitude\":3,\"horizontal_accuracy\":4}\n{\"timestamp\":1,\n", line: 2
    ) {
        if case .json = $0 { return true } else { return false }
    },
    MalformedCase(
        name: "nested JSON value", format: .jsonl,
        text: "{\"timestamp\":1,\"latitude\":[2],\"longitude\":3,\"horizontal_accuracy\":4}", line: 1
    ) {
        if case .json = $0 { return true } else { return false }
    },
    MalformedCase(
        name: "JSON trailing text", format: .jsonl,
        text: "{\"timestamp\":1,\"latitude\":2,\"longitude\":3,\"horizontal_accuracy\":4} x", line: 1
    ) {
        if case .json = $0 { return true } else { return false }
    },
    MalformedCase(
        name: "truncated GPX", format: .gpx,
        text:
            "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\">\n<trk><trkseg>\n<trkpt lat=\"1\" lon=\"2\"><time>2026-03-01T12:00:0",
        line: 4
    ) {
        if case .xml = $0 { return true } else { return false }
    },
    MalformedCase(
        name: "truncated GPX after a point", format: .gpx,
        text: "<gpx version=\"1.1\">\n<wpt lat=\"1\" lon=\"2\"><time>2026-03-01T12:00:00Z</time><hdop>1</hdop></wpt>\n",
        line: 3
    ) {
        if case .xml = $0 { return true } else { return false }
    },
    MalformedCase(
        name: "XML entity expansion attempt", format: .gpx,
        text:
            "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [<!ENTITY lol \"lol\"><!ENTITY lol2 \"&lol;&lol;&lol;&lol;\">]>\n<gpx><wpt lat=\"1\" lon=\"2\"><name>&lol2;</name></wpt></gpx>",
        line: 2
    ) {
        if case .xmlDeclarationRefused = $0 { return true } else { return false }
    },
    MalformedCase(
        name: "undeclared entity reference", format: .gpx,
        text: "<gpx>\n<wpt lat=\"1\" lon=\"2\"><time>2026-03-01T12:00:00Z</time>\n<hdop>&lol;</hdop></wpt></gpx>",
        line: 3
    ) {
        $0 == .xmlEntityRefused("&lol;")
    },
    MalformedCase(
        name: "external entity", format: .gpx,
        text: "<gpx>\n<!ENTITY xxe SYSTEM \"file:///etc/passwd\"><wpt/></gpx>", line: 2
    ) {
        if case .xmlDeclarationRefused = $0 { return true } else { return false }
    },
    MalformedCase(
        name: "mismatched end tag", format: .gpx,
        text: "<gpx>\n<wpt lat=\"1\" lon=\"2\"><time>2026-03-01T12:00:00Z</hdop></wpt></gpx>", line: 2
    ) {
        if case .xml = $0 { return true } else { return false }
    },
    MalformedCase(
        name: "long name echoed shortened (fuzz regression)", format: .gpx,
        text: "<gpx>\n<wpt lat=\"1\" lon=\"2\"></" + String(repeating: "n", count: 4000) + "></gpx>", line: 2
    ) {
        if case .xml = $0 { return true } else { return false }
    },
    MalformedCase(
        name: "point without time", format: .gpx,
        text: "<gpx>\n<trkpt lat=\"1\" lon=\"2\"><hdop>1</hdop></trkpt></gpx>", line: 2
    ) {
        $0 == .noFix(format: .gpx, skipped: "untimedTrackPoint 1 (first at line 2)")
    },
    MalformedCase(
        name: "point without accuracy", format: .gpx,
        text: "<gpx>\n<trkpt lat=\"1\" lon=\"2\">\n<time>2026-03-01T12:00:00Z</time></trkpt></gpx>", line: 2
    ) {
        if case .noAccuracy = $0 { return $0.description.hasSuffix("give --assume-accuracy M") } else { return false }
    },
    MalformedCase(name: "not GPX", format: .gpx, text: "<kml>\n</kml>", line: 1) {
        if case .gpx = $0 { return true } else { return false }
    },
    MalformedCase(name: "invalid UTF-8", format: .csv, text: header + "\n1,2,3,4\n", line: 2) { _ in true },
]

@Suite struct DeviceLogImportTests {
    @Test(arguments: malformedCases)
    func malformedInputIsATypedErrorNamingFileAndLine(_ c: MalformedCase) {
        let file = "fixtures/\(c.name.replacingOccurrences(of: " ", with: "-")).\(c.format)"
        var bytes = Array(c.text.utf8)
        if c.name == "invalid UTF-8" { bytes.insert(0xFF, at: bytes.count - 2) }
        do {
            let log = try DeviceLogImporter.parse(bytes: bytes, file: file, format: c.format)
            Issue.record("\(c.name): accepted with \(log.fixes.count) fixes")
        } catch {
            #expect(error.file == file)
            #expect(error.line == c.line, "\(c.name): \(error)")
            #expect(c.matches(error.problem), "\(c.name): \(error)")
            #expect(error.description.hasPrefix("\(file):\(c.line): "), "\(error)")
            #expect(!error.description.contains("\n"))
            #expect(error.description.count < 300, "message stays one short line")
            if c.name == "invalid UTF-8" { #expect(error.problem == .invalidUTF8) }
        }
    }

    @Test func wellFormedRowsWithInvalidValuesAreKeptRaw() throws {
        let text = """
            \(header),speed,course
            100,NaN,13.4,5,-1,-1
            101,52.5,inf,5,,
            102,91,13.4,5,,
            103,52.5,13.4,-1,,
            99,52.5,13.4,5,,
            99,52.5,13.4,5,,
            104,-inf,-181,1e999,,

            """
        let log = try parse(text, .csv)
        #expect(log.fixes.count == 7)
        #expect(log.fixes.map(\.line) == [2, 3, 4, 5, 6, 7, 8])
        let f = log.fixes.map(\.fix)
        #expect(f[0].latitude.isNaN)
        #expect(f[0].longitude == 13.4)
        #expect(log.fixes[0].speed_mps == -1 && log.fixes[0].course_deg == -1)
        #expect(log.fixes[1].speed_mps == nil && log.fixes[1].course_deg == nil)
        #expect(f[1].longitude == .infinity)
        #expect(f[2].latitude == 91)
        #expect(f[3].horizontalAccuracy_m == -1)
        #expect(f[4].timestamp_s == 99 && f[3].timestamp_s == 103, "backwards timestamp kept in file order")
        #expect(f[4] == f[5], "duplicate rows both kept")
        #expect(f[6].latitude == -.infinity && f[6].longitude == -181 && f[6].horizontalAccuracy_m == .infinity)
        // The engine's own validation gives the reason for each invalid coordinate.
        #expect(throws: CoordinateError.self) { try f[0].coordinate() }
        #expect(throws: CoordinateError.latitudeOutOfRange(91)) { try f[2].coordinate() }
        #expect(throws: CoordinateError.longitudeOutOfRange(-181)) {
            try Fix(timestamp_s: 0, latitude: 0, longitude: -181, horizontalAccuracy_m: 1).coordinate()
        }
    }

    @Test func invalidValuesAreKeptRawInJSONLinesAndGPX() throws {
        let jsonl = """
            {"timestamp":1,"latitude":"NaN","longitude":"-Infinity","horizontal_accuracy":-1}
            {"timestamp":0,"latitude":91,"longitude":13,"horizontal_accuracy":5,"speed":null}
            """
        let j = try parse(jsonl, .jsonl)
        #expect(j.fixes.count == 2)
        #expect(j.fixes[0].fix.latitude.isNaN && j.fixes[0].fix.longitude == -.infinity)
        #expect(j.fixes[0].fix.horizontalAccuracy_m == -1)
        #expect(j.fixes[1].fix.latitude == 91 && j.fixes[1].fix.timestamp_s == 0)
        let gpx = """
            <gpx version="1.1"><trk><trkseg>
            <trkpt lat="NaN" lon="200"><time>2026-03-01T12:00:01Z</time><extensions><horizontal_accuracy>-1</horizontal_accuracy></extensions></trkpt>
            <trkpt lat="91" lon="0"><time>2026-03-01T12:00:00Z</time><hdop>2</hdop></trkpt>
            </trkseg></trk></gpx>
            """
        let g = try parse(gpx, .gpx)
        #expect(g.fixes.map(\.line) == [2, 3])
        #expect(
            g.fixes[0].fix.latitude.isNaN && g.fixes[0].fix.longitude == 200
                && g.fixes[0].fix.horizontalAccuracy_m == -1)
        #expect(g.fixes[1].fix.timestamp_s < g.fixes[0].fix.timestamp_s, "backwards time kept")
    }

    @Test func gpxAccuracyComesFromTheExtensionElseFromHdop() throws {
        let gpx = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1" xmlns:fl="https://fencelab.invalid/gpx/1">
            <wpt lat="52.5" lon="13.4"><time>2026-03-01T12:00:00Z</time><hdop>1.6</hdop></wpt>
            <wpt lat="52.5" lon="13.4"><time>2026-03-01T12:00:01Z</time><hdop>1.6</hdop>
              <extensions><fl:horizontal_accuracy>7.25</fl:horizontal_accuracy><fl:speed>3.5</fl:speed><fl:event>exit</fl:event></extensions></wpt>
            </gpx>
            """
        let log = try parse(gpx, .gpx)
        let tolerance_m = 1e-12
        #expect(abs(log.fixes[0].fix.horizontalAccuracy_m - 1.6 * 5) <= tolerance_m)
        #expect(abs(log.fixes[1].fix.horizontalAccuracy_m - 7.25) <= tolerance_m)
        #expect(log.fixes[1].speed_mps == 3.5)
        #expect(log.events == [SystemEvent(kind: .exit, timestamp_s: log.fixes[1].fix.timestamp_s, line: 4)])
    }

    @Test func xmlReferencesCommentsAndCDATAAreHandled() throws {
        let gpx = """
            <?xml version="1.0"?><!-- a comment with <tags> & ampersands -->
            <gpx version="1.1"><metadata><time>2026-01-01T00:00:00Z</time></metadata>
            <wpt lat=" 1.5 " lon="&#50;"><name><![CDATA[<not a tag> & more]]></name><desc>a &amp; b &lt; c</desc>
            <time>2026-03-01T12:00:00Z</time><hdop>&#x31;.&#50;</hdop></wpt>
            </gpx>
            """
        let log = try parse(gpx, .gpx)
        let tolerance_m = 1e-12
        #expect(log.fixes.count == 1)
        #expect(log.fixes[0].fix.latitude == 1.5 && log.fixes[0].fix.longitude == 2)
        #expect(abs(log.fixes[0].fix.horizontalAccuracy_m - 1.2 * GPXAccuracy.uere_m) <= tolerance_m)
        #expect(log.fixes[0].line == 3)
    }

    @Test func eventRowsAndEventOnlyRows() throws {
        let csv = """
            event,\(header)
            enter,100,52.5,13.4,5
            ,101,52.5,13.4,5
            exit,102,,,
            """
        let log = try parse(csv, .csv)
        #expect(log.fixes.count == 2)
        #expect(
            log.events == [
                SystemEvent(kind: .enter, timestamp_s: 100, line: 2),
                SystemEvent(kind: .exit, timestamp_s: 102, line: 4),
            ])
        let jsonl = "{\"timestamp\":5,\"event\":\"enter\"}\n{\"timestamp\":6,\"event\":\"exit\",\"latitude\":null}\n"
        let j = try parse(jsonl, .jsonl)
        #expect(j.fixes.isEmpty)
        #expect(j.events.map(\.kind) == [.enter, .exit])
        #expect(j.events.map(\.line) == [1, 2])
    }

    @Test(arguments: DeviceLogFormat.allCases)
    func bomAndCRLFParse(_ format: DeviceLogFormat) throws {
        let lf: String
        switch format {
        case .csv: lf = "\(header),event\n2026-03-01T12:00:00Z,52.5,13.4,5,\n2026-03-01T12:00:01Z,52.5,13.4,5,enter\n"
        case .jsonl:
            lf =
                "{\"timestamp\":\"2026-03-01T12:00:00Z\",\"latitude\":52.5,\"longitude\":13.4,\"horizontal_accuracy\":5}\n"
                + "{\"timestamp\":\"2026-03-01T12:00:01Z\",\"latitude\":52.5,\"longitude\":13.4,\"horizontal_accuracy\":5,\"event\":\"enter\"}\n"
        case .gpx:
            lf =
                "<gpx version=\"1.1\">\n<wpt lat=\"52.5\" lon=\"13.4\"><time>2026-03-01T12:00:00Z</time><extensions><horizontal_accuracy>5</horizontal_accuracy></extensions></wpt>\n"
                + "<wpt lat=\"52.5\" lon=\"13.4\"><time>2026-03-01T12:00:01Z</time><extensions><horizontal_accuracy>5</horizontal_accuracy><event>enter</event></extensions></wpt>\n</gpx>\n"
        case .nmea:
            lf = [
                "GPGGA,120000.00,5230.00000,N,01324.00000,E,1,08,1.00,,M,,M,,",
                "GPRMC,120000.00,A,5230.00000,N,01324.00000,E,,,010326,,,A",
                "GPGGA,120001.00,5230.00000,N,01324.00000,E,1,08,1.00,,M,,M,,",
            ]
            .map { NMEASentence.sentence($0).replacingOccurrences(of: "\r\n", with: "\n") }.joined()
        case .googleRecords:
            lf =
                "{\n  \"locations\": [{\n    \"latitudeE7\": 525000000,\n    \"longitudeE7\": 134000000,\n    \"accuracy\": 5,\n"
                + "    \"timestamp\": \"2026-03-01T12:00:00Z\"\n  }, {\n    \"latitudeE7\": 525000000,\n    \"longitudeE7\": 134000000,\n"
                + "    \"accuracy\": 5,\n    \"timestampMs\": \"1772366401000\"\n  }]\n}\n"
        case .geojson:
            lf =
                "{\"type\": \"FeatureCollection\", \"features\": [\n"
                + "{\"type\": \"Feature\", \"geometry\": {\"type\": \"Point\", \"coordinates\": [13.4, 52.5]}, \"properties\": {\"time\": \"2026-03-01T12:00:00Z\", \"accuracy\": 5}},\n"
                + "{\"type\": \"Feature\", \"geometry\": {\"type\": \"Point\", \"coordinates\": [13.4, 52.5]}, \"properties\": {\"time\": 1772366401, \"accuracy\": 5}}\n"
                + "]}\n"
        case .owntracks:
            lf =
                "{\"_type\":\"location\",\"tst\":1772366400,\"lat\":52.5,\"lon\":13.4,\"acc\":5}\n"
                + "{\"_type\":\"location\",\"tst\":1772366401,\"lat\":52.5,\"lon\":13.4,\"acc\":5}\n"
                + "{\"_type\":\"transition\",\"event\":\"enter\",\"tst\":1772366401}\n"
        case .gnsslogger:
            lf =
                "# Fix,Provider,LatitudeDegrees,LongitudeDegrees,AltitudeMeters,SpeedMps,AccuracyMeters,BearingDegrees,UnixTimeMillis\n"
                + "Fix,GPS,52.5,13.4,34,,5,,1772366400000\nFix,GPS,52.5,13.4,34,,5,,1772366401000\n"
        }
        let crlf = lf.replacingOccurrences(of: "\n", with: "\r\n")
        let plain = try parse(lf, format)
        let bomCRLF = try DeviceLogImporter.parse(
            bytes: [0xEF, 0xBB, 0xBF] + Array(crlf.utf8), file: "bom.\(format)", format: format)
        #expect(plain.fixes.count == 2)
        #expect(bomCRLF.fixes == plain.fixes)
        #expect(bomCRLF.events == plain.events)
        // NMEA, GnssLogger, Google Records and GeoJSON carry no geofence events.
        #expect(plain.events.count == ([.nmea, .gnsslogger, .googleRecords, .geojson].contains(format) ? 0 : 1))
    }

    @Test func isoAndUnixTimestampsAgree() throws {
        // Oracles: 2000-01-01T00:00:00Z is 946 684 800 s (POSIX epoch arithmetic), and Foundation's
        // ISO8601DateFormatter for the fractional/zoned forms.
        let cases: [(iso: String, unix: Double)] = [
            ("2000-01-01T00:00:00Z", 946_684_800),
            ("1970-01-01T00:00:00Z", 0),
            ("1969-12-31T23:59:59Z", -1),
            ("2024-02-29T12:34:56.789Z", 1_709_210_096.789),
            ("2026-03-01T13:00:00.25+01:00", 1_772_366_400.25),
            ("2026-03-01 06:30:00-0530", 1_772_366_400),
            ("2026-03-01t12:00:00z", 1_772_366_400),
        ]
        let tolerance_s = 1e-6
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for c in cases {
            let rows = "\(header)\n\(c.iso),1,2,3\n\(c.unix),1,2,3\n"
            let log = try parse(rows, .csv)
            #expect(abs(log.fixes[0].fix.timestamp_s - log.fixes[1].fix.timestamp_s) <= tolerance_s, "\(c.iso)")
            #expect(abs(log.fixes[0].fix.timestamp_s - c.unix) <= tolerance_s, "\(c.iso)")
        }
        let fractional = "2026-03-01T13:00:00.250+01:00"
        let oracle = try #require(formatter.date(from: fractional)).timeIntervalSince1970
        let log = try parse("{\"timestamp\":\"\(fractional)\",\"event\":\"exit\"}", .jsonl)
        #expect(abs(log.events[0].timestamp_s - oracle) <= tolerance_s)
    }

    @Test func lineLimitIsExactAndExcludesTheLineBreak() throws {
        let row = "100,52.5,13.4,5"  // 15 bytes
        let limits = DeviceLogLimits(maxLineLength_bytes: header.utf8.count)
        for ending in ["\n", "\r\n"] {
            let exact = try parse(header + ending + row + ending, .csv, limits: limits)
            #expect(exact.fixes.count == 1)
        }
        let tight = DeviceLogLimits(maxLineLength_bytes: header.utf8.count - 1)
        #expect(
            throws: DeviceLogError(file: "log.csv", line: 1, problem: .lineTooLong(limit_bytes: header.utf8.count - 1))
        ) {
            try parse(header + "\r\n" + row, .csv, limits: tight)
        }
        #expect(
            throws: DeviceLogError(file: "log.csv", line: nil, problem: .fileTooLarge(size_bytes: 64, limit_bytes: 63))
        ) {
            try parse(header + "\n" + row, .csv, limits: DeviceLogLimits(maxFileSize_bytes: 63))
        }
    }

    /// Every format is read in pieces (1 MiB from a file) and never needs the whole file:
    /// a split at every byte position, and one-byte pieces, give the same log or the same error
    /// as the whole buffer, including a BOM, CRLF split between CR and LF, blank lines and a
    /// line over the limit; for GPX a comment, processing instruction, CDATA, references and a
    /// name split anywhere, a name over the token limit, a truncated comment, a DOCTYPE, a file
    /// of spaces (empty) and one of comments only (no <gpx>).
    @Test(arguments: [DeviceLogFormat.csv, .jsonl, .nmea, .gpx])
    func piecesAtEverySplitPositionReadAsTheWhole(_ format: DeviceLogFormat) throws {
        let texts: [String]
        switch format {
        case .csv:
            texts = [
                "\u{FEFF}\(header),event\r\n\r\n2026-03-01T12:00:00Z,52.5,\"13.4\",5,\r\n  \n100,91,13.4,-1,enter\r\n",
                "\n  \n\u{FEFF}\n", "\n \nx\n", "\(header)\n1,2,3\n", "\(header)\n1,2,3,4\n1,2,3,4,5,6,7,8,9,10,11,12",
            ]
        case .jsonl:
            texts = [
                "{\"timestamp\":1,\"latitude\":2,\"longitude\":3,\"horizontal_accuracy\":4}\r\n\n{\"timestamp\":\"5\",\"event\":\"exit\"}",
                "{\"timestamp\":1,\n", " \n\t\n",
            ]
        case .gpx:
            texts = [
                "\u{FEFF}<?xml version=\"1.0\"?>\r\n<!-- a <comment> -->\n<gpx version=\"1.1\" xmlns:fl=\"x\"><trk><trkseg>\n"
                    + "<trkpt lat='52.5' lon=\"13.4\"><time>2026-03-01T12:00:00Z</time><hdop>1.5</hdop>"
                    + "<extensions><fl:event><![CDATA[enter]]></fl:event></extensions></trkpt>\n"
                    + "<trkpt lat=\"52.50001\" lon=\"13.4\"><time>2026-03-01T12:00:01&#x5A;</time>"
                    + "<extensions><fl:horizontal_accuracy>7&#46;5</fl:horizontal_accuracy><fl:speed> 1.5 </fl:speed></extensions></trkpt>"
                    + "<?pi x?></trkseg></trk></gpx>\n",
                "<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\"><time>1970-01-01T00:00:00Z</time><hdop>1</hdop></trkpt></trkseg></trk>"
                    + "<wpt lat=\"1\" lon=\"2\"><name>&amp;&lt;&gt;&quot;&apos;</name><time>1970-01-01T00:00:01Z</time><hdop>1</hdop></wpt></gpx>",
                "<gpx><averyveryveryverylongelementname_over_thirty/></gpx>",
                "<gpx><!-- never closed -",
                "<!DOCTYPE gpx><gpx/>",
                "  \r\n\t \u{FEFF}\n",
                "<!-- only --><?only?>",
                "<gpx><wpt lat=\"1\" lon=\"2\"><time>x&bogus;</time></wpt></gpx>",
            ]
        default:
            texts = [
                [
                    "GPGGA,120000.00,5230.00000,N,01324.00000,E,1,08,1.00,,M,,M,,",
                    "GPRMC,120000.00,A,5230.00000,N,01324.00000,E,,,010326,,,A",
                    "GPGGA,120001.00,5230.00000,N,01324.00000,E,1,08,1.00,,M,,M,,",
                ].map { NMEASentence.sentence($0) }.joined(),
                "$GPGGA,1*00\r\n",
            ]
        }
        for text in texts {
            let bytes = Array(text.utf8)
            let limits = DeviceLogLimits(maxLineLength_bytes: 30)
            for limit in [DeviceLogLimits.standard, limits] {
                let whole = Result { () throws(DeviceLogError) in
                    try DeviceLogImporter.parse(bytes: bytes, file: "t.\(format)", format: format, limits: limit)
                }
                var sources = (0...bytes.count).map { p in
                    DeviceLogByteSource.pieces([Array(bytes[..<p]), Array(bytes[p...])])
                }
                sources.append(.pieces(bytes.map { [$0] }))
                for (k, source) in sources.enumerated() {
                    let pieced = Result { () throws(DeviceLogError) in
                        try DeviceLogImporter.parse(
                            source, file: "t.\(format)", format: format, limits: limit, reservingFixes: 0)
                    }
                    #expect(
                        pieced == whole,
                        "split at \(k) of \(text.debugDescription), line limit \(limit.maxLineLength_bytes)")
                }
            }
        }
    }

    @Test func quotedAndReorderedColumns() throws {
        let csv = "horizontal_accuracy , longitude,latitude,timestamp\n\"5\", 13.4 ,\"52.5\",\"100\"\n"
        let log = try parse(csv, .csv)
        #expect(log.fixes.first?.fix == Fix(timestamp_s: 100, latitude: 52.5, longitude: 13.4, horizontalAccuracy_m: 5))
    }

    /// `keepingFix` sees every well-formed fix in file order and stores only those it keeps;
    /// events are stored either way, and a file whose fixes are all left out is not "no data".
    @Test func keepingFixStoresOnlyTheKeptFixes() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "devicelog-keep-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let csvPath = dir.appendingPathComponent("log.csv").path
        try Data(
            "timestamp,latitude,longitude,horizontal_accuracy,event\n1,52,13,5,\n2,52,13,-1,enter\n3,52,13,5,\n4,,,,exit\n"
                .utf8
        )
        .write(to: URL(fileURLWithPath: csvPath))
        var seen: [Double] = []
        let log = try DeviceLogImporter.load(path: csvPath) { fix in
            seen.append(fix.timestamp_s)
            return fix.horizontalAccuracy_m > 0
        }
        #expect(seen == [1, 2, 3])
        #expect(log.fixes.map(\.fix.timestamp_s) == [1, 3] && log.fixes.map(\.line) == [2, 4])
        #expect(log.events.map(\.kind) == [.enter, .exit])
        let none = try DeviceLogImporter.load(path: csvPath) { _ in false }
        #expect(none.fixes.isEmpty && none.events.count == 2)
        // The same for GPX (read from the whole buffer) and for a file of fixes only.
        let gpxPath = dir.appendingPathComponent("log.gpx").path
        try Data(
            """
            <?xml version="1.0"?><gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="52" lon="13"><time>2024-01-01T00:00:01Z</time><hdop>1</hdop></trkpt>
            <trkpt lat="52.1" lon="13"><time>2024-01-01T00:00:02Z</time><hdop>1</hdop></trkpt>
            </trkseg></trk></gpx>
            """.utf8
        ).write(to: URL(fileURLWithPath: gpxPath))
        let gpxAll = try DeviceLogImporter.load(path: gpxPath)
        let gpx = try DeviceLogImporter.load(path: gpxPath) { $0.latitude > 52.05 }
        #expect(gpxAll.fixes.count == 2 && gpx.fixes.map(\.fix) == [gpxAll.fixes[1].fix])
        let fixesOnly = dir.appendingPathComponent("fixes.csv").path
        try Data("timestamp,latitude,longitude,horizontal_accuracy\n1,52,13,5\n".utf8).write(
            to: URL(fileURLWithPath: fixesOnly))
        #expect(try DeviceLogImporter.load(path: fixesOnly) { _ in false }.fixes.isEmpty)
    }

    @Test func fileLevelChecks() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "devicelog-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("track.CSV").path
        let content = Data("\(header)\n1,2,3,4\n".utf8)
        try content.write(to: URL(fileURLWithPath: path))
        let log = try DeviceLogImporter.load(path: path)
        #expect(log.format == .csv && log.fixes.count == 1 && log.file == path)
        // Too large: refused before reading, naming the file.
        #expect { try DeviceLogImporter.load(path: path, limits: DeviceLogLimits(maxFileSize_bytes: 10)) } throws: {
            error in
            guard let e = error as? DeviceLogError else { return false }
            return e.problem == .fileTooLarge(size_bytes: content.count, limit_bytes: 10)
                && e.description.hasPrefix(path + ": ")
        }
        // Neither the extension nor the content names a format: refused naming --format.
        let kml = dir.appendingPathComponent("a.kml").path
        try Data("<kml>\n</kml>\n".utf8).write(to: URL(fileURLWithPath: kml))
        #expect(throws: DeviceLogError(file: kml, line: nil, problem: .unknownFormat(extension: "kml"))) {
            try DeviceLogImporter.load(path: kml)
        }
        #expect(DeviceLogProblem.unknownFormat(extension: "kml").description.contains("--format"))
        #expect { try DeviceLogImporter.load(path: dir.appendingPathComponent("missing.csv").path) } throws: { error in
            if case .unreadable = (error as? DeviceLogError)?.problem { return true } else { return false }
        }
        // An explicit format overrides the extension.
        let txt = dir.appendingPathComponent("log.txt").path
        try Data("{\"timestamp\":1,\"event\":\"enter\"}\n".utf8).write(to: URL(fileURLWithPath: txt))
        #expect(try DeviceLogImporter.load(path: txt, format: .jsonl).events.count == 1)
    }

    @Test func committedFuzzSeedsParseOrFailCleanly() throws {
        let root = TestPaths.packageRoot.appendingPathComponent("fuzz/corpus")
        let expectedValid: Set<String> = [
            "basic.csv", "bom_crlf_invalid.csv", "reordered_quoted.csv",
            "basic.jsonl", "bom_crlf.jsonl", "track.gpx", "storm.nmea", "gsv_then_gst.nmea", "pixel.txt",
            "wrapped-nmea.txt",
            "recorder.rec", "Records.json", "track.geojson",
        ]
        for format in DeviceLogFormat.allCases {
            let folder = root.appendingPathComponent(format.rawValue.replacingOccurrences(of: "-", with: "_"))
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path)
            where expectedValid.contains(name) {
                let log = try DeviceLogImporter.load(path: folder.appendingPathComponent(name).path)
                #expect(!log.fixes.isEmpty, "\(name)")
            }
        }
    }
}
