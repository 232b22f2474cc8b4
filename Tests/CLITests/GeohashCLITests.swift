import Foundation
import Testing
import _TestSupport

@Suite struct GeohashCLITests {
    static let degree = 1e-9

    func lines(_ r: ProcessResult) -> [String: Double] {
        var out: [String: Double] = [:]
        for line in r.stdout.split(separator: "\n") {
            let kv = line.split(separator: "=")
            if kv.count == 2, let v = Double(kv[1]) { out[String(kv[0])] = v }
        }
        return out
    }

    @Test func encode() throws {
        let r = try runFencelab(["geohash", "encode", "57.64911", "10.40744", "--precision", "11"])
        #expect(r.status == 0 && r.stdout == "u4pruydqqvj\n" && r.stderr.isEmpty)
        let full = try runFencelab(["geohash", "encode", "-90", "-180"])
        #expect(full.status == 0 && full.stdout == "000000000000\n")
    }

    @Test func decode() throws {
        let r = try runFencelab(["geohash", "decode", "ezs42"])
        #expect(r.status == 0)
        let v = lines(r)
        #expect(isClose(try #require(v["latitude"]), 42.60498046875, absoluteTolerance: Self.degree))
        #expect(isClose(try #require(v["longitude"]), -5.60302734375, absoluteTolerance: Self.degree))
        #expect(isClose(try #require(v["latitude_error_deg"]), 90.0 / 4096, absoluteTolerance: Self.degree))
        #expect(isClose(try #require(v["longitude_error_deg"]), 180.0 / 8192, absoluteTolerance: Self.degree))
    }

    @Test func neighborsAcrossTheAntimeridian() throws {
        let r = try runFencelab(["geohash", "neighbors", "xzrbx"])
        #expect(r.status == 0)
        let pairs = r.stdout.split(separator: "\n").map { $0.split(separator: "=").map(String.init) }
        #expect(pairs.map { $0[0] } == ["n", "ne", "e", "se", "s", "sw", "w", "nw"])
        #expect(pairs.first { $0[0] == "e" }?[1] == "8p208")
    }

    @Test(arguments: [
        (["geohash", "decode", "u4pa"], "invalid character 'a'"),
        (["geohash", "neighbors", "ezs42ezs42ezs"], "1...12"),
        (["geohash", "encode", "1", "2", "--precision", "13"], "1...12"),
        (["geohash", "encode", "1", "2", "--precision", "0"], "1...12"),
        (["geohash", "encode", "1", "2", "--precision", "x"], "--precision"),
        (["geohash", "encode", "91", "2"], "latitude"),
    ])
    func badInputExitsTwoWithOneLine(args: [String], fragment: String) throws {
        let r = try runFencelab(args)
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.contains(fragment) && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
    }

    @Test func usageErrorsExit64() throws {
        #expect(try runFencelab(["geohash"]).status == 64)
        #expect(try runFencelab(["geohash", "frob", "x"]).status == 64)
        #expect(try runFencelab(["geohash", "encode", "1"]).status == 64)
        #expect(try runFencelab(["geohash", "decode", "ezs42", "--precision", "3"]).status == 64)
    }
}
