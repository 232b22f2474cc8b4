import GSLKit
import GeoPolicy

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The true state at one sample time.

struct TruthState: Sendable {
    var unit: SIMD3<Double>
    var coordinate: Coordinate
    var speed_mps: Double
    /// Unit east-north direction of motion; zero when not moving or unknown.
    var heading: SIMD2<Double>
    /// Unit east-north direction that anisotropic noise calls "along track" (heading, or radial when still).
    var alongTrack: SIMD2<Double>
    /// The east-north frame at `unit`.
    var basis: TangentBasis
}

/// One great-circle leg of a waypoint route.

struct Leg: Sendable {
    var start: SIMD3<Double>
    /// Unit tangent at `start` towards the end of the leg.
    var tangent: SIMD3<Double>
    /// Unit normal of the leg's plane (start × end).
    var axis: SIMD3<Double>
    var startDistance_m: Double
    var length_m: Double
}

/// Samples the true position of a route at successive sample times.
///
/// Everything is done with 3-D unit vectors (slerp along great circles, azimuthal
/// frame at the fence centre), so truth is continuous across ±180° and over a pole.

struct RouteSampler {
    enum Mode: Sendable { case stationary, loiter, waypoints }
    private(set) var mode: Mode
    private(set) var dt_s: Double
    // stationary
    var still: TruthState
    // loiter
    private(set) var centerFrame: LocalFrame
    private(set) var loiter: LoiterSpec
    private(set) var loiterPhi: Double
    /// The radial walk's innovation σ·√(1 − φ²) and the tangential step σ_t·√dt, metres: the
    /// same products, made once instead of per sample.
    private(set) var loiterInnovation_m = 0.0
    private(set) var loiterTangentialStep_m = 0.0
    /// The fence centre's unit vector (`centerFrame.anchor.unitVector`, made once, not per sample).
    private(set) var centerUnit: SIMD3<Double>
    var radius_m: Double = 0
    var bearing_rad: Double = 0
    var previousUnit: SIMD3<Double> = .zero
    // waypoints
    private(set) var legs: [Leg]
    private(set) var totalLength_m: Double
    private(set) var speed: SpeedProfile
    var legIndex = 0
    var distance_m = 0.0
    var speedDeviation_mps = 0.0
    /// An exactly computed point on the current leg; samples within `anchorReach_m` of it are
    /// placed relative to it without trigonometric calls (see `sampleWaypoints`).
    var anchor = WaypointAnchor()
    static let anchorReach_m = 200.0
    private(set) var speedPhi: Double
    /// Seconds standing at the first waypoint before moving.
    var depart_s = 0.0
    /// A tour's stops: route distance of each intermediate point and the seconds standing there
    /// (empty without stops); the next stop not yet left and the seconds stood at earlier ones.
    private(set) var stopDistance_m: [Double] = []
    private(set) var stopDwell_s: [Double] = []
    var stopIndex = 0
    var stoodBefore_s = 0.0
    /// Whether the route has tour stops (kept as a flag so the per-fix path reads no array).
    private(set) var hasStops = false

    init(spec: ScenarioSpec, dt_s: Double) {
        self.dt_s = dt_s
        let center = spec.fence.center
        centerFrame = LocalFrame(anchor: center)
        centerUnit = center.unitVector
        still = TruthState(
            unit: centerUnit, coordinate: center, speed_mps: 0, heading: .zero, alongTrack: SIMD2(0, 1),
            basis: TangentBasis(at: centerUnit))
        loiter = LoiterSpec(
            distance_m: 0, bearing_deg: 0, radialSigma_m: 0, tau_s: 1, tangentialSigma_m: 0, maxDeviation_m: 0)
        loiterPhi = 0
        legs = []
        totalLength_m = 0
        speed = .constant(speed_mps: 0, variation_mps: 0, variationTau_s: 1)
        speedPhi = 0
        switch spec.route {
        case .stationary(let d, let b):
            mode = .stationary
            let (s, c) = _sinCos(b * EarthModel.radiansPerDegree)
            let u = centerFrame.unitVector(east_m: d * s, north_m: d * c)
            still = RouteSampler.state(at: u, speed_mps: 0, direction: .zero, from: centerUnit)
        case .loiter(let l):
            mode = .loiter
            loiter = l
            loiterPhi = exp(-dt_s / l.tau_s)
            loiterInnovation_m = l.radialSigma_m * (1 - loiterPhi * loiterPhi).squareRoot()
            loiterTangentialStep_m = l.tangentialSigma_m * dt_s.squareRoot()
            radius_m = l.distance_m
            bearing_rad = l.bearing_deg * EarthModel.radiansPerDegree
        case .waypoints(let w):
            mode = .waypoints
            var built: [Leg] = []
            var total = 0.0
            for (a, b) in zip(w.points, w.points.dropFirst()) {
                let ua = a.unitVector
                let ub = b.unitVector
                let axis = SphereStep.unitCross(ua, ub)
                let angle = atan2(
                    (SphereStep.cross(ua, ub) * SphereStep.cross(ua, ub)).sum().squareRoot(), (ua * ub).sum())
                let length = angle * SphereStep.radius_m
                built.append(
                    Leg(
                        start: ua, tangent: SphereStep.cross(axis, ua), axis: axis,
                        startDistance_m: total, length_m: length))
                total += length
            }
            legs = built
            totalLength_m = total
            speed = w.speed
            depart_s = w.depart_s
            stopDwell_s = w.stopDwell_s
            hasStops = !w.stopDwell_s.isEmpty
            stopDistance_m = built.dropLast().map { $0.startDistance_m + $0.length_m }
            if case .constant(_, _, let tau) = w.speed { speedPhi = exp(-dt_s / tau) }
        }
    }

    /// Truth at a unit vector, with the motion direction given as a 3-D tangent (or zero).

    @inline(__always)
    static func state(
        at u: SIMD3<Double>, speed_mps: Double, direction: SIMD3<Double>, from center: SIMD3<Double>
    ) -> TruthState {
        state(at: u, coordinate: Coordinate(unitVector: u), speed_mps: speed_mps, direction: direction, from: center)
    }

    @inline(__always)
    static func state(
        at u: SIMD3<Double>, coordinate: Coordinate, speed_mps: Double, direction: SIMD3<Double>,
        from center: SIMD3<Double>, directionIsUnit: Bool = false
    ) -> TruthState {
        let basis = TangentBasis(at: u)
        var heading = basis.components(direction)
        // A unit tangent has unit components in the orthonormal basis; others are normalised.
        let hn = directionIsUnit ? (direction == .zero ? 0 : 1) : (heading * heading).sum().squareRoot()
        if !directionIsUnit { heading = hn > 0 ? heading / hn : .zero }
        var along = heading
        if hn == 0 {
            // Still: "along track" is the radial direction away from the centre (north at the centre).
            let radial = basis.components(SphereStep.cross(SphereStep.unitCross(center, u), u))
            let rn = (radial * radial).sum().squareRoot()
            along = rn > 0 ? radial / rn : SIMD2(0, 1)
        }
        return TruthState(
            unit: u, coordinate: coordinate, speed_mps: speed_mps, heading: heading, alongTrack: along, basis: basis)
    }

    /// The truth at sample `k` (called with k = 0, 1, 2 … in order).

    @inline(__always)
    mutating func sample(_ k: Int, rng: RandomSource) -> TruthState {
        switch mode {
        case .stationary: return still
        case .loiter: return sampleLoiter(k, rng: rng)
        case .waypoints: return sampleWaypoints(k, rng: rng)
        }
    }

    mutating func sampleLoiter(_ k: Int, rng: RandomSource) -> TruthState {
        if k > 0 {
            let l = loiter
            var r =
                l.distance_m + loiterPhi * (radius_m - l.distance_m) + rng.gaussianZiggurat(sigma: loiterInnovation_m)
            // Reflect at the band edges (the walk is bounded, not clamped: the excess folds back).
            let lo = l.distance_m - l.maxDeviation_m
            let hi = l.distance_m + l.maxDeviation_m
            if l.maxDeviation_m > 0 {
                while r < lo || r > hi { r = r < lo ? 2 * lo - r : 2 * hi - r }
            } else {
                r = l.distance_m
            }
            radius_m = r
            // Circumference at distance r on the sphere is 2πR·sin(r/R).
            let circleRadius_m = max(1, SphereStep.radius_m * sin(r / SphereStep.radius_m))
            bearing_rad += rng.gaussianZiggurat(sigma: loiterTangentialStep_m) / circleRadius_m
        }
        let (s, c) = _sinCos(bearing_rad)
        let u = centerFrame.unitVector(east_m: radius_m * s, north_m: radius_m * c)
        let delta = k > 0 ? u - previousUnit : .zero
        let chord_m = (delta * delta).sum().squareRoot() * SphereStep.radius_m
        previousUnit = u
        return RouteSampler.state(
            at: u, speed_mps: chord_m / dt_s, direction: delta, from: centerUnit)
    }

    @inline(__always)
    mutating func sampleWaypoints(_ k: Int, rng: RandomSource) -> TruthState {
        // Time since setting off (standing at the first point until `depart_s`).
        let t = max(0, Double(k) * dt_s - depart_s)
        var v: Double
        switch speed {
        case .constant(let v0, let sv, _):
            if sv > 0 {
                if k > 0 && t > 0 {
                    distance_m += max(0, v0 + speedDeviation_mps) * dt_s
                    speedDeviation_mps =
                        speedPhi * speedDeviation_mps
                        + rng.gaussianZiggurat(sigma: sv * (1 - speedPhi * speedPhi).squareRoot())
                }
                v = max(0, v0 + speedDeviation_mps)
            } else if !hasStops {
                distance_m = v0 * t
                v = v0
            } else {
                (distance_m, v) = tourDistance(moving_s: t, speed_mps: v0)
            }
        case .accelerateCruiseBrake(let vc, let a, let b):
            (distance_m, v) = RouteSampler.accelerateCruiseBrake(
                t: t, length_m: totalLength_m, cruise_mps: vc, accel_mps2: a, brake_mps2: b)
        }
        if Double(k) * dt_s < depart_s { v = 0 }  // still standing at the first point
        if distance_m >= totalLength_m {
            distance_m = totalLength_m
            v = 0
        }
        while legIndex < legs.count - 1, distance_m > legs[legIndex].startDistance_m + legs[legIndex].length_m {
            legIndex += 1
        }
        let leg = legs[legIndex]
        var ahead_m = distance_m - anchor.distance_m
        if anchor.legIndex != legIndex || ahead_m < 0 || ahead_m > RouteSampler.anchorReach_m {
            anchor = WaypointAnchor(leg: leg, legIndex: legIndex, distance_m: distance_m)
            ahead_m = 0
        }
        // Along the great circle from the anchor: u = a·cos Δ + t·sin Δ, Δ = ahead/R ≤ 3.2·10⁻⁵ rad,
        // with sin and cos from their Taylor series (truncation < 10⁻²⁴). In the anchor's azimuthal
        // frame the point sits exactly at `ahead_m` along the anchor's heading, so its latitude and
        // longitude follow from the anchor's by `SphereStep.offsetDegrees`.
        let delta = ahead_m / SphereStep.radius_m
        let d2 = delta * delta
        let u = anchor.unit * (1 - d2 * 0.5 + d2 * d2 * (1.0 / 24)) + anchor.tangent * (delta * (1 - d2 * (1.0 / 6)))
        let ll = SphereStep.offsetDegrees(
            latitude: anchor.coordinate.latitude, longitude: anchor.coordinate.longitude,
            unit: anchor.unit, basis: anchor.basis, offset_m: anchor.heading * ahead_m)
        let c = (try? Coordinate(latitude: ll.latitude, longitude: ll.longitude)) ?? Coordinate(unitVector: u)
        let direction = v > 0 ? SphereStep.cross(leg.axis, u) : .zero
        return RouteSampler.state(
            at: u, coordinate: c, speed_mps: v, direction: direction, from: u, directionIsUnit: true)
    }

    /// Route distance and speed of a tour `t` seconds after setting off (called with t
    /// non-decreasing): at constant speed between stops, standing `stopDwell_s[i]` at stop i.
    @inline(__always)
    mutating func tourDistance(moving_s t: Double, speed_mps v0: Double) -> (Double, Double) {
        while stopIndex < stopDwell_s.count {
            let arrive_s = stopDistance_m[stopIndex] / v0
            let moved_s = t - stoodBefore_s
            if moved_s < arrive_s { break }
            if moved_s < arrive_s + stopDwell_s[stopIndex] { return (stopDistance_m[stopIndex], 0) }
            stoodBefore_s += stopDwell_s[stopIndex]
            stopIndex += 1
        }
        return (v0 * (t - stoodBefore_s), v0)
    }

    /// Distance (m) and speed (m/s) at time `t` of a trapezoidal (or triangular, when the
    /// route is too short to reach cruise) speed profile that starts and ends at rest.

    static func accelerateCruiseBrake(
        t: Double, length_m L: Double, cruise_mps vc: Double,
        accel_mps2 a: Double, brake_mps2 b: Double
    ) -> (Double, Double) {
        var vp = vc
        if vc * vc / (2 * a) + vc * vc / (2 * b) > L { vp = (2 * L * a * b / (a + b)).squareRoot() }
        let d1 = vp * vp / (2 * a)
        let d3 = vp * vp / (2 * b)
        let t1 = vp / a
        let cruise_m = max(0, L - d1 - d3)
        let t2 = t1 + cruise_m / vp
        let t3 = t2 + vp / b
        if t < t1 { return (0.5 * a * t * t, a * t) }
        if t < t2 { return (d1 + vp * (t - t1), vp) }
        if t < t3 {
            let s = t - t2
            return (d1 + cruise_m + vp * s - 0.5 * b * s * s, vp - b * s)
        }
        return (L, 0)
    }
}

/// An exactly computed point of a waypoint leg and its frame, reused for nearby samples.
struct WaypointAnchor {
    var legIndex = -1
    var distance_m = 0.0
    var unit = SIMD3<Double>(1, 0, 0)
    var tangent = SIMD3<Double>(0, 1, 0)
    var coordinate = Coordinate(unitVector: SIMD3(1, 0, 0))
    var basis = TangentBasis(at: SIMD3(1, 0, 0))
    /// Unit east-north direction of the leg at the anchor.
    var heading = SIMD2<Double>(0, 1)

    init() {}

    /// The point `distance_m` (route distance) along `leg`, by slerp with libm sin/cos and atan2.
    init(leg: Leg, legIndex: Int, distance_m: Double) {
        self.legIndex = legIndex
        self.distance_m = distance_m
        let angle = (distance_m - leg.startDistance_m) / SphereStep.radius_m
        let (s, c) = _sinCos(angle)
        unit = leg.start * c + leg.tangent * s
        tangent = leg.tangent * c - leg.start * s
        coordinate = Coordinate(unitVector: unit)
        basis = TangentBasis(at: unit)
        let h = basis.components(tangent)
        let n = (h * h).sum().squareRoot()
        heading = n > 0 ? h / n : SIMD2(0, 1)
    }
}
