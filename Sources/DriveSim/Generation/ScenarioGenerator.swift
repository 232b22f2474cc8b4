import GSLKit
import GeoPolicy

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
    /// An item to deliver before the next slot (duplicate, late fix); valid when `hasPending`.
    var pending: GeneratedSample
    var hasPending = false
    /// A fix held back by an out-of-order fault; valid when `hasHeld`.
    var heldFix = GeneratedSample.noFix
    var heldTruth: Coordinate
    var hasHeld = false
    /// Ring of the last `staleAgeSamples + 1` fresh fixes (allocated once), for stale re-deliveries.
    var history: [Fix?]
    var historyTruth: [Coordinate?]
    let staleAgeSamples: Int
    /// Isotropic white noise (no tails, no bias), honest accuracy and no faults: the settings
    /// are decided once here and such samples take `makePlainSample`, which has no per-sample
    /// test of them. Draws and arithmetic are the general path's, in the same order.
    let isPlain: Bool

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
        provenance = GenerationProvenance(
            generator: spec.generator.rawValue, replicateSeed: seed,
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
        let origin = spec.fence.center
        pending = GeneratedSample(
            sequence: 0, sampleIndex: 0, time_s: 0, truth: origin, truthSpeed_mps: 0,
            truthHeading: .zero, fix: nil, fixTruth: nil, fault: .none)
        heldTruth = origin
        history = staleAgeSamples > 0 ? Array(repeating: nil, count: staleAgeSamples + 1) : []
        historyTruth = history.map { _ in nil }
        isPlain =
            noise.white == .gaussian && noise.tails == .none && !noise.hasBias
            && accuracy.misreportSigma == 0 && accuracy.invalidProbability == 0
            && !faults.anyGaps && !faults.anyPerSample && staleAgeSamples == 0
    }

    /// The next delivered item, or nil at the end of the scenario.
    public mutating func next() -> GeneratedSample? {
        var item = pending
        return next(into: &item) ? item : nil
    }

    /// The next delivered item written into `item` (no `Optional` round trip: the fast form for
    /// hot loops); false at the end of the scenario, leaving `item` unchanged.
    @inline(__always)
    public mutating func next(into item: inout GeneratedSample) -> Bool {
        if hasPending {
            hasPending = false
            item = pending
        } else {
            guard slot < sampleCount else { return false }
            makeSample(into: &item)
        }
        item.sequence = sequence
        sequence += 1
        return true
    }

    @inline(__always)
    mutating func makeSample(into item: inout GeneratedSample) {
        if isPlain {
            makePlainSample(into: &item)
            return
        }
        let k = slot
        slot += 1
        let t = Double(k) * interval_s
        let truth = route.sample(k, rng: routeRNG)
        let error_m = noise.draw(rng: noiseRNG, alongTrack: truth.alongTrack)
        let reported = accuracy.draw(rng: accuracyRNG)
        let gap = faults.anyGaps && faults.inGap(t, rng: faultRNG)
        let chosen = faults.anyPerSample ? faults.choose(rng: faultRNG) : .none

        let observed = SphereStep.offsetDegrees(
            latitude: truth.coordinate.latitude, longitude: truth.coordinate.longitude,
            unit: truth.unit, basis: truth.basis, offset_m: error_m)
        let fix = Fix(
            timestamp_s: t, latitude: observed.latitude, longitude: observed.longitude,
            horizontalAccuracy_m: reported.value_m)
        item.sampleIndex = k
        item.time_s = t
        item.truth = truth.coordinate
        item.truthSpeed_mps = truth.speed_mps
        item.truthHeading = truth.heading
        item.observed = fix
        item.observedTruth = truth.coordinate
        item.hasFix = true
        item.fault = reported.invalid ? .invalidValue : .none
        if staleAgeSamples > 0 {
            history[k % history.count] = gap ? nil : fix
            historyTruth[k % history.count] = truth.coordinate
        }
        if gap {
            item.fix = nil
            item.fault = .gap
            releaseHeld(at: item)
            return
        }
        if hasHeld {
            // The slot after a delayed fix: deliver this fresh fix, then the late one.
            releaseHeld(at: item)
            return
        }
        if chosen != .none { applyFault(chosen, to: &item, slot: k) }
    }

    /// `makeSample` when `isPlain`: the same route sample, two isotropic Gaussian draws, the
    /// constant reported accuracy, a fresh fix. Equal, value for value, to what the general path
    /// gives for such a scenario (the DriveSim tests pin both).
    @inline(__always)
    mutating func makePlainSample(into item: inout GeneratedSample) {
        let k = slot
        slot += 1
        let t = Double(k) * interval_s
        let truth = route.sample(k, rng: routeRNG)
        let sigma_m = noise.sigma_m
        let error_m = SIMD2(noiseRNG.gaussianZiggurat(sigma: sigma_m), noiseRNG.gaussianZiggurat(sigma: sigma_m))
        let observed = SphereStep.offsetDegrees(
            latitude: truth.coordinate.latitude, longitude: truth.coordinate.longitude,
            unit: truth.unit, basis: truth.basis, offset_m: error_m)
        item.sampleIndex = k
        item.time_s = t
        item.truth = truth.coordinate
        item.truthSpeed_mps = truth.speed_mps
        item.truthHeading = truth.heading
        item.observed = Fix(
            timestamp_s: t, latitude: observed.latitude, longitude: observed.longitude,
            horizontalAccuracy_m: accuracy.base_m)
        item.observedTruth = truth.coordinate
        item.hasFix = true
        item.fault = .none
    }

    /// Queues the fix held back by an out-of-order fault for delivery right after `item`.

    mutating func releaseHeld(at item: GeneratedSample) {
        guard hasHeld else { return }
        pending = item
        pending.observed = heldFix
        pending.observedTruth = heldTruth
        pending.hasFix = true
        pending.fault = .outOfOrder
        hasPending = true
        hasHeld = false
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
                heldFix = item.observed
                heldTruth = item.observedTruth
                hasHeld = true
                item.fix = nil
                item.fault = .delayed
            }
        case .duplicate:
            pending = item
            pending.fault = .duplicate
            hasPending = true
        case .jitter:
            item.observed.timestamp_s += faultRNG.gaussianZiggurat(sigma: faults.jitterSigma_s)
            item.fault = .timestampJitter
        case .invalid:
            switch faultRNG.uniformInt(below: 5) {
            case 0: item.observed.latitude = .nan
            case 1: item.observed.latitude = 91
            case 2: item.observed.longitude = 181
            case 3: item.observed.horizontalAccuracy_m = -1
            default: item.observed.horizontalAccuracy_m = .nan
            }
            item.fault = .invalidValue
        }
    }

    /// The rest of the stream as an array.
    public mutating func collect() -> [GeneratedSample] {
        var out: [GeneratedSample] = []
        out.reserveCapacity(sampleCount + sampleCount / 8)
        // `next(into:)`, not `next()`: no Optional of the item to build and unwrap per sample.
        var item = pending
        while next(into: &item) { out.append(item) }
        return out
    }

    /// A whole replicate in memory.
    public static func generate(spec: ScenarioSpec, replicate: Int) throws(ScenarioError) -> GeneratedReplicate {
        var g = try ScenarioGenerator(spec: spec, replicate: replicate)
        return GeneratedReplicate(
            scenario: spec.name, replicate: replicate, provenance: g.provenance, samples: g.collect())
    }
}
