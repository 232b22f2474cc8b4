import GSLKit
import GeoPolicy

/// One scenario file (contract: docs/scenario-format.md): where the fence is, how the truth moves,
/// how it is sampled, what noise, accuracy and faults the observed fixes get, and which
/// metric bounds the run must meet. Decoded strictly by `ScenarioSpec.decode(_:file:)`.
public struct ScenarioSpec: Sendable, Hashable {
    /// Longest `name` accepted, in Unicode scalars.
    public static let maxNameLength = 200
    /// Short identifier used in reports (`edge-loiter-100m`); 1…200 characters, no control characters.
    public var name: String
    /// What the scenario exercises, in a sentence or two.
    public var description: String
    /// The rules version fixtures and reports carry (`hysteresis-80-120-acc30`).
    public var rulesVersion: String
    /// Scenario seed; replicate `i` uses `SeedDerivation.replicateSeed(scenarioSeed: seed, replicate: i)`.
    public var seed: UInt64
    /// Number of replicates, 1…100 000.
    public var replicates: Int
    /// GSL generator algorithm (key `generator`, default `mt19937`).
    public var generator: GeneratorKind
    public var fence: FenceSpec
    public var route: RouteSpec
    public var sampling: SamplingSpec
    public var noise: NoiseSpec
    public var accuracy: AccuracySpec
    /// Injected faults; all off when the key is absent.
    public var faults: FaultSpec
    /// Metric bounds (key `expect`), sorted by metric path.
    public var expect: [Expectation]
    /// The place the app means (key `place`): the fixed truth visits are scored against; nil
    /// when the file states none (no `visits.*` figures; `fencelab sweep` refuses the scenario).
    public var place: PlaceSpec?
    /// Weight of the scenario in a sweep's mix (key `weight`, finite, > 0, default 1).
    public var weight: Double
    /// What the app tells the user about the rule's decisions (key `notification.policy`,
    /// default `none`): dwell and cooldown, scored as `notify.*` against the place.
    public var notification: NotificationPolicy = .none
    /// The places the app watches (key `places`), each the truth for its own visits; nil for a
    /// scenario with one fence (then `place` is its visit truth).
    public var places: PlaceSetSpec?

    public init(
        name: String, description: String, rulesVersion: String, seed: UInt64, replicates: Int,
        generator: GeneratorKind = .mt19937, fence: FenceSpec, route: RouteSpec, sampling: SamplingSpec,
        noise: NoiseSpec, accuracy: AccuracySpec, faults: FaultSpec = FaultSpec(), expect: [Expectation] = [],
        place: PlaceSpec? = nil, weight: Double = 1
    ) {
        self.name = name
        self.description = description
        self.rulesVersion = rulesVersion
        self.seed = seed
        self.replicates = replicates
        self.generator = generator
        self.fence = fence
        self.route = route
        self.sampling = sampling
        self.noise = noise
        self.accuracy = accuracy
        self.faults = faults
        self.expect = expect
        self.place = place
        self.weight = weight
    }
}

/// The place the app means (`place`): a circle of `radius_m` around `fence.center`. It does not
/// depend on any rule setting, so it is the truth that tunes settings (docs/metrics.md "Visits").
/// True inside ⇔ the WGS84 distance of the noiseless position from the centre is ≤ `radius_m`.
public struct PlaceSpec: Sendable, Hashable {
    /// Radius of the place in metres, finite and > 0 (key `radius_m`, required).
    public var radius_m: Double
    /// True visits shorter than this are dropped, seconds, finite and ≥ 0 (key `minDwell_s`, default 0).
    public var minDwell_s: Double
    /// Inside spans separated by less than this much time outside are one visit, seconds, finite
    /// and ≥ 0 (key `mergeGap_s`, default 60).
    public var mergeGap_s: Double

    /// Defaults of the optional keys.
    public static let defaultMinDwell_s = 0.0
    public static let defaultMergeGap_s = 60.0

    public init(
        radius_m: Double, minDwell_s: Double = PlaceSpec.defaultMinDwell_s,
        mergeGap_s: Double = PlaceSpec.defaultMergeGap_s
    ) {
        self.radius_m = radius_m
        self.minDwell_s = minDwell_s
        self.mergeGap_s = mergeGap_s
    }
}

/// The fence: a centre and a rule (a plain validated value; the harness maps it onto GeoPolicy's rules).
public struct FenceSpec: Sendable, Hashable {
    public var center: Coordinate
    public var rule: FenceRuleSpec
    public init(center: Coordinate, rule: FenceRuleSpec) {
        self.center = center
        self.rule = rule
    }
}

/// A fence rule as written in a scenario file (`fence.rule`).
public struct FenceRuleSpec: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// Seed 000: inside at d ≤ enter_m, outside at d ≥ exit_m, fixes with accuracy > maxAccuracy_m ignored.
        case hysteresis(enter_m: Double, exit_m: Double, maxAccuracy_m: Double)
        /// Seed 001 `isInside`: inside when d ≤ radius_m.
        case threshold(radius_m: Double)
        /// Seed 001 conservative: inside when d + a ≤ r, outside when d − a > r, else undetermined.
        case conservative(radius_m: Double)
    }
    public var kind: Kind
    /// Consecutive agreeing fixes needed before a change (key `confirm_n`, ≥ 1), if any.
    public var confirm_n: Int?
    /// Seconds a new state must hold before a change (key `confirm_s`, ≥ 0), if any.
    public var confirm_s: Double?
    /// What the rule decides on (key `input`: `raw`, the default, `kalman` or `imm`).
    public var input: FenceInput.Kind
    /// Process noise q of the filters in m²/s³ (key `q_m2s3`, > 0): the input stage's and the
    /// Kalman block's; nil for the default (`FenceInput.defaultAccelerationDensity_m2ps3`).
    public var q_m2s3: Double?

    public init(
        kind: Kind, confirm_n: Int? = nil, confirm_s: Double? = nil, input: FenceInput.Kind = .raw,
        q_m2s3: Double? = nil
    ) {
        self.kind = kind
        self.confirm_n = confirm_n
        self.confirm_s = confirm_s
        self.input = input
        self.q_m2s3 = q_m2s3
    }

    /// The input stage with its q.
    public var fenceInput: FenceInput {
        // q was checked > 0 and finite by the decoder; a hand-built spec with a bad q decides on raw fixes.
        (try? FenceInput(input, accelerationDensity_m2ps3: q_m2s3 ?? FenceInput.defaultAccelerationDensity_m2ps3))
            ?? .raw
    }

    /// The rules version derived from the parameters: `hysteresis-80-120-acc30`, `threshold-500`,
    /// `conservative-100`, with `-n3` / `-s10` appended for a confirmation.
    public var derivedRulesVersion: String {
        var s: String
        switch kind {
        case .hysteresis(let e, let x, let a):
            s = "hysteresis-\(formatNumber(e))-\(formatNumber(x))-acc\(formatNumber(a))"
        case .threshold(let r): s = "threshold-\(formatNumber(r))"
        case .conservative(let r): s = "conservative-\(formatNumber(r))"
        }
        if let n = confirm_n { s += "-n\(n)" }
        if let t = confirm_s { s += "-s\(formatNumber(t))" }
        return s
    }

    /// The rule's kind word as written in the file.
    public var kindName: String {
        switch kind {
        case .hysteresis: return "hysteresis"
        case .threshold: return "threshold"
        case .conservative: return "conservative"
        }
    }
}

/// How the true position moves (`route`).
public enum RouteSpec: Sendable, Hashable {
    /// At `distance_m` (0…πR) and `bearing_deg` from the fence centre (`kind: stationary`).
    case stationary(distance_m: Double, bearing_deg: Double)
    /// A bounded random walk around the fence edge (`kind: loiter`).
    case loiter(LoiterSpec)
    /// Along great circles through waypoints with a speed profile (`kind: waypoints`).
    case waypoints(WaypointRouteSpec)
}

/// Loitering around a fence edge: the distance from the centre is an Ornstein–Uhlenbeck process
/// around `distance_m` (stationary σ `radialSigma_m`, time constant `tau_s`) reflected at
/// ±`maxDeviation_m` (file default min(3σ, distance_m)); the bearing is a random walk with
/// tangential step σ `tangentialSigma_m`·√Δt. File keys: `distance_m`, `bearing_deg` (default 0),
/// `radialSigma_m`, `tau_s`, `tangentialSigma_m`, `maxDeviation_m`.
public struct LoiterSpec: Sendable, Hashable {
    public var distance_m: Double
    public var bearing_deg: Double
    public var radialSigma_m: Double
    public var tau_s: Double
    public var tangentialSigma_m: Double
    public var maxDeviation_m: Double
    public init(
        distance_m: Double, bearing_deg: Double, radialSigma_m: Double, tau_s: Double,
        tangentialSigma_m: Double, maxDeviation_m: Double
    ) {
        self.distance_m = distance_m
        self.bearing_deg = bearing_deg
        self.radialSigma_m = radialSigma_m
        self.tau_s = tau_s
        self.tangentialSigma_m = tangentialSigma_m
        self.maxDeviation_m = maxDeviation_m
    }
}

/// A drive through waypoints along great-circle legs.
public struct WaypointRouteSpec: Sendable, Hashable {
    /// ≥ 2 points; consecutive points distinct and less than 179° apart (so each leg is unique).
    public var points: [Coordinate]
    public var speed: SpeedProfile
    /// Seconds standing at the first point before setting off (key `depart_s`, ≥ 0, default 0):
    /// a stay that ends in a departure (a shopper who walks out, a car that drives off).
    public var depart_s: Double
    /// Seconds standing at each intermediate point (`points[1]` … `points[count − 2]`), for a
    /// `tour` route; empty for `waypoints` (no stops). Only with a constant speed without variation.
    public var stopDwell_s: [Double] = []
    /// The places a `tour` route visits, one per point; empty for `waypoints`.
    public var tourPlaces: [String] = []
    public init(points: [Coordinate], speed: SpeedProfile, depart_s: Double = 0) {
        self.points = points
        self.speed = speed
        self.depart_s = depart_s
    }
}

/// Speed along a waypoint route (`route.speed`), in metres per second internally, km/h in the file.
public enum SpeedProfile: Sendable, Hashable {
    /// Constant `speed_mps` from t = 0, optionally varied by an Ornstein–Uhlenbeck process of
    /// stationary σ `variation_mps` and time constant `variationTau_s` (file: `profile: constant`).
    case constant(speed_mps: Double, variation_mps: Double, variationTau_s: Double)
    /// From rest: accelerate at `accel_mps2` to `cruise_mps`, cruise, brake at `brake_mps2` to stop
    /// at the last waypoint (file: `profile: accelerate-cruise-brake`).
    case accelerateCruiseBrake(cruise_mps: Double, accel_mps2: Double, brake_mps2: Double)
}

/// Sampling of the truth (`sampling`).
public struct SamplingSpec: Sendable, Hashable {
    /// Sample rate in Hz, > 0 and ≤ 1000.
    public var rate_hz: Double
    /// Length in seconds, > 0; samples at t = k / rate_hz for k in 0..<floor(duration_s·rate_hz).
    public var duration_s: Double
    /// Unix time of t = 0 for exports (key `start_unix_s`, default 2026-01-01T00:00:00Z).
    public var start_unix_s: Double
    /// True when the scenario file sets `start_unix_s` (exports then start there unless `--start` is given).
    public var startIsExplicit = false
    /// Which of the measured fixes the app is given (key `policy`, default `all`); the truth is
    /// always the noiseless track at `rate_hz`, whatever the policy.
    public var policy: SamplingPolicy = .all

    public static let defaultStart_unix_s: Double = 1_767_225_600
    /// Valid `start_unix_s`: 1970-01-01 to 9999-12-31T23:59:59Z (what ISO-8601 export can write).
    public static let startRange_unix_s: ClosedRange<Double> = 0...253_402_300_799
    /// Most samples a scenario may ask for.
    public static let maxSampleCount = 1_000_000_000

    public init(rate_hz: Double, duration_s: Double, start_unix_s: Double = SamplingSpec.defaultStart_unix_s) {
        self.rate_hz = rate_hz
        self.duration_s = duration_s
        self.start_unix_s = start_unix_s
    }

    /// Number of samples, floor(duration_s · rate_hz), at most `maxSampleCount` (the decoder refuses more).
    public var sampleCount: Int {
        Int(exactly: min((duration_s * rate_hz).rounded(.down), Double(Self.maxSampleCount))) ?? 0
    }
    /// Seconds between samples.
    public var interval_s: Double { 1 / rate_hz }
}

/// Position noise, in metres, applied in the local east-north plane at the true position.
public struct NoiseSpec: Sendable, Hashable {
    /// The white (per-fix independent) component.
    public enum White: Sendable, Hashable {
        /// Isotropic Gaussian, `sigma_m` per axis (`model: gaussian`).
        case gaussian(sigma_m: Double)
        /// Bivariate Gaussian along/across track with correlation ρ (`model: anisotropic`).
        case anisotropic(alongTrackSigma_m: Double, crossTrackSigma_m: Double, rho: Double)
    }
    /// Heavy tails applied to the white component (`tails`).
    public enum Tails: Sendable, Hashable {
        /// Multivariate Student-t: the white vector scaled by √(ν/χ²_ν), ν > 2 (`kind: student-t`).
        case studentT(nu: Double)
        /// With `probability`, the white vector scaled by `scale` ≥ 1 (`kind: mixture`).
        case mixture(probability: Double, scale: Double)
    }
    /// First-order Gauss–Markov bias per axis: b_{k+1} = φ b_k + √(1−φ²) σ_b w, φ = e^(−Δt/τ) (`bias`).
    public struct Bias: Sendable, Hashable {
        public var sigma_m: Double
        public var tau_s: Double
        public init(sigma_m: Double, tau_s: Double) {
            self.sigma_m = sigma_m
            self.tau_s = tau_s
        }
    }

    public var white: White
    public var tails: Tails?
    public var bias: Bias?

    public init(white: White, tails: Tails? = nil, bias: Bias? = nil) {
        self.white = white
        self.tails = tails
        self.bias = bias
    }

    /// Total variance per fix, east + north, in m²: the square of the DRMS.
    public var totalVariance_m2: Double {
        var v: Double
        switch white {
        case .gaussian(let s): v = 2 * s * s
        case .anisotropic(let a, let c, _): v = a * a + c * c
        }
        switch tails {
        case .studentT(let nu)?: v *= nu / (nu - 2)
        case .mixture(let p, let k)?: v *= (1 - p) + p * k * k
        case nil: break
        }
        if let b = bias { v += 2 * b.sigma_m * b.sigma_m }
        return v
    }

    /// Distance root mean square of the noise, √(σ_E² + σ_N²), in metres.
    public var drms_m: Double { totalVariance_m2.squareRoot() }
}

/// The reported horizontal accuracy (`accuracy`).
public struct AccuracySpec: Sendable, Hashable {
    public enum Model: Sendable, Hashable {
        /// The DRMS of the true noise (iOS semantics: σ per axis = hAcc/√2, ~63 % coverage for Gaussian noise).
        case drms
        /// A fixed value in metres, whatever the noise.
        case fixed(value_m: Double)
    }
    public var model: Model
    /// σ of ln(factor) for a log-normal mis-report with median 1 (key `misreportSigma`, 0 = honest).
    public var misreportSigma: Double
    /// Probability that the accuracy is delivered invalid (−1 or NaN) (key `invalidProbability`).
    public var invalidProbability: Double

    public init(model: Model = .drms, misreportSigma: Double = 0, invalidProbability: Double = 0) {
        self.model = model
        self.misreportSigma = misreportSigma
        self.invalidProbability = invalidProbability
    }
}

/// A metric bound (`expect`): `metric` is a dotted path such as `flutter.spurious`.
public struct Expectation: Sendable, Hashable {
    public var metric: String
    public var min: Double?
    public var max: Double?
    public init(metric: String, min: Double?, max: Double?) {
        self.metric = metric
        self.min = min
        self.max = max
    }
}
