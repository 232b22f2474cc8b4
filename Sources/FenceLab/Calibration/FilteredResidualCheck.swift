import Foundation

/// Does the residual autocorrelation have a shape that white + Gauss–Markov noise cannot produce?
///
/// Any sum of white noise and Gauss–Markov processes has ρ(h) = Σ a_i e^(−h/τ_i) with Σ a_i ≤ 1
/// for h > 0, so by Cauchy–Schwarz ρ(h)² ≤ (Σ a_i)·Σ a_i e^(−2h/τ_i) ≤ ρ(2h), and ρ(h) > 0. A
/// recording whose ρ(2h) falls clearly below ρ(h)² (a moving average: ρ falls linearly), or whose ACF
/// goes clearly negative (a Kalman-filtered provider track against a smoothed path) was filtered
/// upstream: the generator's models do not describe it.
///
/// "Clearly": beyond 3.5 Bartlett standard errors and by at least 0.05 (convexity) / 0.1
/// (negative ρ), and beyond every value the fitted model produced in synthetic drives put through
/// the same residual pipeline (so that the track smoother's own high-pass effect is not flagged).
public struct FilteredResidualCheck: Sendable, Hashable {
    public var lag1_s: Double
    public var lag1Rho: Double
    /// Largest ρ(h)² − ρ(2h) over lags with ρ(h) > 0.2, and its h.
    public var convexityExcess: Double
    public var convexityLag_s: Double
    /// Most negative ρ and its lag.
    public var minimumRho: Double
    public var minimumRhoLag_s: Double
    public var convexityFlag: Bool
    public var negativeFlag: Bool
    public var detected: Bool { convexityFlag || negativeFlag }

    public static let zLimit = 3.5
    public static let minimumConvexityExcess = 0.05
    public static let minimumNegativeRho = -0.1

    /// The raw statistics of one ACF: (convexity excess, its lag index, its z, minimum ρ, its index, its z).
    static func statistics(_ acf: ResidualACF) -> (excess: Double, excessIndex: Int, excessZ: Double, minimum: Double, minimumIndex: Int, minimumZ: Double) {
        var excess = -Double.infinity, excessIndex = 0, excessZ = 0.0
        var minimum = Double.infinity, minimumIndex = 0, minimumZ = 0.0
        let rho = acf.rho, se = acf.band95.map { $0 / 1.96 }
        for k in rho.indices where rho[k].isFinite {
            if rho[k] < minimum { minimum = rho[k]; minimumIndex = k; minimumZ = se[k] > 0 ? -rho[k] / se[k] : 0 }
            let k2 = 2 * (k + 1) - 1
            guard k2 < rho.count, rho[k2].isFinite, rho[k] > 0.2 else { continue }
            let e = rho[k] * rho[k] - rho[k2]
            if e > excess {
                excess = e; excessIndex = k
                // The two errors are positively correlated, so ignoring the covariance overstates se: conservative.
                let s = ((2 * rho[k] * se[k]) * (2 * rho[k] * se[k]) + se[k2] * se[k2]).squareRoot()
                excessZ = s > 0 ? e / s : 0
            }
        }
        return (excess.isFinite ? excess : 0, excessIndex, excessZ, minimum.isFinite ? minimum : 0, minimumIndex, minimumZ)
    }

    /// Checks `acf` (the recording's) against the statistics of `nulls` (synthetic drives from the fit).
    public init(_ acf: ResidualACF, nulls: [ResidualACF]) {
        let s = Self.statistics(acf)
        let nullStats = nulls.map(Self.statistics)
        lag1_s = acf.lags_s.first ?? .nan
        lag1Rho = acf.rho.first ?? .nan
        convexityExcess = s.excess
        convexityLag_s = acf.lags_s.isEmpty ? .nan : acf.lags_s[s.excessIndex]
        minimumRho = s.minimum
        minimumRhoLag_s = acf.lags_s.isEmpty ? .nan : acf.lags_s[s.minimumIndex]
        convexityFlag = s.excess > Self.minimumConvexityExcess && s.excessZ > Self.zLimit
            && nullStats.allSatisfy { $0.excess < s.excess }
        negativeFlag = s.minimum < Self.minimumNegativeRho && s.minimumZ > Self.zLimit
            && nullStats.allSatisfy { $0.minimum > s.minimum }
    }

    /// The warning line, or nil when nothing was detected.
    public var warning: String? {
        guard detected else { return nil }
        let f = ReportText.short
        var parts = ["lag-\(f(lag1_s)) s ρ \(f(lag1Rho))"]
        if convexityFlag {
            parts.append("ρ(\(f(2 * convexityLag_s)) s) falls \(f(convexityExcess)) below ρ(\(f(convexityLag_s)) s)²")
        }
        if negativeFlag { parts.append("negative at \(f(minimumRhoLag_s)) s (\(f(minimumRho)))") }
        return "residuals look smoothed/filtered upstream: " + parts.joined(separator: ", ")
            + "; no white + Gauss–Markov noise has this autocorrelation, so the generator's models do not describe it and the fitted block is approximate"
    }
}
