import Foundation
import GeoPolicy
import Testing
import _TestSupport

@testable import DeviceLogKit

/// Recordings as devices and apps write them (hand-written files in each dialect): what is a fix,
/// what is skipped and counted per reason, what is assumed, and what is refused naming the option.
@Suite struct RecordingDialectTests {
    /// 2026-03-01T12:00:00Z in Unix seconds.
    static let noonMarch1_s = 1_772_366_400.0
    static let accuracyTolerance_m = 1e-9
    static let coordinateTolerance_deg = 1e-9

    static func nmea(_ lines: [String], options: DeviceLogReadOptions = .standard) throws(DeviceLogError) -> DeviceLog {
        try DeviceLogImporter.parse(
            bytes: Array(lines.joined(separator: "\r\n").utf8), file: "t.nmea", format: .nmea, options: options)
    }

    static func gpx(_ text: String, options: DeviceLogReadOptions = .standard) throws(DeviceLogError) -> DeviceLog {
        try DeviceLogImporter.parse(bytes: Array(text.utf8), file: "t.gpx", format: .gpx, options: options)
    }

    /// `$BODY*hh` without the line end.
    static func s(_ body: String) -> String { "$\(body)*\(NMEASentence.checksum(body))" }

    // MARK: NMEA

    /// A receiver capture with everything NMEA consumers tolerate: comments, no-fix sentences,
    /// a bad checksum, a cut-off line, a line that is not a sentence.
    static let receiverCapture = [
        "# gpsd 3.22 capture",  // 1 comment
        s("GPGGA,,,,,,0,00,99.99,,,,,,"),  // 2 no fix yet: every field empty
        s("GPRMC,115959.00,V,,,,,,,010326,,,N"),  // 3 no fix: time, no position
        s("GNRMC,120000.00,A,5230.60000,N,01324.30000,E,5.00,90.0,010326,,,A"),  // 4 fix 1
        s("GNGGA,120000.00,5230.60000,N,01324.30000,E,1,08,1.20,34.0,M,,M,,"),  // 5
        "$GNGGA,120001.00,5230.60100,N,01324.30000,E,1,08,1.20,34.0,M,,M,,*00",  // 6 bad checksum
        "$GNGGA,120002.00,5230.602",  // 7 cut off mid-line
        "ÿþ binary",  // 8 not a sentence
        s("GNGGA,120003.00,5230.60300,N,01324.30000,E,1,08,2.00,34.0,M,,M,,"),  // 9 fix 2 (date carried)
    ]

    @Test func receiverCaptureSkipsAndCountsEachReason() throws {
        let log = try Self.nmea(Self.receiverCapture)
        #expect(log.fixes.count == 2)
        #expect(log.fixes.map(\.line) == [4, 9])
        #expect(log.fixes.map(\.fix.timestamp_s) == [Self.noonMarch1_s, Self.noonMarch1_s + 3])
        #expect(
            log.ingest.skipped == [
                .comment: 1, .noFixSentence: 2, .badChecksum: 1, .truncatedSentence: 1, .notASentence: 1,
            ])
        #expect(
            log.ingest.firstSkippedLine == [
                .comment: 1, .noFixSentence: 2, .badChecksum: 6, .truncatedSentence: 7, .notASentence: 8,
            ])
        #expect(log.ingest.assumptions == [DeviceLogAssumption(kind: .accuracyFromHDOP, fixes: 2)])
        #expect(isClose(log.fixes[0].fix.horizontalAccuracy_m, 6, absoluteTolerance: Self.accuracyTolerance_m))
        #expect(isClose(log.fixes[1].fix.horizontalAccuracy_m, 10, absoluteTolerance: Self.accuracyTolerance_m))
        let summary = try #require(log.ingest.summary)
        #expect(summary.contains("badChecksum 1 (first at line 6)"))
        #expect(summary.contains("accuracy = HDOP × 5 m (UERE): 2 fixes"))
    }

    @Test func strictRefusesTheFirstDamagedLine() {
        #expect {
            _ = try Self.nmea(Self.receiverCapture, options: DeviceLogReadOptions(strict: true))
        } throws: { error in
            let e = error as? DeviceLogError
            return e?.line == 6 && e?.description.contains("checksum 00 does not match") == true
        }
    }

    @Test(arguments: ["GP", "GN", "GL", "GA", "GB", "BD", "QZ"])
    func everyTalkerIsRead(talker: String) throws {
        let log = try Self.nmea([
            Self.s("\(talker)GGA,120000.00,5230.60000,S,01324.30000,W,1,08,1.00,34.0,M,,M,,"),
            Self.s("\(talker)RMC,120000.00,A,5230.60000,S,01324.30000,W,,,010326,,,A"),
        ])
        #expect(log.fixes.count == 1 && log.ingest.skipped.isEmpty)
        #expect(isClose(log.fixes[0].fix.latitude, -52.51, absoluteTolerance: Self.coordinateTolerance_deg))
        #expect(isClose(log.fixes[0].fix.longitude, -13.405, absoluteTolerance: Self.coordinateTolerance_deg))
    }

    static let ggaOnly = [
        s("GPGGA,235959.00,5230.60000,N,01324.30000,E,1,08,1.00,34.0,M,,M,,"),
        s("GPGGA,000000.00,5230.60000,N,01324.30000,E,1,08,1.00,34.0,M,,M,,"),
    ]

    @Test func ggaOnlyNeedsTheDateOption() throws {
        #expect {
            _ = try Self.nmea(Self.ggaOnly)
        } throws: { error in
            let e = error as? DeviceLogError
            return e?.line == 1 && e?.description.hasSuffix("give --date YYYY-MM-DD") == true
        }
        let date = try #require(DeviceLogReadOptions.date("2026-02-28"))
        let log = try Self.nmea(Self.ggaOnly, options: DeviceLogReadOptions(assumedDate_days: date))
        // 2026-02-28T23:59:59Z, then past midnight: 2026-03-01T00:00:00Z.
        #expect(log.fixes.map(\.fix.timestamp_s) == [Self.noonMarch1_s - 43_201, Self.noonMarch1_s - 43_200])
        #expect(
            log.ingest.assumptions == [
                DeviceLogAssumption(kind: .accuracyFromHDOP, fixes: 2),
                DeviceLogAssumption(kind: .assumedDate(days: date), fixes: 2),
            ])
    }

    @Test func dateOptionParsesCalendarDatesOnly() {
        #expect(DeviceLogReadOptions.date("1970-01-01") == 0)
        #expect(DeviceLogReadOptions.date("2026-03-01").map(DeviceLogReadOptions.dateText) == "2026-03-01")
        #expect(DeviceLogReadOptions.date("2024-02-29") != nil)
        for bad in ["2026-02-29", "2026-13-01", "2026-3-1", "01.03.2026", "", "2026-03-01T00:00Z"] {
            #expect(DeviceLogReadOptions.date(bad) == nil, "\(bad)")
        }
    }

    @Test func captureStartingAfterTheEpochsRMCTakesTheNextRMCsDate() throws {
        let log = try Self.nmea([
            Self.s("GPGGA,235959.00,5230.60000,N,01324.30000,E,1,08,1.00,34.0,M,,M,,"),  // before any date
            Self.s("GPRMC,000000.00,A,5230.60000,N,01324.30000,E,,,010326,,,A"),
            Self.s("GPGGA,000000.00,5230.60000,N,01324.30000,E,1,08,1.00,34.0,M,,M,,"),
        ])
        // The first epoch is the day before the RMC's 2026-03-01 (its time of day is 12 h later).
        #expect(log.fixes.map(\.fix.timestamp_s) == [Self.noonMarch1_s - 43_201, Self.noonMarch1_s - 43_200])
        #expect(!log.ingest.assumptions.contains { if case .assumedDate = $0.kind { true } else { false } })
    }

    static let rmcOnly = [
        s("GPRMC,120000.00,A,5230.60000,N,01324.30000,E,10.0,45.0,010326,,,A"),
        s("GPRMC,120001.00,A,5230.60100,N,01324.30000,E,10.0,45.0,010326,,,A"),
    ]

    @Test func rmcOnlyNeedsTheAccuracyOption() throws {
        #expect {
            _ = try Self.nmea(Self.rmcOnly)
        } throws: { error in
            let e = error as? DeviceLogError
            return e?.line == 1 && e?.description.hasSuffix("has no accuracy; give --assume-accuracy M") == true
        }
        let log = try Self.nmea(Self.rmcOnly, options: DeviceLogReadOptions(assumedAccuracy_m: 4))
        #expect(log.fixes.map(\.fix.horizontalAccuracy_m) == [4, 4])
        #expect(log.ingest.assumptions == [DeviceLogAssumption(kind: .assumedAccuracy(m: 4), fixes: 2)])
        #expect(log.ingest.accuracyAssumedFixes == 2)
    }

    @Test func gsaGivesHDOPWhenGGAHasNoneAndVTGGivesSpeed() throws {
        let log = try Self.nmea([
            Self.s("GNGGA,120000.00,5230.60000,N,01324.30000,E,1,08,,34.0,M,,M,,"),
            Self.s("GNGSA,A,3,01,02,03,04,,,,,,,,,2.10,1.40,1.60,1"),
            Self.s("GNGSA,A,3,65,66,,,,,,,,,,,2.10,9.99,1.60,2"),  // the epoch's first GSA counts
            Self.s("GNVTG,45.0,T,,M,10.0,N,18.5,K,A"),
            Self.s("GNGGA,120001.00,5230.60000,N,01324.30000,E,1,08,1.00,34.0,M,,M,,"),
            Self.s("GNVTG,46.0,T,,M,,N,36.0,K,A"),  // no knots: km/h
            Self.s("GNRMC,120001.00,A,5230.60000,N,01324.30000,E,,,010326,,,A"),
        ])
        #expect(log.fixes.count == 2)
        let speedTolerance_mps = 1e-12
        #expect(isClose(log.fixes[0].fix.horizontalAccuracy_m, 7, absoluteTolerance: Self.accuracyTolerance_m))
        #expect(
            isClose(try #require(log.fixes[0].speed_mps), 10 * 1852.0 / 3600, absoluteTolerance: speedTolerance_mps))
        #expect(log.fixes[0].course_deg == 45)
        #expect(isClose(try #require(log.fixes[1].speed_mps), 10, absoluteTolerance: speedTolerance_mps))
        #expect(log.fixes[1].course_deg == 46)
    }

    @Test(arguments: [
        (
            "GPGGA,120000.00,37.352387,N,12157.0000,W,1,08,1.0,34.0,M,,M,,",
            "GGA latitude: '37.352387' is decimal degrees, expected ddmm.mmmm"
        ),
        (
            "GPRMC,120000.00,A,3721.1432,N,-121.95,W,,,010326,,,A",
            "RMC longitude: '-121.95' is decimal degrees, expected dddmm.mmmm"
        ),
        ("GPGGA,120000.00,3721.1432,X,12157.0000,W,1,08,1.0,34.0,M,,M,,", "GGA latitude hemisphere: 'X' is not N or S"),
        ("GPGGA,120000.00,3760.0000,N,12157.0000,W,1,08,1.0,34.0,M,,M,,", "GGA latitude: '3760.0000' has minutes"),
        ("GPGGA,1200,3721.1432,N,12157.0000,W,1,08,1.0,34.0,M,,M,,", "GGA time: NMEA time must be hhmmss"),
    ])
    func malformedFieldsNameTheFieldAndItsOwnValue(body: String, message: String) {
        #expect {
            _ = try Self.nmea([Self.s(body)])
        } throws: { error in
            let d = (error as? DeviceLogError)?.description ?? ""
            return d.hasPrefix("t.nmea:1: ") && d.contains(message) && !d.contains(",N'") && !d.contains(",W'")
        }
    }

    @Test func onlyNoFixSentencesIsRefusedWithTheCounts() {
        #expect(
            throws: DeviceLogError(
                file: "t.nmea", line: 3,
                problem: .noFix(
                    format: .nmea, skipped: "comment 1 (first at line 1), noFixSentence 2 (first at line 2)"))
        ) {
            _ = try Self.nmea(["# no sky", Self.s("GPGGA,,,,,,0,00,99.99,,,,,,"), Self.s("GPRMC,,V,,,,,,,,,,N")])
        }
    }

    /// Every well-formed sentence that is not read is counted by why (nothing dropped silently).
    static let talkativeReceiver = [
        s("GPGSA,A,1,,,,,,,,,,,,,99.99,99.99,99.99"),  // 1 GSA before any timed sentence
        s("GPTXT,01,01,02,ANTSTATUS=OK"),  // 2 text message
        // 3 proprietary
        s("PUBX,00,120000.00,5230.60000,N,01324.30000,E,34.0,G3,2.0,2.0,0.0,0.0,0.0,,1.0,1.0,1.0,8,0,0"),
        s("GPGST,115959.00,2.0,1.5,1.0,0.0,3.0,4.0,5.0"),  // 4 an epoch without a position:
        s("GPVTG,,T,,M,0.0,N,0.0,K,N"),  // 5 its GST and VTG are no fix
        s("GPGGA,115959.00,,,,,0,00,99.99,,,,,,"),  // 6 no position
        s("GPGSV,2,1,08,01,40,083,46,02,17,308,41,12,07,344,39,14,22,228,45"),  // 7 satellites in view
        s("GPGLL,5230.60000,N,01324.30000,E,120000.00,A,A"),  // 8 fix 1: GLL gives the position
        s("GPRMC,120000.00,A,5230.60000,N,01324.30000,E,0.0,,010326,,,A"),  // 9
        s("GPGSA,A,3,01,02,03,04,,,,,,,,,2.10,1.40,1.60"),  // 10 HDOP 1.4 for fix 1
        s("GPZDA,120000.00,01,03,2026,00,00"),  // 11 date and time: not read
        s("CCGPQ,GGA"),  // 12 a query: not talker + type
        "!" + s("AIVDM,1,1,,A,13aEOK?P00PD2wVMdLDRhgvL289?,0").dropFirst(),  // 13 AIS
        s("GPGLL,5230.60100,N,01324.30000,E"),  // 14 an old GLL without a time
        s("GPGLL,5230.60200,N,01324.30000,E,120001.00,V,N"),  // 15 fix 2: GLL status V
        s("GPRMC,120001.00,V,5230.60300,N,01324.30000,E,,,010326,,,N"),  // 16 RMC before GLL in rank: not used
    ]

    @Test func ignoredSentencesAreCountedByReason() throws {
        let log = try Self.nmea(Self.talkativeReceiver)
        #expect(log.fixes.map(\.line) == [8, 15])
        #expect(log.fixes.map(\.fix.timestamp_s) == [Self.noonMarch1_s, Self.noonMarch1_s + 1])
        #expect(isClose(log.fixes[0].fix.horizontalAccuracy_m, 7, absoluteTolerance: Self.accuracyTolerance_m))
        #expect(log.fixes[1].fix.horizontalAccuracy_m.isNaN, "GLL/RMC status V: kept for the engine to reject")
        // The epoch's RMC ranks above GLL for the position.
        #expect(isClose(log.fixes[1].fix.latitude, 52 + 30.603 / 60, absoluteTolerance: Self.coordinateTolerance_deg))
        #expect(
            log.ingest.skipped == [
                .noFixSentence: 4, .sentenceWithoutEpoch: 1, .otherSentence: 5, .proprietarySentence: 1,
            ])
        #expect(
            log.ingest.firstSkippedLine == [
                .noFixSentence: 4, .sentenceWithoutEpoch: 1, .otherSentence: 2, .proprietarySentence: 3,
            ])
        #expect(
            log.ingest.summary
                == "skipped noFixSentence 4 (first at line 4), sentenceWithoutEpoch 1 (first at line 1), otherSentence 5 (first at line 2), proprietarySentence 1 (first at line 3); assumed accuracy = HDOP × 5 m (UERE): 1 fix"
        )
        // Every line is either read into a fix's epoch or counted.
        let read = [8, 9, 10, 15, 16]
        #expect(log.ingest.skipped.values.reduce(0, +) + read.count == Self.talkativeReceiver.count)
        // A file of nothing but such sentences is refused with the counts.
        #expect(
            throws: DeviceLogError(
                file: "t.nmea", line: 3,
                problem: .noFix(
                    format: .nmea,
                    skipped:
                        "sentenceWithoutEpoch 1 (first at line 1), otherSentence 1 (first at line 2), proprietarySentence 1 (first at line 3)"
                ))
        ) {
            _ = try Self.nmea(Array(Self.talkativeReceiver.prefix(3)))
        }
    }

    // MARK: Which format

    @Test func contentNamesTheFormatForAnyExtension() throws {
        #expect(DeviceLogFormat.sniff(Array("\u{FEFF}\r\n$GPGGA,1*00\r\n".utf8)) == .nmea)
        #expect(DeviceLogFormat.sniff(Array("# gpsd\n$GPRMC,1*00\n".utf8)) == .nmea)
        #expect(DeviceLogFormat.sniff(Array("# only a comment\n".utf8)) == nil)
        #expect(DeviceLogFormat.sniff(Array("<?xml version=\"1.0\"?>\n<gpx version=\"1.1\">".utf8)) == .gpx)
        #expect(DeviceLogFormat.sniff(Array("<kml></kml>".utf8)) == nil)
        #expect(DeviceLogFormat.sniff(Array("{\"timestamp\":1}\n".utf8)) == .jsonl)
        #expect(DeviceLogFormat.sniff(Array("latitude,\"timestamp\",x\n".utf8)) == .csv)
        #expect(DeviceLogFormat.sniff(Array("hello\n".utf8)) == nil)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "dialects-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("receiver.log").path
        try Data(Self.receiverCapture.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
        let log = try DeviceLogImporter.load(path: path)
        #expect(log.format == .nmea && log.fixes.count == 2)
        // --format overrides the content.
        #expect(throws: DeviceLogError.self) { try DeviceLogImporter.load(path: path, format: .csv) }
    }

    @Test func assumptionsAreRefusedWhereTheFormatCarriesTheValue() {
        let csv = Array("timestamp,latitude,longitude,horizontal_accuracy\n1,2,3,4\n".utf8)
        for (format, options, option) in [
            (DeviceLogFormat.csv, DeviceLogReadOptions(assumedAccuracy_m: 5), "--assume-accuracy"),
            (.jsonl, DeviceLogReadOptions(assumedAccuracy_m: 5), "--assume-accuracy"),
            (.csv, DeviceLogReadOptions(assumedDate_days: 0), "--date"),
            (.gpx, DeviceLogReadOptions(assumedDate_days: 0), "--date"),
        ] {
            #expect(
                throws: DeviceLogError(
                    file: "x", line: nil, problem: .optionNotApplicable(option: option, format: format))
            ) {
                _ = try DeviceLogImporter.parse(bytes: csv, file: "x", format: format, options: options)
            }
        }
        // CSV itself stays strict and assumes nothing.
        #expect((try? DeviceLogImporter.parse(bytes: csv, file: "x", format: .csv))?.ingest.isEmpty == true)
    }

    // MARK: GPX

    /// A fitness-app GPX 1.1: an untimed waypoint and route beside a timed track, Garmin's
    /// TrackPointExtension, zone offsets, a time without a zone, fractional seconds, PDOP, a no-fix point.
    static let fitnessApp = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="app" xmlns="http://www.topografix.com/GPX/1/1"
             xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2">
          <metadata><time>2026-03-01T11:00:00Z</time></metadata>
          <wpt lat="52.51" lon="13.405"><name>Start</name></wpt>
          <rte><rtept lat="52.51" lon="13.405"/><rtept lat="52.52" lon="13.405"></rtept></rte>
          <trk><name>Run</name><trkseg>
            <trkpt lat="52.51" lon="13.405"><ele>34</ele><time>2026-03-01T12:00:00.250Z</time><hdop>1.2</hdop>
              <extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>120</gpxtpx:hr><gpxtpx:speed>2.5</gpxtpx:speed>
              <gpxtpx:course>90</gpxtpx:course></gpxtpx:TrackPointExtension></extensions></trkpt>
            <trkpt lat="52.5101" lon="13.405"><time>2026-03-01T13:00:01+01:00</time></trkpt>
            <trkpt lat="52.5102" lon="13.405"><time>2026-03-01T12:00:02</time><pdop>2.0</pdop></trkpt>
            <trkpt lat="52.5103" lon="13.405"><time>2026-03-01T12:00:03Z</time><fix>none</fix></trkpt>
          </trkseg></trk>
        </gpx>
        """

    @Test func fitnessAppGPXNeedsTheAccuracyOptionAndCountsWhatItSkips() throws {
        #expect {
            _ = try Self.gpx(Self.fitnessApp)
        } throws: { error in
            let e = error as? DeviceLogError
            return e?.line == 11 && e?.description.hasSuffix("has no accuracy; give --assume-accuracy M") == true
        }
        let log = try Self.gpx(Self.fitnessApp, options: DeviceLogReadOptions(assumedAccuracy_m: 8))
        #expect(log.fixes.map(\.line) == [8, 11, 12])
        #expect(
            log.fixes.map(\.fix.timestamp_s) == [
                Self.noonMarch1_s + 0.25, Self.noonMarch1_s + 1, Self.noonMarch1_s + 2,
            ])
        #expect(log.fixes.map(\.fix.horizontalAccuracy_m) == [6, 8, 10])
        #expect(log.fixes[0].speed_mps == 2.5 && log.fixes[0].course_deg == 90 && log.fixes[1].speed_mps == nil)
        #expect(log.ingest.skipped == [.untimedWaypoint: 1, .untimedRoutePoint: 2, .noFixPoint: 1])
        #expect(log.ingest.firstSkippedLine == [.untimedWaypoint: 5, .untimedRoutePoint: 6, .noFixPoint: 13])
        #expect(
            log.ingest.assumptions == [
                DeviceLogAssumption(kind: .accuracyFromHDOP, fixes: 1),
                DeviceLogAssumption(kind: .assumedAccuracy(m: 8), fixes: 1),
                DeviceLogAssumption(kind: .accuracyFromPDOP, fixes: 1),
                DeviceLogAssumption(kind: .zonelessTimeAsUTC, fixes: 1),
            ])
    }

    @Test func gpx10WithDirectSpeedAndCourse() throws {
        let log = try Self.gpx(
            """
            <gpx version="1.0" creator="logger" xmlns="http://www.topografix.com/GPX/1/0">
            <trk><trkseg><trkpt lat="-16.8" lon="179.99"><time>2026-03-01T12:00:00Z</time><course>12.5</course>
            <speed>3.25</speed><hdop>0.8</hdop></trkpt></trkseg></trk></gpx>
            """)
        #expect(log.fixes.count == 1 && log.ingest.skipped.isEmpty)
        #expect(log.fixes[0].speed_mps == 3.25 && log.fixes[0].course_deg == 12.5)
        #expect(isClose(log.fixes[0].fix.horizontalAccuracy_m, 4, absoluteTolerance: Self.accuracyTolerance_m))
    }

    @Test func gpxWithoutATimedPointIsRefusedWithTheReason() {
        #expect(
            throws: DeviceLogError(
                file: "t.gpx", line: 2,
                problem: .noFix(
                    format: .gpx, skipped: "untimedWaypoint 1 (first at line 1), untimedRoutePoint 1 (first at line 2)")
            )
        ) {
            _ = try Self.gpx(
                "<gpx version=\"1.1\"><wpt lat=\"1\" lon=\"2\"/>\n<rte><rtept lat=\"1\" lon=\"2\"/></rte></gpx>")
        }
    }

    @Test func theSameQuantityUnderTwoPrefixesTakesTheFirstButOneNameTwiceIsRefused() throws {
        let log = try Self.gpx(
            """
            <gpx><trkpt lat="1" lon="2"><time>2026-03-01T12:00:00Z</time><hdop>1</hdop><speed>1.5</speed>
            <extensions><gpxtpx:speed>9</gpxtpx:speed></extensions></trkpt></gpx>
            """)
        #expect(log.fixes[0].speed_mps == 1.5)
        #expect {
            _ = try Self.gpx(
                "<gpx><trkpt lat=\"1\" lon=\"2\"><time>2026-03-01T12:00:00Z</time><hdop>1</hdop><hdop>2</hdop></trkpt></gpx>"
            )
        } throws: { error in
            (error as? DeviceLogError)?.description.contains("duplicate <hdop>") == true
        }
    }

    // MARK: Any CSV by mapping

    static func mapped(_ text: String, _ map: String, assumedAccuracy_m: Double? = nil) throws -> DeviceLog {
        let columns = try DeviceLogColumns.parse(map).get()
        return try DeviceLogImporter.parse(
            bytes: Array(text.utf8), file: "t.csv", format: .csv,
            options: DeviceLogReadOptions(assumedAccuracy_m: assumedAccuracy_m, columns: columns))
    }

    static let foreignCSV = """
        Time,Sats,Lat,Lon,Acc,Region
        2026-03-01T12:00:00Z,8,52.51,13.405,6,
        1772366401.5,9,52.5101,13.405,7,enter
        1772366402,9,,,,exit
        """

    @Test func anyCSVIsReadByItsColumnMapAndListsTheIgnoredColumns() throws {
        let log = try Self.mapped(Self.foreignCSV, "lat=Lat,time=Time,lon=Lon,accuracy=Acc,event=Region")
        #expect(log.fixes.map(\.fix.timestamp_s) == [Self.noonMarch1_s, Self.noonMarch1_s + 1.5])
        #expect(log.fixes.map(\.fix.horizontalAccuracy_m) == [6, 7])
        #expect(log.events.map(\.kind) == [.enter, .exit] && log.events.map(\.line) == [3, 4])
        #expect(log.ingest.ignoredColumns == ["Sats"] && log.ingest.assumptions.isEmpty)
        #expect(log.ingest.columns?.description == "time=Time,lat=Lat,lon=Lon,accuracy=Acc,event=Region")
        #expect(
            log.ingest.summary?.hasSuffix(
                "columns time=Time,lat=Lat,lon=Lon,accuracy=Acc,event=Region (--columns), ignored 'Sats'") == true)
    }

    @Test func aMapWithoutAccuracyNeedsTheAccuracyOption() throws {
        #expect(
            throws: DeviceLogError(
                file: "t.csv", line: 1, problem: .noAccuracy("CSV: --columns names no accuracy column, so a fix"))
        ) {
            _ = try Self.mapped(Self.foreignCSV, "time=Time,lat=Lat,lon=Lon")
        }
        let log = try Self.mapped(Self.foreignCSV, "time=Time,lat=Lat,lon=Lon,event=Region", assumedAccuracy_m: 5)
        #expect(log.fixes.map(\.fix.horizontalAccuracy_m) == [5, 5] && log.events.count == 2)
        #expect(log.ingest.assumptions == [DeviceLogAssumption(kind: .assumedAccuracy(m: 5), fixes: 2)])
        #expect(log.ingest.ignoredColumns == ["Sats", "Acc"])
        #expect {
            _ = try Self.mapped(Self.foreignCSV, "time=Time,lat=Lat,lon=Lon,accuracy=Acc", assumedAccuracy_m: 5)
        } throws: { error in
            (error as? DeviceLogError)?.problem == .accuracyColumnMapped("time=Time,lat=Lat,lon=Lon,accuracy=Acc")
        }
    }

    @Test func aMapNamingAnAbsentColumnOrMalformedIsRefused() throws {
        #expect(
            throws: DeviceLogError(
                file: "t.csv", line: 1, problem: .mappedColumnMissing(key: "lat", column: "Latitude"))
        ) {
            _ = try Self.mapped(Self.foreignCSV, "time=Time,lat=Latitude,lon=Lon,accuracy=Acc")
        }
        for (text, message) in [
            ("time=Time,lat=Lat", "lon=COLUMN is required"),
            ("time=Time,lat=Lat,lon=Lon,acc=Acc", "unknown key 'acc'"),
            ("time=Time,lat=Lat,lon=Lon,lat=Acc", "lat given twice"),
            ("time=Time,lat=Lat,lon=Lat", "column 'Lat' mapped twice"),
            ("time=Time,lat,lon=Lon", "'lat' is not KEY=COLUMN"),
            ("time=,lat=Lat,lon=Lon", "time= names no column"),
        ] {
            guard case .failure(let problem) = DeviceLogColumns.parse(text) else {
                Issue.record("\(text) accepted")
                continue
            }
            #expect(problem.description.contains(message), "\(text): \(problem)")
        }
        let gpx = Array("<gpx/>".utf8)
        let columns = try DeviceLogColumns.parse("time=a,lat=b,lon=c").get()
        #expect(
            throws: DeviceLogError(
                file: "x", line: nil, problem: .optionNotApplicable(option: "--columns", format: .gpx))
        ) {
            _ = try DeviceLogImporter.parse(
                bytes: gpx, file: "x", format: .gpx, options: DeviceLogReadOptions(columns: columns))
        }
    }

    @Test func theTimeColumnTakesISOWithOffsetsEpochSecondsOrEpochMilliseconds() throws {
        // ISO-8601 with any offset and epoch seconds: the timestamp grammar, no format named.
        let iso = try Self.mapped(
            "When,Lat,Lon\n2026-03-01T13:00:00+01:00,52.51,13.405\n2026-03-01T06:30:00.5-0530,52.51,13.405\n2026-03-01 12:00:02Z,52.51,13.405\n1772366403,52.51,13.405\n",
            "time=When,lat=Lat,lon=Lon", assumedAccuracy_m: 5)
        #expect(iso.fixes.map(\.fix.timestamp_s) == [0, 0.5, 2, 3].map { Self.noonMarch1_s + $0 })
        let table: [(map: String, values: [String], seconds: [Double])] = [
            ("time=T:iso", ["2026-03-01T12:00:00Z", "2026-03-01T14:00:01+02:00"], [0, 1]),
            ("time=T:epoch-s", ["1772366400", "1772366401.25"], [0, 1.25]),
            ("time=T:epoch-ms", ["1772366400000", "1772366401250", "1.7723664025e12"], [0, 1.25, 2.5]),
        ]
        for (map, values, seconds) in table {
            let text = "T,Lat,Lon\n" + values.map { "\($0),52.51,13.405\n" }.joined()
            let log = try Self.mapped(text, map + ",lat=Lat,lon=Lon", assumedAccuracy_m: 5)
            #expect(log.fixes.map(\.fix.timestamp_s) == seconds.map { Self.noonMarch1_s + $0 }, "\(map)")
            #expect(log.ingest.columns?.description == map + ",lat=Lat,lon=Lon")
        }
        // Each named format refuses the others' text, naming the argument.
        for (map, value, reason) in [
            ("time=T:iso", "1772366400", "a number, but --columns says time is ISO-8601 (time=COLUMN:iso)"),
            ("time=T:epoch-s", "2026-03-01T12:00:00Z", "not Unix seconds (--columns time=COLUMN:epoch-s)"),
            ("time=T:epoch-ms", "2026-03-01T12:00:00Z", "not Unix milliseconds (--columns time=COLUMN:epoch-ms)"),
            ("time=T:epoch-ms", "NaN", "Unix milliseconds must be finite"),
            ("time=T:iso", "2026-03-01T12:00:00", "missing zone (Z or ±hh:mm); local time is ambiguous"),
        ] {
            #expect(
                throws: DeviceLogError(
                    file: "t.csv", line: 2, problem: .badTimestamp(value: value, reason: reason))
            ) {
                _ = try Self.mapped(
                    "T,Lat,Lon\n\(value),52.51,13.405\n", map + ",lat=Lat,lon=Lon", assumedAccuracy_m: 5)
            }
        }
        // The suffix is read only for `time` and only when it names a format; a column whose own
        // name ends in one is written with its format after it.
        let named = try DeviceLogColumns.parse("time=a:epoch-ms:epoch-ms,lat=b:iso,lon=c").get()
        #expect(named.timeFormat == .epochMilliseconds && named.names.map(\.column) == ["a:epoch-ms", "b:iso", "c"])
        #expect(try DeviceLogColumns.parse("time=a:b,lat=b,lon=c").get().names.first?.column == "a:b")
        #expect(try DeviceLogColumns.parse("time=a,lat=b,lon=c").get().timeFormat == .auto)
        #expect(throws: DeviceLogColumns.ColumnsProblem.self) {
            try DeviceLogColumns.parse("time=:epoch-ms,lat=b,lon=c").get()
        }
    }

    // MARK: Android GnssLogger

    static let gnssLogger = """
        # Version: v3.0.5.6 Platform: 13 Manufacturer: Google Model: Pixel 7
        #
        # Raw,utcTimeMillis,TimeNanos,LeapSecond,TimeUncertaintyNanos
        # Fix,Provider,LatitudeDegrees,LongitudeDegrees,AltitudeMeters,SpeedMps,AccuracyMeters,BearingDegrees,UnixTimeMillis,SpeedAccuracyMps,BearingAccuracyDegrees,elapsedRealtimeNanos,VerticalAccuracyMeters,MockLocation
        #
        Raw,1772366400000,123456789,18,0.0
        Fix,GPS,52.51,13.405,34.0,1.5,3.9,90.0,1772366400000,0.5,10.0,1000,2.0,0
        NMEA,$GPGGA,120000.00,5230.60000,N,01324.30000,E,1,08,1.60,34.0,M,,M,,*7C,1772366400000
        Fix,FLP,52.5101,13.405,34.0,,12.0,,1772366401500,,,2000,,0
        Status,1772366401,12,0,1,1575420032,34.0,120.0,45.0,1,1,1
        Fix,NLP,52.5102,13.405,,,,,1772366402000,,,3000,,0
        """

    @Test func gnssLoggerFixRecordsKeepTheirProvider() throws {
        let bytes = Array(Self.gnssLogger.utf8)
        #expect(DeviceLogFormat.sniff(bytes) == .gnsslogger)
        #expect {
            _ = try DeviceLogImporter.parse(bytes: bytes, file: "g.txt", format: .gnsslogger)
        } throws: { error in
            let e = error as? DeviceLogError
            return e?.line == 11
                && e?.description == "g.txt:11: GnssLogger: Fix record has no accuracy; give --assume-accuracy M"
        }
        let log = try DeviceLogImporter.parse(
            bytes: bytes, file: "g.txt", format: .gnsslogger, options: DeviceLogReadOptions(assumedAccuracy_m: 50))
        #expect(log.fixes.map(\.line) == [7, 8, 9, 11])
        #expect(
            log.fixes.map(\.fix.timestamp_s) == [
                Self.noonMarch1_s, Self.noonMarch1_s, Self.noonMarch1_s + 1.5, Self.noonMarch1_s + 2,
            ])
        #expect(log.fixes.map(\.fix.horizontalAccuracy_m) == [3.9, 1.6 * 5, 12, 50])
        #expect(log.fixes.map(\.provider) == [.gps, .nmea, .fused, .network])
        #expect(log.fixes[0].speed_mps == 1.5 && log.fixes[0].course_deg == 90 && log.fixes[1].speed_mps == nil)
        #expect(log.ingest.skipped == [.comment: 5, .otherRecord: 2])
        #expect(log.ingest.providers == ["gps": 1, "fused": 1, "network": 1, "nmea": 1])
        #expect(
            log.ingest.assumptions == [
                DeviceLogAssumption(kind: .assumedAccuracy(m: 50), fixes: 1),
                DeviceLogAssumption(kind: .accuracyFromHDOP, fixes: 1),
            ])
        #expect(MemoryLayout<DeviceLogFix>.stride == 56, "the provider fits in the fix's padding")
    }

    @Test func gnssLoggerWithoutAHeaderUsesTheV3LayoutAndNamesBadFields() throws {
        let log = try DeviceLogImporter.parse(
            bytes: Array("Fix,gps,52.51,13.405,34.0,0.0,4.5,0.0,1772366400000\n".utf8), file: "g.txt",
            format: .gnsslogger)
        #expect(log.fixes.count == 1 && log.fixes[0].fix.horizontalAccuracy_m == 4.5 && log.fixes[0].provider == .gps)
        #expect(
            throws: DeviceLogError(
                file: "g.txt", line: 1, problem: .notANumber(column: "Fix LatitudeDegrees", value: "52.51x"))
        ) {
            _ = try DeviceLogImporter.parse(
                bytes: Array("Fix,gps,52.51x,13.405,34.0,0.0,4.5,0.0,1772366400000\n".utf8), file: "g.txt",
                format: .gnsslogger)
        }
        #expect {
            _ = try DeviceLogImporter.parse(
                bytes: Array("# Raw,utcTimeMillis\nRaw,1\n".utf8), file: "g.txt", format: .gnsslogger)
        } throws: { error in
            (error as? DeviceLogError)?.description
                == "g.txt:2: GnssLogger: no Fix record and no NMEA fix (skipped comment 1 (first at line 1), otherRecord 1 (first at line 2))"
        }
    }

    /// `NMEA,<sentence>,<unix ms>`, as GnssLogger wraps the receiver's sentences.
    static func wrapped(_ body: String, _ ms: Int) -> String { "NMEA,\(s(body)),\(ms)" }
    static let noonMarch1_ms = 1_772_366_400_000

    /// A GnssLogger log with Fix records and the receiver's wrapped NMEA for the same epochs.
    static let gnssLoggerWithNMEA = [
        // 1
        "# Fix,Provider,LatitudeDegrees,LongitudeDegrees,AltitudeMeters,SpeedMps,AccuracyMeters,BearingDegrees,UnixTimeMillis",
        wrapped("GPGSV,1,1,01,05,40,083,46", noonMarch1_ms - 900),  // 2 otherSentence
        wrapped("GNGGA,120000.00,5230.60000,N,01324.30000,E,1,08,1.20,34.0,M,,M,,", noonMarch1_ms + 100),  // 3 epoch 1
        "Fix,GPS,52.51,13.405,34.0,1.5,3.9,90.0,\(noonMarch1_ms)",  // 4 held until epoch 1 is read
        wrapped("GNGSA,A,3,01,02,03,04,,,,,,,,,2.10,9.99,1.60", noonMarch1_ms + 110),  // 5 epoch 1 (GGA's HDOP wins)
        wrapped("GNRMC,120001.00,A,5230.60100,N,01324.30000,E,5.0,90.0,010326,,,A", noonMarch1_ms + 1100),  // 6 epoch 2
        wrapped("GNGSA,A,3,01,02,03,04,,,,,,,,,2.10,2.00,1.60", noonMarch1_ms + 1110),  // 7 HDOP 2 for epoch 2
        // 8 badChecksum
        "NMEA,$GNGGA,120001.00,5230.60100,N,01324.30000,E,1,08,1.20,34.0,M,,M,,*00,\(noonMarch1_ms + 1100)",
        wrapped("PGRME,15.0,M,45.0,M,25.0,M", noonMarch1_ms + 1120),  // 9 proprietarySentence
        "NMEA,$GNGGA,120002.00,5230.602",  // 10 cut off mid-sentence: truncatedSentence
        // 11 no unix ms: truncatedSentence
        "NMEA,\(s("GNGGA,120002.00,5230.60200,N,01324.30000,E,1,08,1.20,34.0,M,,M,,"))",
        "Fix,GPS,52.5101,13.405,34.0,1.5,3.9,90.0,\(noonMarch1_ms + 1000)",  // 12 held until epoch 2 is read
        // 13 just before midnight, logged just after it: the day nearest the epoch's time is March 1.
        wrapped("GNGGA,235959.95,5230.60200,N,01324.30000,E,1,08,1.20,34.0,M,,M,,", noonMarch1_ms + 43_200_050),
        wrapped("GNGST,235959.95,2.0,1.5,1.0,0.0,3.000,4.000,5.0", noonMarch1_ms + 43_200_060),  // 14 DRMS 5 m
        "Raw,\(noonMarch1_ms),123456789,18,0.0",  // 15 otherRecord
    ]

    @Test func gnssLoggerWrappedNMEAGivesOneFixPerEpochBesideTheFixRecords() throws {
        let bytes = Array(Self.gnssLoggerWithNMEA.joined(separator: "\n").utf8)
        #expect(DeviceLogFormat.sniff(bytes) == .gnsslogger)
        let log = try DeviceLogImporter.parse(bytes: bytes, file: "g.txt", format: .gnsslogger)
        // Both sources are kept, each with its provider, in the order of their lines.
        #expect(log.fixes.map(\.line) == [3, 4, 6, 12, 13])
        #expect(log.fixes.map(\.provider) == [.nmea, .gps, .nmea, .gps, .nmea])
        let times = log.fixes.map(\.fix.timestamp_s)
        let timeTolerance_s = 1e-6
        for (got, want) in zip(times, [0, 0, 1, 1, 43_199.95].map { Self.noonMarch1_s + $0 }) {
            #expect(isClose(got, want, absoluteTolerance: timeTolerance_s), "\(times)")
        }
        let accuracy = log.fixes.map(\.fix.horizontalAccuracy_m)
        for (got, want) in zip(accuracy, [6, 3.9, 10, 3.9, 5]) {
            #expect(isClose(got, want, absoluteTolerance: Self.accuracyTolerance_m), "\(accuracy)")
        }
        #expect(isClose(log.fixes[0].fix.latitude, 52.51, absoluteTolerance: Self.coordinateTolerance_deg))
        #expect(log.fixes[2].course_deg == 90 && log.fixes[0].speed_mps == nil)
        #expect(log.ingest.providers == ["gps": 2, "nmea": 3])
        #expect(
            log.ingest.skipped == [
                .comment: 1, .otherSentence: 1, .proprietarySentence: 1, .otherRecord: 1, .badChecksum: 1,
                .truncatedSentence: 2,
            ])
        #expect(
            log.ingest.firstSkippedLine == [
                .comment: 1, .otherSentence: 2, .proprietarySentence: 9, .otherRecord: 15, .badChecksum: 8,
                .truncatedSentence: 10,
            ])
        #expect(log.ingest.assumptions == [DeviceLogAssumption(kind: .accuracyFromHDOP, fixes: 2)])
        #expect(log.ingest.summary?.hasSuffix("; providers gps 2, nmea 3") == true)
        // --strict refuses the first damaged wrapped sentence, naming its line.
        #expect(
            throws: DeviceLogError(
                file: "g.txt", line: 8, problem: .nmea("checksum 00 does not match the sentence (computed 66)"))
        ) {
            _ = try DeviceLogImporter.parse(
                bytes: bytes, file: "g.txt", format: .gnsslogger, options: DeviceLogReadOptions(strict: true))
        }
        // A wrapper time that is not a number names its column.
        #expect(
            throws: DeviceLogError(
                file: "g.txt", line: 1, problem: .notANumber(column: "NMEA UnixTimeMillis", value: "soon"))
        ) {
            _ = try DeviceLogImporter.parse(
                bytes: Array("NMEA,\(Self.s("GNGGA,120000.00,5230.6,N,01324.3,E,1,08,1.2,,M,,M,,")),soon".utf8),
                file: "g.txt", format: .gnsslogger)
        }
        // A wrapper time no clock means (found by fuzz/targets/gnsslogger.swift: 1.7e57 ms trapped
        // converting its UTC day to Int) is refused naming its column.
        #expect(
            throws: DeviceLogError(
                file: "g.txt", line: 1, problem: .outOfRange(column: "NMEA UnixTimeMillis", value: "1e40"))
        ) {
            _ = try DeviceLogImporter.parse(
                bytes: Array("NMEA,\(Self.s("GNGGA,120000.00,5230.6,N,01324.3,E,1,08,1.2,,M,,M,,")),1e40".utf8),
                file: "g.txt", format: .gnsslogger)
        }
        // Wrapped NMEA alone is a GnssLogger log too; without any position it is refused with the counts.
        #expect(DeviceLogFormat.sniff(Array(Self.gnssLoggerWithNMEA[2].utf8)) == .gnsslogger)
        #expect {
            _ = try DeviceLogImporter.parse(
                bytes: Array(Self.gnssLoggerWithNMEA[1].utf8), file: "g.txt", format: .gnsslogger)
        } throws: { error in
            (error as? DeviceLogError)?.description
                == "g.txt:1: GnssLogger: no Fix record and no NMEA fix (skipped otherSentence 1 (first at line 1))"
        }
    }

    @Test func providerOptionKeepsOneSourceAndCountsTheRest() throws {
        let bytes = Array(Self.gnssLoggerWithNMEA.joined(separator: "\n").utf8)
        let nmea = try DeviceLogImporter.parse(
            bytes: bytes, file: "g.txt", format: .gnsslogger, options: DeviceLogReadOptions(providers: [.nmea]))
        #expect(nmea.fixes.map(\.line) == [3, 6, 13] && nmea.fixes.allSatisfy { $0.provider == .nmea })
        #expect(
            nmea.ingest.skipped[.providerNotSelected] == 2 && nmea.ingest.firstSkippedLine[.providerNotSelected] == 4)
        #expect(nmea.ingest.providers == ["gps": 2, "nmea": 3], "every provider is still counted")
        #expect(nmea.ingest.selectedProviders == ["nmea"])
        #expect(nmea.ingest.summary?.hasSuffix("; providers gps 2, nmea 3 (kept nmea: --provider)") == true)
        let gps = try DeviceLogImporter.parse(
            bytes: bytes, file: "g.txt", format: .gnsslogger, options: DeviceLogReadOptions(providers: [.gps]))
        #expect(gps.fixes.map(\.line) == [4, 12])
        #expect(gps.ingest.skipped[.providerNotSelected] == 3 && gps.ingest.assumptions.isEmpty)
        // A Fix without accuracy of a provider not kept needs no --assume-accuracy.
        let fused = try DeviceLogImporter.parse(
            bytes: Array(Self.gnssLogger.utf8), file: "g.txt", format: .gnsslogger,
            options: DeviceLogReadOptions(providers: [.gps, .fused]))
        #expect(fused.fixes.map(\.provider) == [.gps, .fused])
        #expect(
            throws: DeviceLogError(
                file: "t.nmea", line: nil, problem: .optionNotApplicable(option: "--provider", format: .nmea))
        ) {
            _ = try Self.nmea(Self.rmcOnly, options: DeviceLogReadOptions(providers: [.gps]))
        }
        #expect(
            DeviceLogProblem.optionNotApplicable(option: "--provider", format: .csv).description
                == "--provider does not apply to csv logs (only GnssLogger and Google Records name providers)")
    }

    // MARK: OwnTracks

    static let ownTracks = """
        {"_type":"location","tid":"ab","tst":1772366400,"lat":52.51,"lon":13.405,"acc":12,"vel":36,"cog":90,"inregions":["home"],"t":"u"}
        {"_type":"transition","event":"enter","tst":1772366401,"wtst":1772000000,"lat":52.51,"lon":13.405,"acc":12,"desc":"home","t":"c"}
        {"_type":"lwt","tst":1772366402}
        {"_type":"location","tst":1772366403,"lat":52.5101,"lon":13.405}
        {"_type":"transition","event":"leave","tst":1772366404,"desc":"home"}
        """

    @Test func ownTracksLocationsAreFixesAndTransitionsAreSystemEvents() throws {
        let bytes = Array(Self.ownTracks.utf8)
        #expect(DeviceLogFormat.sniff(bytes) == .owntracks)
        #expect {
            _ = try DeviceLogImporter.parse(bytes: bytes, file: "o.json", format: .owntracks)
        } throws: { error in
            (error as? DeviceLogError)?.description
                == "o.json:4: OwnTracks: location (no \"acc\") has no accuracy; give --assume-accuracy M"
        }
        let log = try DeviceLogImporter.parse(
            bytes: bytes, file: "o.json", format: .owntracks, options: DeviceLogReadOptions(assumedAccuracy_m: 20))
        #expect(log.fixes.map(\.line) == [1, 4])
        #expect(log.fixes.map(\.fix.timestamp_s) == [Self.noonMarch1_s, Self.noonMarch1_s + 3])
        #expect(log.fixes.map(\.fix.horizontalAccuracy_m) == [12, 20])
        #expect(log.fixes[0].speed_mps == 10 && log.fixes[0].course_deg == 90)
        #expect(log.events.map(\.kind) == [.enter, .exit] && log.events.map(\.line) == [2, 5])
        #expect(log.events.map(\.place) == ["home", "home"])
        #expect(log.events.map(\.timestamp_s) == [Self.noonMarch1_s + 1, Self.noonMarch1_s + 4])
        #expect(log.ingest.skipped == [.otherRecord: 1])
        #expect(log.ingest.assumptions == [DeviceLogAssumption(kind: .assumedAccuracy(m: 20), fixes: 1)])
    }

    @Test func ownTracksRecorderLinesAndRefusals() throws {
        let recorder = Array(
            "2026-03-01T12:00:00Z\t*                 \t{\"_type\":\"location\",\"tst\":1772366400,\"lat\":52.51,\"lon\":13.405,\"acc\":5}\n"
                .utf8)
        #expect(DeviceLogFormat.sniff(recorder) == .owntracks)
        let log = try DeviceLogImporter.parse(bytes: recorder, file: "o.rec", format: .owntracks)
        #expect(log.fixes.count == 1 && log.fixes[0].fix.horizontalAccuracy_m == 5)
        for (text, message) in [
            ("{\"_type\":\"location\",\"tst\":1,\"lon\":2,\"acc\":3}", "o.json:1: lat: value is missing"),
            ("{\"_type\":\"transition\",\"event\":\"exit\",\"tst\":1}", "is not 'enter' or 'leave'"),
            ("{\"tst\":1}", "o.json:1: _type: value is missing"),
            ("{\"_type\":\"location\",", "o.json:1: malformed JSON"),
            ("{\"_type\":\"card\"}", "OwnTracks: no location or transition message (skipped otherRecord 1"),
            // A `tst` string beyond the double range, or naming infinity or NaN, is no time.
            (
                "{\"_type\":\"transition\",\"event\":\"enter\",\"tst\":\"1e999\"}",
                "o.json:1: timestamp '1e999': Unix seconds must be finite"
            ),
            (
                "{\"_type\":\"transition\",\"event\":\"leave\",\"tst\":\"-inf\"}",
                "o.json:1: timestamp '-inf': Unix seconds must be finite"
            ),
            (
                "{\"_type\":\"location\",\"tst\":\"nan\",\"lat\":1,\"lon\":2,\"acc\":3}",
                "o.json:1: timestamp 'nan': Unix seconds must be finite"
            ),
        ] {
            #expect(
                performing: {
                    _ = try DeviceLogImporter.parse(bytes: Array(text.utf8), file: "o.json", format: .owntracks)
                },
                throws: { ($0 as? DeviceLogError)?.description.contains(message) == true })
        }
    }

    // MARK: Google Records.json

    @Test func googleRecordsAreReadElementByElementWithTheirSource() throws {
        let path = TestPaths.packageRoot.appendingPathComponent("fuzz/corpus/google_records/Records.json").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(DeviceLogFormat.sniff(Array(text.utf8)) == .googleRecords)
        let log = try DeviceLogImporter.load(path: path)
        #expect(log.format == .googleRecords)
        #expect(log.fixes.map(\.line) == [2, 10])
        #expect(log.fixes.map(\.fix.timestamp_s) == [Self.noonMarch1_s, Self.noonMarch1_s + 1])
        #expect(isClose(log.fixes[0].fix.latitude, 52.52, absoluteTolerance: Self.coordinateTolerance_deg))
        #expect(log.fixes.map(\.fix.horizontalAccuracy_m) == [20, 8])
        #expect(log.fixes.map(\.provider) == [.network, .gps])
        #expect(log.fixes[1].speed_mps == 2 && log.fixes[1].course_deg == 90)
        #expect(log.ingest.providers == ["network": 1, "gps": 1])
        for (doc, message) in [
            (
                "{\"locations\": [{\"latitudeE7\": 1, \"longitudeE7\": 2, \"timestampMs\": 3}]}",
                "has no accuracy; give --assume-accuracy M"
            ),
            (
                "{\"locations\": [{\"longitudeE7\": 2, \"accuracy\": 3, \"timestampMs\": 3}]}",
                "t.json:1: latitudeE7: value is missing"
            ),
            ("{\"locations\": [{\"latitudeE7\": 1, \"longitudeE7\": 2, \"accuracy\": 3", "unexpected end of file"),
            ("{\"locations\": []}", "Google Records: no element in \"locations\""),
            ("{\"locations\": [{\"latitudeE7\": 1,, }]}", "t.json:1: malformed JSON"),
            (
                "{\"locations\": [{\"latitudeE7\": 1, \"longitudeE7\": 2, \"accuracy\": 3, \"timestampMs\": \"1e999\"}]}",
                "t.json:1: timestamp '1e999': Unix milliseconds must be finite"
            ),
            (
                "{\"locations\": [{\"latitudeE7\": 1, \"longitudeE7\": 2, \"accuracy\": 3, \"timestampMs\": 1e999}]}",
                "t.json:1: timestamp '1e999': Unix milliseconds must be finite"
            ),
        ] {
            #expect(
                performing: {
                    _ = try DeviceLogImporter.parse(bytes: Array(doc.utf8), file: "t.json", format: .googleRecords)
                }, throws: { ($0 as? DeviceLogError)?.description.contains(message) == true })
        }
    }

    // MARK: GeoJSON

    @Test func geoJSONTimedPointsAreFixesAndTheRestIsCounted() throws {
        let path = TestPaths.packageRoot.appendingPathComponent("fuzz/corpus/geojson/track.geojson").path
        let log = try DeviceLogImporter.load(path: path)
        #expect(log.format == .geojson)
        #expect(log.fixes.map(\.line) == [4, 6])
        #expect(log.fixes.map(\.fix.timestamp_s) == [Self.noonMarch1_s, Self.noonMarch1_s + 1.5])
        #expect(log.fixes[0].fix.latitude == 52.52 && log.fixes[0].fix.longitude == 13.405)
        #expect(log.fixes.map(\.fix.horizontalAccuracy_m) == [6, 7])
        #expect(log.fixes[0].speed_mps == 1.5 && log.fixes[0].course_deg == 90)
        #expect(log.ingest.skipped == [.untimedFeature: 1, .notAPoint: 1])
        #expect(log.ingest.firstSkippedLine == [.untimedFeature: 8, .notAPoint: 9])
        let noAccuracy = """
            {"type": "FeatureCollection", "features": [
            {"type": "Feature", "geometry": {"type": "Point", "coordinates": [13.4, 52.5]}, "properties": {"time": 1}}]}
            """
        #expect {
            _ = try DeviceLogImporter.parse(bytes: Array(noAccuracy.utf8), file: "t.geojson", format: .geojson)
        } throws: { error in
            (error as? DeviceLogError)?.description
                == "t.geojson:2: GeoJSON: Point (no properties.accuracy) has no accuracy; give --assume-accuracy M"
        }
        let assumed = try DeviceLogImporter.parse(
            bytes: Array(noAccuracy.utf8), file: "t.geojson", format: .geojson,
            options: DeviceLogReadOptions(assumedAccuracy_m: 15))
        #expect(assumed.fixes.map(\.fix.horizontalAccuracy_m) == [15])
        #expect(assumed.ingest.assumptions == [DeviceLogAssumption(kind: .assumedAccuracy(m: 15), fixes: 1)])
        // A time literal beyond the double range reads as infinity: refused, not a fix.
        let infinite = """
            {"type": "FeatureCollection", "features": [
            {"type": "Feature", "geometry": {"type": "Point", "coordinates": [13.4, 52.5]}, "properties": {"time": -1e999}}]}
            """
        #expect {
            _ = try DeviceLogImporter.parse(bytes: Array(infinite.utf8), file: "t.geojson", format: .geojson)
        } throws: { error in
            (error as? DeviceLogError)?.description
                == "t.geojson:2: timestamp '-1e999': Unix seconds must be finite"
        }
        let untimed = """
            {"type": "FeatureCollection", "features": [{"type": "Feature", "geometry": null, "properties": {}}]}
            """
        #expect {
            _ = try DeviceLogImporter.parse(bytes: Array(untimed.utf8), file: "t.geojson", format: .geojson)
        } throws: { error in
            (error as? DeviceLogError)?.description
                == "t.geojson:1: GeoJSON: no timed Point feature (skipped notAPoint 1 (first at line 1))"
        }
    }
}
