import GeoPolicy
import GSLKit

/// Generates the delivered fix stream of one replicate of a scenario, one item at a time.
///
/// Streams: nothing is materialised (a 24 h 10 Hz drive costs the memory of one item) unless
/// `collect()` / `generate(spec:replicate:)` is asked for. Each replicate owns four GSL
/// generators (route, noise, accuracy, faults) seeded by `SeedDerivation`, so the same spec and
/// replicate give a byte-identical stream whatever the run order or thread, and faults can be
/// switched on or off without changing the noise. Per-item work allocates nothing.
///
/// A value type holding reference-type generators: iterate one copy only.
public struct ScenarioGenerator: IteratorProtocol {
    public let spec: ScenarioSpec
    public let replicate: Int
    /// Seeds and generator for reports.
    public let provenance: GenerationProvenance
    /// Number of sample slots, floor(duration_s · rate_hz).
    public let sampleCount: Int
    /// Seconds between sample slots.
    public let interval_s: Double

    let routeRNG: RandomSource
    let noiseRNG: RandomSource
    let accuracyRNG: RandomSource
    let faultRNG: RandomSource
    var route: RouteSampler
    var noise: NoiseProcess
    let accuracy: AccuracyProcess
    var faults: FaultProcess
    var slot = 0
    var sequence = 0
    var pending: GeneratedSample?
    var heldFix: Fix?
    var heldTruth: Coordinate?
    /// Ring of the last `staleAgeSamples + 1` fresh fixes (allocated once), for stale re-deliveries.
    var history: [Fix?]
    var historyTruth: [Coordinate?]
    let staleAgeSamples: Int

    /// - Parameters:
    ///   - spec: a decoded (valid) scenario.
    ///   - replicate: 0..<spec.replicates.
    /// - Throws: `ScenarioError.invalidReplicate`, or `.generator` if GSL cannot allocate a generator.
    public init(spec: ScenarioSpec, replicate: Int) throws(ScenarioError) {
        guard replicate >= 0, replicate < spec.replicates else {
            throw .invalidReplicate(scenario: spec.name, replicate: replicate, replicates: spec.replicates)
        }
        self.spec = spec
        self.replicate = replicate
        let seed = SeedDerivation.replicateSeed(scenarioSeed: spec.seed, replicate: replicate)
        let streams = (0..<4).map { SeedDerivation.streamSeed(replicateSeed: seed, stream: UInt64($0)) }
        do {
            routeRNG = try RandomSource(kind: spec.generator, seed: streams[0])
            noiseRNG = try RandomSource(kind: spec.generator, seed: streams[1])
            accuracyRNG = try RandomSource(kind: spec.generator, seed: streams[2])
            faultRNG = try RandomSource(kind: spec.generator, seed: streams[3])
        } catch {
            throw .generator(scenario: spec.name, reason: error.description)
        }
        provenance = GenerationProvenance(generator: spec.generator.rawValue, replicateSeed: seed,
                                          streamSeeds: streams, gslVersion: GSLRuntime.version)
        sampleCount = spec.sampling.sampleCount
        interval_s = spec.sampling.interval_s
        route = RouteSampler(spec: spec, dt_s: interval_s)
        noise = NoiseProcess(spec: spec.noise, dt_s: interval_s, rng: noiseRNG)
        accuracy = AccuracyProcess(spec: spec.accuracy, noise: spec.noise)
        faults = FaultProcess(spec: spec.faults, rng: faultRNG)
        if spec.faults.staleProbability > 0 {
            staleAgeSamples = max(1, Int((spec.faults.staleAge_s * spec.sampling.rate_hz).rounded()))
        } else {
            staleAgeSamples = 0
        }
        history = staleAgeSamples > 0 ? Array(repeating: nil, count: staleAgeSamples + 1) : []
        historyTruth = history.map { _ in nil }
    }

    /// The next delivered item, or nil at the end of the scenario.
    
    public mutating func next() -> GeneratedSample? {
        if var p = pending {
            pending = nil
            p.sequence = sequence
            sequence += 1
            return p
        }
        guard slot < sampleCount else { return nil }
        var item = makeSample()
        item.sequence = sequence
        sequence += 1
        return item
    }
    
    @inline(__always)
    mutating func makeSample() -> GeneratedSample {
        let k = slot
        slot += 1
        let t = Double(k) * interval_s
        let truth = route.sample(k, rng: routeRNG)
        let error_m = noise.draw(rng: noiseRNG, alongTrack: truth.alongTrack)
        let reported = accuracy.draw(rng: accuracyRNG)
        let gap = faults.inGap(t, rng: faultRNG)
        let chosen = faults.choose(rng: faultRNG)

        let observed = SphereStep.offsetDegrees(latitude: truth.coordinate.latitude, longitude: truth.coordinate.longitude,
                                                unit: truth.unit, basis: truth.basis, offset_m: error_m)
        let fix = Fix(timestamp_s: t, latitude: observed.latitude, longitude: observed.longitude,
                      horizontalAccuracy_m: reported.value_m)
        var item = GeneratedSample(sequence: 0, sampleIndex: k, time_s: t, truth: truth.coordinate,
                                   truthSpeed_mps: truth.speed_mps, truthHeading: truth.heading,
                                   fix: fix, fixTruth: truth.coordinate,
                                   fault: reported.invalid ? .invalidValue : .none)
        if staleAgeSamples > 0 {
            history[k % history.count] = gap ? nil : fix
            historyTruth[k % history.count] = truth.coordinate
        }
        if gap {
            item.fix = nil
            item.fixTruth = nil
            item.fault = .gap
            releaseHeld(at: item)
            return item
        }
        if heldFix != nil {
            // The slot after a delayed fix: deliver this fresh fix, then the late one.
            releaseHeld(at: item)
            return item
        }
        applyFault(chosen, to: &item, slot: k)
        return item
    }

    /// Queues the fix held back by an out-of-order fault for delivery right after `item`.
    
    mutating func releaseHeld(at item: GeneratedSample) {
        guard let h = heldFix else { return }
        pending = GeneratedSample(sequence: 0, sampleIndex: item.sampleIndex, time_s: item.time_s, truth: item.truth,
                                  truthSpeed_mps: item.truthSpeed_mps, truthHeading: item.truthHeading,
                                  fix: h, fixTruth: heldTruth, fault: .outOfOrder)
        heldFix = nil
        heldTruth = nil
    }
    
    mutating func applyFault(_ chosen: SampleFault, to item: inout GeneratedSample, slot k: Int) {
        switch chosen {
        case .none:
            break
        case .stale:
            let i = (k - staleAgeSamples) % history.count
            if k >= staleAgeSamples, let old = history[i] {
                item.fix = old
                item.fixTruth = historyTruth[i]
                item.fault = .stale
            }
        case .outOfOrder:
            // Not on the last slot: there would be no successor to overtake it.
            if k < sampleCount - 1 {
                heldFix = item.fix
                heldTruth = item.fixTruth
                item.fix = nil
                item.fixTruth = nil
                item.fault = .delayed
            }
        case .duplicate:
            var copy = item
            copy.fault = .duplicate
            pending = copy
        case .jitter:
            item.fix?.timestamp_s += faultRNG.gaussianZiggurat(sigma: faults.jitterSigma_s)
            item.fault = .timestampJitter
        case .invalid:
            switch faultRNG.uniformInt(below: 5) {
            case 0: item.fix?.latitude = .nan
            case 1: item.fix?.latitude = 91
            case 2: item.fix?.longitude = 181
            case 3: item.fix?.horizontalAccuracy_m = -1
            default: item.fix?.horizontalAccuracy_m = .nan
            }
            item.fault = .invalidValue
        }
    }

    /// The rest of the stream as an array.
    public mutating func collect() -> [GeneratedSample] {
        var out: [GeneratedSample] = []
        out.reserveCapacity(sampleCount + sampleCount / 8)
        while let s = next() { out.append(s) }
        return out
    }

    /// A whole replicate in memory.
    public static func generate(spec: ScenarioSpec, replicate: Int) throws(ScenarioError) -> GeneratedReplicate {
        var g = try ScenarioGenerator(spec: spec, replicate: replicate)
        return GeneratedReplicate(scenario: spec.name, replicate: replicate, provenance: g.provenance, samples: g.collect())
    }
}
