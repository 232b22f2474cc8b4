import GSLKit
import GeoPolicy

/// How a fleet figure aggregates over logs and which interval it takes.
package enum FleetFigureKind: String, Sendable, Hashable {
    /// Events per hour of log (exact Poisson interval; difference: normal approximation).
    case ratePerHour = "rate-per-hour"
    /// Events per engine crossing (exact Poisson interval over the crossings as exposure).
    case ratePerCrossing = "rate-per-crossing"
    /// Median over logs of a per-log value (order-statistic interval; difference: bootstrap
    /// interval, Mann–Whitney test).
    case median
    /// Fraction of logs (Wilson interval; difference: normal approximation).
    case proportion
}

/// One device-level figure of the fleet report. Every figure is "higher is worse".
package struct FleetFigure: Sendable, Hashable {
    package var name: String
    package var kind: FleetFigureKind
    package var unit: String
    package var meaning: String
    /// The per-log count (rates, proportion: 0/1) or value (medians).
    package var perLog: @Sendable (FleetLogSummary) -> Double

    package static func == (a: FleetFigure, b: FleetFigure) -> Bool { a.name == b.name }
    package func hash(into h: inout Hasher) { h.combine(name) }

    /// Every figure, in report order (docs/fleet.md, "Figures").
    package static let all: [FleetFigure] =
        [
            FleetFigure(
                name: "delay_median_s", kind: .median, unit: "s",
                meaning: "median delay of the system events after the engine's own transition",
                perLog: { $0.delayMedian_s }
            ),
            FleetFigure(
                name: "exit_past_radius_median_m", kind: .median, unit: "m",
                meaning: "median distance past the exit radius at which exit events arrived", perLog: { $0.exitPast_m }),
            FleetFigure(
                name: "entry_before_radius_median_m", kind: .median, unit: "m",
                meaning: "median distance short of the enter radius at which enter events arrived",
                perLog: { $0.entryBefore_m }),
            FleetFigure(
                name: "duplicate_per_h", kind: .ratePerHour, unit: "1/h", meaning: "duplicate system events per hour",
                perLog: { Double($0.duplicate) }),
            FleetFigure(
                name: "missing_per_h", kind: .ratePerHour, unit: "1/h", meaning: "missing system events per hour",
                perLog: { Double($0.missing) }),
            FleetFigure(
                name: "unsupported_per_h", kind: .ratePerHour, unit: "1/h",
                meaning: "unsupported system events per hour", perLog: { Double($0.unsupported) }),
            FleetFigure(
                name: "late_per_h", kind: .ratePerHour, unit: "1/h", meaning: "late system events per hour",
                perLog: { Double($0.late) }),
            FleetFigure(
                name: "duplicate_per_crossing", kind: .ratePerCrossing, unit: "1/crossing",
                meaning: "duplicate system events per engine crossing", perLog: { Double($0.duplicate) }),
            FleetFigure(
                name: "missing_per_crossing", kind: .ratePerCrossing, unit: "1/crossing",
                meaning: "missing system events per engine crossing", perLog: { Double($0.missing) }),
            FleetFigure(
                name: "unsupported_per_crossing", kind: .ratePerCrossing, unit: "1/crossing",
                meaning: "unsupported system events per engine crossing", perLog: { Double($0.unsupported) }),
            FleetFigure(
                name: "late_per_crossing", kind: .ratePerCrossing, unit: "1/crossing",
                meaning: "late system events per engine crossing", perLog: { Double($0.late) }),
            FleetFigure(
                name: "flutter_per_h", kind: .ratePerHour, unit: "1/h", meaning: "rule flutter per hour",
                perLog: { Double($0.flutter) }),
            FleetFigure(
                name: "stale_fixes_per_h", kind: .ratePerHour, unit: "1/h", meaning: "fixes rejected as stale per hour",
                perLog: { Double($0.stale) }),
            FleetFigure(
                name: "rejected_fixes_per_h", kind: .ratePerHour, unit: "1/h",
                meaning: "fixes rejected for any reason per hour", perLog: { Double($0.rejected) }),
        ] + rejectionFigures + [
            FleetFigure(
                name: "gaps_per_h", kind: .ratePerHour, unit: "1/h",
                meaning: "pauses between fixes longer than 60 s per hour", perLog: { Double($0.gaps) }),
            FleetFigure(
                name: "interval_median_s", kind: .median, unit: "s",
                meaning: "median over logs of each log's median sampling interval", perLog: { $0.intervalMedian_s }),
            FleetFigure(
                name: "interval_p95_s", kind: .median, unit: "s",
                meaning: "median over logs of each log's 95th-percentile sampling interval",
                perLog: { $0.intervalP95_s }),
            FleetFigure(
                name: "failed_log_fraction", kind: .proportion, unit: "1",
                meaning: "fraction of logs whose replay failed", perLog: { $0.status == .failed ? 1 : 0 }),
            FleetFigure(
                name: nisFigureName, kind: .median, unit: "1",
                meaning:
                    "median over logs of the fraction of the input filter's NIS values above the χ²(2) 95 % quantile (consistent: 0.05)",
                perLog: { $0.nisAbove95Fraction }),
        ]

    /// The NIS figure: `null` without an input filter.
    package static let nisFigureName = "nis_above_p95_fraction"

    /// `rejected_REASON_per_h` for every engine rejection reason but `stale` (`stale_fixes_per_h`),
    /// the reason in snake case: `outOfOrder` → `rejected_out_of_order_per_h`.
    static let rejectionFigures: [FleetFigure] = RejectionReason.allCases.indices.compactMap { i in
        let reason = RejectionReason.allCases[i]
        guard reason != .stale else { return nil }
        return FleetFigure(
            name: "rejected_\(snakeCase(reason.rawValue))_per_h", kind: .ratePerHour, unit: "1/h",
            meaning: "fixes rejected as \(reason.rawValue) per hour", perLog: { Double($0.rejectedByReason[i]) })
    }

    /// `outOfOrder` → `out_of_order`.
    static func snakeCase(_ camel: String) -> String {
        var out = ""
        for c in camel {
            if c.isUppercase {
                out += "_" + c.lowercased()
            } else {
                out.append(c)
            }
        }
        return out
    }

    /// The figure named `name`, nil when there is none.
    package static func named(_ name: String) -> FleetFigure? { all.first { $0.name == name } }

    /// The figure over a group of logs with its 95 % interval.
    package func aggregate(_ logs: [FleetLogSummary]) -> FleetInterval {
        switch kind {
        case .median: return FleetStatistics.median(logs.map(perLog))
        case .ratePerHour:
            return FleetStatistics.poissonRate(
                Int(logs.reduce(0) { $0 + perLog($1) }), exposure: logs.reduce(0) { $0 + $1.hours })
        case .ratePerCrossing:
            return FleetStatistics.poissonRate(
                Int(logs.reduce(0) { $0 + perLog($1) }), exposure: Double(logs.reduce(0) { $0 + $1.crossings }))
        case .proportion: return FleetStatistics.wilson(Int(logs.reduce(0) { $0 + perLog($1) }), logs.count)
        }
    }

    /// Candidate − baseline with its 95 % interval, and the one-sided p-value of
    /// H0 "candidate − baseline ≤ limit" (candidate not worse beyond `limit`).
    package func compare(
        baseline a: [FleetLogSummary], candidate b: [FleetLogSummary], limit: Double, seed: UInt64,
        bootstrap: Bool = true
    ) -> (difference: FleetInterval, p: Double) {
        switch kind {
        case .median:
            let va = a.map(perLog)
            let vb = b.map(perLog)
            let d =
                bootstrap
                ? FleetStatistics.bootstrapMedianDifference(candidate: vb, baseline: va, seed: seed)
                : FleetInterval(
                    estimate: FleetStatistics.median(vb).estimate - FleetStatistics.median(va).estimate, lower: .nan,
                    upper: .nan)
            return (d, FleetStatistics.mannWhitneyGreater(candidate: vb, baseline: va, limit: limit))
        case .ratePerHour, .ratePerCrossing:
            func exposure(_ s: [FleetLogSummary]) -> Double {
                kind == .ratePerHour ? s.reduce(0) { $0 + $1.hours } : Double(s.reduce(0) { $0 + $1.crossings })
            }
            let ka = a.reduce(0) { $0 + perLog($1) }
            let kb = b.reduce(0) { $0 + perLog($1) }
            let ta = exposure(a)
            let tb = exposure(b)
            guard ta > 0, tb > 0 else { return (.undefined, .nan) }
            let diff = kb / tb - ka / ta
            let se = (ka / (ta * ta) + kb / (tb * tb)).squareRoot()
            let z = FleetStatistics.z975
            return (
                FleetInterval(estimate: diff, lower: diff - z * se, upper: diff + z * se),
                FleetStatistics.zGreater(difference: diff, se: se, limit: limit)
            )
        case .proportion:
            guard !a.isEmpty, !b.isEmpty else { return (.undefined, .nan) }
            let pa = a.reduce(0) { $0 + perLog($1) } / Double(a.count)
            let pb = b.reduce(0) { $0 + perLog($1) } / Double(b.count)
            let se = (pa * (1 - pa) / Double(a.count) + pb * (1 - pb) / Double(b.count)).squareRoot()
            let diff = pb - pa
            let z = FleetStatistics.z975
            return (
                FleetInterval(estimate: diff, lower: diff - z * se, upper: diff + z * se),
                FleetStatistics.zGreater(difference: diff, se: se, limit: limit)
            )
        }
    }
}
