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
    /// Ids of the points no other point dominates in (spurious, latency_s, missed), all minimised.
    /// A point with NaN latency (nothing detected) is compared on spurious and missed only, with latency worst.
    public static func frontier(_ points: [TradeOffPoint]) -> Set<Int> {
        func lat(_ p: TradeOffPoint) -> Double { p.latency_s.isNaN ? .infinity : p.latency_s }
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
    /// and latency ≤ `maxLatency_s`; ties (within 1e-9) go to lower latency, then to the narrower band, then lower id.
    /// A point with NaN latency and exactly 0 missed had nothing to detect (no true transition in any
    /// replicate): the latency bound holds vacuously, and its latency counts as +∞ in the tie-break,
    /// as in `frontier`, so the recommendation is always on the frontier.
    /// Returns nil when no point satisfies the constraints.
    public static func recommend(_ points: [TradeOffPoint], maxLatency_s: Double,
                                 missedTolerance: Double = 0) -> TradeOffPoint? {
        let feasible = points.filter {
            $0.missed <= missedTolerance && ($0.latency_s.isNaN ? $0.missed == 0 : $0.latency_s <= maxLatency_s)
        }
        func lat(_ p: TradeOffPoint) -> Double { p.latency_s.isNaN ? .infinity : p.latency_s }
        return feasible.min { a, b in
            if abs(a.spurious - b.spurious) > 1e-9 { return a.spurious < b.spurious }
            if lat(a) != lat(b), abs(lat(a) - lat(b)) > 1e-9 || lat(a).isInfinite || lat(b).isInfinite { return lat(a) < lat(b) }
            if a.band_m != b.band_m { return a.band_m < b.band_m }
            return a.id < b.id
        }
    }
}
