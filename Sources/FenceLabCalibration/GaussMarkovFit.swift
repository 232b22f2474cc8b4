import Foundation
import ReportKit

/// A fitted figure with its 95 % interval and how the interval was obtained.
package struct FittedValue: Sendable, Hashable {
    package var value: Double
    /// Lower and upper end of the 95 % interval (`upper` may be +∞, e.g. Student-t ν near Gaussian).
    package var lower: Double
    package var upper: Double
    /// "QML sandwich" (asymptotic) or "block bootstrap".
    package var method: String

    package init(value: Double, lower: Double, upper: Double, method: String) {
        self.value = value
        self.lower = lower
        self.upper = upper
        self.method = method
    }
}

/// The two noise models the generator can produce, fitted by maximum likelihood.
package struct NoiseModelFit: Sendable, Hashable {
    package enum Model: String, Sendable, Hashable {
        case white
        case whiteGaussMarkov = "white+gauss-markov"
    }
    /// White only: per-axis σ (metres) and the log-likelihood.
    package var whiteSigma_m: FittedValue
    package var whiteLogLikelihood: Double
    /// White + first-order Gauss–Markov bias: σ_w, σ_b (metres), τ (seconds); nil when the fit
    /// did not converge to an interior optimum (then the white model is selected).
    package var gmWhiteSigma_m: FittedValue?
    package var gmBiasSigma_m: FittedValue?
    package var gmTau_s: FittedValue?
    package var gmLogLikelihood: Double
    /// 2·(ℓ_GM − ℓ_white): the likelihood-ratio statistic (2 extra parameters).
    package var likelihoodRatio: Double
    package var selected: Model
    /// The condition that decided `selected`, in words (printed beside the model).
    package var selectedBecause: String = ""
    /// Why the white + Gauss–Markov parameters are not given, when they are not (nil: they are).
    package var gmNotIdentifiable: String?
}

/// Maximum-likelihood fit of white + first-order Gauss–Markov noise to residuals at irregular times.
///
/// Model per axis: y_i = b(t_i) + w_i, w_i ~ N(0, σ_w²) independent, b a Gauss–Markov process
/// with variance σ_b² and correlation time τ, discretised exactly by each Δt:
/// b_i = φ_i b_{i−1} + q_i, φ_i = e^(−Δt_i/τ), q_i ~ N(0, σ_b²(1 − φ_i²)) (Gelb 1974, §3.8).
/// The exact likelihood comes from a scalar Kalman filter (prediction-error decomposition);
/// gaps are long Δt, segment starts restart the filter from the stationary prior. The
/// optimum is found by a coarse grid then Nelder–Mead in (ln σ_w, ln σ_b, ln τ); intervals are
/// asymptotic with the quasi-ML sandwich covariance H⁻¹JH⁻¹ (Bollerslev & Wooldridge 1992),
/// robust to non-Gaussian (e.g. Student-t) white noise.
package enum GaussMarkovFit {
    /// χ²₂ 0.999 quantile: the white + Gauss–Markov model is selected when 2Δℓ exceeds it.
    /// (The null puts parameters on the boundary, so the test is conservative.)
    package static let selectionThreshold = 13.815510557964274

    /// Runs the scalar Kalman filter of both axes and hands each fix's log-likelihood
    /// contribution to `visit` (no allocation: the fit evaluates this a few hundred times).
    @inline(__always)
    static func filter(_ s: ResidualSeries, white: Double, bias: Double, tau: Double, _ visit: (Int, Double) -> Void) {
        let vw = white * white
        let vb = bias * bias
        var x = SIMD2<Double>.zero
        var p = vb
        var lastDt = -1.0
        var phi = 0.0
        for i in 0..<s.count {
            if s.segmentStart[i] {
                x = .zero
                p = vb
            } else {
                let dt = s.times_s[i] - s.times_s[i - 1]
                if dt != lastDt {
                    phi = Foundation.exp(-dt / tau)
                    lastDt = dt
                }
                x *= phi
                p = phi * phi * p + vb * (1 - phi * phi)
            }
            let sVar = p + vw
            let innovation = s.residuals_m[i] - x
            visit(i, -Foundation.log(2 * Double.pi * sVar) - (innovation * innovation).sum() / (2 * sVar))
            let gain = p / sVar
            x += gain * innovation
            p *= 1 - gain
        }
    }

    /// Log-likelihood contribution of each fix (both axes).
    static func contributions(_ s: ResidualSeries, white: Double, bias: Double, tau: Double) -> [Double] {
        var out = [Double](repeating: 0, count: s.count)
        filter(s, white: white, bias: bias, tau: tau) { out[$0] = $1 }
        return out
    }

    static func logLikelihood(
        _ s: ResidualSeries, theta: SIMD3<Double>, bounds: (tauMin: Double, tauMax: Double)
    ) -> Double {
        let w = Foundation.exp(theta.x)
        let b = Foundation.exp(theta.y)
        let tau = Foundation.exp(theta.z)
        guard tau >= bounds.tauMin, tau <= bounds.tauMax, w > 1e-6, b > 1e-6, w.isFinite, b.isFinite else {
            return -.infinity
        }
        var total = 0.0
        filter(s, white: w, bias: b, tau: tau) { total += $1 }
        return total
    }

    /// σ_b / σ_white of the nested fit's start at the white model (σ_b → 0 is the white model;
    /// 10⁻³ puts its log-likelihood within ~10⁻⁶ of the white one).
    static let whiteLimitBiasShare = 1e-3

    /// Fits both models to a (centred) residual series.
    ///
    /// The white model is nested in the white + Gauss–Markov one (σ_b → 0), so the nested fit
    /// starts from the white fit among its candidates and can never end below it: an optimum
    /// below the white log-likelihood (the optimiser stopped short) is reported as the white
    /// boundary, likelihood ratio 0, with the reason in `gmNotIdentifiable`.
    /// - Parameters:
    ///   - start: the nested fit's start instead of the coarse grid (tests start it badly); the
    ///     white limit stays a candidate.
    ///   - iterations: Nelder–Mead iterations.
    package static func fit(_ s: ResidualSeries, start: SIMD3<Double>? = nil, iterations: Int = 600) -> NoiseModelFit {
        let n = Double(s.count)
        let sumSq = s.residuals_m.reduce(0) { $0 + ($1 * $1).sum() }
        let v = sumSq / (2 * n)
        let whiteLL = -n * Foundation.log(2 * Double.pi * v) - n
        // White-only σ: score of ln σ per fix is −2 + |r|²/σ², Hessian −4n.
        let score2 = s.residuals_m.reduce(0) {
            let u = -2 + ($1 * $1).sum() / v
            return $0 + u * u
        }
        let seLog = score2.squareRoot() / (4 * n)
        let sigma = v.squareRoot()
        let white = FittedValue(
            value: sigma, lower: sigma * Foundation.exp(-1.96 * seLog),
            upper: sigma * Foundation.exp(1.96 * seLog), method: "QML sandwich")

        let dt = s.medianInterval_s
        let bounds = (tauMin: 0.2 * dt, tauMax: 10 * max(s.span_s, dt))
        var best = SIMD3<Double>(0, 0, 0)
        var bestLL = -Double.infinity
        func consider(_ theta: SIMD3<Double>) {
            let ll = logLikelihood(s, theta: theta, bounds: bounds)
            if ll > bestLL {
                bestLL = ll
                best = theta
            }
        }
        // The white fit itself (σ_b → 0), at a τ inside the bounds.
        consider(
            SIMD3(
                Foundation.log(sigma), Foundation.log(sigma * whiteLimitBiasShare),
                Foundation.log(min(max(dt, bounds.tauMin), bounds.tauMax))))
        if let start {
            consider(start)
        } else {
            for share in [0.1, 0.3, 0.5, 0.7, 0.9] {
                var tau = 0.5 * dt
                while tau < 0.5 * s.span_s {
                    consider(
                        SIMD3(
                            0.5 * Foundation.log(v * (1 - share)), 0.5 * Foundation.log(v * share),
                            Foundation.log(tau)))
                    tau *= 2
                }
            }
        }
        let (theta, optimum) = NelderMead.maximise(start: best, step: SIMD3(0.2, 0.2, 0.4), iterations: iterations) {
            logLikelihood(s, theta: $0, bounds: bounds)
        }
        // Never below the model it contains: the white model is its σ_b → 0 boundary.
        let ll = max(optimum, whiteLL)
        let lr = 2 * (ll - whiteLL)
        let threshold = ReportText.short(selectionThreshold)
        var result = NoiseModelFit(
            whiteSigma_m: white, whiteLogLikelihood: whiteLL, gmWhiteSigma_m: nil, gmBiasSigma_m: nil,
            gmTau_s: nil, gmLogLikelihood: ll, likelihoodRatio: lr, selected: .white,
            selectedBecause: "likelihood ratio \(ReportText.short(lr)) ≤ threshold \(threshold)")
        guard optimum.isFinite, optimum > whiteLL else {
            result.gmNotIdentifiable = "its optimum is the white model (σ_b → 0): no correlated part in the residuals"
            result.selectedBecause = "white + Gauss–Markov not identifiable: " + result.gmNotIdentifiable!
            return result
        }
        guard let cov = sandwich(s, theta: theta, bounds: bounds) else {
            result.gmNotIdentifiable =
                "its optimum lies on a boundary of (σ_w, σ_b, τ) (the Hessian is not negative definite)"
            result.selectedBecause = "white + Gauss–Markov not identifiable: " + result.gmNotIdentifiable!
            return result
        }
        func interval(_ k: Int) -> FittedValue {
            let se = cov[k][k].squareRoot()
            let c = Foundation.exp(theta[k])
            return FittedValue(
                value: c, lower: c * Foundation.exp(-1.96 * se), upper: c * Foundation.exp(1.96 * se),
                method: "QML sandwich")
        }
        result.gmWhiteSigma_m = interval(0)
        result.gmBiasSigma_m = interval(1)
        result.gmTau_s = interval(2)
        // The bias must be resolvable: τ at least half a sampling interval, and shorter than the recording.
        let tau = Foundation.exp(theta.z)
        let f = ReportText.short
        if lr <= selectionThreshold {
            result.selectedBecause = "likelihood ratio \(f(lr)) ≤ threshold \(threshold)"
        } else if !(tau > 0.5 * dt) {
            result.selectedBecause =
                "likelihood ratio \(f(lr)) > threshold \(threshold), but τ \(f(tau)) s is below half the median interval \(f(dt)) s"
        } else if !(tau < s.span_s) {
            result.selectedBecause =
                "likelihood ratio \(f(lr)) > threshold \(threshold), but τ \(f(tau)) s is not shorter than the recording's \(f(s.span_s)) s"
        } else {
            result.selected = .whiteGaussMarkov
            result.selectedBecause =
                "likelihood ratio \(f(lr)) > threshold \(threshold) and τ \(f(tau)) s between half the median interval and the recording's \(f(s.span_s)) s"
        }
        return result
    }

    /// QML sandwich covariance of θ̂ = (ln σ_w, ln σ_b, ln τ): H⁻¹ J H⁻¹ with numerical derivatives.
    /// Nil when the Hessian is not negative definite (optimum on a boundary).
    static func sandwich(
        _ s: ResidualSeries, theta: SIMD3<Double>, bounds: (tauMin: Double, tauMax: Double)
    ) -> [[Double]]? {
        let h = 1e-3
        func ll(_ t: SIMD3<Double>) -> Double { logLikelihood(s, theta: t, bounds: bounds) }
        func unit(_ k: Int) -> SIMD3<Double> {
            var e = SIMD3<Double>.zero
            e[k] = h
            return e
        }
        var hess = [[Double]](repeating: [0, 0, 0], count: 3)
        let f0 = ll(theta)
        for a in 0..<3 {
            for b in a..<3 {
                let v: Double
                if a == b {
                    v = (ll(theta + unit(a)) - 2 * f0 + ll(theta - unit(a))) / (h * h)
                } else {
                    let ea = unit(a)
                    let eb = unit(b)
                    v =
                        (ll(theta + ea + eb) - ll(theta + ea - eb) - ll(theta - ea + eb) + ll(theta - ea - eb))
                        / (4 * h * h)
                }
                hess[a][b] = v
                hess[b][a] = v
            }
        }
        guard hess.joined().allSatisfy(\.isFinite), let inverse = Matrix3.inverse(hess),
            (0..<3).allSatisfy({ inverse[$0][$0] < 0 })
        else { return nil }
        // Per-fix scores by central differences of the contributions: the θ + h contributions,
        // then the θ − h ones taken off in place (three arrays of one double per fix).
        var scores = [[Double]](repeating: [], count: 3)
        for k in 0..<3 {
            let plus = theta + unit(k)
            let minus = theta - unit(k)
            var score = contributions(
                s, white: Foundation.exp(plus.x), bias: Foundation.exp(plus.y), tau: Foundation.exp(plus.z))
            filter(s, white: Foundation.exp(minus.x), bias: Foundation.exp(minus.y), tau: Foundation.exp(minus.z)) {
                score[$0] = (score[$0] - $1) / (2 * h)
            }
            scores[k] = score
        }
        var j = [[Double]](repeating: [0, 0, 0], count: 3)
        for a in 0..<3 { for b in 0..<3 { j[a][b] = zip(scores[a], scores[b]).reduce(0) { $0 + $1.0 * $1.1 } } }
        let cov = Matrix3.product(Matrix3.product(inverse, j), inverse)
        guard (0..<3).allSatisfy({ cov[$0][$0] > 0 && cov[$0][$0].isFinite }) else { return nil }
        return cov
    }
}

/// 3×3 matrices as nested arrays (only for the 3-parameter fit above).
enum Matrix3 {
    static func inverse(_ m: [[Double]]) -> [[Double]]? {
        let a = m[0][0]
        let b = m[0][1]
        let c = m[0][2]
        let d = m[1][0]
        let e = m[1][1]
        let f = m[1][2]
        let g = m[2][0]
        let h = m[2][1]
        let i = m[2][2]
        let det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
        guard det.isFinite, det != 0 else { return nil }
        return [
            [(e * i - f * h) / det, (c * h - b * i) / det, (b * f - c * e) / det],
            [(f * g - d * i) / det, (a * i - c * g) / det, (c * d - a * f) / det],
            [(d * h - e * g) / det, (b * g - a * h) / det, (a * e - b * d) / det],
        ]
    }

    static func product(_ x: [[Double]], _ y: [[Double]]) -> [[Double]] {
        (0..<3).map { r in (0..<3).map { c in (0..<3).reduce(0) { $0 + x[r][$1] * y[$1][c] } } }
    }
}

/// Nelder–Mead simplex maximisation in three dimensions (Nelder & Mead 1965; standard
/// coefficients reflection 1, expansion 2, contraction ½, shrink ½). Deterministic.
enum NelderMead {
    static func maximise(
        start: SIMD3<Double>, step: SIMD3<Double>, iterations: Int = 600, tolerance: Double = 1e-9,
        _ f: (SIMD3<Double>) -> Double
    ) -> (SIMD3<Double>, Double) {
        var points = [start]
        for k in 0..<3 {
            var p = start
            p[k] += step[k]
            points.append(p)
        }
        var values = points.map(f)
        for _ in 0..<iterations {
            let order = (0..<4).sorted { values[$0] > values[$1] }
            points = order.map { points[$0] }
            values = order.map { values[$0] }
            if abs(values[0] - values[3]) <= tolerance * (abs(values[0]) + 1), values[3].isFinite { break }
            let centroid = (points[0] + points[1] + points[2]) / 3
            let reflected = centroid + (centroid - points[3])
            let fr = f(reflected)
            if fr > values[0] {
                let expanded = centroid + 2 * (centroid - points[3])
                let fe = f(expanded)
                if fe > fr {
                    points[3] = expanded
                    values[3] = fe
                } else {
                    points[3] = reflected
                    values[3] = fr
                }
            } else if fr > values[2] {
                points[3] = reflected
                values[3] = fr
            } else {
                let contracted = centroid + 0.5 * (points[3] - centroid)
                let fc = f(contracted)
                if fc > values[3] {
                    points[3] = contracted
                    values[3] = fc
                } else {
                    for k in 1..<4 {
                        points[k] = points[0] + 0.5 * (points[k] - points[0])
                        values[k] = f(points[k])
                    }
                }
            }
        }
        let bestIndex = (0..<4).max { values[$0] < values[$1] }!
        return (points[bestIndex], values[bestIndex])
    }
}
