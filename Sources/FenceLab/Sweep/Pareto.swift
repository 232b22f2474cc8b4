/// One evaluated setting in the trade-off between false alarms and reaction time.
public struct TradeOffPoint: Sendable, Hashable {
    public var id: Int
    /// Mean spurious transitions (lower is better).
    public var spurious: Double
    /// Mean median detection latency in seconds (lower is better; NaN when nothing was detected).
    public var latency_s: Double
    /// Mean missed true transitions.
    public var missed: Double
    /// Hysteresis band width (ties go to the narrower band).
    public var band_m: Double

    /// The latency the frontier and the objective compare: `latency_s`, or for NaN (nothing
    /// matched) −∞ when nothing was missed either (no true transition: nothing to wait for) and
    /// +∞ when true transitions were all missed.
    public var effectiveLatency_s: Double {
        guard latency_s.isNaN else { return latency_s }
        return missed == 0 ? -.infinity : .infinity
    }

    public init(id: Int, spurious: Double, latency_s: Double, missed: Double, band_m: Double) {
        self.id = id
        self.spurious = spurious
        self.latency_s = latency_s
        self.missed = missed
        self.band_m = band_m
    }
}

/// Pareto frontier and recommendation for sweeps.
public enum TradeOff {
    /// Ids of the points no other point dominates in (spurious, effective latency, missed), all minimised
    /// (`TradeOffPoint.effectiveLatency_s`: NaN latency counts as −∞ with nothing missed, +∞ otherwise).
    public static func frontier(_ points: [TradeOffPoint]) -> Set<Int> {
        func lat(_ p: TradeOffPoint) -> Double { p.effectiveLatency_s }
        var result = Set<Int>()
        for p in points {
            let dominated = points.contains { q in
                q.id != p.id && q.spurious <= p.spurious && lat(q) <= lat(p) && q.missed <= p.missed
                    && (q.spurious < p.spurious || lat(q) < lat(p) || q.missed < p.missed)
            }
            if !dominated { result.insert(p.id) }
        }
        return result
    }

    /// The default objective: minimise spurious subject to missed = 0 (within `missedTolerance`)
    /// and effective latency ≤ `maxLatency_s`; ties (within 1e-9) go to lower latency, then to the
    /// narrower band, then lower id. A point with nothing to detect (NaN latency, 0 missed) meets
    /// the latency bound. Because feasibility and tie-breaks use the frontier's own order, the
    /// recommendation is always on the frontier. Returns nil when no point satisfies the constraints.
    public static func recommend(_ points: [TradeOffPoint], maxLatency_s: Double,
                                 missedTolerance: Double = 0) -> TradeOffPoint? {
        func lat(_ p: TradeOffPoint) -> Double { p.effectiveLatency_s }
        let feasible = points.filter { $0.missed <= missedTolerance && lat($0) <= maxLatency_s }
        return feasible.min { a, b in
            if abs(a.spurious - b.spurious) > 1e-9 { return a.spurious < b.spurious }
            if lat(a) != lat(b) { return lat(a) < lat(b) }
            if a.band_m != b.band_m { return a.band_m < b.band_m }
            return a.id < b.id
        }
    }
}
