import Foundation
import Testing
import _TestSupport

/// Shards merge only when every setting that changes a result is the same; a mismatch names the
/// setting and both values.
@Suite struct MergeSettingsCLITests {
    static let sweep = [
        "sweep", "scenarios/tuning/walk-in.json", "--enter", "50:60:10", "--exit", "100:100:10", "--replicates", "2",
    ]

    @Test(arguments: [
        (["--match-slack", "30"], "a different setting --match-slack", "(60.0 vs 30.0)"),
        (["--min-recall", "0.5"], "a different setting --min-recall", "(0.95 vs 0.5)"),
        (["--weight", "walk-in=2"], "a different weight", "(walk-in: 1.0 vs 2.0)"),
        ([], "", ""),
    ])
    func shardsOfDifferentSettingsAreRefused(extra: [String], what: String, values: String) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-merge-\(UUID().uuidString)")
        let s0 = try runFencelab(Self.sweep + ["--shard", "0/2", "--out", dir.path + "/shards/s0"])
        let s1 = try runFencelab(Self.sweep + extra + ["--shard", "1/2", "--out", dir.path + "/shards/s1"])
        #expect(s0.status == 0 && s1.status == 0, "\(s0.stderr) \(s1.stderr)")
        let m = try runFencelab(["merge", dir.path + "/shards", "--out", dir.path + "/merged"])
        if extra.isEmpty {
            #expect(m.status == 0, "\(m.stderr)")
            return
        }
        #expect(m.status == 2)
        let lines = m.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains(what) && lines[0].contains(values), "\(m.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/merged"))
    }
}
