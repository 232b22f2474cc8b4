import Foundation
import Testing
import _TestSupport

/// `fencelab accept --device-logs` and `fencelab fleet-example` through the built binary.
@Suite struct FleetCLITests {
    static let scenario = "scenarios/urban-canyon.json"
    static let fence = "52.52,13.405"

    static func tempDir() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-fleet-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func accept(_ extra: [String], dir: URL) throws -> ProcessResult {
        try runFencelab(
            [
                "accept", scenario, "--replicates", "2", "--fence", fence, "--out",
                dir.appendingPathComponent("acc").path,
                "--fleet-out", dir.appendingPathComponent("fleet").path,
            ] + extra)
    }

    @Test func shippedFleetIsTheGeneratorsOutput() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("fleet")
        let r = try runFencelab(["fleet-example", "--out", out.path])
        #expect(r.status == 0, "\(r.stderr)")
        let shipped = TestPaths.packageRoot.appendingPathComponent("scenarios/fleet")
        for name in ["manifest.csv", "manifest-no-regression.csv", "logs/pixel-7-android-14-2.3.1-0.csv"] {
            let a = try Data(contentsOf: out.appendingPathComponent(name))
            let b = try Data(contentsOf: shipped.appendingPathComponent(name))
            #expect(a == b, "\(name) differs from the generator's output")
        }
        let logs = try FileManager.default.contentsOfDirectory(atPath: out.appendingPathComponent("logs").path).sorted()
        let shippedLogs = try FileManager.default.contentsOfDirectory(
            atPath: shipped.appendingPathComponent("logs").path
        ).sorted()
        #expect(logs == shippedLogs)
        // Refuses to overwrite.
        let again = try runFencelab(["fleet-example", "--out", out.path])
        #expect(again.status == 2 && again.stderr.contains("exists"))
    }

    @Test func gateFindsTheRegressionAndNamesTheCohort() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try Self.accept(
            [
                "--device-logs", "scenarios/fleet/manifest.csv", "--compare", "app=2.3.0..2.3.1", "--gate",
                "delay_median_s:15", "--jobs", "2",
            ], dir: dir)
        #expect(r.status == 1, "\(r.stdout)\n\(r.stderr)")
        let fails = r.stdout.split(separator: "\n").filter { $0.hasPrefix("GATE FAIL") }
        #expect(fails.count == 1)
        #expect(fails.first?.hasPrefix("GATE FAIL delay_median_s in device=pixel-7, os=android-14:") == true)
        let json = try #require(
            JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("fleet/report.json")))
                as? [String: Any])
        #expect(json["gate_passed"] as? Bool == false)
        #expect(json["failing_cohorts"] as? [String] == ["delay_median_s in device=pixel-7, os=android-14"])
        #expect(json["logs"] as? Int == 80)
        let comparison = try #require(json["comparison"] as? [String: Any])
        let rows = try #require(comparison["rows"] as? [[String: Any]])
        let row = try #require(
            rows.first {
                $0["figure"] as? String == "delay_median_s"
                    && $0["stratum"] as? String == "device=pixel-7, os=android-14"
            })
        let difference = try #require(row["difference"] as? [String: Any])
        // Injected: +40 s on every event of that cohort; the per-log medians of the two builds
        // come from the same seeds otherwise, so the difference is 40 s within the noise of 8 events.
        let d = try #require(difference["estimate"] as? Double)
        #expect(abs(d - 40) < 5, "difference \(d) s")
        let junit = try String(contentsOf: dir.appendingPathComponent("fleet/junit.xml"), encoding: .utf8)
        #expect(junit.components(separatedBy: "<testcase ").count - 1 == 5)
        #expect(junit.components(separatedBy: "<failure ").count - 1 == 1)
        let html = try String(contentsOf: dir.appendingPathComponent("fleet/index.html"), encoding: .utf8)
        #expect(html.contains("<svg") && html.contains("replay-1.html"))
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("fleet/replay-1.html").path))
        // The acceptance report judges no fleet log, and says where the fleet's 80 went instead of
        // "no device log".
        #expect(r.stdout.contains("Device level: not verified (no --device-log; 80 fleet logs in the fleet report)"))
        let acceptance = try #require(
            JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("acc/report.json")))
                as? [String: Any])
        let device = try #require((acceptance["acceptance"] as? [String: Any])?["device"] as? [String: Any])
        #expect(device["status"] as? String == "not-verified")
        #expect(device["logs"] as? [String] == [])
        let note = try #require(device["note"] as? String)
        #expect(note.contains("the 80 logs of --device-logs"))
        #expect(note.contains(dir.appendingPathComponent("fleet/index.html").path))
        #expect(!note.contains("No device log was replayed"))
        // Same bytes with one job.
        let dir1 = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir1) }
        let r1 = try Self.accept(
            [
                "--device-logs", "scenarios/fleet/manifest.csv", "--compare", "app=2.3.0..2.3.1", "--gate",
                "delay_median_s:15", "--jobs", "1",
            ], dir: dir1)
        #expect(r1.status == 1)
        for name in ["report.json", "junit.xml", "index.html", "report.md"] {
            let a = try Data(contentsOf: dir.appendingPathComponent("fleet/" + name))
            let b = try Data(contentsOf: dir1.appendingPathComponent("fleet/" + name))
            #expect(a == b, "\(name) depends on --jobs")
        }
    }

    @Test func gatePassesWithoutTheRegression() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try Self.accept(
            [
                "--device-logs", "scenarios/fleet/manifest-no-regression.csv", "--compare", "app=2.3.0..2.3.1",
                "--gate",
                "delay_median_s:15",
            ], dir: dir)
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        #expect(r.stdout.contains("Fleet gate: passed"))
    }

    /// Each bad input: exit 2 (64 for a malformed option), one stderr line naming the line or option,
    /// nothing written.
    @Test func badInputWritesNothing() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let logs = dir.appendingPathComponent("logs")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        let source = TestPaths.packageRoot.appendingPathComponent("scenarios/fleet/logs/pixel-7-android-14-2.3.0-0.csv")
        try FileManager.default.copyItem(at: source, to: logs.appendingPathComponent("a.csv"))
        try FileManager.default.copyItem(at: source, to: logs.appendingPathComponent("b.csv"))
        func manifest(_ text: String) throws -> String {
            let path = dir.appendingPathComponent("m-\(UUID().uuidString).csv")
            try Data(text.utf8).write(to: path)
            return path.path
        }
        let good = try manifest("file,device,os,app\nlogs/a.csv,p7,a14,2.3.0\nlogs/b.csv,p7,a14,2.3.1\n")
        let cases: [([String], Int32, String)] = [
            (
                [
                    "--device-logs",
                    try manifest("file,device,os,app\nlogs/a.csv,p7,a14,2.3.0\nlogs/zz.csv,p7,a14,2.3.1\n"),
                ], 2,
                ":3: file logs/zz.csv does not exist"
            ),
            (
                [
                    "--device-logs",
                    try manifest("file,device,os,app\nlogs/a.csv,p7,a14,2.3.0\nlogs/a.csv,p7,a14,2.3.1\n"),
                ], 2,
                ":3: duplicate file logs/a.csv"
            ),
            (
                [
                    "--device-logs",
                    try manifest("file,device,os,app,place\nlogs/a.csv,p7,a14,2.3.0,home\nlogs/b.csv,p7,a14,2.3.1,\n"),
                ], 2,
                ":3: cohort key place absent from some logs"
            ),
            (
                ["--device-logs", good, "--compare", "app=2.3.0..9.9"], 2,
                "--compare app=2.3.0..9.9: no log has app=9.9"
            ),
            (["--device-logs", good, "--compare", "model=a..b"], 2, "--compare model=a..b: no cohort key model"),
            (
                ["--device-logs", good, "--compare", "app=2.3.0..2.3.1", "--gate", "speed_kmh:3"], 2,
                "--gate speed_kmh: unknown figure"
            ),
            (
                ["--device-logs", good, "--compare", "app=2.3.0..2.3.1", "--gate", "delay_median_s:fast"], 64,
                "--gate delay_median_s:fast"
            ),
            (["--device-logs", good, "--compare", "app"], 64, "--compare app: expected KEY=A..B"),
            (
                ["--device-logs", good, "--compare", "app=2.3.0..2.3.1", "--gate", "nis_above_p95_fraction:0.01"], 2,
                "--gate nis_above_p95_fraction: raw input has no filter innovations"
            ),
        ]
        for (extra, status, message) in cases {
            let r = try Self.accept(extra, dir: dir)
            #expect(r.status == status, "\(extra): \(r.stderr)")
            let lines = r.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains(message), "\(extra): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("acc").path))
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("fleet").path))
        }
    }

    /// `--places` is refused with `--device-logs` (one --fence for every log), and
    /// `fleet-example --logs-per-cohort` takes a positive count; nothing written.
    @Test func unsupportedAndMalformedOptionsWriteNothing() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let places = dir.appendingPathComponent("places.csv")
        try Data("id,latitude,longitude\nhome,52.52,13.405\n".utf8).write(to: places)
        let r = try runFencelab([
            "accept", Self.scenario, "--replicates", "2", "--device-logs", "scenarios/fleet/manifest.csv", "--places",
            places.path, "--out", dir.appendingPathComponent("acc").path, "--fleet-out",
            dir.appendingPathComponent("fleet").path,
        ])
        #expect(r.status == 64, "\(r.stderr)")
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("--places is not supported with --device-logs"), "\(r.stderr)")
        for bad in ["0", "x", "-3"] {
            let out = dir.appendingPathComponent("example-\(bad)")
            let e = try runFencelab(["fleet-example", "--out", out.path, "--logs-per-cohort", bad])
            #expect(e.status == 64, "\(bad): \(e.stderr)")
            #expect(e.stderr.split(separator: "\n").count == 1 && e.stderr.contains("--logs-per-cohort"), "\(e.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("acc").path))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("fleet").path))
    }

    /// A larger example fleet, and the NIS figure: null for raw input, a fraction with `+kalman`.
    @Test func largerExampleAndTheNISFigure() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let example = dir.appendingPathComponent("example")
        let e = try runFencelab(["fleet-example", "--out", example.path, "--logs-per-cohort", "1"])
        #expect(e.status == 0, "\(e.stderr)")
        let manifest = try String(contentsOf: example.appendingPathComponent("manifest.csv"), encoding: .utf8)
        #expect(manifest.split(separator: "\n").count == 1 + 8)
        func nis(_ rule: [String]) throws -> [String: Any] {
            let out = dir.appendingPathComponent("fleet-\(rule.count)")
            let r = try runFencelab(
                [
                    "accept", Self.scenario, "--replicates", "2", "--fence", Self.fence, "--device-logs",
                    example.appendingPathComponent("manifest.csv").path, "--out",
                    dir.appendingPathComponent("acc-\(rule.count)").path, "--fleet-out", out.path,
                ] + rule)
            #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
            let json = try #require(
                JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("report.json")))
                    as? [String: Any])
            let overall = try #require(json["overall"] as? [String: Any])
            return try #require(overall["nis_above_p95_fraction"] as? [String: Any])
        }
        let raw = try nis([])
        #expect(raw["estimate"] is NSNull)
        let kalman = try nis(["--rule", "hysteresis:80:120:30+kalman"])
        let f = try #require(kalman["estimate"] as? Double)
        // 4 m noise per axis against a reported 8 m accuracy (σ 5.7 m per axis under the iOS
        // convention): the filter is not overconfident, few innovations above the 95 % quantile.
        #expect(f >= 0 && f < 0.1, "NIS above the 95 % quantile: \(f)")
    }

    /// Peak RSS (GNU time's "Maximum resident set size", KiB) of a fleet run over `count` copies of one log.
    static func peakRSS_KiB(logs count: Int, dir: URL) throws -> Int {
        let folder = dir.appendingPathComponent("fleet-\(count)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("logs"), withIntermediateDirectories: true)
        let source = TestPaths.packageRoot.appendingPathComponent(
            "scenarios/fleet/logs/galaxy-s23-android-14-2.3.0-0.csv")
        var manifest = "file,device,os,app\n"
        for i in 0..<count {
            try FileManager.default.copyItem(at: source, to: folder.appendingPathComponent("logs/\(i).csv"))
            manifest += "logs/\(i).csv,d\(i % 4),os\(i % 3),\(i % 2 == 0 ? "2.3.0" : "2.3.1")\n"
        }
        try Data(manifest.utf8).write(to: folder.appendingPathComponent("manifest.csv"))
        let r = try runProcess(
            URL(fileURLWithPath: "/usr/bin/time"),
            [
                "-v", TestPaths.product("fencelab").path, "accept", scenario, "--replicates", "1", "--fence", fence,
                "--device-logs", folder.appendingPathComponent("manifest.csv").path, "--compare", "app=2.3.0..2.3.1",
                "--out", folder.appendingPathComponent("acc").path, "--fleet-out",
                folder.appendingPathComponent("out").path,
            ],
            currentDirectory: TestPaths.packageRoot)
        #expect(r.status == 0, "\(r.stderr)")
        let line = try #require(r.stderr.split(separator: "\n").first { $0.contains("Maximum resident set size") })
        return try #require(Int(line.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)))
    }

    /// Memory at a small scale: 400 logs need less than 8 MiB more than 40 (a summary per log is a few
    /// hundred bytes; the replays are dropped). docs/fleet.md has the measurement from 100 to 10 000.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time")))
    func memoryDoesNotGrowWithTheLogs() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let small = try Self.peakRSS_KiB(logs: 40, dir: dir)
        let large = try Self.peakRSS_KiB(logs: 400, dir: dir)
        #expect(large - small < 8 * 1024, "peak RSS \(small) KiB with 40 logs, \(large) KiB with 400")
    }
}
