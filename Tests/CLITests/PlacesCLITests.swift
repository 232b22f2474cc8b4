import Foundation
import Testing
import _TestSupport

/// `fencelab run` on place sets through the built binary: the shipped example, its determinism
/// across job counts, and bad place input (one line, exit 2, nothing written).
@Suite struct PlacesCLITests {
    @Test func shippedExampleIsIdenticalForAnyJobCount() throws {
        let dir = RunCLITests.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        var parts: [String] = []
        for jobs in ["1", "2"] {
            let out = dir.appendingPathComponent("jobs\(jobs)")
            let r = try runFencelab([
                "run", "scenarios/places", "--replicates", "2", "--jobs", jobs, "--out", out.path,
            ])
            #expect(r.status == 0, "\(r.stderr)")
            parts.append(try RunCLITests.deterministicPart(out.appendingPathComponent("report.json")))
        }
        #expect(parts[0] == parts[1])
        let object = try #require(
            JSONSerialization.jsonObject(with: Data(parts[0].utf8)) as? [String: Any])
        let scenario = try #require((object["scenarios"] as? [[String: Any]])?.first)
        let places = try #require(scenario["places"] as? [String: Any])
        let byPlace = try #require(places["byPlace"] as? [[String: Any]])
        #expect(byPlace.count == 200 && byPlace.first?["name"] as? String == "shop-001")
        #expect(places["notMonitored"] != nil && places["swapsPerHour"] != nil)
        // Place coordinates are the user's input: never echoed.
        #expect(!parts[0].contains("52.49") && !parts[0].contains("\"center\""))
    }

    @Test func badPlaceInputIsOneLineAndExitTwo() throws {
        let dir = RunCLITests.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let example = try String(contentsOfFile: "scenarios/places/shopping-street.json", encoding: .utf8)
        let generate = try #require(example.range(of: #""generate""#))
        let dwell = try #require(example.range(of: #""minDwell_s""#))
        let withFile = example.replacingCharacters(
            in: generate.lowerBound..<dwell.lowerBound, with: #""file": "p.csv", "#)
        let cases: [(String, String, String)] = [
            (
                "name,lat,lon,radius_m\nA,52.5,13.4,5\nA,52.5,13.41,5\n", withFile,
                "p.csv:3: name: duplicate place name \"A\" (first on line 2)"
            ),
            ("name,lat,lon,radius_m\nA,52.5,13.4,0\n", withFile, "p.csv:2: radius_m: must be finite and > 0, got 0"),
            (
                "", example.replacingOccurrences(of: "nearest:20+refresh:150", with: "nearest:20+refresh:0"),
                "s.json: places.monitoring: monitoring strategy 'nearest:20+refresh:0': R must be finite and > 0 metres"
            ),
            (
                "", example.replacingOccurrences(of: "nearest:20+refresh:150", with: "nearest:0+refresh:150"),
                "s.json: places.monitoring: monitoring strategy 'nearest:0+refresh:150': K must be an integer within 1...100000"
            ),
        ]
        for (csv, scenario, expected) in cases {
            try csv.write(to: dir.appendingPathComponent("p.csv"), atomically: true, encoding: .utf8)
            try scenario.write(to: dir.appendingPathComponent("s.json"), atomically: true, encoding: .utf8)
            let out = dir.appendingPathComponent("out")
            let r = try runFencelab(["run", dir.appendingPathComponent("s.json").path, "--out", out.path])
            #expect(r.status == 2)
            #expect(r.stderr == "fencelab: \(dir.path)/\(expected)\n")
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
    }
}
