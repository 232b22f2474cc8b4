/// Why the track engine refused a fix. The fix changes nothing; the reason is returned, not absorbed.
public enum TrackRejection: Error, Sendable, Hashable, CustomStringConvertible {
    /// The timestamp is NaN or infinite.
    case invalidTimestamp(Double)
    /// Latitude/longitude are not a valid coordinate.
    case invalidCoordinate(CoordinateError)
    /// The reported horizontal accuracy is not finite and > 0 m (iOS reports −1 for "invalid").
    case invalidAccuracy(Double)
    /// The timestamp is not later than the last accepted one.
    case nonIncreasingTimestamp(previous_s: Double, timestamp_s: Double)

    public var description: String {
        switch self {
        case .invalidTimestamp(let t): return "timestamp is not finite: \(t)"
        case .invalidCoordinate(let e): return "invalid coordinate: \(e)"
        case .invalidAccuracy(let a): return "horizontal accuracy must be finite and > 0 m, got \(a)"
        case .nonIncreasingTimestamp(let p, let t):
            return "timestamp \(t) s is not later than the previous accepted \(p) s"
        }
    }
}

/// A parameter or input of the track layer (filter, smoother, gap fill, geohash, segments) was refused.
public enum TrackError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A numeric parameter outside its valid range; `expected` says the range.
    case invalidParameter(name: String, value: Double, expected: String)
    /// Knot abscissae (times) must be finite and strictly increasing; `index` is the first offender.
    case knotsNotIncreasing(index: Int, value: Double)
    /// Too few points for the operation.
    case tooFewPoints(needed: Int, got: Int)
    /// A track sample needed for the method lacks a velocity (Hermite gap fill).
    case missingVelocity(index: Int)
    /// A speed that is negative (iOS's "invalid" marker) or not finite.
    case invalidSpeed(index: Int, speed_mps: Double)

    public var description: String {
        switch self {
        case .invalidParameter(let name, let value, let expected):
            return "\(name) must be \(expected), got \(value)"
        case .knotsNotIncreasing(let index, let value):
            return "times must be finite and strictly increasing; sample \(index) has \(value)"
        case .tooFewPoints(let needed, let got): return "need at least \(needed) points, got \(got)"
        case .missingVelocity(let index): return "sample \(index) has no velocity (needed by hermite)"
        case .invalidSpeed(let index, let speed):
            return "sample \(index): speed must be finite and >= 0 m/s, got \(speed)"
        }
    }
}

/// How a device's reported horizontal accuracy maps to the per-axis standard deviation σ.
public enum AccuracyConvention: String, Sendable, Hashable, CaseIterable, Codable {
    /// iOS: `horizontalAccuracy` read as the DRMS of an isotropic 2-D Gaussian, σ = hAcc / √2.
    case iOSDRMS
    /// Android: `getAccuracy()` is the 68 % radius; for an isotropic 2-D Gaussian that radius is
    /// σ·√(−2 ln 0.32) ≈ 1.51 σ, so σ = acc / 1.51.
    case android68

    /// Per-axis σ in metres for a reported accuracy in metres (> 0).
    @inlinable
    public func sigmaPerAxis_m(accuracy_m: Double) -> Double {
        switch self {
        case .iOSDRMS: return accuracy_m * AccuracyConvention.inverseSqrt2
        case .android68: return accuracy_m / AccuracyConvention.android68Factor
        }
    }

    /// The accuracy this convention would report for a per-axis variance `variance_m2`.
    @inlinable
    public func accuracy_m(perAxisVariance_m2 variance_m2: Double) -> Double {
        let sigma = variance_m2.squareRoot()
        switch self {
        case .iOSDRMS: return sigma * AccuracyConvention.sqrt2
        case .android68: return sigma * AccuracyConvention.android68Factor
        }
    }

    /// 68 % radius over σ for a 2-D isotropic Gaussian, as Android documents it (1.51).
    public static let android68Factor: Double = 1.51
    // Computed, not `static let`: a stored global is initialised lazily through `swift_once`,
    // which the filter then paid on every update; these fold to constants at compile time.
    @inlinable static var sqrt2: Double { 2.0.squareRoot() }
    @inlinable static var inverseSqrt2: Double { 1 / 2.0.squareRoot() }
}
