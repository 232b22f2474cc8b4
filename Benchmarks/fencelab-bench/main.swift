// fencelab-bench: FenceLab's performance-regression suite, a user of the FenceLabBench kit
// (in-run C reference kernels, deterministic instruction counts under callgrind).
import FenceLab
import FenceLabBench
import Foundation

/// Every benchmark of the suite, in display order. To add one: write a `static let` in a file
/// under `Suites/` and list its group here.
let rows: [Benchmark] =
    ReferenceKernels.all
    + PlacesBenchmarks.kernels
    + FenceBenchmarks.all
    + GeoBenchmarks.all
    + RandomBenchmarks.all
    + KalmanBenchmarks.all
    + GeneratorBenchmarks.all
    + HarnessBenchmarks.all
    + ReplayBenchmarks.all
    + AllocationBenchmarks.all
    + SweepBenchmarks.all
    + PlacesBenchmarks.all

let tool = BenchTool(
    name: "fencelab-bench",
    summary: """
        fencelab-bench times the FenceLab engine against C reference kernels measured in the same
        run (Benchmarks/CReference).
        """,
    rows: rows)

/// Hidden `--engine-serve`: the same `EngineServer.serve` session as `fencelab engine-serve`,
/// for the external-engine benchmark when no `fencelab` binary sits next to this one.
func engineServeMain() -> Int32 {
    let out = FileHandle.standardOutput
    do {
        try EngineServer.serve(nextLine: { readLine(strippingNewline: true) }, write: { out.write(Data($0.utf8)) })
        return 0
    } catch {
        printError("fencelab-bench --engine-serve: \(error)")
        return 2
    }
}

func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

let arguments = Array(CommandLine.arguments.dropFirst())
exit(arguments == ["--engine-serve"] ? engineServeMain() : tool.main(arguments))
