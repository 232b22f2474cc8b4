import Foundation
import ReportKit

/// Does the residual autocorrelation have a shape that white + Gauss–Markov noise cannot produce?
///
/// Any sum of white noise and Gauss–Markov processes has ρ(h) = Σ a_i e^(−h/τ_i) with Σ a_i ≤ 1
/// for h > 0, so by Cauchy–Schwarz ρ(h)² ≤ (Σ a_i)·Σ a_i e^(−2h/τ_i) ≤ ρ(2h), and ρ(h) > 0. A
/// recording whose ρ(2h) falls clearly below ρ(h)² (a moving average: ρ falls linearly), or whose ACF
/// goes clearly negative (a Kalman-filtered provider track against a smoothed path) was filtered
/// upstream: the generator's models do not describe it.
///
/// A third sign: the fit leaves no white part (σ_w below 5 % of the total σ) while neighbouring
/// fixes are correlated (lag-1 ρ > 0.5). Raw fixes always carry independent noise; a moving
/// average over a few fixes removes it while barely bending an ACF dominated by a slow bias.
///
/// "Clearly": a convexity excess of at least 0.05 over lags h, 2h ≤ 60 s that is larger than in
/// every synthetic drive of the fitted model put through the same residual pipeline (Monte Carlo,
/// p ≤ 1/(M + 1); this also keeps the track smoother's own high-pass effect from being flagged);
/// a minimum ρ below −0.1, beyond 3.5 Bartlett standard errors and below every envelope drive's.
package struct FilteredResidualCheck: Sendable, Hashable {
    package var lag1_s: Double
    package var lag1Rho: Double
    /// Largest ρ(h)² − ρ(2h) over lags with ρ(h) > 0.2, and its h.
    package var convexityExcess: Double
    package var convexityLag_s: Double
    /// Most negative ρ and its lag.
    package var minimumRho: Double
    package var minimumRhoLag_s: Double
    /// Fitted white σ over the total per-axis σ.
    package var whiteFraction: Double
    package var convexityFlag: Bool
    package var negativeFlag: Bool
    package var noWhiteFlag: Bool
    package var detected: Bool { convexityFlag || negativeFlag || noWhiteFlag }

    package static let minimumWhiteFraction = 0.05
    package static let noWhiteLag1Rho = 0.5

    package static let zLimit = 3.5
    /// Lags h with 2h up to this enter the convexity statistic (recording and null drives alike).
    package static let convexityMaxLag_s = 60.0
    package static let minimumConvexityExcess = 0.05
    package static let minimumNegativeRho = -0.1

    /// The raw statistics of one ACF: (convexity excess, its lag index, its z, minimum ρ, its index, its z).
    static func statistics(
        _ acf: ResidualACF
    ) -> (excess: Double, excessIndex: Int, minimum: Double, minimumIndex: Int, minimumZ: Double) {
        var excess = -Double.infinity
        var excessIndex = 0
        var minimum = Double.infinity
        var minimumIndex = 0
        var minimumZ = 0.0
        let rho = acf.rho
        let se = acf.band95.map { $0 / 1.96 }
        for k in rho.indices where rho[k].isFinite {
            if rho[k] < minimum {
                minimum = rho[k]
                minimumIndex = k
                minimumZ = se[k] > 0 ? -rho[k] / se[k] : 0
            }
            let k2 = 2 * (k + 1) - 1
            guard k2 < rho.count, acf.lags_s[k2] <= convexityMaxLag_s + 1e-9, rho[k2].isFinite, rho[k] > 0.2 else {
                continue
            }
            let e = rho[k] * rho[k] - rho[k2]
            if e > excess {
                excess = e
                excessIndex = k
            }
        }
        return (excess.isFinite ? excess : 0, excessIndex, minimum.isFinite ? minimum : 0, minimumIndex, minimumZ)
    }

    /// Checks `acf` (the recording's) against synthetic drives from the fit: `convexityNull` holds
    /// the convexity excess of every null drive, `envelope` the full ACFs of the envelope drives.
    /// `whiteFraction`: the fitted white σ over the total per-axis σ.
    package init(_ acf: ResidualACF, convexityNull: [Double], envelope: [ResidualACF], whiteFraction: Double) {
        let s = Self.statistics(acf)
        let nullStats = envelope.map(Self.statistics)
        lag1_s = acf.lags_s.first ?? .nan
        lag1Rho = acf.rho.first ?? .nan
        convexityExcess = s.excess
        convexityLag_s = acf.lags_s.isEmpty ? .nan : acf.lags_s[s.excessIndex]
        minimumRho = s.minimum
        minimumRhoLag_s = acf.lags_s.isEmpty ? .nan : acf.lags_s[s.minimumIndex]
        convexityFlag =
            s.excess > Self.minimumConvexityExcess && !convexityNull.isEmpty
            && convexityNull.allSatisfy { $0 < s.excess }
        self.whiteFraction = whiteFraction
        noWhiteFlag = whiteFraction < Self.minimumWhiteFraction && (acf.rho.first ?? 0) > Self.noWhiteLag1Rho
        negativeFlag =
            s.minimum < Self.minimumNegativeRho && s.minimumZ > Self.zLimit
            && nullStats.allSatisfy { $0.minimum > s.minimum }
    }

    /// The warning line, or nil when nothing was detected.
    package var warning: String? {
        guard detected else { return nil }
        let f = ReportText.short
        var parts = ["ρ \(f(lag1Rho)) at lag \(f(lag1_s)) s"]
        if convexityFlag {
            parts.append("ρ(\(f(2 * convexityLag_s)) s) falls \(f(convexityExcess)) below ρ(\(f(convexityLag_s)) s)²")
        }
        if noWhiteFlag {
            parts.append("no independent (white) part left: white σ is \(f(100 * whiteFraction)) % of the total")
        }
        if negativeFlag { parts.append("negative at \(f(minimumRhoLag_s)) s (\(f(minimumRho)))") }
        return "residuals look smoothed/filtered upstream: " + parts.joined(separator: ", ")
            + "; the generator's models (white + Gauss–Markov) do not describe this, so the fitted block is approximate"
    }
}
