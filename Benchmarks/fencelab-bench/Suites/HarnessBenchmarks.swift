import DriveSim
import FenceLab
import FenceLabBench
import Foundation
import GeoPolicy

/// Whole-harness throughput: a catalog scenario end to end, and the external-engine path.
enum HarnessBenchmarks {
    static let all: [Benchmark] = [endToEnd, externalEngine]

    /// The package root: the nearest folder at or above the working directory holding
    /// Package.swift, else the one this source file was built from.
    static var packageRoot: URL {
        var url = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        while url.path != "/" {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
            url.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }

    static let scenario = "scenarios/highway-seed004.json"
    static let replicates = 4

    /// `ScenarioRunner.run` on `highway-seed004` (4 replicates × 3000 slots, one job):
    /// generation, fence decisions, Kalman + RTS, seed filter, gap fill, metrics and report.
    /// Items = sample slots generated.
    static let endToEnd = Benchmark(
        "harness/highway-seed004-end-to-end", group: "harness", itemsPerRun: 3_000 * replicates, unit: "fix",
        target: "tracked", noise: 3.2, maxSamples: 9,  // items/s 4.0e4–1.66e5 in 16 runs (load 12–20)
        instructions: .counted(calls: 1)  // ≈ 1.9e8 instructions per call
    ) {
        var request = RunRequest()
        request.paths = [packageRoot.appendingPathComponent(scenario).path]
        request.replicates = replicates
        request.jobs = 1
        let prepared: [PreparedScenario]
        do { prepared = try ScenarioRunner.prepare(request) } catch {
            fatalError("fencelab-bench: harness: cannot load \(scenario): \(error)")
        }
        precondition(
            prepared.count == 1 && prepared[0].spec.sampling.sampleCount == 3_000,
            "fencelab-bench: \(scenario) no longer has 3000 slots; update itemsPerRun")
        return {
            do { return Double(try ScenarioRunner.run(prepared, request: request).scenarios.count) } catch {
                fatalError("fencelab-bench: harness run failed: \(error)")
            }
        }
    }

    static let engineFixes = 100_000

    /// The engine command: `fencelab engine-serve` next to this binary, else this binary's own
    /// `--engine-serve` (the same `EngineServer.serve` code, for a `swift run fencelab-bench`
    /// that did not build `fencelab`).
    static func engineCommand() -> String {
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let own = exe.path.hasPrefix("/proc") ? URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL : exe
        let fencelab = own.deletingLastPathComponent().appendingPathComponent("fencelab")
        if FileManager.default.isExecutableFile(atPath: fencelab.path) {
            return "'\(fencelab.path)' engine-serve"
        }
        printError(
            "fencelab-bench: harness/external-engine: no fencelab binary next to \(own.path); using \(own.lastPathComponent) --engine-serve"
        )
        return "'\(own.path)' --engine-serve"
    }

    /// `ExternalEngine.run` with the built-in wrapper on 10⁵ fixes: encode, spawn, pipe both ways,
    /// the engine's parse + FenceMonitor + answer, decode. Items = fixes answered.
    static let externalEngine = Benchmark(
        "harness/external-engine-builtin", group: "harness", itemsPerRun: engineFixes, unit: "fix",
        target: "≥ 2e5 fixes/s", noise: 4.4, maxSamples: 7,  // items/s 1.1e5–5.8e5 in 16 runs (load 12–20)
        instructions: .notCounted(
            reason:
                "waits on a child process through pipes: the polling depends on timing, and the engine's own work runs in another process"
        )
    ) {
        let w = Workloads.FenceFixes(count: engineFixes, seed: 41)
        let fixes = (0..<w.count).map {
            Fix(
                timestamp_s: Double($0), latitude: w.latitude[$0], longitude: w.longitude[$0],
                horizontalAccuracy_m: w.accuracy_m[$0])
        }
        let now = fixes.map { $0.timestamp_s + 0.25 }
        let center: Coordinate
        do {
            center = try Coordinate(
                latitude: Workloads.fenceCenter.latitude, longitude: Workloads.fenceCenter.longitude)
        } catch {
            fatalError("\(error)")
        }
        let fence = EngineFence(
            center: center,
            rule: [
                "kind": .string("hysteresis"), "enter_m": .number(80),
                "exit_m": .number(120), "maxAccuracy_m": .number(30),
            ],
            rulesVersion: "hysteresis-80-120-acc30")
        let engine = ExternalEngine(command: engineCommand(), perFixTimeout_s: 1)
        return {
            do {
                let answers = try engine.run(fence: fence, fixes: fixes, now_s: now)
                return Double(answers.reduce(0) { $0 + ($1.state == .inside ? 1 : 0) })
            } catch {
                fatalError("fencelab-bench: external engine failed: \(error)")
            }
        }
    }
}
