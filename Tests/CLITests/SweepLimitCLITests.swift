import Foundation
import Testing
import _TestSupport

/// The hard grid limit: --force does not lift it, so its refusal does not offer --force and
/// says what memory such a sweep would need.
@Suite struct SweepLimitCLITests {
    @Test(arguments: [["--force"], ["--max-points", "100000000"], []])
    func aGridPastTheHardLimitIsRefusedWithTheMemoryItWouldNeed(extra: [String]) throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-limit-\(UUID().uuidString)")
        // 10 001 enter × 10 000 exit radii, every exit above every enter, + the seeds' reference.
        let r = try runFencelab(
            ["sweep", "--enter", "0:10000:1", "--exit", "10001:20000:1", "--out", out.path] + extra)
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        if extra.isEmpty {
            // Below the hard limit's reach without --force: the ordinary limit, which --force lifts.
            #expect(r.stderr.contains("more than the limit 2000; narrow it or pass --force"), "\(r.stderr)")
            return
        }
        #expect(!r.stderr.contains("pass --force"), "\(r.stderr)")
        #expect(r.stderr.contains("the grid has 100010001 points, more than 10000000"), "\(r.stderr)")
        let match = try #require(r.stderr.firstMatch(of: /about ([0-9.]+) GB of memory/), "\(r.stderr)")
        let gigabytes = try #require(Double(match.1))
        // 100 010 001 points × 250 bytes = 25.0 GB, rounded up to a tenth.
        #expect(abs(gigabytes - 25.0) <= 0.11, "\(gigabytes) GB")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }
}
