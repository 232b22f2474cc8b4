/// The seed-000 hysteresis fence applied to many fixes at once, over contiguous arrays.
///
/// Gives exactly the states of the scalar path — per fix, skip it unless
/// `Coordinate.isValid(latitude:longitude:)`, take `d = model.distance_m(center, fix)` and
/// `state = rule.next(previous: state, distance_m: d, accuracy_m: accuracy)` — at a fraction
/// of its cost (≈ 3× the scalar C kernel here, see docs/benchmarks.md).
///
/// Algorithm: only the decision is needed, so the comparison is made in haversine space.
/// With h = sin²(Δφ/2) + cos φ₀ cos φ sin²(Δλ/2) and d = 2R asin √h increasing in h,
/// d ≤ enter ⇔ h ≤ sin²(enter / 2R) and d ≥ exit ⇔ h ≥ sin²(exit / 2R): no asin or square root
/// per fix, cos φ₀ once per batch. sin² and cos come from polynomials evaluated on four fixes
/// at a time (`SIMD4`, relative error ≤ 10⁻¹⁴ against libm). A fix whose h lies within a
/// relative 10⁻⁹ of a threshold (the distance within ≈ 5·10⁻¹⁰ of a radius, 40 nm at 80 m) is
/// decided by the scalar path itself, so rounding can never flip a decision. Fences whose exit
/// radius reaches 3R (≈ 19 100 km, where sin² stops being monotone enough) use the scalar path
/// for every fix. Reference for the haversine form: R. W. Sinnott, "Virtues of the Haversine",
/// Sky and Telescope 68(2):159 (1984).
///
/// Invalid input is handled as the scalar path does: a fix with a NaN, infinite or out-of-range
/// coordinate, or an accuracy that is NaN, negative or above `rule.maxAccuracy_m`, changes
/// nothing. Allocates nothing.
public struct FenceBatch: Sendable, Hashable {
    /// Fence centre.
    public let center: Coordinate
    /// The hysteresis rule (enter/exit radii and accuracy gate).
    public let rule: Hysteresis
    /// The sphere the distances are measured on (the scalar path's model).
    public let model: Haversine

    @usableFromInline let lat0_rad: Double
    @usableFromInline let cosLat0: Double
    /// sin²(enter_m / 2R), sin²(exit_m / 2R).
    @usableFromInline let hEnter: Double, hExit: Double
    /// Half-widths of the bands around `hEnter`/`hExit` decided by the scalar path.
    @usableFromInline let marginEnter: Double, marginExit: Double
    /// True when the thresholds are beyond the polynomial's safe range: every fix takes the scalar path.
    @usableFromInline let scalarOnly: Bool

    /// Relative half-width of the band around a threshold that the scalar path decides.
    /// The polynomial h differs from libm's by ≤ 10⁻¹⁴ relative; 10⁻⁹ leaves five orders of margin.
    static let relativeMargin = 1e-9
    /// Absolute floor of that band (for `enter_m = 0`, where `hEnter = 0`).
    static let absoluteMargin = 1e-290

    /// - Parameters:
    ///   - center: fence centre.
    ///   - rule: the hysteresis rule (already validated by its initializer).
    ///   - model: sphere of the distances; default `Haversine()` (R = 6 371 000 m). A radius that is
    ///     not finite and > 0 is accepted and handled by the scalar path, as the scalar code would.
    public init(center: Coordinate, rule: Hysteresis, model: Haversine = Haversine()) {
        self.center = center
        self.rule = rule
        self.model = model
        lat0_rad = center.latitude * EarthModel.radiansPerDegree
        cosLat0 = _cos(lat0_rad)
        let r = model.radius_m
        let enterAngle = rule.enter_m / (2 * r)
        let exitAngle = rule.exit_m / (2 * r)
        // sin² is increasing on [0, π/2]; keep well inside it (1.5 rad = exit of ≈ 3R).
        scalarOnly = !(r.isFinite && r > 0 && exitAngle < 1.5 && enterAngle < 1.5)
        let se = _sin(enterAngle)
        let sx = _sin(exitAngle)
        hEnter = se * se
        hExit = sx * sx
        marginEnter = FenceBatch.relativeMargin * hEnter + FenceBatch.absoluteMargin
        marginExit = FenceBatch.relativeMargin * hExit + FenceBatch.absoluteMargin
    }

    /// Runs the fence over the fixes, starting from and updating `state`.
    /// - Parameters: latitudes and longitudes in degrees, accuracies in metres, all the same count
    ///   (a mismatch is a programming error and traps).
    /// - Returns: the number of state changes.
    public func run(
        latitude: [Double], longitude: [Double], accuracy_m: [Double],
        state: inout FenceState
    ) -> Int {
        precondition(
            latitude.count == longitude.count && latitude.count == accuracy_m.count,
            "FenceBatch: latitude, longitude and accuracy_m must have the same count")
        return latitude.withUnsafeBufferPointer { la in
            longitude.withUnsafeBufferPointer { lo in
                accuracy_m.withUnsafeBufferPointer { ac in
                    run(latitude: la, longitude: lo, accuracy_m: ac, state: &state)
                }
            }
        }
    }

    /// The state after each fix, starting from `initial` (same length as the inputs).
    public func states(
        latitude: [Double], longitude: [Double], accuracy_m: [Double],
        initial: FenceState = .unknown
    ) -> [FenceState] {
        precondition(
            latitude.count == longitude.count && latitude.count == accuracy_m.count,
            "FenceBatch: latitude, longitude and accuracy_m must have the same count")
        var out = [FenceState](repeating: initial, count: latitude.count)
        var s = initial
        latitude.withUnsafeBufferPointer { la in
            longitude.withUnsafeBufferPointer { lo in
                accuracy_m.withUnsafeBufferPointer { ac in
                    out.withUnsafeMutableBufferPointer { o in
                        _ = run(latitude: la, longitude: lo, accuracy_m: ac, state: &s, states: o)
                    }
                }
            }
        }
        return out
    }

    /// Buffer form of `run(latitude:longitude:accuracy_m:state:)`.
    public func run(
        latitude: UnsafeBufferPointer<Double>, longitude: UnsafeBufferPointer<Double>,
        accuracy_m: UnsafeBufferPointer<Double>, state: inout FenceState
    ) -> Int {
        core(latitude, longitude, accuracy_m, &state, nil)
    }

    /// Buffer form that also writes the state after fix i to `states[i]` (`states.count` ≥ the input count).
    public func run(
        latitude: UnsafeBufferPointer<Double>, longitude: UnsafeBufferPointer<Double>,
        accuracy_m: UnsafeBufferPointer<Double>, state: inout FenceState,
        states: UnsafeMutableBufferPointer<FenceState>
    ) -> Int {
        precondition(states.count >= latitude.count, "FenceBatch: states buffer is shorter than the input")
        return core(latitude, longitude, accuracy_m, &state, states.baseAddress)
    }

    /// The scalar path for fix (lat, lon, acc): exactly what the per-fix engine code does.
    @inline(__always)
    func scalarNext(_ previous: FenceState, _ lat: Double, _ lon: Double, _ acc: Double) -> FenceState {
        guard Coordinate.isValid(latitude: lat, longitude: lon) else { return previous }
        let d = model.distance_m(center, Coordinate(computedLatitude: lat, longitude: lon))
        return rule.next(previous: previous, distance_m: d, accuracy_m: acc)
    }

    @inline(__always)
    func core(
        _ lat: UnsafeBufferPointer<Double>, _ lon: UnsafeBufferPointer<Double>,
        _ acc: UnsafeBufferPointer<Double>, _ state: inout FenceState,
        _ out: UnsafeMutablePointer<FenceState>?
    ) -> Int {
        precondition(
            lat.count == lon.count && lat.count == acc.count,
            "FenceBatch: latitude, longitude and accuracy_m must have the same count")
        let n = lat.count
        var s = state
        var changes = 0
        if scalarOnly || n == 0 {
            for i in 0..<n {
                let next = scalarNext(s, lat[i], lon[i], acc[i])
                if next != s {
                    changes += 1
                    s = next
                }
                out?[i] = s
            }
            state = s
            return changes
        }
        typealias V = SIMD4<Double>
        let k = EarthModel.radiansPerDegree
        let lon0 = center.longitude
        let maxAcc = rule.maxAccuracy_m
        let pLat = lat.baseAddress!
        let pLon = lon.baseAddress!
        let pAcc = acc.baseAddress!
        var i = 0
        while i < n {
            let la: V
            let lo: V
            let ac: V
            let lanes = min(4, n - i)
            if lanes == 4 {
                la = UnsafeRawPointer(pLat + i).loadUnaligned(as: V.self)
                lo = UnsafeRawPointer(pLon + i).loadUnaligned(as: V.self)
                ac = UnsafeRawPointer(pAcc + i).loadUnaligned(as: V.self)
            } else {
                // Tail: missing lanes get NaN, which the validity mask rejects.
                var a = V(repeating: .nan)
                var b = V(repeating: .nan)
                var c = V(repeating: .nan)
                for j in 0..<lanes {
                    a[j] = pLat[i + j]
                    b[j] = pLon[i + j]
                    c[j] = pAcc[i + j]
                }
                la = a
                lo = b
                ac = c
            }
            // NaN fails every comparison, so these range checks also reject non-finite values
            // (maxAccuracy_m is finite, so +∞ accuracy fails too): the rule's `counts` plus `isValid`.
            let valid =
                (la .>= -90) .& (la .<= 90) .& (lo .>= -180) .& (lo .<= 180)
                .& (ac .>= 0) .& (ac .<= maxAcc)
            if !any(valid) {
                if let o = out { for j in 0..<lanes { o[i + j] = s } }
                i += 4
                continue
            }
            let phi = V(repeating: 0).replacing(with: la * k, where: valid)
            let halfDLon = V(repeating: 0).replacing(with: (lo - lon0) * k * 0.5, where: valid)
            let a = SIMDTrig.sinSquared((phi - lat0_rad) * 0.5)
            let b = SIMDTrig.sinSquared(halfDLon)
            let h = a + cosLat0 * SIMDTrig.cosAbs(phi) * b
            let inside = h .<= hEnter
            let outside = h .>= hExit
            let near =
                ((h - hEnter).replacing(with: hEnter - h, where: h .< hEnter) .<= marginEnter)
                .| ((h - hExit).replacing(with: hExit - h, where: h .< hExit) .<= marginExit)
            for j in 0..<lanes {
                if valid[j] {
                    let next: FenceState
                    if near[j] {
                        next = scalarNext(s, pLat[i + j], pLon[i + j], pAcc[i + j])
                    } else {
                        next = inside[j] ? .inside : (outside[j] ? .outside : s)
                    }
                    if next != s {
                        changes += 1
                        s = next
                    }
                }
                out?[i + j] = s
            }
            i += 4
        }
        state = s
        return changes
    }
}
