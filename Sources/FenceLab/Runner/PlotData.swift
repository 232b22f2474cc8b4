import DriveSim
import GeoPolicy

/// Plot inputs of one replicate, in metres east/north of the fence centre.
enum PlotData {
    /// Longest series kept for plots; longer replicates are thinned evenly.
    static let maxPoints = 1_500

    /// - Parameters:
    ///   - ruleLabel: the rule named in the caption (the rule that decided, not necessarily `fence.rule`).
    ///   - ruleRadii_m: circles to draw; nil draws the scenario's `fence.rule` radii.
    static func make(
        spec: ScenarioSpec, samples: [GeneratedSample], fixes: [Fix], decisions: FenceDecisions,
        truthStates: [StateSample], track: TrackEvaluation, includeCoordinates: Bool,
        ruleLabel: String, ruleRadii_m: (enter_m: Double, exit_m: Double)?, truthDistances: TruthDistances? = nil
    ) -> ScenarioPlots {
        let frame = LocalFrame(anchor: spec.fence.center)
        let (inner, outer) = ruleRadii_m ?? spec.fence.rule.plotRadii_m
        // Only the points the plots keep (`thin`) are projected: the same points, the same values.
        var valid: [Int] = []
        valid.reserveCapacity(fixes.count)
        for (i, f) in fixes.enumerated() where Coordinate.isValid(latitude: f.latitude, longitude: f.longitude) {
            valid.append(i)
        }
        let observed = thin(valid).map { i in
            let o = frame.offset_m(try! fixes[i].coordinate())
            return TrackPoint(east_m: o.x, north_m: o.y, state: decisions.states[i].state)
        }
        var lastSlot = -1
        var slots: [Int] = []
        var closest = Double.infinity
        for (j, s) in samples.enumerated() where s.sampleIndex > lastSlot {
            lastSlot = s.sampleIndex
            // The truth's distance from the centre, computed once per slot (Haversine is symmetric).
            closest = min(
                closest, truthDistances?.distance_m[slots.count] ?? Haversine().distance_m(s.truth, spec.fence.center))
            slots.append(j)
        }
        let truth = thin(slots).map { j in
            let o = frame.offset_m(samples[j].truth)
            return PlanePoint(east_m: o.x, north_m: o.y)
        }
        let geometry = FencePlotGeometry(
            enter_m: inner, exit_m: outer,
            centerLatitude: includeCoordinates ? spec.fence.center.latitude : nil,
            centerLongitude: includeCoordinates ? spec.fence.center.longitude : nil)
        var plots = ScenarioPlots(
            fence: geometry, caption: "\(spec.name), \(ruleLabel)",
            observedTrack: observed, truthTrack: truth,
            truthStates: truthStates, observedStates: decisions.states,
            errors: track.series.map(thin))
        plots.closestApproach_m = closest.isFinite ? closest : nil
        return plots
    }

    static func thin<T>(_ values: [T]) -> [T] {
        guard values.count > maxPoints else { return values }
        let step = Double(values.count - 1) / Double(maxPoints - 1)
        return (0..<maxPoints).map { values[Int((Double($0) * step).rounded())] }
    }

    static func thin(_ s: ErrorSeries) -> ErrorSeries {
        guard s.time_s.count > maxPoints else { return s }
        return ErrorSeries(
            time_s: thin(s.time_s), raw_m: thin(s.raw_m), filtered_m: s.filtered_m.map(thin),
            smoothed_m: s.smoothed_m.map(thin), seedBaseline_m: s.seedBaseline_m.map(thin),
            imm_m: s.imm_m.map(thin))
    }
}
