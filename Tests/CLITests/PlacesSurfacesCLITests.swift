import Foundation
import Testing
import _TestSupport

/// A place set's figures on every surface (console, report.md, index.html) and its place file
/// among the run's input files, through the built binary.
@Suite struct PlacesSurfacesCLITests {
    @Test func placeFileIsAnInputAndFiguresShowEverywhere() throws {
        let dir = RunCLITests.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        // 30 shops in a CSV, the shopping street's tour through three of them.
        var csv = "name,lat,lon,radius_m\n"
        for i in 0..<30 { csv += "shop-\(i),52.5,\(13.4 + Double(i) * 0.0003),8\n" }
        try csv.write(to: dir.appendingPathComponent("p.csv"), atomically: true, encoding: .utf8)
        let example = try String(contentsOfFile: "scenarios/places/shopping-street.json", encoding: .utf8)
        let stops = try #require(example.range(of: #""stops""#))
        let end = try #require(example.range(of: #"] },"#, range: stops.upperBound..<example.endIndex))
        var scenario = example.replacingCharacters(
            in: stops.lowerBound..<end.upperBound,
            with:
                #""stops": [ { "place": "shop-3", "dwell_s": 300 }, { "place": "shop-20", "dwell_s": 200 }, { "place": "shop-29" } ] },"#
        )
        let generate = try #require(scenario.range(of: #""generate""#))
        let dwell = try #require(scenario.range(of: #""minDwell_s""#))
        scenario.replaceSubrange(generate.lowerBound..<dwell.lowerBound, with: #""file": "p.csv", "#)
        scenario = scenario.replacingOccurrences(of: #""duration_s": 5400"#, with: #""duration_s": 1800"#)
        try scenario.write(to: dir.appendingPathComponent("s.json"), atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("out")
        let r = try runFencelab([
            "run", dir.appendingPathComponent("s.json").path, "--replicates", "2", "--out", out.path,
        ])
        #expect(r.status == 0, "\(r.stderr)")
        // The console: one aggregate line and the worst places.
        #expect(r.stdout.contains("places shopping-street (30): recall "))
        #expect(r.stdout.contains("notMonitored share") && r.stdout.contains("  worst places: shop-"))
        let md = try String(contentsOf: out.appendingPathComponent("report.md"), encoding: .utf8)
        #expect(md.contains("## Places\n") && md.contains("## Places of shopping-street\n"))
        #expect(md.contains("The 10 worst of 30 places"))
        let html = try String(contentsOf: out.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(html.contains("<h3>Places (30, weighted over places)</h3>"))
        // The place file is an input, with the SHA-256 of its bytes.
        let object = try #require(
            JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("report.json")))
                as? [String: Any])
        let run = try #require(object["run"] as? [String: Any])
        let inputs = try #require(run["inputFiles"] as? [[String: Any]])
        #expect(inputs.map { $0["kind"] as? String } == ["scenario", "places"])
        #expect((inputs[1]["path"] as? String)?.hasSuffix("/p.csv") == true)
        let sha = try #require(inputs[1]["sha256"] as? String)
        #expect(sha.count == 64 && sha.allSatisfy { "0123456789abcdef".contains($0) })
        // Pages without a place set show none of it.
        let plain = dir.appendingPathComponent("plain")
        let p = try runFencelab(["run", "scenarios/urban-canyon.json", "--replicates", "2", "--out", plain.path])
        #expect(p.status == 0, "\(p.stderr)")
        #expect(!p.stdout.contains("places "))
        let plainMD = try String(contentsOf: plain.appendingPathComponent("report.md"), encoding: .utf8)
        #expect(!plainMD.contains("## Places"))
    }
}
