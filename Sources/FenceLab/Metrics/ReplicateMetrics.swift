/// Throughput of one replicate or run.
package struct Throughput: Sendable, Hashable {
    /// Fixes per second through the engine (FenceMonitor + rule).
    package var engineFixes_per_s: Double
    /// Fixes per second produced by the generator.
    package var generatorFixes_per_s: Double

    package init(engineFixes_per_s: Double, generatorFixes_per_s: Double) {
        self.engineFixes_per_s = engineFixes_per_s
        self.generatorFixes_per_s = generatorFixes_per_s
    }
}

/// Every figure of one replicate of one scenario, before aggregation.
package struct ReplicateMetrics: Sendable, Hashable {
    package var flutter: FlutterMetrics?
    package var rejections: RejectionMetrics?
    /// Error summary per track; keys are `KalmanTrack` raw values.
    package var kalman: [KalmanTrack: ErrorSummary]
    package var gapFill: GapFillMetrics?
    package var throughput: Throughput?
    /// NEES/NIS per filter that claims a covariance (`filtered`, `smoothed`, `imm`).
    package var consistency: [KalmanTrack: FilterConsistency] = [:]
    /// Visit-level figures against the scenario's place; nil when the scenario states no place.
    package var visits: VisitMetrics?
    /// Fixes and wake-ups the sampling policy hands the app, per hour.
    package var cost: CostMetrics?
    /// What the notification policy tells the user, against the place; nil without a policy or a place.
    package var notify: NotificationMetrics?
    /// Per-place figures and the errors between places; nil without a place set.
    package var places: PlaceSetMetrics?

    package init(
        flutter: FlutterMetrics? = nil, rejections: RejectionMetrics? = nil,
        kalman: [KalmanTrack: ErrorSummary] = [:], gapFill: GapFillMetrics? = nil,
        throughput: Throughput? = nil, visits: VisitMetrics? = nil
    ) {
        self.visits = visits
        self.flutter = flutter
        self.rejections = rejections
        self.kalman = kalman
        self.gapFill = gapFill
        self.throughput = throughput
    }

    /// The figures as metric paths (`flutter.spurious`, `kalman.raw.rmse_m`,
    /// `gapFill.linear.10-30s.rmse_m`, `rejections.stale`, `faults.caught.stale`, ...).
    /// Absent figures (nil latency, a bucket without filled points) are left out.
    package func flattened() -> [String: Double] {
        var out: [String: Double] = [:]
        if let f = flutter {
            out["flutter.transitions"] = Double(f.transitions)
            out["flutter.truthTransitions"] = Double(f.truthTransitions)
            out["flutter.spurious"] = Double(f.spurious)
            out["flutter.missed"] = Double(f.missed)
            out["flutter.flaps"] = Double(f.flaps)
            out["flutter.latency_s.median"] = f.latencyMedian_s
            out["flutter.latency_s.p95"] = f.latencyP95_s
            out["flutter.modelDisagreements"] = f.modelDisagreements.map(Double.init)
        }
        visits?.flattened(into: &out)
        notify?.flattened(into: &out)
        places?.flattened(into: &out)
        if let c = cost {
            out["cost.fixesPerHour"] = c.fixesPerHour
            out["cost.wakeupsPerHour"] = c.wakeupsPerHour
        }
        if let r = rejections {
            for (k, v) in r.byReason { out["rejections.\(k)"] = Double(v) }
            for (k, v) in r.faultsLabelled { out["faults.labelled.\(k)"] = Double(v) }
            for (k, v) in r.faultsCaught { out["faults.caught.\(k)"] = Double(v) }
        }
        for (track, s) in kalman {
            out["kalman.\(track.rawValue).rmse_m"] = s.rmse_m
            out["kalman.\(track.rawValue).p50_m"] = s.p50_m
            out["kalman.\(track.rawValue).p95_m"] = s.p95_m
            out["kalman.\(track.rawValue).max_m"] = s.max_m
        }
        for (track, c) in consistency {
            for (name, summary) in [("nees", c.nees), ("nis", c.nis)] {
                guard let summary else { continue }
                out["kalman.\(track.rawValue).\(name).mean"] = summary.mean
                out["kalman.\(track.rawValue).\(name).outside95"] = summary.fractionOutside95
            }
        }
        if let g = gapFill {
            for (method, buckets) in g.byMethod {
                for (bucket, s) in buckets {
                    let p = "gapFill.\(method).\(bucket.rawValue)"
                    out[p + ".gaps"] = Double(s.gaps)
                    out[p + ".rmse_m"] = s.rmse_m
                    out[p + ".max_m"] = s.max_m
                }
            }
        }
        if let t = throughput {
            out["throughput.engineFixes_per_s"] = t.engineFixes_per_s
            out["throughput.generatorFixes_per_s"] = t.generatorFixes_per_s
        }
        return out
    }
}
