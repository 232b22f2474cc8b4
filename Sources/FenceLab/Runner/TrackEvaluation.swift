import DriveSim
import GeoPolicy

/// Kalman filter, RTS smoother, IMM filter, seed-004 baseline and gap fill of one replicate, scored
/// against truth: errors, and NEES/NIS of every filter that claims a covariance.
struct TrackEvaluation {
    var kalman: [KalmanTrack: ErrorSummary]
    var consistency: [KalmanTrack: FilterConsistency]
    var gapFill: GapFillMetrics?
    var series: ErrorSeries?
    /// Smoothed positions (for the track plot).
    var smoothed: [Coordinate]

    /// Gap-fill methods and the track each interpolates: the seed's spline goes through the raw
    /// fixes (seed 004); linear and Hermite use the RTS-smoothed positions (and velocities).
    static let methods: [GapFillMethod] = [.linear, .cubicSpline, .hermite]

    /// - Parameter truthVelocity: per fix, the true (east, north) velocity in m/s when the fix was
    ///   measured, nil when unknown (a late or stale delivery); NEES skips those fixes.
    static func run(
        fixes: [Fix], fixTruth: [Coordinate], truthVelocity: [SIMD2<Double>?], samples: [GeneratedSample],
        settings: EvaluationSettings, scenario: String, replicate: Int
    ) throws -> TrackEvaluation {
        let model = Haversine()
        let filter: KalmanFilter
        let imm: IMMFilter
        do {
            filter = try KalmanFilter(accelerationDensity_m2ps3: settings.accelerationDensity_m2ps3)
            imm = try IMMFilter(accelerationDensity_m2ps3: settings.accelerationDensity_m2ps3)
        } catch {
            throw RunError.track(scenario: scenario, replicate: replicate, "\(error)")
        }
        // The states only: every estimate's position is computed below once, and a smoothed
        // estimate's velocity only at the gap ends that the Hermite fill reads.
        let track = RTSSmoother.runStates(fixes, filter: filter)
        guard !track.acceptedIndices.isEmpty else {
            return TrackEvaluation(kalman: [:], consistency: [:], gapFill: nil, series: nil, smoothed: [])
        }
        let n = track.acceptedIndices.count
        var raw: [Double] = []
        var filtered: [Double] = []
        var smoothed: [Double] = []
        var seed: [Double] = []
        var times: [Double] = []
        var immErrors: [Double] = []
        var observedPositions: [Coordinate] = []
        var smoothedPositions: [Coordinate] = []
        raw.reserveCapacity(n)
        filtered.reserveCapacity(n)
        smoothed.reserveCapacity(n)
        seed.reserveCapacity(n)
        times.reserveCapacity(n)
        immErrors.reserveCapacity(n)
        observedPositions.reserveCapacity(n)
        smoothedPositions.reserveCapacity(n)
        var seedFilter = try SeedKalman()
        var immFilter = imm
        var cvCheck = ConsistencyRecorder()
        var smoothCheck = ConsistencyRecorder()
        var immCheck = ConsistencyRecorder()
        for (k, i) in track.acceptedIndices.enumerated() {
            // What the five distances compute of the truth alone, once (the same values).
            let truth = Haversine.Target(fixTruth[i])
            let observed = try fixes[i].coordinate()
            observedPositions.append(observed)
            let step = track.steps[k]
            let state = track.smoothedStates[k]
            let smoothedPosition = state.position
            smoothedPositions.append(smoothedPosition)
            times.append(fixes[i].timestamp_s)
            raw.append(model.distance_m(observed, to: truth))
            filtered.append(model.distance_m(step.filteredPosition, to: truth))
            smoothed.append(model.distance_m(smoothedPosition, to: truth))
            if let out = try? seedFilter.process(fixes[i]) {
                seed.append(model.distance_m(out.position, to: truth))
            } else {
                seed.append(.nan)
            }
            // The IMM refuses exactly the fixes the CV filter refuses (same checks, same order).
            let nu = try? immFilter.updateReturningInnovation(fixes[i])
            if let p = immFilter.position { immErrors.append(model.distance_m(p, to: truth)) }
            if let nu { immCheck.innovation(nu) }
            // The frame at the truth once per fix, for the three filters' records; the smoother's
            // states are in the steps' frames, so the CV filter and the smoother share the truth.
            if let v = truthVelocity[i] {
                let truthFrame = LocalFrame(anchor: truth.coordinate)
                let combined = immFilter.combined
                immCheck.estimate(
                    state: combined.state, covariance: combined.covariance,
                    truth: TruthInFrame(frame: immFilter.frame, truthFrame: truthFrame, truthVelocity: v))
                let inStep = TruthInFrame(frame: step.frame, truthFrame: truthFrame, truthVelocity: v)
                cvCheck.estimate(state: step.filteredState, covariance: step.filteredCovariance, truth: inStep)
                smoothCheck.estimate(
                    state: state.state, covariance: state.covariance,
                    truth: state.frame == step.frame
                        ? inStep : TruthInFrame(frame: state.frame, truthFrame: truthFrame, truthVelocity: v))
            }
            if !step.isFirst {
                let r = measurementVariance(fixes[i], filter.convention)
                let z = step.frame.offset_m(observed)
                let x = step.predictedState
                let p = step.predictedCovariance
                cvCheck.innovation(
                    Innovation(residual_m: z - SIMD2(x[0], x[1]), s00: p.p00 + r, s01: p.p01, s11: p.p11 + r))
                // Smoothing residual: covariance R − H Pˢ Hᵀ (Pˢ < R for every fix the smoother used).
                let xs = state.state
                let ps = state.covariance
                let zs = state.frame == step.frame ? z : state.frame.offset_m(observed)
                smoothCheck.innovation(
                    Innovation(residual_m: zs - SIMD2(xs[0], xs[1]), s00: r - ps.p00, s01: -ps.p01, s11: r - ps.p11))
            }
        }
        var kalman: [KalmanTrack: ErrorSummary] = [:]
        kalman[.raw] = try ErrorSummary.of(raw, key: "kalman.raw")
        kalman[.filtered] = try ErrorSummary.of(filtered, key: "kalman.filtered")
        kalman[.smoothed] = try ErrorSummary.of(smoothed, key: "kalman.smoothed")
        kalman[.seedBaseline] = try ErrorSummary.of(seed.filter(\.isFinite), key: "kalman.seedBaseline")
        kalman[.imm] = try ErrorSummary.of(immErrors, key: "kalman.imm")
        let consistency: [KalmanTrack: FilterConsistency] = [
            .filtered: try cvCheck.summary(key: "kalman.filtered"),
            .smoothed: try smoothCheck.summary(key: "kalman.smoothed"),
            .imm: try immCheck.summary(key: "kalman.imm"),
        ]

        let rawSamples = zip(track.acceptedIndices, observedPositions).map { i, position in
            TrackSample(timestamp_s: fixes[i].timestamp_s, position: position)
        }
        let smoothSamples = zip(track.smoothedStates, smoothedPositions).map { s, position in
            TrackSample(timestamp_s: s.timestamp_s, position: position)
        }
        let gaps = try gapFill(
            raw: rawSamples, smooth: smoothSamples, smoothedStates: track.smoothedStates,
            convention: filter.convention, samples: samples, model: model)
        return TrackEvaluation(
            kalman: kalman, consistency: consistency, gapFill: gaps,
            series: ErrorSeries(
                time_s: times, raw_m: raw, filtered_m: filtered, smoothed_m: smoothed,
                seedBaseline_m: seed.map { $0.isFinite ? $0 : 0 },
                imm_m: immErrors.count == times.count ? immErrors : nil),
            smoothed: smoothedPositions)
    }

    /// Per-axis measurement variance (m²) of an accepted fix under `convention`.
    static func measurementVariance(_ fix: Fix, _ convention: AccuracyConvention) -> Double {
        let sigma = convention.sigmaPerAxis_m(accuracy_m: fix.horizontalAccuracy_m)
        return sigma * sigma
    }

    /// Fills every gap of the accepted track and scores the filled points against the truth
    /// at the slots where the generator withheld a fix (`gap` label).
    /// - Parameter smooth: the smoothed positions without velocities; the velocities of the
    ///   samples at the gap ends (all the Hermite fill reads) come from `smoothedStates`.
    static func gapFill(
        raw: [TrackSample], smooth: [TrackSample], smoothedStates: [PlaneEstimate],
        convention: AccuracyConvention, samples: [GeneratedSample], model: Haversine
    ) throws -> GapFillMetrics? {
        guard raw.count >= 2, let filler = try? GapFill() else { return nil }
        let gaps: [TrackGap]
        do { gaps = try filler.gaps(in: smooth) } catch { return nil }
        var smooth = smooth
        for gap in gaps {
            for j in [gap.beforeIndex, gap.beforeIndex + 1] where smooth[j].velocity_mps == nil {
                smooth[j] = TrackSample(smoothedStates[j].estimate(convention: convention))
            }
        }
        guard !gaps.isEmpty else { return try GapFillMetrics.measure([], methods: methods.map(\.rawValue)) }
        let withheld = samples.filter { $0.fault == .gap }
        var filled: [FilledGap] = []
        for gap in gaps {
            let inside = withheld.filter { $0.time_s > gap.start_s && $0.time_s < gap.end_s }
            guard !inside.isEmpty else { continue }
            let times = inside.map(\.time_s)
            for method in methods {
                let source = method == .cubicSpline ? raw : smooth
                guard let points = try? filler.interpolate(gap, in: source, method: method, at: times) else { continue }
                let errors = zip(points, inside).map { model.distance_m($0, $1.truth) }
                filled.append(FilledGap(method: method.rawValue, duration_s: gap.duration_s, errors_m: errors))
            }
        }
        return try GapFillMetrics.measure(filled, methods: methods.map(\.rawValue))
    }
}
