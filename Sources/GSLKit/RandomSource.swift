import CGSL

/// The GSL generator algorithms FenceLab offers.
public enum GeneratorKind: String, Sendable, Hashable, CaseIterable, Codable {
    /// Mersenne Twister MT19937 (Matsumoto & Nishimura 1998), `gsl_rng_mt19937`. Default.
    case mt19937
    /// Tausworthe generator, L'Ecuyer 1999 variant, `gsl_rng_taus2`.
    case taus2
}

/// Owns one GSL random number generator (`gsl_rng`) and frees it in `deinit`.
///
/// Not thread-safe and not `Sendable`: each work item creates its own source
/// from a derived seed, so results never depend on scheduling.
public final class RandomSource {
    @usableFromInline let rng: UnsafeMutablePointer<gsl_rng>
    /// The algorithm, recorded for reports.
    public let kind: GeneratorKind
    /// The seed given to `gsl_rng_set`, recorded for reports.
    public let seed: UInt64

    /// - Parameters:
    ///   - kind: generator algorithm.
    ///   - seed: 1…2³²−1. Zero is refused: GSL silently replaces it by its default 4357.
    ///     mt19937 and taus2 use only the low 32 bits, so larger seeds are refused too.
    public init(kind: GeneratorKind = .mt19937, seed: UInt64) throws(GSLError) {
        _ = GSLRuntime.handlerOff
        guard seed != 0, seed <= UInt64(UInt32.max) else {
            throw .invalidArgument("seed must be within 1...\(UInt32.max), got \(seed)")
        }
        let type: UnsafePointer<gsl_rng_type>
        switch kind {
        case .mt19937: type = fl_rng_type_mt19937()
        case .taus2: type = fl_rng_type_taus2()
        }
        guard let r = gsl_rng_alloc(type) else { throw .allocationFailed("a \(kind) generator") }
        gsl_rng_set(r, UInt(seed))
        self.rng = r
        self.kind = kind
        self.seed = seed
    }

    deinit { gsl_rng_free(rng) }

    /// GSL's name of the algorithm (`gsl_rng_name`).
    public var gslName: String { String(cString: gsl_rng_name(rng)) }

    /// Uniform on [0, 1) (`gsl_rng_uniform`).
    @inlinable public func uniform() -> Double { gsl_rng_uniform(rng) }

    /// Gaussian with mean 0 and standard deviation `sigma` (`gsl_ran_gaussian`, Box–Muller polar).
    @inlinable public func gaussian(sigma: Double) -> Double { gsl_ran_gaussian(rng, sigma) }

    /// Gaussian with mean 0 and standard deviation `sigma` (`gsl_ran_gaussian_ziggurat`, faster).
    @inlinable public func gaussianZiggurat(sigma: Double) -> Double {
        gsl_ran_gaussian_ziggurat(rng, sigma)
    }
}
