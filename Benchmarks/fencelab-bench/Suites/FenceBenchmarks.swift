import GeoPolicy

/// Validate + haversine + hysteresis per fix: the engine's scalar path and a batch prototype.
enum FenceBenchmarks {
    static let all: [Benchmark] = [scalar, batch]

    /// Per fix: `Coordinate.isValid`, accuracy gate, `Haversine.centralAngle_rad`, hysteresis.
    static let scalar = Benchmark(
        "fence/validate-haversine-hysteresis/scalar", group: "fence",
        itemsPerRun: ReferenceKernels.fixesPerRun, unit: "fix",
        reference: ReferenceKernels.fenceScalar.name, target: "≥ 0.9× C"
    ) {
        let w = Workloads.FenceFixes(count: ReferenceKernels.fixesPerRun, seed: 8)
        // After the merge: `let rule = Hysteresis(enter: 80, exit: 120, maxAccuracy: 30)` (engine rule).
        let rule = InlineHysteresis(enter_m: 80, exit_m: 120, maxAccuracy_m: 30)
        return { Double(scalarPass(w, rule: rule)) }
    }

    /// The batch prototype (`BatchFence`) over the same contiguous arrays.
    static let batch = Benchmark(
        "fence/validate-haversine-hysteresis/batch", group: "fence",
        itemsPerRun: ReferenceKernels.fixesPerRun, unit: "fix",
        reference: ReferenceKernels.fenceScalar.name, target: "≥ 2× C scalar"
    ) {
        let w = Workloads.FenceFixes(count: ReferenceKernels.fixesPerRun, seed: 8)
        let c = Workloads.fenceCenter
        let fence = BatchFence(centerLatitude: c.latitude, centerLongitude: c.longitude,
                               enter_m: 80, exit_m: 120, maxAccuracy_m: 30)
        let expected = scalarPass(w, rule: InlineHysteresis(enter_m: 80, exit_m: 120, maxAccuracy_m: 30))
        var state = FenceState.unknown
        let got = fence.run(latitude: w.latitude, longitude: w.longitude, accuracy_m: w.accuracy_m, state: &state)
        if got != expected {
            printError("fencelab-bench: batch prototype disagrees with scalar path: \(got) vs \(expected) changes")
        }
        return {
            var s = FenceState.unknown
            return Double(fence.run(latitude: w.latitude, longitude: w.longitude,
                                    accuracy_m: w.accuracy_m, state: &s))
        }
    }

    /// The scalar engine path over the workload; returns the number of state changes.
    static func scalarPass(_ w: Workloads.FenceFixes, rule: InlineHysteresis) -> Int {
        let c = Workloads.fenceCenter
        let radius_m = EarthModel.sphereRadius_m
        var state = FenceState.unknown
        var changes = 0
        w.latitude.withUnsafeBufferPointer { lat in
            w.longitude.withUnsafeBufferPointer { lon in
                w.accuracy_m.withUnsafeBufferPointer { acc in
                    for i in 0..<lat.count {
                        guard Coordinate.isValid(latitude: lat[i], longitude: lon[i]),
                              rule.accepts(accuracy_m: acc[i]) else { continue }
                        let d = Haversine.centralAngle_rad(
                            latitude1: c.latitude, longitude1: c.longitude,
                            latitude2: lat[i], longitude2: lon[i]) * radius_m
                        let next = rule.next(previous: state, distance_m: d)
                        if next != state { changes += 1; state = next }
                    }
                }
            }
        }
        return changes
    }
}

/// STAND-IN for the engine's `Hysteresis` fence rule (seed 000) until it is merged:
/// inside at d ≤ enter, outside at d ≥ exit, previous state in between; a fix counts
/// only with a finite accuracy within 0…maxAccuracy_m.
struct InlineHysteresis: Sendable {
    let enter_m: Double, exit_m: Double, maxAccuracy_m: Double

    @inline(__always)
    func accepts(accuracy_m a: Double) -> Bool { a.isFinite && a >= 0 && a <= maxAccuracy_m }

    @inline(__always)
    func next(previous: FenceState, distance_m d: Double) -> FenceState {
        if d <= enter_m { return .inside }
        if d >= exit_m { return .outside }
        return previous
    }
}
