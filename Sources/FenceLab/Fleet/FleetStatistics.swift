import GSLKit

/// A figure's estimate and its two-sided 95 % interval (`lower`/`upper` NaN when undefined).
package struct FleetInterval: Sendable, Hashable {
    package var estimate: Double
    package var lower: Double
    package var upper: Double
    package init(estimate: Double, lower: Double, upper: Double) {
        self.estimate = estimate
        self.lower = lower
        self.upper = upper
    }
    package static let undefined = FleetInterval(estimate: .nan, lower: .nan, upper: .nan)
}

/// The interval methods of the fleet figures (docs/fleet.md, "Intervals"), all at 95 %.
package enum FleetStatistics {
    /// Two-sided level of every interval.
    package static let level = 0.95
    /// Standard normal quantile of 1 − (1 − level)/2 = 1.959963984540054 (Abramowitz & Stegun 26.2.23 table value).
    package static let z975 = 1.959963984540054

    /// Wilson score interval of `k` successes in `n` trials (Wilson 1927).
    package static func wilson(_ k: Int, _ n: Int) -> FleetInterval {
        guard n > 0 else { return .undefined }
        let p = Double(k) / Double(n)
        let z = z975
        let nn = Double(n)
        let centre = (p + z * z / (2 * nn)) / (1 + z * z / nn)
        let half = z / (1 + z * z / nn) * (p * (1 - p) / nn + z * z / (4 * nn * nn)).squareRoot()
        return FleetInterval(estimate: p, lower: max(0, centre - half), upper: min(1, centre + half))
    }

    /// Exact (Garwood) Poisson interval of `k` events over exposure `t` (hours): χ² quantiles from GSL.
    package static func poissonRate(_ k: Int, exposure t: Double) -> FleetInterval {
        guard t > 0 else { return .undefined }
        let a = 1 - level
        let lower =
            k == 0
            ? 0 : ((try? Statistics.chiSquareQuantile(probability: a / 2, degreesOfFreedom: Double(2 * k))) ?? .nan) / 2
        let upper =
            ((try? Statistics.chiSquareQuantile(probability: 1 - a / 2, degreesOfFreedom: Double(2 * k + 2))) ?? .nan)
            / 2
        return FleetInterval(estimate: Double(k) / t, lower: lower / t, upper: upper / t)
    }

    /// Sample median and its distribution-free order-statistic interval: the ranks j < k with
    /// P(j ≤ B < k) ≥ 95 % for B ~ Binomial(n, ½), from the normal approximation with continuity
    /// correction (Conover, Practical Nonparametric Statistics, 3rd ed., §3.2), widened to the sample ends.
    package static func median(_ values: [Double]) -> FleetInterval {
        let v = values.filter(\.isFinite).sorted()
        let n = v.count
        guard n > 0 else { return .undefined }
        let m = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2
        let half = z975 * Double(n).squareRoot() / 2
        let lo = max(0, Int((Double(n) / 2 - half).rounded(.down)) - 1)
        let hi = min(n - 1, Int((Double(n) / 2 + half).rounded(.up)))
        return FleetInterval(estimate: m, lower: v[lo], upper: v[hi])
    }

    /// Sample quantile of sorted finite values (GSL's linear interpolation rule, type 7).
    package static func quantile(sorted v: [Double], _ p: Double) -> Double {
        guard !v.isEmpty else { return .nan }
        let h = Double(v.count - 1) * p
        let i = Int(h.rounded(.down))
        return i + 1 < v.count ? v[i] + (h - Double(i)) * (v[i + 1] - v[i]) : v[i]
    }

    /// One-sided Mann–Whitney test of H0 "candidate − limit is not stochastically larger than baseline"
    /// (normal approximation with tie correction); returns the p-value.
    package static func mannWhitneyGreater(candidate: [Double], baseline: [Double], limit: Double) -> Double {
        let b = candidate.filter(\.isFinite).map { $0 - limit }
        let a = baseline.filter(\.isFinite)
        guard !a.isEmpty, !b.isEmpty else { return .nan }
        var all = a.map { ($0, false) } + b.map { ($0, true) }
        all.sort { $0.0 < $1.0 }
        var rankSumB = 0.0
        var tieTerm = 0.0
        var i = 0
        while i < all.count {
            var j = i
            while j + 1 < all.count && all[j + 1].0 == all[i].0 { j += 1 }
            let rank = Double(i + j + 2) / 2
            for k in i...j where all[k].1 { rankSumB += rank }
            let t = Double(j - i + 1)
            tieTerm += t * t * t - t
            i = j + 1
        }
        let na = Double(a.count)
        let nb = Double(b.count)
        let n = na + nb
        let u = rankSumB - nb * (nb + 1) / 2
        let variance = na * nb / 12 * ((n + 1) - tieTerm / (n * (n - 1)))
        guard variance > 0 else { return u > na * nb / 2 ? 0 : 1 }
        let z = (u - na * nb / 2 - 0.5) / variance.squareRoot()
        return 1 - DistributionCDF.gaussianP(z, sigma: 1)
    }

    /// One-sided z test of H0 "difference ≤ limit" for an estimate with standard error `se`.
    package static func zGreater(difference: Double, se: Double, limit: Double) -> Double {
        guard difference.isFinite, se.isFinite else { return .nan }
        guard se > 0 else { return difference > limit ? 0 : 1 }
        return 1 - DistributionCDF.gaussianP((difference - limit) / se, sigma: 1)
    }

    /// Holm's step-down adjustment (Holm 1979) of p-values; NaN stays NaN and is not counted.
    package static func holm(_ p: [Double]) -> [Double] {
        let order = p.indices.filter { p[$0].isFinite }.sorted { p[$0] < p[$1] || (p[$0] == p[$1] && $0 < $1) }
        var adjusted = p
        var running = 0.0
        for (rank, i) in order.enumerated() {
            running = max(running, min(1, Double(order.count - rank) * p[i]))
            adjusted[i] = running
        }
        return adjusted
    }

    /// Percentile-bootstrap interval of the difference of medians (candidate − baseline), `draws`
    /// resamples of each group from a seeded GSL generator.
    package static func bootstrapMedianDifference(
        candidate: [Double], baseline: [Double], seed: UInt64, draws: Int = 400
    ) -> FleetInterval {
        let a = baseline.filter(\.isFinite)
        let b = candidate.filter(\.isFinite)
        let estimate = median(b).estimate - median(a).estimate
        guard !a.isEmpty, !b.isEmpty, let rng = try? RandomSource(seed: seed) else {
            return FleetInterval(estimate: estimate, lower: .nan, upper: .nan)
        }
        var diffs: [Double] = []
        diffs.reserveCapacity(draws)
        var sa = [Double](repeating: 0, count: a.count)
        var sb = [Double](repeating: 0, count: b.count)
        for _ in 0..<draws {
            for i in sa.indices { sa[i] = a[rng.uniformInt(below: a.count)] }
            for i in sb.indices { sb[i] = b[rng.uniformInt(below: b.count)] }
            sa.sort()
            sb.sort()
            diffs.append(quantile(sorted: sb, 0.5) - quantile(sorted: sa, 0.5))
        }
        diffs.sort()
        return FleetInterval(
            estimate: estimate, lower: quantile(sorted: diffs, 0.025), upper: quantile(sorted: diffs, 0.975))
    }
}
