// libFuzzer entry for DriveSim's strict scenario-file decoder (built by fuzz/run.sh).
// fuzz-sources: Sources/DriveSim/Scenario/*.swift Sources/DriveSim/Generation/PlaceSetGenerator.swift
// Any ScenarioError is a correct outcome; a crash, a hang or a sanitizer report is a bug.
// Properties checked beyond "no crash": an accepted spec has replicates >= 1 and a finite
// positive rate; an error's description is one bounded line that names the file.
// Seed corpus: the catalog (fuzz/corpus/scenario/ = copies of scenarios/*.json).
import GeoPolicy

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let spec = try ScenarioSpec.decode(bytes, file: "fuzz.json")
        // An accepted spec must be internally consistent enough to generate from.
        precondition(spec.replicates >= 1, "accepted a scenario with replicates < 1")
        precondition(spec.sampling.rate_hz > 0 && spec.sampling.rate_hz.isFinite, "accepted a non-positive rate")
    } catch {
        let text = error.description
        precondition(text.contains("fuzz.json"), "error does not name the file: \(text.prefix(200))")
        precondition(!text.contains("\n"), "error spans several lines")
        precondition(text.utf8.count <= 4096, "error message is unbounded (\(text.utf8.count) bytes)")
    }
    return 0
}
