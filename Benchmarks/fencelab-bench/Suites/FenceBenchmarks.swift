import FenceLabBench
import GeoPolicy

/// Validate + haversine + hysteresis per fix: the engine's scalar path and its batch API.
enum FenceBenchmarks {
    static let all: [Benchmark] = [scalar, batch]

    /// Per fix: `Coordinate.isValid`, accuracy gate, `Haversine.centralAngle_rad`, hysteresis.
    static let scalar = Benchmark(
        "fence/validate-haversine-hysteresis/scalar", group: "fence",
        itemsPerRun: ReferenceKernels.fixesPerRun, unit: "fix",
        reference: ReferenceKernels.fenceScalar.name, target: "≥ 0.9× C",
        noise: 0.15  // ratio 0.88–0.977 (2026-11-29 and 11-30 runs, load 1–19)
    ) {
        let w = Workloads.FenceFixes(count: ReferenceKernels.fixesPerRun, seed: 8)
        let rule = Hysteresis.seedDefault
        return { Double(scalarPass(w, rule: rule)) }
    }

    /// `GeoPolicy.FenceBatch` over the same contiguous arrays (same decisions as the scalar path).
    static let batch = Benchmark(
        "fence/validate-haversine-hysteresis/batch", group: "fence",
        itemsPerRun: ReferenceKernels.fixesPerRun, unit: "fix",
        reference: ReferenceKernels.fenceScalar.name, target: "≥ 2× C scalar",
        noise: 0.20  // ratio 2.50–2.94 (2026-11-29 and 11-30 runs, load 1–19)
    ) {
        let w = Workloads.FenceFixes(count: ReferenceKernels.fixesPerRun, seed: 8)
        let c = Workloads.fenceCenter
        let fence: FenceBatch
        do {
            fence = FenceBatch(center: try Coordinate(latitude: c.latitude, longitude: c.longitude), rule: .seedDefault)
        } catch { fatalError("fencelab-bench: fence centre: \(error)") }
        var state = FenceState.unknown
        let changes = fence.run(latitude: w.latitude, longitude: w.longitude, accuracy_m: w.accuracy_m, state: &state)
        if changes != scalarPass(w, rule: .seedDefault) {
            printError("fencelab-bench: FenceBatch disagrees with the scalar path on the workload")
        }
        return {
            var s = FenceState.unknown
            return Double(fence.run(latitude: w.latitude, longitude: w.longitude, accuracy_m: w.accuracy_m, state: &s))
        }
    }

    /// The scalar engine path over the workload; returns the number of state changes.
    static func scalarPass(_ w: Workloads.FenceFixes, rule: Hysteresis) -> Int {
        let c = Workloads.fenceCenter
        let radius_m = EarthModel.sphereRadius_m
        var state = FenceState.unknown
        var changes = 0
        w.latitude.withUnsafeBufferPointer { lat in
            w.longitude.withUnsafeBufferPointer { lon in
                w.accuracy_m.withUnsafeBufferPointer { acc in
                    let maxAccuracy_m = rule.maxAccuracy_m
                    for i in 0..<lat.count {
                        guard Coordinate.isValid(latitude: lat[i], longitude: lon[i]) else { continue }
                        // The accuracy gate before the distance, as the C kernel (and an app) does:
                        // a fix the rule will not count needs no haversine.
                        let a = acc[i]
                        guard a.isFinite, a >= 0, a <= maxAccuracy_m else { continue }
                        let d =
                            Haversine.centralAngle_rad(
                                latitude1: c.latitude, longitude1: c.longitude,
                                latitude2: lat[i], longitude2: lon[i]) * radius_m
                        let next = rule.next(previous: state, distance_m: d, accuracy_m: acc[i])
                        if next != state {
                            changes += 1
                            state = next
                        }
                    }
                }
            }
        }
        return changes
    }
}
