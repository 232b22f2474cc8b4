/// What a fence rule decides on: the raw fixes, or a track filter's causal estimate after each fix.
///
/// `kalman` is `KalmanFilter` (constant velocity), `imm` is `IMMFilter` (stop and go); both with
/// white-acceleration density `accelerationDensity_m2ps3` (q, m²/s³). The rule sees the filtered
/// position with the accuracy the filter's covariance gives under the iOS DRMS convention
/// (√(σe² + σn²), as a device reports it), so the accuracy gate and the conservative rule keep
/// their meaning. Part of the rules version: `+kalman-q1`, `+imm-q0.5` (nothing for `raw`).
public struct FenceInput: Sendable, Hashable, CustomStringConvertible {
    /// The input stage.
    public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
        case raw, kalman, imm
    }

    public let kind: Kind
    /// q in m²/s³ per axis (finite, > 0); `defaultAccelerationDensity_m2ps3` for `raw`, where it is unused.
    public let accelerationDensity_m2ps3: Double

    /// q = 1 m²/s³, `KalmanFilter`'s default (accelerations of ~1 m/s² over a second: a car).
    public static let defaultAccelerationDensity_m2ps3 = 1.0
    /// The raw fixes (today's behaviour).
    public static let raw = FenceInput(uncheckedKind: .raw, q: defaultAccelerationDensity_m2ps3)

    /// - Throws: `TrackError.invalidParameter` when q is not finite and > 0.
    public init(
        _ kind: Kind, accelerationDensity_m2ps3 q: Double = FenceInput.defaultAccelerationDensity_m2ps3
    ) throws(TrackError) {
        guard q.isFinite, q > 0 else {
            throw .invalidParameter(name: "accelerationDensity_m2ps3", value: q, expected: "finite and > 0")
        }
        self.init(uncheckedKind: kind, q: kind == .raw ? FenceInput.defaultAccelerationDensity_m2ps3 : q)
    }

    private init(uncheckedKind: Kind, q: Double) {
        kind = uncheckedKind
        accelerationDensity_m2ps3 = q
    }

    /// Appended to the rule's rules version: `""`, `+kalman-q1`, `+imm-q0.25`.
    public var versionSuffix: String {
        kind == .raw ? "" : "+\(kind.rawValue)-q\(versionNumber(accelerationDensity_m2ps3))"
    }

    /// The spec part `FenceSetup.parse` reads: `raw`, `kalman` (default q) or `kalman:0.5`.
    public var description: String {
        if kind == .raw || accelerationDensity_m2ps3 == FenceInput.defaultAccelerationDensity_m2ps3 {
            return kind.rawValue
        }
        return "\(kind.rawValue):\(versionNumber(accelerationDensity_m2ps3))"
    }

    /// A fresh filter for the stage, nil for `raw`.
    func makeFilter() -> InputFilter? {
        // q was validated by the initializer; the other parameters are the filters' defaults.
        switch kind {
        case .raw: return nil
        case .kalman:
            return (try? KalmanFilter(accelerationDensity_m2ps3: accelerationDensity_m2ps3)).map(InputFilter.kalman)
        case .imm: return (try? IMMFilter(accelerationDensity_m2ps3: accelerationDensity_m2ps3)).map(InputFilter.imm)
        }
    }

    /// Reads a spec part: `raw`, `kalman`, `imm`, optionally `:Q` with q in m²/s³; nil when `part`
    /// names no input stage.
    static func parse(_ part: String, spec: String) throws(RuleSpecError) -> FenceInput? {
        let pieces = part.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard let kind = Kind(rawValue: pieces[0]) else { return nil }
        guard pieces.count <= 2, !(kind == .raw && pieces.count == 2) else { throw .badInput(spec: spec, part: part) }
        guard pieces.count == 2 else { return try? FenceInput(kind) }
        guard let q = Double(pieces[1]) else { throw .badInput(spec: spec, part: part) }
        do { return try FenceInput(kind, accelerationDensity_m2ps3: q) } catch {
            throw .badInput(spec: spec, part: part)
        }
    }
}

/// The filter of an input stage (fixed-size values; no allocation per fix).
enum InputFilter: Sendable {
    case kalman(KalmanFilter)
    case imm(IMMFilter)

    /// Feeds `fix` and returns the causal estimate after it (`estimate`).
    mutating func update(_ fix: Fix) throws(TrackRejection) -> (position: Coordinate, accuracy_m: Double) {
        switch self {
        case .kalman(var f):
            try f.update(fix)
            self = .kalman(f)
        case .imm(var f):
            try f.update(fix)
            self = .imm(f)
        }
        return estimate
    }

    /// `update` that also gives the innovation of the fix against the filter's prediction: for
    /// `kalman` ν = z − Hx⁻, S = HP⁻Hᵀ + R with z in the frame the correction used; for `imm` against
    /// the combined (moment-matched) prediction (`IMMFilter.updateReturningInnovation`). nil for the
    /// filter's first fix. The estimate is the one `update` gives.
    mutating func update(
        _ fix: Fix, innovation: inout Innovation?
    ) throws(TrackRejection) -> (position: Coordinate, accuracy_m: Double) {
        switch self {
        case .kalman(var f):
            var step = KalmanStep()
            try f.update(fix, recording: &step)
            self = .kalman(f)
            if !step.isFirst {
                let r = try KalmanFilter.measurementVariance(of: fix, convention: f.convention)
                let z = f.projection.offset_m(latitude: fix.latitude, longitude: fix.longitude)
                let xp = step.predictedState
                let pp = step.predictedCovariance
                innovation = Innovation(
                    residual_m: z - SIMD2(xp[0], xp[1]), s00: pp.p00 + r, s01: pp.p01, s11: pp.p11 + r)
            }
        case .imm(var f):
            innovation = try f.updateReturningInnovation(fix)
            self = .imm(f)
        }
        return estimate
    }

    /// The current causal estimate: the position and the accuracy of the position covariance (the
    /// moment-matched combination for `imm`), without the velocity, which the fence does not use.
    private var estimate: (position: Coordinate, accuracy_m: Double) {
        let frame: LocalFrame
        let x: SIMD4<Double>
        let p: Covariance4
        let convention: AccuracyConvention
        switch self {
        case .kalman(let f):
            (frame, x, p, convention) = (f.frame, f.state, f.covariance, f.convention)
        case .imm(let f):
            let c = IMMFilter.combine(f.probabilities, f.state0, f.covariance0, f.state1, f.covariance1)
            (frame, x, p, convention) = (f.frame, c.state, c.covariance, f.convention)
        }
        return (frame.coordinate(SIMD2(x[0], x[1])), convention.accuracy_m(perAxisVariance_m2: 0.5 * (p.p00 + p.p11)))
    }
}

/// A rule spec with its input stage, as `--rule` takes it: `hysteresis:80:120:30+confirm3+kalman`,
/// `threshold:100+imm:0.5`. The parts after the rule come in any order, at most one confirmation
/// by fixes, one by seconds (`+confirm3+confirm10s`: both must hold) and one input (`raw`, `kalman`, `imm`, each optionally `:Q` with q in m²/s³; default raw).
public struct FenceSetup: Sendable, Hashable, CustomStringConvertible {
    public var rule: RuleSpec
    public var input: FenceInput

    public init(rule: RuleSpec, input: FenceInput = .raw) {
        self.rule = rule
        self.input = input
    }

    /// The rules version: the rule's, then the input's suffix (`hysteresis-80-120-acc30+kalman-q1`).
    /// - Throws: `FenceRuleError` for invalid rule parameters.
    public func rulesVersion() throws(FenceRuleError) -> String {
        try rule.rulesVersion() + input.versionSuffix
    }

    /// The CLI form, which `parse` reads back.
    public var description: String {
        input.kind == .raw ? rule.description : "\(rule.description)+\(input.description)"
    }

    /// Parses the CLI form and validates every part.
    /// - Throws: `RuleSpecError` naming the part of `text` that is wrong.
    public static func parse(_ text: String) throws(RuleSpecError) -> FenceSetup {
        var kept: [String] = []
        var input: FenceInput?
        for (i, part) in text.split(separator: "+", omittingEmptySubsequences: false).map(String.init).enumerated() {
            if i > 0, let stage = try FenceInput.parse(part, spec: text) {
                guard input == nil else { throw .extraPart(spec: text, part: part) }
                input = stage
            } else {
                kept.append(part)
            }
        }
        let rule: RuleSpec
        do { rule = try RuleSpec.parse(kept.joined(separator: "+")) } catch {
            // Re-raise against the whole text so the message quotes what the user wrote.
            throw error.quoting(text)
        }
        return FenceSetup(rule: rule, input: input ?? .raw)
    }
}
