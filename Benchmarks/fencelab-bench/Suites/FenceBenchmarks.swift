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
        let rule = Hysteresis.seedDefault
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
        for problem in selfCheck(fence, w) {
            printError("fencelab-bench: batch prototype: \(problem)")
        }
        return {
            var s = FenceState.unknown
            return Double(fence.run(latitude: w.latitude, longitude: w.longitude,
                                    accuracy_m: w.accuracy_m, state: &s))
        }
    }

    /// Checks the batch prototype against the scalar path (state after every chunk of
    /// 5 fixes, so both the SIMD and the tail code run) and its polynomial sin²/|cos|
    /// against libm on a grid over [−π, π]. Returns the problems found (none expected).
    static func selfCheck(_ fence: BatchFence, _ w: Workloads.FenceFixes) -> [String] {
        var problems: [String] = []
        let rule = Hysteresis.seedDefault
        let c = Workloads.fenceCenter
        var scalarState = FenceState.unknown, batchState = FenceState.unknown
        var start = 0
        while start < w.count && problems.isEmpty {
            let end = min(start + 5, w.count)
            for i in start..<end {
                guard Coordinate.isValid(latitude: w.latitude[i], longitude: w.longitude[i]) else { continue }
                let d = Haversine.centralAngle_rad(latitude1: c.latitude, longitude1: c.longitude,
                                                   latitude2: w.latitude[i], longitude2: w.longitude[i])
                scalarState = rule.next(previous: scalarState, distance_m: d * EarthModel.sphereRadius_m,
                                        accuracy_m: w.accuracy_m[i])
            }
            _ = fence.run(latitude: Array(w.latitude[start..<end]), longitude: Array(w.longitude[start..<end]),
                          accuracy_m: Array(w.accuracy_m[start..<end]), state: &batchState)
            if batchState != scalarState {
                problems.append("state after fix \(end - 1) is \(batchState), scalar path says \(scalarState)")
            }
            start = end
        }
        var worst = 0.0
        for k in -4000...4000 {
            let x = Double(k) / 4000 * Double.pi
            let v = SIMD4<Double>(repeating: x)
            let s = _sin(x), co = _cos(x)
            worst = max(worst, abs(SIMDTrig.sinSquared(v)[0] - s * s), abs(SIMDTrig.cosAbs(v)[0] - abs(co)))
        }
        if worst > 1e-15 { problems.append("polynomial sin²/|cos| off libm by \(worst) on [-π, π]") }
        return problems
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
                    for i in 0..<lat.count {
                        guard Coordinate.isValid(latitude: lat[i], longitude: lon[i]) else { continue }
                        let d = Haversine.centralAngle_rad(
                            latitude1: c.latitude, longitude1: c.longitude,
                            latitude2: lat[i], longitude2: lon[i]) * radius_m
                        let next = rule.next(previous: state, distance_m: d, accuracy_m: acc[i])
                        if next != state { changes += 1; state = next }
                    }
                }
            }
        }
        return changes
    }
}
