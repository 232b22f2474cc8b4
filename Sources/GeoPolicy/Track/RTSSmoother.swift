/// A fix the track pipeline refused, with its index in the input.
public struct RejectedFix: Sendable, Hashable {
    public var index: Int
    public var reason: TrackRejection
}

/// A state (east_m, north_m, vEast_mps, vNorth_mps) with its covariance in a local plane, at a time.
public struct PlaneEstimate: Sendable, Hashable {
    public var frame: LocalFrame
    public var state: SIMD4<Double>
    public var covariance: Covariance4
    /// Seconds, the fixes' clock.
    public var timestamp_s: Double

    public init(frame: LocalFrame, state: SIMD4<Double>, covariance: Covariance4, timestamp_s: Double) {
        self.frame = frame
        self.state = state
        self.covariance = covariance
        self.timestamp_s = timestamp_s
    }

    /// The position of `state` through `frame`: exactly the `position` of the estimate
    /// (`estimate(convention:)`), without its velocity and accuracy.
    public var position: Coordinate { frame.coordinate(SIMD2(state[0], state[1])) }

    /// The estimate (position, velocity at the position, accuracy under `convention`) of this state.
    public func estimate(convention: AccuracyConvention) -> KalmanEstimate {
        KalmanEstimate(
            frame: frame, state: state, covariance: covariance, timestamp_s: timestamp_s, convention: convention)
    }
}

/// Filtered and smoothed estimates of a recorded track.
public struct SmoothedTrack: Sendable, Hashable {
    /// Indices (into the input fixes) of the accepted fixes; `filtered[i]` and `smoothed[i]` belong to `acceptedIndices[i]`.
    public var acceptedIndices: [Int]
    /// Forward (causal) Kalman estimates.
    public var filtered: [KalmanEstimate]
    /// Rauch–Tung–Striebel smoothed estimates (use all fixes, past and future).
    public var smoothed: [KalmanEstimate]
    /// Fixes that were rejected, with reasons.
    public var rejected: [RejectedFix]
    /// The filter's recorded steps (predictions, filtered states and covariances), one per accepted fix.
    public var steps: [KalmanStep] = []
    /// The smoothed states with their covariances, each in its step's frame.
    public var smoothedStates: [PlaneEstimate] = []

    public init(acceptedIndices: [Int], filtered: [KalmanEstimate], smoothed: [KalmanEstimate], rejected: [RejectedFix])
    {
        self.acceptedIndices = acceptedIndices
        self.filtered = filtered
        self.smoothed = smoothed
        self.rejected = rejected
    }
}

/// Fixed-interval Rauch–Tung–Striebel smoother for `KalmanFilter` (offline use).
///
/// Backward recursion (Rauch, Tung & Striebel 1965, AIAA J. 3(8)):
/// C_k = P_k Fᵀ (P⁻_{k+1})⁻¹, x^s_k = x_k + C_k (x^s_{k+1} − x⁻_{k+1}),
/// P^s_k = P_k + C_k (P^s_{k+1} − P⁻_{k+1}) C_kᵀ, where P⁻ and x⁻ are the filter's predictions.
/// Where the filter re-anchored between two steps, the recursion runs in the newer frame
/// and the result is carried back exactly (position through the frames, velocity and
/// covariance through the inverse Jacobian).
public enum RTSSmoother {
    /// Smooths the recorded steps of one filter run (in time order; the first must be `isFirst`).
    /// - Parameter convention: accuracy convention for `horizontalAccuracy_m` of the output.
    /// - Returns: one smoothed estimate per step, in the same order.
    public static func smooth(_ steps: [KalmanStep], convention: AccuracyConvention = .iOSDRMS) -> [KalmanEstimate] {
        guard let last = steps.last else { return [] }
        var out = [KalmanEstimate](
            repeating: estimate(last, last.filteredState, last.filteredCovariance, convention),
            count: steps.count)
        backward(steps) { k, x, p in out[k] = estimate(steps[k], x, p, convention) }
        return out
    }

    /// The smoothed state and covariance of every step, each in its step's `frame` (for
    /// consistency checks such as NEES, which need the covariance the estimate claims).
    public static func smoothedStates(_ steps: [KalmanStep]) -> [PlaneEstimate] {
        var out = steps.map {
            PlaneEstimate(
                frame: $0.frame, state: $0.filteredState, covariance: $0.filteredCovariance,
                timestamp_s: $0.timestamp_s)
        }
        backward(steps) { k, x, p in
            out[k].state = x
            out[k].covariance = p
        }
        return out
    }

    /// What the backward recursion reads of step k + 1 to smooth step k: the prior it started
    /// from, the prediction, the time step and the frame change.
    struct Transition {
        var priorState: SIMD4<Double>
        var priorCovariance: Covariance4
        var predictedState: SIMD4<Double>
        var predictedCovariance: Covariance4
        var dt_s: Double
        var reanchorJacobian: Matrix2

        init(_ step: KalmanStep) {
            priorState = step.priorState
            priorCovariance = step.priorCovariance
            predictedState = step.predictedState
            predictedCovariance = step.predictedCovariance
            dt_s = step.dt_s
            reanchorJacobian = step.reanchorJacobian
        }

        init(
            priorState: SIMD4<Double>, priorCovariance: Covariance4, predictedState: SIMD4<Double>,
            predictedCovariance: Covariance4, dt_s: Double, reanchorJacobian: Matrix2
        ) {
            self.priorState = priorState
            self.priorCovariance = priorCovariance
            self.predictedState = predictedState
            self.predictedCovariance = predictedCovariance
            self.dt_s = dt_s
            self.reanchorJacobian = reanchorJacobian
        }
    }

    /// The backward recursion; calls `visit(k, x, P)` for k = n−2 … 0 with step k's smoothed
    /// state in step k's frame (step n−1 is its filtered state).
    static func backward(_ steps: [KalmanStep], _ visit: (Int, SIMD4<Double>, Covariance4) -> Void) {
        guard let last = steps.last else { return }
        backward(
            count: steps.count, lastState: last.filteredState, lastCovariance: last.filteredCovariance,
            frame: { steps[$0].frame }, transition: { Transition(steps[$0]) }, visit)
    }

    /// The backward recursion over `count` steps given by their frames and `transition(k)` (the
    /// step k + 1 inputs, k ≥ 1), starting from the last step's filtered state and covariance.
    /// Inlined into each caller so that its accessors are too (as a call taking closures the
    /// recursion cost 2 % more instructions per point in `track/rts-smooth`).
    @inline(__always)
    static func backward(
        count: Int, lastState: SIMD4<Double>, lastCovariance: Covariance4,
        frame: (Int) -> LocalFrame, transition: (Int) -> Transition,
        _ visit: (Int, SIMD4<Double>, Covariance4) -> Void
    ) {
        guard count > 0 else { return }
        var xs = lastState
        var ps = Matrix4(lastCovariance)
        var k = count - 2
        while k >= 0 {
            let next = transition(k + 1)
            let f = Matrix4.transition(dt: next.dt_s)
            let pPrior = Matrix4(next.priorCovariance)
            let pPred = Matrix4(next.predictedCovariance)
            // Cᵀ = (P⁻)⁻¹ F P  (P⁻ and P symmetric).
            let ct = pPred.solveSPD(f * pPrior)
            let c = ct.transposed
            var x = next.priorState + c.apply(xs - next.predictedState)
            var p = (pPrior + c * (ps - pPred) * ct).symmetricPart
            if next.reanchorJacobian != .identity {
                // Carry back from step k+1's frame into step k's frame.
                let position = frame(k + 1).coordinate(SIMD2(x[0], x[1]))
                let back = next.reanchorJacobian.inverse
                let v = back.apply(SIMD2(x[2], x[3]))
                let o = frame(k).offset_m(position)
                x = SIMD4(o.x, o.y, v.x, v.y)
                p = p.transformed(by: back)
            }
            xs = x
            ps = Matrix4(p)
            visit(k, x, p)
            k -= 1
        }
    }

    /// Runs `filter` over `fixes` (recording each step) and smooths the result.
    /// Rejected fixes are listed with their reason and skipped.
    public static func run(_ fixes: [Fix], filter: KalmanFilter) -> SmoothedTrack {
        var filtered: [KalmanEstimate] = []
        var accepted: [Int] = []
        var rejected: [RejectedFix] = []
        let steps = forward(fixes, filter: filter) { i, f in
            accepted.append(i)
            if let e = f.estimate { filtered.append(e) }
        } rejected: { i, reason in
            rejected.append(RejectedFix(index: i, reason: reason))
        }
        let states = smoothedStates(steps)
        var track = SmoothedTrack(
            acceptedIndices: accepted, filtered: filtered,
            smoothed: states.map {
                KalmanEstimate(
                    frame: $0.frame, state: $0.state, covariance: $0.covariance,
                    timestamp_s: $0.timestamp_s, convention: filter.convention)
            },
            rejected: rejected)
        track.steps = steps
        track.smoothedStates = states
        return track
    }

    /// `run(_:filter:)` without its `filtered` and `smoothed` estimates (both left empty): the
    /// accepted indices, the rejections, the steps and the smoothed states, for a caller that needs
    /// the estimates' positions (`KalmanStep.filteredPosition`, `PlaneEstimate.position`, the same
    /// values) and the full estimate at a few steps only (`PlaneEstimate.estimate(convention:)`).
    public static func runStates(_ fixes: [Fix], filter: KalmanFilter) -> SmoothedTrack {
        var accepted: [Int] = []
        var rejected: [RejectedFix] = []
        accepted.reserveCapacity(fixes.count)
        let steps = forward(fixes, filter: filter) { i, _ in
            accepted.append(i)
        } rejected: { i, reason in
            rejected.append(RejectedFix(index: i, reason: reason))
        }
        var track = SmoothedTrack(acceptedIndices: accepted, filtered: [], smoothed: [], rejected: rejected)
        track.smoothedStates = smoothedStates(steps)
        track.steps = steps
        return track
    }

    /// Runs `filter` over `fixes` and returns only the smoothed positions, with the indices of the
    /// accepted fixes they belong to: exactly `run(_:filter:).smoothed[k].position`, without the
    /// filtered and smoothed estimates and states `run` also keeps (`smoothedPositions(count:…)`).
    public static func smoothedPositions(
        _ fixes: [Fix], filter: KalmanFilter,
        checkpointInterval interval: Int = checkpointInterval
    ) -> (acceptedIndices: [Int], positions: [Coordinate]) {
        var accepted: [Int] = []
        var positions: [Coordinate] = []
        smoothedPositions(
            count: fixes.count, filter: filter, checkpointInterval: interval, fix: { fixes[$0] },
            prepare: {
                accepted.reserveCapacity($0)
                positions.reserveCapacity($0)
            }
        ) { _, i, p in
            accepted.append(i)
            positions.append(p)
        }
        accepted.reverse()
        positions.reverse()
        return (accepted, positions)
    }

    /// Input fixes per block of `smoothedPositions(count:…)`: one filter copy is kept per block,
    /// and the steps (128 bytes each) of at most two blocks are held at a time.
    public static let checkpointInterval = 4096

    /// The smoothed positions of `count` fixes given by `fix(i)`, in memory independent of
    /// `count` (one `KalmanFilter` copy per `checkpointInterval` fixes, two blocks of steps).
    ///
    /// The forward pass keeps only a copy of the filter at the start of every block. The backward
    /// pass runs the filter again from each copy over its block, recording what the recursion
    /// cannot recompute (`CompactStepRecorder`: the prior, the time step, the frame and the
    /// re-anchoring Jacobian by index); the prediction is recomputed by the same
    /// `KalmanFilter.predict`. The same `process` from the same state gives the same bits, so the
    /// positions are exactly `run(_:filter:).smoothed[k].position`, for twice the forward work.
    ///
    /// Calls `prepare(n)` once with the number n of accepted fixes, then `visit(k, i, position)`
    /// for k = n − 1 … 0: the k-th accepted fix, its index i among the `count`, and its smoothed
    /// position. `fix(i)` must give the same fix every time it is asked.
    /// - Returns: the number of accepted fixes.
    @discardableResult
    public static func smoothedPositions(
        count: Int, filter: KalmanFilter, checkpointInterval interval: Int = checkpointInterval,
        fix: (Int) -> Fix, prepare: (Int) -> Void,
        visit: (_ k: Int, _ index: Int, _ position: Coordinate) -> Void
    ) -> Int {
        precondition(interval >= 1, "RTSSmoother: checkpointInterval must be ≥ 1, got \(interval)")
        var checkpoints: [(filter: KalmanFilter, firstStep: Int)] = []
        checkpoints.reserveCapacity(count / interval + 1)
        var f = filter
        var tail = LastStepRecorder()
        for i in 0..<count {
            if i % interval == 0 { checkpoints.append((f, tail.steps)) }
            do { try f.process(fix(i), &tail) } catch {}
        }
        let total = tail.steps
        prepare(total)
        guard total > 0 else { return 0 }

        /// One block's steps, run again from its checkpoint.
        struct Block {
            var firstStep = 0
            var recorder = CompactStepRecorder()
            var indices: [Int] = []
            func holds(_ k: Int) -> Bool { k >= firstStep && k < firstStep + indices.count }
        }
        func replay(_ b: Int, into block: inout Block) {
            var g = checkpoints[b].filter
            block.firstStep = checkpoints[b].firstStep
            block.recorder.steps.removeAll(keepingCapacity: true)
            block.recorder.frames.removeAll(keepingCapacity: true)
            block.recorder.jacobians.removeAll(keepingCapacity: true)
            block.indices.removeAll(keepingCapacity: true)
            for i in b * interval..<min(count, (b + 1) * interval) {
                do {
                    try g.process(fix(i), &block.recorder)
                    block.indices.append(i)
                } catch {}
            }
        }
        // `lower` holds step k, `upper` the block after it (step k + 1 of the recursion).
        var lower = Block()
        var upper = Block()
        func step(_ k: Int) -> (step: CompactStepRecorder.Step, frame: LocalFrame, jacobian: Matrix2, index: Int) {
            if !lower.holds(k) && !upper.holds(k) {
                swap(&lower, &upper)
                // The last block whose first step is at or before k holds it (empty blocks share
                // their first step with the next one).
                var lo = 0
                var hi = checkpoints.count
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if checkpoints[mid].firstStep <= k { lo = mid + 1 } else { hi = mid }
                }
                replay(lo - 1, into: &lower)
            }
            return lower.holds(k) ? read(lower, k) : read(upper, k)
        }
        func read(
            _ block: borrowing Block, _ k: Int
        ) -> (step: CompactStepRecorder.Step, frame: LocalFrame, jacobian: Matrix2, index: Int) {
            let s = block.recorder.steps[k - block.firstStep]
            return (
                s, block.recorder.frames[Int(s.frame)],
                s.reanchor < 0 ? .identity : block.recorder.jacobians[Int(s.reanchor)],
                block.indices[k - block.firstStep]
            )
        }
        let q = filter.accelerationDensity_m2ps3
        let last = step(total - 1)
        visit(total - 1, last.index, last.frame.coordinate(SIMD2(tail.lastState[0], tail.lastState[1])))
        backward(
            count: total, lastState: tail.lastState, lastCovariance: tail.lastCovariance, frame: { step($0).frame }
        ) { k in
            let s = step(k)
            var x = s.step.priorState
            var p = s.step.priorCovariance
            KalmanFilter.predict(&x, &p, dt: s.step.dt_s, q: q)
            return Transition(
                priorState: s.step.priorState, priorCovariance: s.step.priorCovariance, predictedState: x,
                predictedCovariance: p, dt_s: s.step.dt_s, reanchorJacobian: s.jacobian)
        } _: { k, x, _ in
            let s = step(k)
            visit(k, s.index, s.frame.coordinate(SIMD2(x[0], x[1])))
        }
        return total
    }

    /// The forward pass: updates a copy of `filter` with each fix, recording the step of every
    /// accepted one; calls `accepted(i, filter)` after fix i's update, or `rejected(i, reason)`.
    private static func forward(
        _ fixes: [Fix], filter: KalmanFilter, accepted: (Int, KalmanFilter) -> Void,
        rejected: (Int, TrackRejection) -> Void
    ) -> [KalmanStep] {
        var f = filter
        var steps: [KalmanStep] = []
        steps.reserveCapacity(fixes.count)
        var step = KalmanStep()
        for (i, fix) in fixes.enumerated() {
            do {
                try f.update(fix, recording: &step)
                steps.append(step)
                accepted(i, f)
            } catch {
                rejected(i, error)
            }
        }
        return steps
    }

    static func estimate(
        _ step: KalmanStep, _ x: SIMD4<Double>, _ p: Covariance4,
        _ convention: AccuracyConvention
    ) -> KalmanEstimate {
        KalmanEstimate(
            frame: step.frame, state: x, covariance: p, timestamp_s: step.timestamp_s, convention: convention)
    }
}
