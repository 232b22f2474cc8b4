import GSLKit

/// What was done to one generated item (labels for the harness to count what the engine caught).
public enum FaultLabel: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// A fresh, honest fix (noise and accuracy as modelled, nothing else).
    case none
    /// Signal gap: no fix at this time (`fix` is nil; score gap fill against `truth`).
    case gap
    /// No fix at this time because it will be delivered late, after its successor (`fix` is nil).
    case delayed
    /// An old fix re-delivered instead of a fresh one (its timestamp is `staleAge_s` old).
    case stale
    /// A fix delivered after its successor (its timestamp is older than the previous item's).
    case outOfOrder
    /// The previous item's fix delivered again, identical.
    case duplicate
    /// A fresh fix whose timestamp was moved by Gaussian jitter.
    case timestampJitter
    /// A fix with an invalid value: NaN or out-of-range latitude/longitude, accuracy −1 or NaN.
    case invalidValue

    public var description: String { rawValue }
}

/// The per-sample fault chosen by one uniform draw.

enum SampleFault: Sendable { case none, stale, outOfOrder, duplicate, jitter, invalid }

/// Decides gaps (explicit windows and a Poisson process of random gaps) and per-sample faults.
/// Uses its own random stream, so switching faults on or off leaves the noise unchanged.

struct FaultProcess {
    let windows: [FaultSpec.GapWindow]
    let randomGaps: FaultSpec.RandomGaps?
    var nextGapStart_s: Double = .infinity
    var gapEnd_s: Double = -.infinity
    let thresholds: (stale: Double, outOfOrder: Double, duplicate: Double, jitter: Double, invalid: Double)
    let anyPerSample: Bool
    let jitterSigma_s: Double
    /// Whether any gap (window or random) can occur; false skips `inGap` entirely.
    let anyGaps: Bool

    init(spec: FaultSpec, rng: RandomSource) {
        windows = spec.gaps.sorted { $0.start_s < $1.start_s }
        randomGaps = spec.randomGaps
        let s = spec.staleProbability
        let o = s + spec.outOfOrderProbability
        let d = o + spec.duplicateProbability
        let j = d + spec.jitterProbability
        let i = j + spec.invalidProbability
        thresholds = (s, o, d, j, i)
        anyPerSample = i > 0
        jitterSigma_s = spec.jitterSigma_s
        anyGaps = !spec.gaps.isEmpty || spec.randomGaps != nil
        if let g = spec.randomGaps { nextGapStart_s = rng.exponential(mean: 3600 / g.ratePerHour) }
    }

    /// Whether time `t_s` (non-decreasing between calls) lies in a gap.

    mutating func inGap(_ t_s: Double, rng: RandomSource) -> Bool {
        if let g = randomGaps {
            while t_s >= nextGapStart_s {
                let duration: Double
                switch g.duration {
                case .exponential(let mean): duration = rng.exponential(mean: mean)
                case .logNormal(let median, let sigma): duration = median * rng.logNormal(zeta: 0, sigma: sigma)
                }
                gapEnd_s = max(gapEnd_s, nextGapStart_s + duration)
                nextGapStart_s += rng.exponential(mean: 3600 / g.ratePerHour)
            }
            if t_s < gapEnd_s { return true }
        }
        for w in windows where t_s >= w.start_s && t_s < w.start_s + w.duration_s { return true }
        return false
    }

    /// The per-sample fault for the next sample (one uniform draw when any is enabled).

    func choose(rng: RandomSource) -> SampleFault {
        guard anyPerSample else { return .none }
        let u = rng.uniform()
        if u < thresholds.stale { return .stale }
        if u < thresholds.outOfOrder { return .outOfOrder }
        if u < thresholds.duplicate { return .duplicate }
        if u < thresholds.jitter { return .jitter }
        if u < thresholds.invalid { return .invalid }
        return .none
    }
}
