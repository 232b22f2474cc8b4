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
            for option in ["--format", "--assume-accuracy M", "--date YYYY-MM-DD", "--strict"] {
                #expect(r.stdout.contains(option), "\(command) --help lacks \(option)")
            }
            #expect(!r.stdout.contains("CSV, GPX or JSON Lines"), "\(command) --help")
            #expect(!r.stdout.contains("(CSV, GPX, JSON Lines)"), "\(command) --help")
        }
    }
}
