import Foundation
import Testing
import _TestSupport

/// Grid limits: `--max-points` (default 2000) holds without `--force`, and `--force` lifts every
/// limit; what would not fit in memory is refused up front, naming the memory it would need and
/// the limit that leaves less (exit 2, nothing written), instead of dying in an allocation.
@Suite struct SweepLimitCLITests {
    static func out() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-limit-\(UUID().uuidString)")
    }

    /// 100 000 enter × 100 000 exit radii, every exit above every enter, + the seeds' reference:
    /// 10 000 000 001 points, about 920 GB at 92 bytes each.
    static let hugeGrid = ["--enter", "0:99999:1", "--exit", "100000:199999:1"]

    @Test func withoutForceTheLimitHoldsAndOffersForce() throws {
        for extra in [[], ["--max-points", "100000000"]] {
            let out = Self.out()
            let r = try runFencelab(["sweep"] + Self.hugeGrid + ["--out", out.path] + extra)
            #expect(r.status == 2, "\(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
            let limit = extra.isEmpty ? "2000" : "100000000"
            #expect(
                r.stderr.contains(
                    "the grid has 10000000001 points, more than the limit \(limit); narrow it or pass --force"),
                "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
    }

    /// With `--force` no count is a limit: a grid past what was a hidden 10⁷-point cap is refused
    /// only because it would not fit in memory, with the figures.
    @Test func withForceOnlyMemoryRefusesAndSaysHowMuch() throws {
        let out = Self.out()
        let r = try runFencelab(["sweep"] + Self.hugeGrid + ["--force", "--out", out.path])
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(!r.stderr.contains("pass --force"), "\(r.stderr)")
        let match = try #require(
            r.stderr.firstMatch(
                of:
                    /the grid has 10000000001 points: the sweep would need about ([0-9.]+) GB of memory \(≈ ([0-9]+) bytes per point\), more than the [0-9.]+ [MGT]B that (ulimit -v|ulimit -d|cgroup memory limit|available memory) leaves/
            ), "\(r.stderr)")
        let gigabytes = try #require(Double(match.1))
        let perPoint = try #require(Double(match.2))
        #expect(abs(gigabytes - 10_000_000_001 * perPoint / 1e9) <= 0.11, "\(gigabytes) GB")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    /// `--force` lifts the 10⁶-value cap of a range too: a long enter range with few valid points
    /// runs; without `--force` it is refused offering it.
    @Test func forceLiftsTheRangeLimit() throws {
        let args = [
            "sweep", "scenarios/edge-loiter-100m.json", "--enter", "99.9:200:0.00005", "--exit", "100:100:1",
            "--replicates", "1",
        ]
        let refused = try runFencelab(args + ["--out", Self.out().path])
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(refused.stderr.contains("has more than 1000000 values; use a larger STEP or pass --force"))
        let out = Self.out()
        defer { try? FileManager.default.removeItem(at: out) }
        let r = try runFencelab(args + ["--force", "--out", out.path])
        #expect(r.status == 0 || r.status == 1, "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("sweep.json").path))
    }

    /// Under an address-space limit of 600 MB (`ulimit -v` in the child's shell), a grid of
    /// 9.9 × 10⁶ points (about 911 MB) is refused naming the limit, before anything is
    /// allocated or written; skipped, with the reason, where the limit cannot be set.
    @Test func aGridTooLargeForUlimitIsRefusedUpFront() throws {
        let fencelab = TestPaths.product("fencelab").path
        let probe = try runProcess(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "ulimit -v 600000 && exec '\(fencelab)' --version"],
            currentDirectory: TestPaths.packageRoot)
        try #require(
            probe.status == 0, "SKIPPED: fencelab cannot start under ulimit -v 600000 here: \(probe.stderr)")
        let out = Self.out()
        // 990 enter × 1000 exit radii × 10 accuracy gates = 9 900 000 points (+ the reference).
        let sweep = [
            "sweep", "scenarios/edge-loiter-100m.json", "--enter", "0:989:1", "--exit", "1000:1999:1",
            "--max-accuracy", "10,20,30,40,50,60,70,80,90,100", "--force", "--out", out.path,
        ]
        let r = try runProcess(
            URL(fileURLWithPath: "/bin/sh"),
            ["-c", "ulimit -v 600000 && exec '\(fencelab)' \(sweep.map { "'\($0)'" }.joined(separator: " "))"],
            currentDirectory: TestPaths.packageRoot)
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(r.stderr.contains("the grid has 9900001 points: the sweep would need about"), "\(r.stderr)")
        #expect(r.stderr.contains("that ulimit -v leaves"), "\(r.stderr)")
        #expect(!r.stderr.contains("failed to allocate"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }
}
