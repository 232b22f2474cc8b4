/// Faults injected into the observed stream (`faults`); every injected fault is labelled
/// (`FaultLabel`) in the generated items. All parts are optional; absent means off.
public struct FaultSpec: Sendable, Hashable {
    /// A signal gap window: no fix for `start_s ≤ t < start_s + duration_s`.
    public struct GapWindow: Sendable, Hashable {
        public var start_s: Double
        public var duration_s: Double
        public init(start_s: Double, duration_s: Double) {
            self.start_s = start_s
            self.duration_s = duration_s
        }
    }
    /// Durations of random gaps.
    public enum GapDuration: Sendable, Hashable {
        /// Exponential with mean `mean_s` (`distribution: exponential`).
        case exponential(mean_s: Double)
        /// Log-normal with median `median_s` and σ of ln(duration) `sigma` (`distribution: lognormal`).
        case logNormal(median_s: Double, sigma: Double)
    }
    /// Gaps starting as a Poisson process of `ratePerHour` starts per hour (`randomGaps`).
    public struct RandomGaps: Sendable, Hashable {
        public var ratePerHour: Double
        public var duration: GapDuration
        public init(ratePerHour: Double, duration: GapDuration) {
            self.ratePerHour = ratePerHour
            self.duration = duration
        }
    }

    /// Explicit gap windows (`gaps`).
    public var gaps: [GapWindow]
    public var randomGaps: RandomGaps?
    /// Per-sample probability that an old fix (`staleAge_s` old) is re-delivered instead of a fresh one (`stale`).
    public var staleProbability: Double
    public var staleAge_s: Double
    /// Per-sample probability that a fix is delivered after its successor (`outOfOrder.probability`).
    public var outOfOrderProbability: Double
    /// Per-sample probability that a fix is delivered twice (`duplicate.probability`).
    public var duplicateProbability: Double
    /// Per-sample probability of a jittered timestamp, Gaussian with σ `jitterSigma_s` (`jitter`).
    public var jitterProbability: Double
    public var jitterSigma_s: Double
    /// Per-sample probability of an invalid value: NaN or out-of-range latitude/longitude,
    /// accuracy −1 or NaN (`invalid.probability`).
    public var invalidProbability: Double

    public init(
        gaps: [GapWindow] = [], randomGaps: RandomGaps? = nil,
        staleProbability: Double = 0, staleAge_s: Double = 0,
        outOfOrderProbability: Double = 0, duplicateProbability: Double = 0,
        jitterProbability: Double = 0, jitterSigma_s: Double = 0, invalidProbability: Double = 0
    ) {
        self.gaps = gaps
        self.randomGaps = randomGaps
        self.staleProbability = staleProbability
        self.staleAge_s = staleAge_s
        self.outOfOrderProbability = outOfOrderProbability
        self.duplicateProbability = duplicateProbability
        self.jitterProbability = jitterProbability
        self.jitterSigma_s = jitterSigma_s
        self.invalidProbability = invalidProbability
    }

    /// Sum of the per-sample fault probabilities (≤ 1: at most one such fault per sample).
    public var perSampleProbability: Double {
        staleProbability + outOfOrderProbability + duplicateProbability + jitterProbability + invalidProbability
    }
}
