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

/// The per-scenario flutter Pareto frontier of a sweep (the recommendation is over the mix: `SweepMix`).
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
}
