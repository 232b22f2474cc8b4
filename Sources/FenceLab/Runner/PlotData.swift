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
        var observed: [TrackPoint] = []
        for (i, f) in fixes.enumerated() where Coordinate.isValid(latitude: f.latitude, longitude: f.longitude) {
            let o = frame.offset_m(try! f.coordinate())
            observed.append(TrackPoint(east_m: o.x, north_m: o.y, state: decisions.states[i].state))
        }
        var lastSlot = -1
        var truth: [PlanePoint] = []
        var closest = Double.infinity
        for s in samples where s.sampleIndex > lastSlot {
            lastSlot = s.sampleIndex
            // The truth's distance from the centre, computed once per slot (Haversine is symmetric).
            closest = min(
                closest, truthDistances?.distance_m[truth.count] ?? Haversine().distance_m(s.truth, spec.fence.center))
            let o = frame.offset_m(s.truth)
            truth.append(PlanePoint(east_m: o.x, north_m: o.y))
        }
        let geometry = FencePlotGeometry(
            enter_m: inner, exit_m: outer,
            centerLatitude: includeCoordinates ? spec.fence.center.latitude : nil,
            centerLongitude: includeCoordinates ? spec.fence.center.longitude : nil)
        var plots = ScenarioPlots(
            fence: geometry, caption: "\(spec.name), \(ruleLabel)",
            observedTrack: thin(observed), truthTrack: thin(truth),
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
