import ReportKit

// Report text for the harness's estimates and expectations (ReportKit formats the numbers).
extension ReportText {
    /// "mean [lo, hi]" (or just "mean" when n = 1 or the interval is a point).
    package static func estimate(_ e: Estimate?) -> String {
        guard let e else { return "–" }
        if e.n <= 1 || e.lower == e.upper { return short(e.mean) }
        return "\(short(e.mean)) [\(short(e.lower)), \(short(e.upper))]"
    }

    /// "≤ 0" / "≥ 1, ≤ 3": a bound for people.
    static func bound(_ b: ExpectationBound) -> String {
        [b.min.map { "≥ \(short($0))" }, b.max.map { "≤ \(short($0))" }].compactMap { $0 }.joined(separator: ", ")
    }

    /// "flutter.spurious = 3.2 [−1.87, 8.27] (n 5), bound ≤ 0": rounded, for HTML and Markdown.
    /// The unrounded value is in report.json, junit.xml and `ExpectationResult.message`.
    static func outcome(_ r: ExpectationResult) -> String {
        let unit = MetricCatalog.unit(of: r.bound.path)
        guard let m = r.measured else { return "\(r.bound.path): no data, bound \(bound(r.bound)) \(unit)" }
        return "\(r.bound.path) = \(estimate(m)) \(unit) (n \(m.n)), bound \(bound(r.bound)) \(unit)"
    }

    /// "81.5 [64.2, 98.8] per drive": an estimate with its unit (`MetricCatalog.unit(of:)`).
    static func withUnit(_ e: Estimate?, path: String) -> String {
        guard let e else { return "–" }
        return "\(estimate(e)) \(MetricCatalog.unit(of: path))"
    }

    /// "mean [lo, hi]" in `latency` form.
    package static func latencyEstimate(_ e: Estimate?) -> String {
        guard let e else { return "–" }
        if e.n <= 1 || e.lower == e.upper { return latency(e.mean) }
        return "\(latency(e.mean)) [\(latency(e.lower)), \(latency(e.upper))]"
    }

    /// "mean [lo, hi]" in `plain` form.
    package static func plainEstimate(_ e: Estimate?) -> String {
        guard let e else { return "–" }
        if e.n <= 1 || e.lower == e.upper { return plain(e.mean) }
        return "\(plain(e.mean)) [\(plain(e.lower)), \(plain(e.upper))]"
    }
}
