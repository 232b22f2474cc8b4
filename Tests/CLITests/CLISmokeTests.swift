import Testing
import Foundation
import _TestSupport

@Suite struct CLISmokeTests {
    @Test func versionAndHelp() throws {
        let v = try runFencelab(["--version"])
        #expect(v.status == 0)
        #expect(v.stdout.hasPrefix("fencelab "))
        let h = try runFencelab(["--help"])
        #expect(h.status == 0)
        #expect(h.stdout.contains("distance"))
    }

    @Test func unknownCommandIsUsageError() throws {
        let r = try runFencelab(["frobnicate"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("frobnicate"))
        #expect(r.stdout.isEmpty)
    }

    @Test func distanceAcrossDateLine() throws {
        let r = try runFencelab(["distance", "0", "179.999", "0", "-179.999"])
        #expect(r.status == 0)
        let metres = try #require(Double(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(isClose(metres, 222.39, absoluteTolerance: 0.5))
    }

    @Test func invalidLatitudeIsBadInput() throws {
        let r = try runFencelab(["distance", "91", "0", "0", "0"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("latitude"))
        #expect(r.stderr.split(separator: "\n").count == 1)
    }
}
