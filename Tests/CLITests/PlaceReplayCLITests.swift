import Foundation
import Testing
import _TestSupport

/// `fencelab replay` and `fencelab accept` with `--places` through the built binary: the shipped
/// two-place log (per-place divergence counts), and bad place input on the replay path and the
/// scenario path (one line naming the file, line, key or option; exit 2, or 64 for usage;
/// nothing written).
@Suite struct PlaceReplayCLITests {
    static let log = "scenarios/device-logs/two-places-walk.csv"
    static let places = "scenarios/places/two-places.csv"

    /// report.json's `places` object of a replay written to `out`.
    static func placesObject(_ out: URL) throws -> [String: Any] {
        let data = try Data(contentsOf: out.appendingPathComponent("report.json"))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let acceptance = try #require(root["acceptance"] as? [String: Any])
        let device = try #require(acceptance["device"] as? [String: Any])
        let replay = try #require((device["replays"] as? [[String: Any]])?.first)
        return try #require(replay["places"] as? [String: Any])
    }

    /// The bakery's enter and exit match the engine's; the bookshop's enter arrives 150 s after
    /// the engine's and its exit never does.
    @Test func twoPlaceLogCountsDivergencesPerPlace() throws {
        let dir = RunCLITests.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out")
        let r = try runFencelab(["replay", Self.log, "--places", Self.places, "--out", out.path])
        #expect(r.status == 1, "\(r.stderr)")
        let places = try Self.placesObject(out)
        #expect(places["places"] as? Int == 2)
        #expect(places["placesFailing"] as? Int == 1)
        #expect(places["monitoring"] as? String == "all")
        let total = try #require(places["counts"] as? [String: Int])
        #expect(total["lateSystemEvent"] == 1 && total["missingSystemEvent"] == 1)
        #expect(total.values.reduce(0, +) == 2)
        let perPlace = try #require(places["perPlace"] as? [[String: Any]])
        #expect(perPlace.map { $0["name"] as? String } == ["bakery", "bookshop"])
        let bakery = perPlace[0]
        #expect(bakery["events"] as? Int == 2 && bakery["matched"] as? Int == 2 && bakery["failing"] as? Int == 0)
        #expect((bakery["counts"] as? [String: Int])?.values.reduce(0, +) == 0)
        let bookshop = perPlace[1]
        #expect(bookshop["events"] as? Int == 1 && bookshop["matched"] as? Int == 0)
        let counts = try #require(bookshop["counts"] as? [String: Int])
        #expect(counts["lateSystemEvent"] == 1 && counts["missingSystemEvent"] == 1 && counts["ruleFlutter"] == 0)
        // The late event's delay, seconds: event 09:06:50 − engine enter 09:04:20.
        let root = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("report.json")))
                as? [String: Any])
        let replay = try #require(
            ((root["acceptance"] as? [String: Any])?["device"] as? [String: Any])?["replays"] as? [[String: Any]])
        let late = try #require(
            (replay[0]["divergences"] as? [[String: Any]])?.first { $0["class"] as? String == "lateSystemEvent" })
        #expect(abs((late["delay_s"] as? Double ?? .nan) - 150) <= 1e-9)
        #expect((late["detail"] as? String)?.hasPrefix("place bookshop: ") == true)
        #expect(r.stdout.contains("Places \(Self.places): 2 places, monitoring all"))
        let markdown = try String(contentsOf: out.appendingPathComponent("report.md"), encoding: .utf8)
        #expect(markdown.contains("| bookshop | 1 | 0 | 2 |"))
        let html = try String(contentsOf: out.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(html.contains("<td>bookshop</td>"))
        // Place names, never their coordinates.
        #expect(!markdown.contains("52.52") && !html.contains("13.40"))
    }

    /// A budget of one place re-chosen every 100 m still hears every event here (the walk
    /// passes one place at a time) and reports its swaps.
    @Test func monitoringBudgetIsReported() throws {
        let dir = RunCLITests.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out")
        let r = try runFencelab([
            "replay", Self.log, "--places", Self.places, "--monitoring", "nearest:1+refresh:100", "--out", out.path,
        ])
        #expect(r.status == 1, "\(r.stderr)")
        let places = try Self.placesObject(out)
        #expect(places["monitoring"] as? String == "nearest:1+refresh:100")
        #expect((places["swaps"] as? Int ?? 0) >= 1)
    }

    @Test func acceptTakesPlaces() throws {
        let dir = RunCLITests.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out")
        let r = try runFencelab([
            "accept", "scenarios/edge-loiter-100m.json", "--replicates", "1", "--device-log", Self.log, "--places",
            Self.places, "--out", out.path,
        ])
        #expect(r.status == 1, "\(r.stderr)")
        let places = try Self.placesObject(out)
        #expect((places["counts"] as? [String: Int])?["missingSystemEvent"] == 1)
    }

    /// Every bad place input of a replay: the message, the exit code, no report folder.
    @Test func badPlaceInputOnTheReplayPath() throws {
        let dir = RunCLITests.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        func write(_ name: String, _ text: String) throws -> String {
            let url = dir.appendingPathComponent(name)
            try text.write(to: url, atomically: true, encoding: .utf8)
            return url.path
        }
        let log = try String(contentsOfFile: Self.log, encoding: .utf8)
        let header = "name,lat,lon,radius_m\n"
        let good = try write("good.csv", header + "bakery,52.52,13.40,100\nbookshop,52.52,13.41,100\n")
        let duplicate = try write("dup.csv", header + "bakery,52.52,13.40,100\nbakery,52.52,13.41,100\n")
        let zero = try write("zero.csv", header + "bakery,52.52,13.40,0\n")
        let negative = try write("neg.csv", header + "bakery,52.52,13.40,-5\n")
        let nonFinite = try write("nan.csv", header + "bakery,52.52,13.40,nan\n")
        let over = try write(
            "over.csv", header + (0...100_000).map { "p\($0),52.52,13.40,10\n" }.joined())
        let unknown = try write("unknown.csv", log.replacingOccurrences(of: ",enter,bookshop", with: ",enter,bank"))
        let noPlace = try write("noplace.csv", log.replacingOccurrences(of: ",enter,bookshop", with: ",enter,"))
        let out = dir.appendingPathComponent("out").path
        let cases: [([String], Int32, String)] = [
            (
                ["replay", Self.log, "--places", duplicate], 2,
                "--places: \(duplicate):3: name: duplicate place name \"bakery\" (first on line 2)"
            ),
            (
                ["replay", Self.log, "--places", zero], 2,
                "--places: \(zero):2: radius_m: must be finite and > 0, got 0"
            ),
            (
                ["replay", Self.log, "--places", negative], 2,
                "--places: \(negative):2: radius_m: must be finite and > 0, got -5"
            ),
            (
                ["replay", Self.log, "--places", nonFinite], 2,
                "--places: \(nonFinite):2: radius_m: expected a decimal number, got \"nan\""
            ),
            (["replay", Self.log, "--places", over], 2, "--places: \(over):100002: at most 100000 places"),
            (
                ["replay", Self.log, "--places", good, "--monitoring", "nearest:0+refresh:100"], 2,
                "--monitoring: monitoring strategy 'nearest:0+refresh:100': K must be an integer within 1...100000"
            ),
            (
                ["replay", Self.log, "--places", good, "--monitoring", "nearest:5+refresh:0"], 2,
                "--monitoring: monitoring strategy 'nearest:5+refresh:0': R must be finite and > 0 metres"
            ),
            (
                ["replay", Self.log, "--places", good, "--monitoring", "nearest:5+refresh:-1"], 2,
                "--monitoring: monitoring strategy 'nearest:5+refresh:-1': R must be finite and > 0 metres"
            ),
            (["replay", unknown, "--places", good], 2, "\(unknown):46: place: \"bank\" is not a place of \(good)"),
            (
                ["replay", noPlace, "--places", good], 2,
                "\(noPlace):46: place: the event names no place (a log replayed with --places needs one per event)"
            ),
            (
                ["replay", Self.log, "--fence=52.52,13.40"], 2,
                "\(Self.log):8: place: the event names place \"bakery\"; replay a log of many places with --places FILE, not --fence"
            ),
            (
                ["replay", Self.log, "--fence=52.52,13.40", "--places", good], 64,
                "replay: --fence and --places exclude each other"
            ),
            (["replay", Self.log], 64, "replay: give --fence LAT,LON or --places FILE"),
            (
                ["replay", Self.log, "--fence=52.52,13.40", "--monitoring", "all"], 64,
                "replay: --monitoring needs --places FILE"
            ),
            (
                ["accept", "--device-log", Self.log, "--fence=52.52,13.40", "--places", good], 64,
                "accept: --fence and --places exclude each other"
            ),
            (
                ["accept", "--device-log", Self.log, "--places", duplicate], 2,
                "--places: \(duplicate):3: name: duplicate place name \"bakery\" (first on line 2)"
            ),
            (
                ["accept", "--device-log", unknown, "--places", good], 2,
                "\(unknown):46: place: \"bank\" is not a place of \(good)"
            ),
        ]
        for (arguments, status, message) in cases {
            let r = try runFencelab(arguments + ["--out", out])
            #expect(r.status == status, "\(arguments): \(r.stderr)")
            #expect(r.stderr == "fencelab: \(message)\n", "\(arguments)")
            #expect(!FileManager.default.fileExists(atPath: out), "\(arguments)")
        }
    }

    /// The scenario path's bad places the existing suite does not cover: a negative and a
    /// non-finite radius, a file over the limit, a duplicate name inline.
    @Test func badPlaceInputOnTheScenarioPath() throws {
        let dir = RunCLITests.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let example = try String(contentsOfFile: "scenarios/places/shopping-street.json", encoding: .utf8)
        let generate = try #require(example.range(of: #""generate""#))
        let dwell = try #require(example.range(of: #""minDwell_s""#))
        let withFile = example.replacingCharacters(
            in: generate.lowerBound..<dwell.lowerBound, with: #""file": "p.csv", "#)
        let inline = example.replacingCharacters(
            in: generate.lowerBound..<dwell.lowerBound,
            with: #""list": [{"name": "A", "center": [52.5, 13.4], "radius_m": 5}, "#
                + #"{"name": "A", "center": [52.5, 13.41], "radius_m": 5}], "#)
        let header = "name,lat,lon,radius_m\n"
        let cases: [(String, String, String)] = [
            (header + "A,52.5,13.4,-1\n", withFile, "p.csv:2: radius_m: must be finite and > 0, got -1"),
            (header + "A,52.5,13.4,inf\n", withFile, "p.csv:2: radius_m: expected a decimal number, got \"inf\""),
            (
                header + (0...100_000).map { "p\($0),52.5,13.4,5\n" }.joined(), withFile,
                "p.csv:100002: at most 100000 places"
            ),
            ("", inline, "s.json: places.list[1].name: duplicate place name \"A\" (first at [0])"),
        ]
        for (csv, scenario, expected) in cases {
            try csv.write(to: dir.appendingPathComponent("p.csv"), atomically: true, encoding: .utf8)
            try scenario.write(to: dir.appendingPathComponent("s.json"), atomically: true, encoding: .utf8)
            let out = dir.appendingPathComponent("out")
            let r = try runFencelab(["run", dir.appendingPathComponent("s.json").path, "--out", out.path])
            #expect(r.status == 2, "\(expected): \(r.stderr)")
            #expect(r.stderr == "fencelab: \(dir.path)/\(expected)\n")
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
    }
}
