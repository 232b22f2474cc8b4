import GSLKit
import GeoPolicy

/// One consistency statistic of a filter over one replicate: the per-fix values of a normalised
/// squared error that is χ²(dof) for a filter whose covariance is honest.
package struct ConsistencySummary: Sendable, Hashable {
    /// Number of values, ≥ 1.
    package var count: Int
    /// Degrees of freedom of the χ² the values follow for a consistent filter.
    package var degreesOfFreedom: Int
    /// Mean value (a consistent filter: ≈ dof).
    package var mean: Double
    /// Fraction of values outside the two-sided χ²(dof) 95 % bounds (a consistent filter: ≈ 0.05).
    package var fractionOutside95: Double

    /// Summarises `values` (finite, ≥ 0); nil for none.
    /// - Throws: `MetricsError.invalidValue` naming `key` and the index of a bad value; GSL errors.
    package static func of(
        _ values: [Double], degreesOfFreedom: Int, key: String
    ) throws(MetricsError) -> ConsistencySummary? {
        guard !values.isEmpty else { return nil }
        let (lower, upper) = try chiSquareBounds95(degreesOfFreedom: degreesOfFreedom)
        var sum = 0.0
        var outside = 0
        for (i, v) in values.enumerated() {
            guard v.isFinite, v >= 0 else {
                throw .invalidValue(
                    key: "\(key)[\(i)]", value: "\(v)", reason: "a normalised squared error must be finite and ≥ 0")
            }
            sum += v
            if v < lower || v > upper { outside += 1 }
        }
        return ConsistencySummary(
            count: values.count, degreesOfFreedom: degreesOfFreedom, mean: sum / Double(values.count),
            fractionOutside95: Double(outside) / Double(values.count))
    }

    /// The 2.5 % and 97.5 % quantiles of χ²(dof) (GSL `gsl_cdf_chisq_Pinv`).
    package static func chiSquareBounds95(degreesOfFreedom: Int) throws(MetricsError) -> (lower: Double, upper: Double)
    {
        let nu = Double(degreesOfFreedom)
        return try gsl { () throws(GSLError) in
            (
                try Statistics.chiSquareQuantile(probability: 0.025, degreesOfFreedom: nu),
                try Statistics.chiSquareQuantile(probability: 0.975, degreesOfFreedom: nu)
            )
        }
    }
}

/// NEES and NIS of one filter over one replicate (`kalman.<track>.nees` / `.nis`).
package struct FilterConsistency: Sendable, Hashable {
    /// Normalised estimation error squared of position and velocity against the truth, χ²(4).
    package var nees: ConsistencySummary?
    /// Normalised innovation squared of each fix against the prediction, χ²(2); for the smoother the
    /// normalised smoothing residual (z − Hx̂ˢ)ᵀ(R − HPˢHᵀ)⁻¹(z − Hx̂ˢ), also χ²(2) under the model.
    package var nis: ConsistencySummary?

    package init(nees: ConsistencySummary?, nis: ConsistencySummary?) {
        self.nees = nees
        self.nis = nis
    }

    /// Degrees of freedom: NEES over (east, north, vEast, vNorth), NIS over (east, north).
    package static let neesDegreesOfFreedom = 4
    package static let nisDegreesOfFreedom = 2
}

/// The true position (m) and velocity (m/s) in a filter's frame, for NEES.
struct TruthInFrame {
    var position_m: SIMD2<Double>
    var velocity_mps: SIMD2<Double>

    /// - Parameters:
    ///   - truthFrame: `LocalFrame(anchor: truth)`.
    ///   - truthVelocity: east/north m/s at the truth.
    init(frame: LocalFrame, truthFrame: LocalFrame, truthVelocity v: SIMD2<Double>) {
        position_m = frame.offset_m(anchorOf: truthFrame)
        velocity_mps = truthFrame.jacobian(at: .zero, into: frame).apply(v)
    }
}

/// Collects the per-fix NEES and NIS values of one filter.
struct ConsistencyRecorder {
    var nees: [Double] = []
    var nis: [Double] = []

    /// Records eᵀP⁻¹e for the estimate (x, P) in `frame` against the truth position and velocity
    /// (east/north m/s at the truth); skipped when the truth velocity is unknown or P is singular.
    mutating func estimate(
        frame: LocalFrame, state x: SIMD4<Double>, covariance p: Covariance4,
        truth: Coordinate, truthVelocity: SIMD2<Double>?
    ) {
        guard truthVelocity != nil else { return }
        estimate(
            frame: frame, state: x, covariance: p, truthFrame: LocalFrame(anchor: truth), truthVelocity: truthVelocity)
    }

    /// The same with the frame at the truth given (`LocalFrame(anchor: truth)`, built once per fix
    /// for every filter's record).
    mutating func estimate(
        frame: LocalFrame, state x: SIMD4<Double>, covariance p: Covariance4,
        truthFrame: LocalFrame, truthVelocity: SIMD2<Double>?
    ) {
        guard let v = truthVelocity else { return }
        estimate(state: x, covariance: p, truth: TruthInFrame(frame: frame, truthFrame: truthFrame, truthVelocity: v))
    }

    /// The same with the truth already carried into the estimate's frame (once per fix and frame,
    /// for every filter that estimates in that frame).
    mutating func estimate(state x: SIMD4<Double>, covariance p: Covariance4, truth: TruthInFrame) {
        let position = truth.position_m
        let velocity = truth.velocity_mps
        let e = SIMD4(x[0] - position.x, x[1] - position.y, x[2] - velocity.x, x[3] - velocity.y)
        if let value = p.normalizedSquare(e) { nees.append(value) }
    }

    /// Records νᵀS⁻¹ν when S is positive definite.
    mutating func innovation(_ nu: Innovation) {
        guard nu.s00 > 0, nu.determinant > 0 else { return }
        let value = nu.normalizedSquare
        if value.isFinite { nis.append(value) }
    }

    func summary(key: String) throws(MetricsError) -> FilterConsistency {
        FilterConsistency(
            nees: try ConsistencySummary.of(
                nees, degreesOfFreedom: FilterConsistency.neesDegreesOfFreedom, key: key + ".nees"),
            nis: try ConsistencySummary.of(
                nis, degreesOfFreedom: FilterConsistency.nisDegreesOfFreedom, key: key + ".nis"))
    }
}
