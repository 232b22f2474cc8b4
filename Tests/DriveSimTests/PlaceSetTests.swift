import Foundation
import GeoPolicy
import Testing
import _TestSupport

@testable import DriveSim

/// Place sets in scenario files: inline, CSV and GeoJSON files, generators, the tour route, and
/// the one-line errors for bad input (docs/scenario-format.md "places").
@Suite struct PlaceSetTests {
    static let head = #"""
        {"name":"t","description":"d","rulesVersion":"hysteresis-80-120-acc30","seed":1,"replicates":2,
         "fence":{"center":[52.52,13.405],"rule":{"kind":"hysteresis","enter_m":80,"exit_m":120,"maxAccuracy_m":30}},
         "sampling":{"rate_hz":1,"duration_s":600},
         "noise":{"model":"gaussian","sigma_m":8},
         "accuracy":{"model":"drms"},
        """#
    static let still = #""route":{"kind":"stationary","distance_m":0,"bearing_deg":0}"#

    static func decode(
        places: String, route: String = still, file: String = "scenarios/x.json"
    ) throws(ScenarioError)
        -> ScenarioSpec
    {
        try ScenarioSpec.decode(Array((head + "\"places\":" + places + "," + route + "}").utf8), file: file)
    }

    static func error(places: String, route: String = still, file: String = "scenarios/x.json") -> String {
        do {
            _ = try decode(places: places, route: route, file: file)
            return "decoded"
        } catch { return error.description }
    }

    static let twoPlaces = #"""
        {"list":[{"name":"A","center":[52.52,13.405],"radius_m":50},
                 {"name":"B","center":[52.52,13.4062],"radius_m":40,"enter_m":30,"exit_m":60,"weight":2}]}
        """#

    /// A temporary folder holding `files`, removed by the caller.
    static func folder(_ files: [String: String]) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("placeset-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (name, text) in files { try text.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8) }
        return dir
    }

    @Test func inlineList() throws {
        let s = try Self.decode(places: Self.twoPlaces)
        let set = try #require(s.places)
        #expect(set.places.map(\.name) == ["A", "B"])
        #expect(set.places[0].enter_m == nil && set.places[0].weight == 1)
        #expect(set.places[1].radius_m == 40 && set.places[1].enter_m == 30 && set.places[1].exit_m == 60)
        #expect(set.places[1].weight == 2)
        #expect(set.minDwell_s == 0 && set.mergeGap_s == 60 && set.source == "inline")
        // Place B's own radii replace the rule's; A keeps the scenario's.
        #expect(s.fence.rule.forPlace(set.places[1]).kind == .hysteresis(enter_m: 30, exit_m: 60, maxAccuracy_m: 30))
        #expect(s.fence.rule.forPlace(set.places[0]) == s.fence.rule)
    }

    @Test func csvAndGeoJSONFilesAgree() throws {
        let csv = "name,lat,lon,radius_m,enter_m,exit_m\r\nA,52.52,13.405,50,40,70\nB,52.521,13.4062,40,30,60\n"
        let geojson = #"""
            {"type":"FeatureCollection","features":[
             {"type":"Feature","geometry":{"type":"Point","coordinates":[13.405,52.52]},
              "properties":{"name":"A","radius_m":50,"enter_m":40,"exit_m":70}},
             {"type":"Feature","geometry":{"type":"Point","coordinates":[13.4062,52.521]},
              "properties":{"name":"B","radius_m":40,"enter_m":30,"exit_m":60}}]}
            """#
        let dir = try Self.folder(["p.csv": csv, "p.geojson": geojson])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let a = try #require(try Self.decode(places: #"{"file":"p.csv"}"#, file: dir + "/s.json").places)
        let b = try #require(try Self.decode(places: #"{"file":"p.geojson"}"#, file: dir + "/s.json").places)
        #expect(a.places == b.places)
        #expect(a.places.count == 2)
        #expect(
            abs(a.places[1].center.latitude - 52.521) < 1e-12 && abs(a.places[1].center.longitude - 13.4062) < 1e-12)
        #expect(a.places[0].enter_m == 40 && a.places[0].exit_m == 70)
    }

    /// Each bad input: one line naming the file, line and key.
    @Test func badPlaceFiles() throws {
        let cases: [(String, String)] = [
            (
                "name,lat,lon,radius_m\nA,52.5,13.4,50\nA,52.6,13.4,50\n",
                "p.csv:3: name: duplicate place name \"A\" (first on line 2)"
            ),
            ("name,lat,lon,radius_m\nA,52.5,13.4,0\n", "p.csv:2: radius_m: must be finite and > 0, got 0"),
            ("name,lat,lon,radius_m\nA,52.5,13.4,-3\n", "p.csv:2: radius_m: must be finite and > 0, got -3"),
            ("name,lat,lon,radius_m\nA,52.5,13.4,nan\n", "p.csv:2: radius_m: expected a decimal number, got \"nan\""),
            (
                "name,lat,lon,radius_m\nA,52.5,13.4,1e999\n",
                "p.csv:2: radius_m: expected a decimal number, got \"1e999\""
            ),
            ("name,lat,lon,radius_m\nA,95,13.4,5\n", "p.csv:2: lat: must be within -90...90, got 95"),
            ("name,lat,lon,radius_m\nA,52.5,13.4\n", "p.csv:2: expected 4 fields, got 3"),
            (
                "name,lat,lon,radius\nA,52.5,13.4,5\n",
                "p.csv:1: header: must be name,lat,lon,radius_m[,enter_m,exit_m][,weight]"
            ),
            (
                "name,lat,lon,radius_m,enter_m,exit_m\nA,52.5,13.4,50,60,60\n",
                "p.csv:2: exit_m: must be > enter_m (60), got 60"
            ),
            ("name,lat,lon,radius_m\n", "p.csv: needs at least one place"),
        ]
        for (csv, expected) in cases {
            let dir = try Self.folder(["p.csv": csv])
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let got = Self.error(places: #"{"file":"p.csv"}"#, file: dir + "/s.json")
            #expect(got == dir + "/" + expected, "\(csv)")
        }
    }

    @Test func placeFileOverTheLimit() throws {
        var csv = "name,lat,lon,radius_m\n"
        csv.reserveCapacity(3_000_000)
        for i in 0...PlaceSetSpec.maxPlaces { csv += "p\(i),52.5,13.4,5\n" }
        let dir = try Self.folder(["big.csv": csv])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(
            Self.error(places: #"{"file":"big.csv"}"#, file: dir + "/s.json")
                == dir + "/big.csv:100002: at most 100000 places")
    }

    @Test func badInlineAndGenerated() {
        let cases: [(String, String)] = [
            (
                #"{"list":[{"name":"A","center":[52.5,13.4],"radius_m":5},{"name":"A","center":[52.6,13.4],"radius_m":5}]}"#,
                "scenarios/x.json: places.list[1].name: duplicate place name \"A\" (first at [0])"
            ),
            (
                #"{"list":[{"name":"A","center":[52.5,13.4],"radius_m":0}]}"#,
                "scenarios/x.json: places.list[0].radius_m: must be finite and > 0, got 0"
            ),
            (#"{"list":[]}"#, "scenarios/x.json: places.list: needs at least one place"),
            (
                #"{"list":[{"name":"A","center":[52.5,13.4],"radius_m":5}],"file":"p.csv"}"#,
                "scenarios/x.json: places: needs exactly one of list, file, generate, got list, file"
            ),
            (
                #"{"generate":{"kind":"uniform","count":0,"seed":1,"box":{"south":52,"west":13,"north":53,"east":14},"radius_m":5}}"#,
                "scenarios/x.json: places.generate.count: must be within 1...100000, got 0"
            ),
            (
                #"{"generate":{"kind":"uniform","count":100001,"seed":1,"box":{"south":52,"west":13,"north":53,"east":14},"radius_m":5}}"#,
                "scenarios/x.json: places.generate.count: must be within 1...100000, got 100001"
            ),
            (
                #"{"generate":{"kind":"grid","origin":[52.5,13.4],"bearing_deg":0,"rows":1,"columns":3,"spacing_m":20,"radius_m":-1}}"#,
                "scenarios/x.json: places.generate.radius_m: must be finite and > 0, got -1"
            ),
            (
                #"{"generate":{"kind":"mall","center":[52.5,13.4],"radius_m":100,"shops":5,"shopRadius_m":100}}"#,
                "scenarios/x.json: places.generate.shopRadius_m: must be > 0 and < radius_m (100), got 100"
            ),
        ]
        for (places, expected) in cases { #expect(Self.error(places: places) == expected) }
        #expect(
            Self.error(
                places: Self.twoPlaces,
                route: #""route":{"kind":"tour","stops":[{"place":"A","dwell_s":5},{"place":"C"}],"speed_kmh":4}"#)
                == "scenarios/x.json: route.stops[1].place: must name a place of places, got \"C\"")
    }

    @Test func generatorsAreSeededAndShaped() throws {
        let box = #""box":{"south":52.4,"west":13.3,"north":52.6,"east":13.5}"#
        let uniform = #"{"generate":{"kind":"uniform","count":2000,"seed":7,"# + box + #","radius_m":30}}"#
        let u1 = try #require(try Self.decode(places: uniform).places).places
        let u2 = try #require(try Self.decode(places: uniform).places).places
        #expect(u1 == u2)
        #expect(u1.count == 2000 && u1[0].name == "place-0001" && u1[1999].name == "place-2000")
        #expect(
            u1.allSatisfy { (52.4...52.6).contains($0.center.latitude) && (13.3...13.5).contains($0.center.longitude) })
        // Uniform: about half the places in the western half (binomial σ = √(2000/4) ≈ 22).
        let west = u1.filter { $0.center.longitude < 13.4 }.count
        #expect(abs(west - 1000) < 5 * 23)
        let other = try #require(
            try Self.decode(places: uniform.replacingOccurrences(of: "\"seed\":7", with: "\"seed\":8")).places)
        #expect(other.places != u1)

        let clustered =
            #"{"generate":{"kind":"clustered","count":300,"clusters":3,"clusterSigma_m":50,"seed":3,"# + box
            + #","radius_m":10}}"#
        let c = try #require(try Self.decode(places: clustered).places).places
        // Places of one cluster lie within a few σ of each other (σ = 50 m per axis: 6σ·√2 ≈ 424 m).
        for k in 0..<3 {
            let members = stride(from: k, to: 300, by: 3).map { c[$0].center }
            let far = members.map { Haversine().distance_m(members[0], $0) }.max() ?? 0
            #expect(far < 600, "cluster \(k) spans \(far) m")
        }

        let grid =
            #"{"generate":{"kind":"grid","origin":[52.5,13.4],"bearing_deg":90,"rows":2,"columns":100,"spacing_m":25,"rowSpacing_m":30,"radius_m":10,"enter_m":8,"exit_m":15}}"#
        let g = try #require(try Self.decode(places: grid).places).places
        #expect(g.count == 200 && g[0].name == "shop-001" && g[199].name == "shop-200")
        #expect(abs(Haversine().distance_m(g[0].center, g[1].center) - 25) < 0.01)
        #expect(abs(Haversine().distance_m(g[0].center, g[100].center) - 30) < 0.01)
        // Bearing 90°: along the street is east, the second row lies south (to the right).
        #expect(g[1].center.longitude > g[0].center.longitude && g[100].center.latitude < g[0].center.latitude)
        #expect(g.allSatisfy { $0.enter_m == 8 && $0.exit_m == 15 })

        let mall = #"{"generate":{"kind":"mall","center":[52.5,13.4],"radius_m":120,"shops":30,"shopRadius_m":8}}"#
        let m = try #require(try Self.decode(places: mall).places).places
        #expect(m.count == 31 && m[0].name == "mall" && m[0].radius_m == 120)
        // Every shop lies wholly inside the mall.
        #expect(m.dropFirst().allSatisfy { Haversine().distance_m(m[0].center, $0.center) + 8 <= 120 + 1e-6 })
    }

    /// The tour stands at each stop for its dwell, then moves at the constant speed to the next.
    @Test func tourDwellsAtEachStop() throws {
        let places = #"""
            {"list":[{"name":"A","center":[52.52,13.405],"radius_m":20},
                     {"name":"B","center":[52.52,13.406],"radius_m":20},
                     {"name":"C","center":[52.521,13.406],"radius_m":20}]}
            """#
        let route =
            #""route":{"kind":"tour","stops":[{"place":"A","dwell_s":60},{"place":"B","dwell_s":120},{"place":"C"}],"speed_kmh":3.6}"#
        let spec = try Self.decode(places: places, route: route)
        var generator = try ScenarioGenerator(spec: spec, replicate: 0)
        let samples = generator.collect()
        let set = try #require(spec.places)
        let ab = Haversine().distance_m(set.places[0].center, set.places[1].center)
        let d = { (t: Int, p: Int) in Haversine().distance_m(samples[t].truth, set.places[p].center) }
        // 1 m/s: at A until 60 s, at B from 60 + ab s for 120 s, then towards C.
        #expect(d(0, 0) < 1e-6 && d(59, 0) < 1e-6)
        #expect(abs(d(70, 0) - 10) < 0.01)
        let arriveB = 60 + Int(ab.rounded(.up))
        #expect(d(arriveB, 1) < 1e-6 && d(arriveB + 118, 1) < 1e-6)
        #expect(abs(d(arriveB + 130, 1) - Double(130 - 120) - (Double(arriveB) - 60 - ab)) < 0.01)
    }
}
