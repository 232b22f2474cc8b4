import GSLKit
import GeoPolicy
import _FenceLabSupport

extension ScenarioSpec {
    /// Decodes a scenario from JSON bytes, strictly (see `ObjectReader`).
    /// - Parameter file: the name used in error messages (the path as the user gave it).
    /// - Throws: `ScenarioError` naming the file, key path and offending value.
    public static func decode(_ bytes: [UInt8], file: String) throws(ScenarioError) -> ScenarioSpec {
        let root: StrictJSON.Value
        do {
            root = try StrictJSON.parse(bytes)
        } catch {
            if error.kind == .duplicateKey { throw .duplicateKey(file: file, keyPath: error.keyPath) }
            let place = "column \(error.column)" + (error.keyPath.isEmpty ? "" : ", at \(error.keyPath)")
            throw .malformedJSON(file: file, line: error.line, reason: "\(error.reason) (\(place))")
        }
        var r = try ObjectReader(root, file: file, path: "")
        let name = try r.string("name")
        if name.isEmpty {
            throw .invalidValue(file: file, keyPath: "name", requirement: "must not be empty", got: "\"\"")
        }
        // Names head tables, plots and file names: bounded, and free of control characters.
        if name.unicodeScalars.count > ScenarioSpec.maxNameLength
            || name.unicodeScalars.contains(where: ShownText.isControl)
        {
            throw .invalidValue(
                file: file, keyPath: "name",
                requirement: "must be 1 to \(ScenarioSpec.maxNameLength) characters without control characters",
                got: "\"\(ShownText.shown(name, limit: 40))\"")
        }
        let description = try r.string("description")
        let rulesVersion = try r.string("rulesVersion")
        let seed = UInt64(try r.int("seed", in: 0...9_007_199_254_740_992))
        let replicates = try r.int("replicates", in: 1...100_000)
        var generator = GeneratorKind.mt19937
        if let g = try r.optionalString("generator") {
            guard let k = GeneratorKind(rawValue: g) else {
                throw .invalidValue(
                    file: file, keyPath: "generator", requirement: "must be one of mt19937, taus2", got: "\"\(g)\"")
            }
            generator = k
        }
        var fenceReader = try r.object("fence")
        let fence = try decodeFence(&fenceReader)
        guard rulesVersion.hasPrefix(fence.rule.kindName + "-") else {
            throw .invalidValue(
                file: file, keyPath: "rulesVersion",
                requirement: "must start with \"\(fence.rule.kindName)-\" (e.g. \"\(fence.rule.derivedRulesVersion)\")",
                got: "\"\(rulesVersion)\"")
        }
        var places: PlaceSetSpec?
        if var p = try r.optionalObject("places") {
            places = try decodePlaces(&p, rule: fence.rule, scenarioFile: file)
            if r.has("place") {
                throw .invalidValue(
                    file: file, keyPath: "place",
                    requirement: "must be absent with places (each place is its own truth)",
                    got: "an object")
            }
        }
        var routeReader = try r.object("route")
        let route = try decodeRoute(&routeReader, places: places)
        var samplingReader = try r.object("sampling")
        let sampling = try decodeSampling(&samplingReader)
        var noiseReader = try r.object("noise")
        let noise = try decodeNoise(&noiseReader)
        var accuracyReader = try r.object("accuracy")
        let accuracy = try decodeAccuracy(&accuracyReader)
        var faults = FaultSpec()
        if var f = try r.optionalObject("faults") { faults = try decodeFaults(&f, sampling: sampling) }
        var expect: [Expectation] = []
        if var e = try r.optionalObject("expect") { expect = try decodeExpect(&e) }
        var place: PlaceSpec?
        if var p = try r.optionalObject("place") { place = try decodePlace(&p) }
        let weight = try r.optionalDouble("weight") ?? 1
        try r.check(weight.isFinite && weight > 0, "weight", "must be finite and > 0", weight)
        var notification = NotificationPolicy.none
        if var n = try r.optionalObject("notification") { notification = try decodeNotification(&n) }
        try r.finish()
        var spec = ScenarioSpec(
            name: name, description: description, rulesVersion: rulesVersion, seed: seed,
            replicates: replicates, generator: generator, fence: fence, route: route,
            sampling: sampling, noise: noise, accuracy: accuracy, faults: faults, expect: expect,
            place: place, weight: weight)
        spec.notification = notification
        spec.places = places
        return spec
    }

    /// `notification`: `policy`, a notification policy spec (`NotificationPolicy.parse`).
    static func decodeNotification(_ r: inout ObjectReader) throws(ScenarioError) -> NotificationPolicy {
        let text = try r.string("policy")
        let policy: NotificationPolicy
        do { policy = try NotificationPolicy.parse(text) } catch {
            throw .invalidSpec(file: r.file, keyPath: r.keyPath("policy"), reason: error.description)
        }
        try r.finish()
        return policy
    }

    static func decodePlace(_ r: inout ObjectReader) throws(ScenarioError) -> PlaceSpec {
        let radius = try r.double("radius_m")
        try r.check(radius.isFinite && radius > 0, "radius_m", "must be finite and > 0", radius)
        let dwell = try r.optionalDouble("minDwell_s") ?? PlaceSpec.defaultMinDwell_s
        try r.check(dwell.isFinite && dwell >= 0, "minDwell_s", "must be finite and ≥ 0", dwell)
        let gap = try r.optionalDouble("mergeGap_s") ?? PlaceSpec.defaultMergeGap_s
        try r.check(gap.isFinite && gap >= 0, "mergeGap_s", "must be finite and ≥ 0", gap)
        try r.finish()
        return PlaceSpec(radius_m: radius, minDwell_s: dwell, mergeGap_s: gap)
    }

    /// `[lat, lon]` → a validated coordinate; errors name the element.
    static func coordinate(
        _ v: StrictJSON.Value, reader r: ObjectReader, at p: String
    ) throws(ScenarioError) -> Coordinate {
        guard case .array(let items, _) = v, items.count == 2 else {
            throw .wrongType(file: r.file, keyPath: p, expected: "[latitude, longitude]", got: v.kindDescription)
        }
        let lat = try r.number(items[0], at: p + "[0]")
        let lon = try r.number(items[1], at: p + "[1]")
        guard lat >= -90, lat <= 90 else {
            throw .invalidValue(
                file: r.file, keyPath: p + "[0]", requirement: "latitude must be within -90...90",
                got: formatNumber(lat))
        }
        guard lon >= -180, lon <= 180 else {
            throw .invalidValue(
                file: r.file, keyPath: p + "[1]", requirement: "longitude must be within -180...180",
                got: formatNumber(lon))
        }
        do { return try Coordinate(latitude: lat, longitude: lon) } catch {
            throw .invalidValue(file: r.file, keyPath: p, requirement: "must be a valid coordinate", got: "\(error)")
        }
    }

    static func decodeFence(_ r: inout ObjectReader) throws(ScenarioError) -> FenceSpec {
        let center = try coordinate(try r.value("center"), reader: r, at: r.keyPath("center"))
        var q = try r.object("rule")
        let kind: FenceRuleSpec.Kind
        switch try q.choice("kind", ["hysteresis", "threshold", "conservative"]) {
        case "hysteresis":
            let enter = try q.nonNegative("enter_m")
            let exit = try q.double("exit_m")
            try q.check(exit > enter, "exit_m", "must be > enter_m (\(formatNumber(enter)))", exit)
            let acc = try q.positive("maxAccuracy_m")
            kind = .hysteresis(enter_m: enter, exit_m: exit, maxAccuracy_m: acc)
        case "threshold": kind = .threshold(radius_m: try q.nonNegative("radius_m"))
        default: kind = .conservative(radius_m: try q.nonNegative("radius_m"))
        }
        let n = try q.optionalInt("confirm_n", in: 1...1_000_000)
        let s = try q.optionalDouble("confirm_s")
        if let s { try q.check(s >= 0, "confirm_s", "must be ≥ 0", s) }
        var input = FenceInput.Kind.raw
        if q.has("input") {
            input = FenceInput.Kind(rawValue: try q.choice("input", FenceInput.Kind.allCases.map(\.rawValue))) ?? .raw
        }
        let density = try q.optionalDouble("q_m2s3")
        if let density { try q.check(density > 0, "q_m2s3", "must be > 0", density) }
        try q.finish()
        try r.finish()
        return FenceSpec(
            center: center, rule: FenceRuleSpec(kind: kind, confirm_n: n, confirm_s: s, input: input, q_m2s3: density))
    }

    static let halfCircumference_m = Double.pi * EarthModel.sphereRadius_m

    static func decodeRoute(_ r: inout ObjectReader, places: PlaceSetSpec? = nil) throws(ScenarioError) -> RouteSpec {
        let route: RouteSpec
        switch try r.choice("kind", ["stationary", "loiter", "waypoints", "tour"]) {
        case "tour":
            route = .waypoints(try decodeTour(&r, places: places))
        case "stationary":
            let d = try r.nonNegative("distance_m")
            try r.check(d <= halfCircumference_m, "distance_m", "must be ≤ πR = \(halfCircumference_m)", d)
            route = .stationary(distance_m: d, bearing_deg: try r.double("bearing_deg"))
        case "loiter":
            let d = try r.nonNegative("distance_m")
            try r.check(d <= halfCircumference_m, "distance_m", "must be ≤ πR = \(halfCircumference_m)", d)
            let bearing = try r.optionalDouble("bearing_deg") ?? 0
            let sr = try r.nonNegative("radialSigma_m")
            let tau = try r.positive("tau_s")
            let st = try r.nonNegative("tangentialSigma_m")
            // Default band: ±3σ, narrowed to the distance so the walk never crosses the centre.
            let maxDev = try r.optionalDouble("maxDeviation_m") ?? min(3 * sr, d)
            try r.check(
                maxDev >= 0 && maxDev <= d, "maxDeviation_m", "must be within 0...distance_m (\(formatNumber(d)))",
                maxDev)
            try r.check(
                d + maxDev <= halfCircumference_m, "maxDeviation_m", "distance_m + maxDeviation_m must be ≤ πR", maxDev)
            route = .loiter(
                LoiterSpec(
                    distance_m: d, bearing_deg: bearing, radialSigma_m: sr, tau_s: tau,
                    tangentialSigma_m: st, maxDeviation_m: maxDev))
        default:
            let items = try r.array("points")
            let p = r.keyPath("points")
            guard items.count >= 2 else {
                throw .invalidValue(
                    file: r.file, keyPath: p, requirement: "needs at least 2 points", got: "\(items.count)")
            }
            var points: [Coordinate] = []
            for (i, v) in items.enumerated() {
                let c = try coordinate(v, reader: r, at: "\(p)[\(i)]")
                if let last = points.last {
                    let angle_deg =
                        Haversine.centralAngle_rad(
                            latitude1: last.latitude, longitude1: last.longitude,
                            latitude2: c.latitude, longitude2: c.longitude) * EarthModel.degreesPerRadian
                    guard angle_deg > 1e-9, angle_deg < 179 else {
                        throw .invalidValue(
                            file: r.file, keyPath: "\(p)[\(i)]",
                            requirement: "must be distinct from and less than 179° from the previous point",
                            got: "\(formatNumber(angle_deg))°")
                    }
                }
                points.append(c)
            }
            var s = try r.object("speed")
            let depart = try r.optionalDouble("depart_s") ?? 0
            try r.check(depart.isFinite && depart >= 0, "depart_s", "must be finite and ≥ 0", depart)
            route = .waypoints(WaypointRouteSpec(points: points, speed: try decodeSpeed(&s), depart_s: depart))
        }
        try r.finish()
        return route
    }

    static func decodeSpeed(_ r: inout ObjectReader) throws(ScenarioError) -> SpeedProfile {
        let kmh = 1000.0 / 3600.0
        let profile: SpeedProfile
        switch try r.choice("profile", ["constant", "accelerate-cruise-brake"]) {
        case "constant":
            let v = try r.positive("speed_kmh")
            let sv = try r.optionalDouble("variation_kmh") ?? 0
            try r.check(sv >= 0, "variation_kmh", "must be ≥ 0", sv)
            let tau = try r.optionalDouble("variationTau_s") ?? 60
            try r.check(tau > 0, "variationTau_s", "must be > 0", tau)
            profile = .constant(speed_mps: v * kmh, variation_mps: sv * kmh, variationTau_s: tau)
        default:
            profile = .accelerateCruiseBrake(
                cruise_mps: try r.positive("cruise_kmh") * kmh,
                accel_mps2: try r.positive("accel_mps2"),
                brake_mps2: try r.positive("brake_mps2"))
        }
        try r.finish()
        return profile
    }

    static func decodeSampling(_ r: inout ObjectReader) throws(ScenarioError) -> SamplingSpec {
        let rate = try r.positive("rate_hz")
        try r.check(rate <= 1000, "rate_hz", "must be ≤ 1000", rate)
        let duration = try r.positive("duration_s")
        let explicitStart = try r.optionalDouble("start_unix_s")
        let start = explicitStart ?? SamplingSpec.defaultStart_unix_s
        try r.check(
            SamplingSpec.startRange_unix_s.contains(start), "start_unix_s",
            "must be within 0...253402300799 (1970–9999)", start)
        // Counted in Double: duration_s · rate_hz may exceed Int (1e19 s) and SamplingSpec.sampleCount would trap.
        let samples = (duration * rate).rounded(.down)
        try r.check(samples >= 1, "duration_s", "must give at least one sample at rate_hz", duration)
        try r.check(
            samples <= Double(SamplingSpec.maxSampleCount), "duration_s", "must give at most 10⁹ samples at rate_hz",
            duration)
        try r.check(
            start + duration <= SamplingSpec.startRange_unix_s.upperBound, "duration_s",
            "must end before year 10000 after start_unix_s", duration)
        var s = SamplingSpec(rate_hz: rate, duration_s: duration, start_unix_s: start)
        s.startIsExplicit = explicitStart != nil
        if let text = try r.optionalString("policy") {
            s.policy = try decodePolicy(text, rate_hz: rate, file: r.file, keyPath: r.keyPath("policy"))
        }
        try r.finish()
        return s
    }

    /// A sampling policy spec (`SamplingPolicy.parse`) whose periods are at least the base
    /// sampling interval (a policy cannot deliver more often than the device measures).
    static func decodePolicy(
        _ text: String, rate_hz: Double, file: String, keyPath: String
    ) throws(ScenarioError) -> SamplingPolicy {
        let policy: SamplingPolicy
        do { policy = try SamplingPolicy.parse(text) } catch {
            throw .invalidSpec(file: file, keyPath: keyPath, reason: error.description)
        }
        if let period = policy.shortestPeriod_s, period * rate_hz < 1 - 1e-9 {
            throw .invalidValue(
                file: file, keyPath: keyPath,
                requirement: "a period of at least the base sampling interval (1 / rate_hz = \(1 / rate_hz) s)",
                got: text)
        }
        return policy
    }

    static func decodeNoise(_ r: inout ObjectReader) throws(ScenarioError) -> NoiseSpec {
        let white: NoiseSpec.White
        switch try r.choice("model", ["gaussian", "anisotropic"]) {
        case "gaussian": white = .gaussian(sigma_m: try r.nonNegative("sigma_m"))
        default:
            let a = try r.nonNegative("alongTrackSigma_m")
            let c = try r.nonNegative("crossTrackSigma_m")
            let rho = try r.double("rho")
            try r.check(rho > -1 && rho < 1, "rho", "must be within -1 < ρ < 1", rho)
            white = .anisotropic(alongTrackSigma_m: a, crossTrackSigma_m: c, rho: rho)
        }
        var tails: NoiseSpec.Tails?
        if var t = try r.optionalObject("tails") {
            switch try t.choice("kind", ["student-t", "mixture"]) {
            case "student-t":
                let nu = try t.double("nu")
                try t.check(nu > 2, "nu", "must be > 2 (finite variance)", nu)
                tails = .studentT(nu: nu)
            default:
                let p = try t.probability("probability")
                let k = try t.double("scale")
                try t.check(k >= 1, "scale", "must be ≥ 1", k)
                tails = .mixture(probability: p, scale: k)
            }
            try t.finish()
        }
        var bias: NoiseSpec.Bias?
        if var b = try r.optionalObject("bias") {
            bias = NoiseSpec.Bias(sigma_m: try b.nonNegative("sigma_m"), tau_s: try b.positive("tau_s"))
            try b.finish()
        }
        try r.finish()
        return NoiseSpec(white: white, tails: tails, bias: bias)
    }

    static func decodeAccuracy(_ r: inout ObjectReader) throws(ScenarioError) -> AccuracySpec {
        let model: AccuracySpec.Model
        switch try r.choice("model", ["drms", "fixed"]) {
        case "drms": model = .drms
        default: model = .fixed(value_m: try r.nonNegative("value_m"))
        }
        let mis = try r.optionalDouble("misreportSigma") ?? 0
        try r.check(mis >= 0, "misreportSigma", "must be ≥ 0", mis)
        let inv = try r.optionalDouble("invalidProbability") ?? 0
        try r.check(inv >= 0 && inv <= 1, "invalidProbability", "must be within 0...1", inv)
        try r.finish()
        return AccuracySpec(model: model, misreportSigma: mis, invalidProbability: inv)
    }

    static func decodeFaults(_ r: inout ObjectReader, sampling: SamplingSpec) throws(ScenarioError) -> FaultSpec {
        var f = FaultSpec()
        if let items = try r.optionalArray("gaps") {
            for (i, v) in items.enumerated() {
                var g = try ObjectReader(v, file: r.file, path: r.keyPath("gaps") + "[\(i)]")
                let start = try g.nonNegative("start_s")
                let duration = try g.positive("duration_s")
                try g.finish()
                f.gaps.append(.init(start_s: start, duration_s: duration))
            }
        }
        if var g = try r.optionalObject("randomGaps") {
            let rate = try g.positive("ratePerHour")
            var d = try g.object("duration")
            let duration: FaultSpec.GapDuration
            switch try d.choice("distribution", ["exponential", "lognormal"]) {
            case "exponential": duration = .exponential(mean_s: try d.positive("mean_s"))
            default: duration = .logNormal(median_s: try d.positive("median_s"), sigma: try d.nonNegative("sigma"))
            }
            try d.finish()
            try g.finish()
            f.randomGaps = .init(ratePerHour: rate, duration: duration)
        }
        if var s = try r.optionalObject("stale") {
            f.staleProbability = try s.probability("probability")
            f.staleAge_s = try s.positive("age_s")
            try s.check(
                f.staleAge_s * sampling.rate_hz >= 1, "age_s", "must be at least one sample interval", f.staleAge_s)
            try s.check(
                f.staleAge_s * sampling.rate_hz <= 100_000, "age_s", "must be at most 10⁵ sample intervals",
                f.staleAge_s)
            try s.finish()
        }
        if var o = try r.optionalObject("outOfOrder") {
            f.outOfOrderProbability = try o.probability("probability")
            try o.finish()
        }
        if var o = try r.optionalObject("duplicate") {
            f.duplicateProbability = try o.probability("probability")
            try o.finish()
        }
        if var j = try r.optionalObject("jitter") {
            f.jitterProbability = try j.probability("probability")
            f.jitterSigma_s = try j.nonNegative("sigma_s")
            try j.finish()
        }
        if var o = try r.optionalObject("invalid") {
            f.invalidProbability = try o.probability("probability")
            try o.finish()
        }
        let total = f.perSampleProbability
        if total > 1 {
            throw .invalidValue(
                file: r.file, keyPath: r.path, requirement: "per-sample fault probabilities must sum to ≤ 1",
                got: formatNumber(total))
        }
        try r.finish()
        return f
    }

    static func decodeExpect(_ r: inout ObjectReader) throws(ScenarioError) -> [Expectation] {
        var out: [Expectation] = []
        // Every key is a metric path; read each as a {min, max} object.
        for key in r.keys.sorted() {
            var b = try r.object(key)
            let lo = try b.optionalDouble("min")
            let hi = try b.optionalDouble("max")
            if lo == nil && hi == nil { throw .missingKey(file: r.file, keyPath: b.keyPath("min")) }
            if let lo, let hi, lo > hi {
                throw .invalidValue(
                    file: r.file, keyPath: b.keyPath("max"), requirement: "must be ≥ min (\(formatNumber(lo)))",
                    got: formatNumber(hi))
            }
            try b.finish()
            out.append(Expectation(metric: key, min: lo, max: hi))
        }
        try r.finish()
        return out
    }
}
