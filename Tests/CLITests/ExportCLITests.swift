import Foundation
import GeoPolicy
import Testing
import _TestSupport

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite struct ExportCLITests {
    static let dateline = "scenarios/dateline-fiji.json"

    /// (latitude, longitude) of every `<tag lat=".." lon="..">` in GPX text.
    static func points(_ gpx: String, tag: String) -> [(Double, Double)] {
        gpx.split(separator: "\n").compactMap { line -> (Double, Double)? in
            let l = line.trimmingCharacters(in: .whitespaces)
            guard l.hasPrefix("<\(tag) ") else { return nil }
            func attr(_ name: String) -> Double? {
                guard let r = l.range(of: "\(name)=\"") else { return nil }
                return Double(l[r.upperBound...].prefix { $0 != "\"" })
            }
            guard let lat = attr("lat"), let lon = attr("lon") else { return nil }
            return (lat, lon)
        }
    }

    /// The GPX track of the date-line drive crosses 180° without a jump.
    @Test func datelineGPXCrossesWithoutAJump() throws {
        let r = try runFencelab(["export", Self.dateline, "--format", "gpx-track", "--start", "2026-01-01T00:00:00Z"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\""))
        #expect(r.stdout.contains("xmlns=\"http://www.topografix.com/GPX/1/1\"") && r.stdout.hasSuffix("</gpx>\n"))
        // One list per target: gpx-track has only trkpt, gpx only wpt (Xcode plays wpt).
        let trkpts = Self.points(r.stdout, tag: "trkpt")
        #expect(trkpts.count == 1200 && Self.points(r.stdout, tag: "wpt").isEmpty)
        let waypoints = try runFencelab(["export", Self.dateline, "--format", "gpx", "--start", "2026-01-01T00:00:00Z"])
        let wpts = Self.points(waypoints.stdout, tag: "wpt")
        #expect(wpts.count == 1200 && Self.points(waypoints.stdout, tag: "trkpt").isEmpty)
        #expect(waypoints.stdout.count < r.stdout.count + 100)  // not both lists
        #expect(wpts.contains { $0.1 > 179.9 } && wpts.contains { $0.1 < -179.9 })
        // 50 km/h at 1 Hz is 13.9 m per step; with σ = 5 m noise a step beyond 150 m would be a jump.
        let maxStep_m = 150.0
        for (a, b) in zip(trkpts, trkpts.dropFirst()) {
            let d = Haversine().distance_m(
                try Coordinate(latitude: a.0, longitude: a.1), try Coordinate(latitude: b.0, longitude: b.1))
            #expect(d <= maxStep_m, "step of \(d) m between \(a) and \(b)")
        }
        let times = r.stdout.components(separatedBy: "<time>").dropFirst().map { String($0.prefix(24)) }
        #expect(times.first == "2026-01-01T00:00:00.000Z")
        #expect(times.contains("2026-01-01T00:19:59.000Z"))
    }

    @Test func csvHasTheDeviceLogColumns() throws {
        let r = try runFencelab(["export", "scenarios/fault-storm.json", "--format", "csv", "--replicate", "2"])
        #expect(r.status == 0)
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.first == "timestamp,latitude,longitude,horizontal_accuracy,speed,course,event")
        #expect(lines.dropFirst().allSatisfy { $0.split(separator: ",", omittingEmptySubsequences: false).count == 7 })
        // The fault storm delivers invalid values as they are.
        #expect(lines.contains { $0.contains(",NaN,") || $0.contains(",91.000000000,") || $0.contains(",-1.000,") })
    }

    @Test func jsonlLinesParseWithTheSameFields() throws {
        let r = try runFencelab(["export", "scenarios/urban-canyon.json", "--format", "jsonl"])
        #expect(r.status == 0)
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count > 300)
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(
                Set(object.keys) == [
                    "timestamp", "latitude", "longitude", "horizontal_accuracy", "speed", "course", "event",
                ])
        }
    }

    @Test func outFileIsWrittenAtomically() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("fiji.gpx").path
        let r = try runFencelab([
            "export", Self.dateline, "--format", "gpx", "--out", out, "--start", "2026-01-01T00:00:00Z",
        ])
        #expect(r.status == 0 && r.stdout.isEmpty)
        let stdoutRun = try runFencelab(["export", Self.dateline, "--format", "gpx", "--start", "2026-01-01T00:00:00Z"])
        #expect(try String(contentsOfFile: out, encoding: .utf8) == stdoutRun.stdout)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["fiji.gpx"])
        // An unwritable target leaves nothing behind and says why, on one line.
        let bad = try runFencelab([
            "export", Self.dateline, "--format", "gpx", "--out", dir.appendingPathComponent("missing/x.gpx").path,
        ])
        #expect(bad.status == 2 && bad.stderr.split(separator: "\n").count == 1)
    }

    @Test func badInputAndUsage() throws {
        let missing = try runFencelab(["export", "scenarios/nope.json", "--format", "gpx"])
        #expect(missing.status == 2 && missing.stderr.contains("scenarios/nope.json") && missing.stdout.isEmpty)
        let format = try runFencelab(["export", Self.dateline, "--format", "shp"])
        #expect(format.status == 64 && format.stderr.contains("--format"))
        let noFormat = try runFencelab(["export", Self.dateline])
        #expect(noFormat.status == 64)
        let replicate = try runFencelab(["export", Self.dateline, "--format", "csv", "--replicate", "20"])
        #expect(replicate.status == 2 && replicate.stderr.contains("replicate must be within 0...19, got 20"))
    }

    @Test func malformedScenarioNamesFileAndKey() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-bad-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try String(
            contentsOf: TestPaths.packageRoot.appendingPathComponent(Self.dateline), encoding: .utf8)
        let path = dir.appendingPathComponent("x.json").path
        try source.replacingOccurrences(of: "\"sigma_m\": 5", with: "\"sigma_m\": -3").write(
            toFile: path, atomically: true, encoding: .utf8)
        let r = try runFencelab(["export", path, "--format", "csv"])
        #expect(r.status == 2)
        #expect(r.stderr == "fencelab: \(path): noise.sigma_m: must be ≥ 0, got -3\n")
    }

    @Test func startIsValidatedAndDefaultsToNowRoundedToTheMinute() throws {
        for (value, message) in [
            ("noon", "expected an ISO-8601 time with a zone"), ("2026-13-01T00:00:00Z", "out of range"),
            ("2026-03-01T12:00:00", "missing zone"), ("1969-12-31T23:59:59Z", "at or after 1970"),
        ] {
            let r = try runFencelab(["export", Self.dateline, "--format", "csv", "--start", value])
            #expect(r.status == 2 && r.stdout.isEmpty, "\(value)")
            #expect(
                r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("--start")
                    && r.stderr.contains(message), "\(r.stderr)")
        }
        let nmea = try runFencelab(["export", Self.dateline, "--format", "nmea", "--start", "2090-01-01T00:00:00Z"])
        #expect(nmea.status == 2 && nmea.stderr.contains("two-digit year"))
        let before = Date().timeIntervalSince1970
        let r = try runFencelab(["export", Self.dateline, "--format", "csv"])
        let after = Date().timeIntervalSince1970
        let first = try #require(r.stdout.split(separator: "\n").dropFirst().first?.split(separator: ",").first)
        #expect(first.hasSuffix(":00.000Z"), "\(first)")  // whole minute
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let start = try #require(formatter.date(from: String(first))).timeIntervalSince1970
        #expect(start <= after && start > before - 61)
        let offset = try runFencelab([
            "export", Self.dateline, "--format", "csv", "--start", "2026-03-01T13:00:00+01:00",
        ])
        #expect(offset.stdout.split(separator: "\n")[1].hasPrefix("2026-03-01T12:00:00.000Z,"))
    }

    @Test func summaryCountsInjectedNonIncreasingTimestamps() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try runFencelab([
            "export", "scenarios/fault-storm.json", "--format", "csv", "--start", "2026-03-01T12:00:00Z",
            "--out", dir.appendingPathComponent("storm.csv").path,
        ])
        #expect(r.status == 0)
        // Oracle: count rows whose timestamp is not after the previous row's (ISO strings of one zone sort as times).
        let rows = try String(contentsOf: dir.appendingPathComponent("storm.csv"), encoding: .utf8).split(
            separator: "\n"
        ).dropFirst()
        let times = rows.map { String($0.prefix { $0 != "," }) }
        var expected = 0
        var newest = ""
        for t in times {
            if t <= newest { expected += 1 }
            newest = max(newest, t)
        }
        #expect(expected > 0)
        #expect(r.stderr.contains("; \(expected) non-increasing timestamps (injected faults"), "\(r.stderr)")
    }

    @Test func kmlHasOneTimePerCoordinate() throws {
        let r = try runFencelab(["export", Self.dateline, "--format", "kml", "--start", "2026-01-01T00:00:00Z"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("<kml xmlns=\"http://www.opengis.net/kml/2.2\""))
        let whens = r.stdout.components(separatedBy: "<when>").count - 1
        let coords = r.stdout.components(separatedBy: "<gx:coord>").count - 1
        #expect(whens == 1200 && coords == whens)
        #expect(XMLParser(data: Data(r.stdout.utf8)).parse())
    }

    @Test(.enabled(if: XMLSchema.testsEnabled, "needs xmllint (libxml2-utils); CI sets FENCELAB_REQUIRE_XMLLINT=1"))
    func gpxExportsValidateAgainstGPX11() throws {
        let schema = XMLSchema.schema("gpx-1.1.xsd")
        for format in ["gpx", "gpx-track"] {
            for scenario in [Self.dateline, "scenarios/fault-storm.json", "scenarios/polar-crossing.json"] {
                let r = try runFencelab(["export", scenario, "--format", format, "--start", "2026-01-01T00:00:00Z"])
                #expect(r.status == 0)
                let v = try XMLSchema.validate(r.stdout, schema: schema)
                #expect(v.status == 0, "\(format) \(scenario): \(v.stderr.prefix(400))")
            }
        }
        // The schema is not vacuous: hdop before time breaks GPX 1.1's element order, a longitude of 180 its range.
        let gpx = try runFencelab(["export", Self.dateline, "--format", "gpx", "--start", "2026-01-01T00:00:00Z"])
            .stdout
        let first = try #require(gpx.firstMatch(of: /<time>[^<]+<\/time><hdop>[^<]+<\/hdop>/))
        let time = try #require(String(first.output).firstMatch(of: /<time>[^<]+<\/time>/)).output
        let swapped = gpx.replacingCharacters(
            in: first.range, with: String(first.output).replacingOccurrences(of: time, with: "") + time)
        #expect(try XMLSchema.validate(swapped, schema: schema).status != 0)
        let outOfRange = gpx.replacingOccurrences(
            of: " lon=\"", with: " lon=\"18", options: [], range: gpx.range(of: " lon=\""))
        #expect(try XMLSchema.validate(outOfRange, schema: schema).status != 0)
    }
}
