/// Derives the seed of each replicate (and each random stream inside it) from a scenario seed.
///
/// Replicate `i` gets its own seed, so a result never depends on run order, sharding or
/// thread count. Mixing is SplitMix64 (Steele, Lea & Flood 2014, "Fast splittable
/// pseudorandom number generators", OOPSLA), folded to 32 bits because mt19937 and taus2
/// use only the low 32 bits of their seed; zero (GSL's "use the default 4357") is never returned.
public enum SeedDerivation {
    /// The SplitMix64 output function applied to `x + γ` (γ = 0x9E3779B97F4A7C15, the golden ratio).
    @inlinable
    public static func splitMix64(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Folds 64 mixed bits into 1...2³²−1, re-mixing in the (2⁻³² likely) case of zero.
    @inlinable
    static func fold32(_ mixed: UInt64) -> UInt64 {
        var z = mixed
        while true {
            let s = (z >> 32) ^ (z & 0xFFFF_FFFF)
            if s != 0 { return s }
            z = splitMix64(z)
        }
    }

    /// The seed of replicate `replicate` (≥ 0) of a scenario with seed `scenarioSeed` (any value).
    ///
    /// Deterministic; within 1...2³²−1 (what `RandomSource` accepts); distinct replicates
    /// give distinct seeds except for 32-bit collisions (probability ≈ n²/2³³ for n replicates).
    public static func replicateSeed(scenarioSeed: UInt64, replicate: Int) -> UInt64 {
        let a = splitMix64(scenarioSeed)
        let b = splitMix64(a ^ UInt64(bitPattern: Int64(replicate)))
        return fold32(b)
    }

    /// The seed of independent stream `stream` (route, noise, accuracy, faults …) of a replicate,
    /// so that switching faults on or off does not change the noise drawn.
    public static func streamSeed(replicateSeed: UInt64, stream: UInt64) -> UInt64 {
        fold32(splitMix64(splitMix64(replicateSeed) ^ (stream &* 0xD1B5_4A32_D192_ED03)))
    }
}
