/// A scenario's bound on one metric (`"flutter.spurious": {"max": 0}`).
package struct ExpectationBound: Sendable, Hashable {
    /// Metric path, e.g. `flutter.spurious`.
    package var path: String
    /// Inclusive lower bound, or nil.
    package var min: Double?
    /// Inclusive upper bound, or nil.
    package var max: Double?

    /// At least one bound; bounds finite; min ≤ max.
    package init(path: String, min: Double? = nil, max: Double? = nil) throws(MetricsError) {
        guard min != nil || max != nil else { throw .invalidBound(path: path, reason: "needs \"min\" or \"max\"") }
        if let lo = min, !lo.isFinite { throw .invalidBound(path: path, reason: "min must be finite, got \(lo)") }
        if let hi = max, !hi.isFinite { throw .invalidBound(path: path, reason: "max must be finite, got \(hi)") }
        if let lo = min, let hi = max, lo > hi { throw .invalidBound(path: path, reason: "min \(lo) > max \(hi)") }
        self.path = path
        self.min = min
        self.max = max
    }

    /// "min 1, max 3" / "max 0": for messages; exact values (integral ones without ".0").
    package var text: String {
        func exact(_ x: Double) -> String {
            x == x.rounded() && abs(x) < 1e15 ? String(Int64(x)) : "\(x)"
        }
        return [min.map { "min \(exact($0))" }, max.map { "max \(exact($0))" }].compactMap { $0 }.joined(
            separator: ", ")
    }
}

/// The outcome of checking one bound.
package struct ExpectationResult: Sendable, Hashable {
    package var bound: ExpectationBound
    /// The aggregated figure; nil when the metric exists but nothing measured it.
    package var measured: Estimate?
    /// True when the measured mean lies within the bounds (inclusive).
    package var passed: Bool

    /// One line: `flutter.spurious = 2.5 (ci95 1.1…3.9, n 20) violates max 0`.
    package var message: String {
        guard let m = measured else { return "\(bound.path): no data (bound \(bound.text))" }
        let verb = passed ? "within" : "violates"
        return "\(bound.path) = \(m.mean) (ci95 \(m.lower)…\(m.upper), n \(m.n)) \(verb) \(bound.text)"
    }
}

/// Checking scenario expectations against aggregated metrics.
package enum Expectations {
    /// Checks each bound against the replicate **mean** of its metric (the confidence
    /// interval is reported next to it but does not decide). A path the catalogue does not
    /// know is an error naming it; a known path without data fails with `measured == nil`.
    package static func check(
        _ bounds: [ExpectationBound], against aggregate: MetricAggregate,
        catalog: MetricCatalog = .standard
    ) throws(MetricsError) -> [ExpectationResult] {
        var results: [ExpectationResult] = []
        for b in bounds {
            guard catalog.contains(b.path) else { throw .unknownMetricPath(b.path) }
            guard let m = aggregate.estimate(b.path) else {
                results.append(ExpectationResult(bound: b, measured: nil, passed: false))
                continue
            }
            let ok = (b.min.map { m.mean >= $0 } ?? true) && (b.max.map { m.mean <= $0 } ?? true)
            results.append(ExpectationResult(bound: b, measured: m, passed: ok))
        }
        return results
    }
}
