import Foundation
import Testing
import _TestSupport

/// `replay`, `calibrate` and `accept` on recordings as receivers and apps write them: the import
/// options, the `Import:` line, the `ingest` object, and every refusal naming its option.
@Suite struct RecordingCLITests {
    /// `$BODY*hh`: the NMEA 0183 checksum (XOR of the body's bytes), written here independently of the reader.
    static func s(_ body: String) -> String {
        "$\(body)*" + String(format: "%02X", body.utf8.reduce(UInt8(0), ^))
    }

    /// A receiver capture named `.log` (the content names the format): a comment, a no-fix
    /// sentence, a bad checksum, two fixes.
    static let capture = [
        "# gpsd",
        s("GPGGA,,,,,,0,00,99.99,,,,,,"),
        s("GNRMC,120000.00,A,5230.60000,N,01324.30000,E,5.00,90.0,010326,,,A"),
        s("GNGGA,120000.00,5230.60000,N,01324.30000,E,1,08,1.20,34.0,M,,M,,"),
        "$GNGGA,120001.00,5230.60100,N,01324.30000,E,1,08,1.20,34.0,M,,M,,*00",
        s("GNGGA,120002.00,5230.60200,N,01324.30000,E,1,08,1.20,34.0,M,,M,,"),
    ].joined(separator: "\r\n")

    static func folder(_ name: String) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "recording-cli-\(name)-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func replayCountsWhatItSkipsAndAssumes() throws {
        let dir = try Self.folder("replay")
        defer { try? FileManager.default.removeItem(at: dir) }
        let log = dir.appendingPathComponent("receiver.log")
        try Data(Self.capture.utf8).write(to: log)
        let out = dir.appendingPathComponent("out").path
        let r = try runFencelab(["replay", log.path, "--fence", "52.51,13.405", "--out", out])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.contains(": 2 fixes (2 accepted") == true, "\(r.stdout)")
        #expect(
            lines.dropFirst().first
                == "Import: skipped comment 1 (first at line 1), noFixSentence 1 (first at line 2), badChecksum 1 (first at line 5); assumed accuracy = HDOP × 5 m (UERE): 2 fixes"
        )
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/report.json")))
                as? [String: Any])
        let replays = try #require(
            ((json["acceptance"] as? [String: Any])?["device"] as? [String: Any])?["replays"] as? [[String: Any]])
        let ingest = try #require(replays.first?["ingest"] as? [String: Any])
        #expect(ingest["skipped"] as? [String: Int] == ["comment": 1, "noFixSentence": 1, "badChecksum": 1])
        let assumptions = try #require(ingest["assumptions"] as? [[String: Any]])
        #expect(assumptions.count == 1 && assumptions[0]["kind"] as? String == "accuracyFromHDOP")
        #expect(assumptions[0]["fixes"] as? Int == 2)
        // --strict refuses the damaged line, naming it; nothing is written.
        let strictOut = dir.appendingPathComponent("strict").path
        let strict = try runFencelab([
            "replay", log.path, "--fence", "52.51,13.405", "--out", strictOut, "--strict",
        ])
        #expect(strict.status == 2)
        #expect(
            strict.stderr.hasSuffix("receiver.log:5: NMEA: checksum 00 does not match the sentence (computed 66)\n"))
        #expect(!FileManager.default.fileExists(atPath: strictOut + "/report.json"))
        // --format overrides the content: read as CSV it is refused.
        let asCSV = try runFencelab(["replay", log.path, "--fence", "52.51,13.405", "--out", out, "--format", "csv"])
        #expect(asCSV.status == 2 && asCSV.stderr.contains("receiver.log:1: "))
    }

    @Test(arguments: [
        (["--assume-accuracy", "0"], 2, "--assume-accuracy: must be > 0, got 0"),
        (["--date", "2026-02-30"], 2, "--date: '2026-02-30' is not a calendar date YYYY-MM-DD"),
        (
            ["--format", "kml"], 64,
            "--format must be csv, gpx, jsonl, nmea, gnsslogger, owntracks, google-records or geojson, got 'kml'"
        ),
        (["--columns", "time=T,lat=A"], 2, "--columns: lon=COLUMN is required"),
        (
            ["--provider", "gps,glonass"], 2,
            "--provider: 'glonass' is not a provider (gps, fused, network, other, nmea)"
        ),
    ])
    func badOptionValuesAreRefusedNamingTheOption(extra: [String], status: Int32, message: String) throws {
        for command in [
            ["replay", "scenarios/device-logs/synthetic-drive-fiji.csv", "--fence=-16.8075,180"],
            ["calibrate", "docs/examples/calibration-phone-1h.csv"],
        ] {
            let r = try runFencelab(command + extra + ["--out", "/nonexistent/never-written"])
            #expect(r.status == status, "\(command[0]) \(extra): \(r.stderr)")
            #expect(r.stderr.contains(message), "\(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1)
        }
    }

    @Test func assumptionsAreRefusedForTheAppsOwnFormats() throws {
        let dir = try Self.folder("csv")
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try runFencelab([
            "replay", "scenarios/device-logs/synthetic-drive-fiji.csv", "--fence=-16.8075,180", "--assume-accuracy",
            "5",
            "--out", dir.appendingPathComponent("o").path,
        ])
        #expect(r.status == 2)
        #expect(
            r.stderr.contains(
                "synthetic-drive-fiji.csv: --assume-accuracy does not apply to csv logs (the app's own format records accuracy and date)"
            ))
    }

    @Test func anyCSVReplaysByItsColumnMap() throws {
        let dir = try Self.folder("columns")
        defer { try? FileManager.default.removeItem(at: dir) }
        let log = dir.appendingPathComponent("export.txt")
        try Data("Time,Lat,Lon,Alt\n2026-03-01T12:00:00Z,52.51,13.405,34\n1772366401,52.5101,13.405,35\n".utf8).write(
            to: log)
        let out = dir.appendingPathComponent("out").path
        let base = ["replay", log.path, "--fence", "52.51,13.405", "--out", out, "--format", "csv"]
        let refused = try runFencelab(base + ["--columns", "time=Time,lat=Lat,lon=Lon"])
        #expect(refused.status == 2)
        #expect(
            refused.stderr.hasSuffix(
                "export.txt:1: CSV: --columns names no accuracy column, so a fix has no accuracy; give --assume-accuracy M\n"
            ))
        let r = try runFencelab(base + ["--columns", "time=Time,lat=Lat,lon=Lon", "--assume-accuracy", "5"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            r.stdout.contains(
                "\nImport: skipped nothing; assumed accuracy 5 m (--assume-accuracy): 2 fixes; columns time=Time,lat=Lat,lon=Lon (--columns), ignored 'Alt'\n"
            ), "\(r.stdout)")
    }

    @Test func epochTimeFormatsOfAMappedCSV() throws {
        let dir = try Self.folder("time-formats")
        defer { try? FileManager.default.removeItem(at: dir) }
        let log = dir.appendingPathComponent("logger.csv")
        try Data("ms,Lat,Lon\n1772366400000,52.51,13.405\n1772366401250,52.5101,13.405\n".utf8).write(to: log)
        let out = dir.appendingPathComponent("out").path
        let fixes = dir.appendingPathComponent("fixes.csv").path
        let base = ["replay", log.path, "--fence", "52.51,13.405", "--out", out, "--assume-accuracy", "5"]
        let r = try runFencelab(base + ["--columns", "time=ms:epoch-ms,lat=Lat,lon=Lon", "--fixes-csv", fixes])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            r.stdout.contains("; columns time=ms:epoch-ms,lat=Lat,lon=Lon (--columns), ignored none\n"), "\(r.stdout)")
        #expect(
            try String(contentsOfFile: fixes, encoding: .utf8)
                == """
                line,timestamp,latitude,longitude,horizontal_accuracy,speed,course,provider
                2,1772366400.0,52.51,13.405,5.0,,,
                3,1772366401.25,52.5101,13.405,5.0,,,

                """)
        // A format named for the wrong text is refused naming it; a misspelt format is a column name.
        let iso = try runFencelab(base + ["--columns", "time=ms:iso,lat=Lat,lon=Lon"])
        #expect(iso.status == 2)
        #expect(
            iso.stderr.hasSuffix(
                "logger.csv:2: timestamp '1772366400000': a number, but --columns says time is ISO-8601 (time=COLUMN:iso)\n"
            ), "\(iso.stderr)")
        let typo = try runFencelab(base + ["--columns", "time=ms:epoch_ms,lat=Lat,lon=Lon"])
        #expect(typo.status == 2)
        #expect(
            typo.stderr.hasSuffix(
                "--columns time=ms:epoch_ms: the header has no column 'ms:epoch_ms' (a time format is :iso, :epoch-s, :epoch-ms)\n"
            ), "\(typo.stderr)")
        // --fixes-csv must name a file that can be written; nothing is read before that is checked.
        let folder = try runFencelab(base + ["--columns", "time=ms:epoch-ms,lat=Lat,lon=Lon", "--fixes-csv", dir.path])
        #expect(folder.status == 2 && folder.stderr.contains("--fixes-csv: "), "\(folder.stderr)")
    }

    /// The issue's "done when": a Garmin GPX, a receiver capture with a corrupt sentence, a
    /// GnssLogger log and an OwnTracks log each replay with their skip counts and assumptions in
    /// the summary, report.json and index.html (hand-written files, no third-party one).
    @Test(arguments: [
        (
            "etrex.gpx",
            """
            <?xml version="1.0" encoding="UTF-8" standalone="no" ?>
            <gpx xmlns="http://www.topografix.com/GPX/1/1" xmlns:gpxx="http://www.garmin.com/xmlschemas/GpxExtensions/v3" xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1" creator="eTrex 20x" version="1.1">
              <metadata><time>2026-03-01T11:59:00Z</time></metadata>
              <wpt lat="52.510000" lon="13.405000"><ele>34.2</ele><name>001</name><sym>Flag, Blue</sym></wpt>
              <trk><name>ACTIVE LOG</name><extensions><gpxx:TrackExtension><gpxx:DisplayColor>Cyan</gpxx:DisplayColor></gpxx:TrackExtension></extensions>
                <trkseg>
                  <trkpt lat="52.510000" lon="13.405000"><ele>34.2</ele><time>2026-03-01T12:00:00Z</time><extensions><gpxtpx:TrackPointExtension><gpxtpx:atemp>7.0</gpxtpx:atemp></gpxtpx:TrackPointExtension></extensions></trkpt>
                  <trkpt lat="52.510010" lon="13.405000"><ele>34.1</ele><time>2026-03-01T12:00:01Z</time></trkpt>
                </trkseg>
              </trk>
            </gpx>
            """,
            ["--assume-accuracy", "5"], ["untimedWaypoint": 1], ["assumedAccuracy"],
            "Import: skipped untimedWaypoint 1 (first at line 4); assumed accuracy 5 m (--assume-accuracy): 2 fixes"
        ),
        (
            "receiver.log", capture, [], ["comment": 1, "noFixSentence": 1, "badChecksum": 1], ["accuracyFromHDOP"],
            "Import: skipped comment 1 (first at line 1), noFixSentence 1 (first at line 2), badChecksum 1 (first at line 5); assumed accuracy = HDOP × 5 m (UERE): 2 fixes"
        ),
        (
            "gnss_log_2026_03_01.txt",
            """
            # Version: v3.0.5.6 Platform: 13 Manufacturer: Google Model: Pixel 7
            # Fix,Provider,LatitudeDegrees,LongitudeDegrees,AltitudeMeters,SpeedMps,AccuracyMeters,BearingDegrees,UnixTimeMillis
            Raw,1772366400000,123456789,18,0.0
            Fix,FLP,52.51,13.405,34.0,1.5,3.9,90.0,1772366400000
            NMEA,\(s("GNGGA,120000.50,5230.60000,N,01324.30000,E,1,08,1.20,34.0,M,,M,,")),1772366400600
            NMEA,$GNGGA,120001.50,5230.60060,N,01324.30000,E,1,08,1.20,34.0,M,,M,,*00,1772366401600
            Fix,FLP,52.5101,13.405,34.0,,12.0,,1772366401000
            """,
            [], ["comment": 2, "otherRecord": 1, "badChecksum": 1], ["accuracyFromHDOP"],
            "Import: skipped comment 2 (first at line 1), otherRecord 1 (first at line 3), badChecksum 1 (first at line 6); assumed accuracy = HDOP × 5 m (UERE): 1 fix; providers fused 2, nmea 1"
        ),
        (
            "owntracks.rec",
            """
            {"_type":"location","tst":1772366400,"lat":52.51,"lon":13.405,"acc":12}
            {"_type":"lwt","tst":1772366401}
            {"_type":"location","tst":1772366402,"lat":52.5101,"lon":13.405}
            """,
            ["--assume-accuracy", "20"], ["otherRecord": 1], ["assumedAccuracy"],
            "Import: skipped otherRecord 1 (first at line 2); assumed accuracy 20 m (--assume-accuracy): 1 fix"
        ),
    ])
    func realWorldDialectsReplayWithTheirCountsInEveryReport(
        name: String, text: String, extra: [String], skipped: [String: Int], assumed: [String], importLine: String
    ) throws {
        let dir = try Self.folder("dialect-\(name)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let log = dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: log)
        let out = dir.appendingPathComponent("out").path
        let r = try runFencelab(["replay", log.path, "--fence", "52.51,13.405", "--out", out] + extra)
        #expect(r.status == 0 || r.status == 1, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.dropFirst().first == importLine, "\(r.stdout)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/report.json")))
                as? [String: Any])
        let replays = try #require(
            ((json["acceptance"] as? [String: Any])?["device"] as? [String: Any])?["replays"] as? [[String: Any]])
        let ingest = try #require(replays.first?["ingest"] as? [String: Any])
        #expect(ingest["skipped"] as? [String: Int] == skipped)
        let kinds = (ingest["assumptions"] as? [[String: Any]])?.compactMap { $0["kind"] as? String }
        #expect(kinds == assumed)
        let html = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
        let shown = String(importLine.dropFirst("Import: ".count))
        #expect(html.contains("Import: \(shown)"), "index.html lacks the import line")
    }

    @Test func calibrateNamesTheAssumedAccuracyInItsVerdict() throws {
        let dir = try Self.folder("calibrate")
        defer { try? FileManager.default.removeItem(at: dir) }
        // RMC only (no accuracy): 200 fixes 1 s apart around one point, a deterministic pattern.
        var lines: [String] = []
        for k in 0..<200 {
            let second = k % 60
            let minute = k / 60
            let dLat = Double((k * 37) % 11 - 5) * 0.00003
            let dLon = Double((k * 53) % 13 - 6) * 0.00004
            lines.append(
                Self.s(
                    String(
                        format: "GPRMC,12%02d%02d.00,A,5230.%05d,N,01324.%05d,E,0.0,,010326,,,A", minute, second,
                        60000 + Int((dLat * 100_000).rounded()), 30000 + Int((dLon * 100_000).rounded()))))
        }
        let log = dir.appendingPathComponent("still.nmea")
        try Data(lines.joined(separator: "\n").utf8).write(to: log)
        let out = dir.appendingPathComponent("cal").path
        let refused = try runFencelab(["calibrate", log.path, "--out", out])
        #expect(refused.status == 2)
        #expect(
            refused.stderr.hasSuffix(
                "still.nmea:1: NMEA: position (no GST, GGA HDOP or GSA HDOP in its epoch) has no accuracy; give --assume-accuracy M\n"
            ))
        let r = try runFencelab([
            "calibrate", log.path, "--out", out, "--assume-accuracy", "4", "--drives", "99", "--replicates", "20",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("\nimport: skipped nothing; assumed accuracy 4 m (--assume-accuracy): 200 fixes\n"))
        let verdict = try #require(r.stdout.split(separator: "\n").first { $0.hasPrefix("verdict: ") })
        #expect(
            verdict.hasSuffix(
                "; accuracy assumed (accuracy 4 m (--assume-accuracy): 200 fixes): the coverage figures say nothing about the device's own estimate"
            ))
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/calibration.json")))
                as? [String: Any])
        let ingest = try #require(json["ingest"] as? [String: Any])
        #expect((ingest["assumptions"] as? [[String: Any]])?.first?["kind"] as? String == "assumedAccuracy")
    }

    @Test func helpListsTheImportOptionsOnEveryReadingCommand() throws {
        for command in ["replay", "calibrate", "accept"] {
            let r = try runFencelab([command, "--help"])
            #expect(r.status == 0)
            for option in ["--format", "--assume-accuracy M", "--date YYYY-MM-DD", "--strict", "time=X:epoch-ms"] {
                #expect(r.stdout.contains(option), "\(command) --help lacks \(option)")
            }
            #expect(!r.stdout.contains("CSV, GPX or JSON Lines"), "\(command) --help")
            #expect(!r.stdout.contains("(CSV, GPX, JSON Lines)"), "\(command) --help")
        }
    }
}
