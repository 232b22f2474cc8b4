import Testing
import Foundation
import GeoPolicy
import _TestSupport

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

    /// Done-when of issue 3: the GPX track of the date-line drive crosses 180° without a jump.
    @Test func datelineGPXCrossesWithoutAJump() throws {
        let r = try runFencelab(["export", Self.dateline, "--format", "gpx"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\""))
        #expect(r.stdout.contains("xmlns=\"http://www.topografix.com/GPX/1/1\"") && r.stdout.hasSuffix("</gpx>\n"))
        let wpts = Self.points(r.stdout, tag: "wpt"), trkpts = Self.points(r.stdout, tag: "trkpt")
        #expect(wpts.count == 1200 && trkpts.count == wpts.count)
        #expect(wpts.contains { $0.1 > 179.9 } && wpts.contains { $0.1 < -179.9 })
        // 50 km/h at 1 Hz is 13.9 m per step; with σ = 5 m noise a step beyond 150 m would be a jump.
        let maxStep_m = 150.0
        for (a, b) in zip(trkpts, trkpts.dropFirst()) {
            let d = Haversine().distance_m(try Coordinate(latitude: a.0, longitude: a.1), try Coordinate(latitude: b.0, longitude: b.1))
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
            #expect(Set(object.keys) == ["timestamp", "latitude", "longitude", "horizontal_accuracy", "speed", "course", "event"])
        }
    }

    @Test func outFileIsWrittenAtomically() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("fiji.gpx").path
        let r = try runFencelab(["export", Self.dateline, "--format", "gpx", "--out", out])
        #expect(r.status == 0 && r.stdout.isEmpty)
        let stdoutRun = try runFencelab(["export", Self.dateline, "--format", "gpx"])
        #expect(try String(contentsOfFile: out, encoding: .utf8) == stdoutRun.stdout)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["fiji.gpx"])
        // An unwritable target leaves nothing behind and says why, on one line.
        let bad = try runFencelab(["export", Self.dateline, "--format", "gpx", "--out", dir.appendingPathComponent("missing/x.gpx").path])
        #expect(bad.status == 2 && bad.stderr.split(separator: "\n").count == 1)
    }

    @Test func badInputAndUsage() throws {
        let missing = try runFencelab(["export", "scenarios/nope.json", "--format", "gpx"])
        #expect(missing.status == 2 && missing.stderr.contains("scenarios/nope.json") && missing.stdout.isEmpty)
        let format = try runFencelab(["export", Self.dateline, "--format", "kml"])
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
        let source = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent(Self.dateline), encoding: .utf8)
        let path = dir.appendingPathComponent("x.json").path
        try source.replacingOccurrences(of: "\"sigma_m\": 5", with: "\"sigma_m\": -3").write(toFile: path, atomically: true, encoding: .utf8)
        let r = try runFencelab(["export", path, "--format", "csv"])
        #expect(r.status == 2)
        #expect(r.stderr == "fencelab: \(path): noise.sigma_m: must be ≥ 0, got -3\n")
    }
}
