import Foundation
import Testing
import _TestSupport

/// `fencelab distance ... --model wgs84` run as a process.
@Suite struct DistanceCLITests {
    static let tolerance_m = 1e-3

    @Test(arguments: [
        (["0", "0", "0.5", "179.7"], 19_944_127.421),
        (["0", "179.999", "0", "-179.999"], 222.638982),
        (["89.9", "0", "89.9", "180"], 22_338.795683),
    ])
    func wgs84PublishedPairs(coordinates: [String], expected_m: Double) throws {
        let r = try runFencelab(["distance"] + coordinates + ["--model", "wgs84"])
        #expect(r.status == 0)
        #expect(r.stderr.isEmpty)
        let metres = try #require(Double(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(isClose(metres, expected_m, absoluteTolerance: Self.tolerance_m))
    }

    @Test func modelOptionBeforeCoordinatesAndEqualsForm() throws {
        let r = try runFencelab(["distance", "--model=wgs84", "0", "179.999", "0", "-179.999"])
        #expect(r.status == 0)
        let metres = try #require(Double(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(isClose(metres, 222.638982, absoluteTolerance: Self.tolerance_m))
    }

    @Test func unknownModelIsUsageError() throws {
        let r = try runFencelab(["distance", "0", "0", "1", "1", "--model", "bogus"])
        #expect(r.status == 64)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.contains("bogus"))
        #expect(r.stderr.split(separator: "\n").count == 1)
    }

    @Test func unknownModelWinsOverInvalidValues() throws {
        let r = try runFencelab(["distance", "91", "0", "0", "0", "--model", "bogus"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("--model"))
    }

    @Test func invalidLatitudeWithWGS84IsBadInput() throws {
        let r = try runFencelab(["distance", "0", "0", "91", "0", "--model", "wgs84"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("LAT2"))
        #expect(r.stdout.isEmpty)
    }
}
