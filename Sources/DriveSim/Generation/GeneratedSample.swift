import GeoPolicy

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One delivery of the generated stream: what the device hands the app at `time_s`, with
/// the truth the harness scores against and a label saying which fault (if any) was injected.
public struct GeneratedSample: Sendable, Hashable {
    /// Position in the delivered stream, 0, 1, 2 … (duplicates and late fixes get their own).
    public var sequence: Int
    /// The sample slot k; `time_s` = k / rate_hz.
    public var sampleIndex: Int
    /// Delivery time in seconds from the scenario start: the `now` to inject into the engine.
    public var time_s: Double
    /// The true position at `time_s`.
    public var truth: Coordinate
    /// True speed at `time_s`, m/s.
    public var truthSpeed_mps: Double
    /// Unit east-north vector of the true direction of travel; zero when not moving.
    public var truthHeading: SIMD2<Double>
    /// The observed fix as delivered (raw values, may be invalid), or nil (`gap`, `delayed`).
    public var fix: Fix? {
        get { hasFix ? observed : nil }
        set {
            if let f = newValue {
                observed = f
                hasFix = true
            } else {
                observed = Self.noFix
                hasFix = false
            }
        }
    }
    /// The true position when `fix` was measured (differs from `truth` for stale and late fixes), or nil without a fix.
    public var fixTruth: Coordinate? {
        get { hasFix ? observedTruth : nil }
        set { if let c = newValue { observedTruth = c } }
    }
    /// What was injected.
    public var fault: FaultLabel

    // Storage: doubles first and the optional parts flattened, so moving an item is a few
    // aligned vector moves (an `Optional<Fix>` in the middle cost store-forwarding stalls).
    var observed: Fix
    var observedTruth: Coordinate
    var hasFix: Bool
    /// A placeholder to pass to `ScenarioGenerator.next(into:)`.
    public static let placeholder = GeneratedSample(
        sequence: 0, sampleIndex: 0, time_s: 0, truth: Coordinate(unitVector: SIMD3(1, 0, 0)),
        truthSpeed_mps: 0, truthHeading: .zero, fix: nil, fixTruth: nil, fault: .none)
    static let noFix = Fix(timestamp_s: 0, latitude: 0, longitude: 0, horizontalAccuracy_m: 0)

    public init(
        sequence: Int, sampleIndex: Int, time_s: Double, truth: Coordinate, truthSpeed_mps: Double,
        truthHeading: SIMD2<Double>, fix: Fix?, fixTruth: Coordinate?, fault: FaultLabel
    ) {
        self.sequence = sequence
        self.sampleIndex = sampleIndex
        self.time_s = time_s
        self.truth = truth
        self.truthSpeed_mps = truthSpeed_mps
        self.truthHeading = truthHeading
        self.observed = fix ?? Self.noFix
        self.observedTruth = fixTruth ?? truth
        self.hasFix = fix != nil
        self.fault = fault
    }

    /// True course in degrees clockwise from north, 0..<360, or −1 when not moving (iOS convention).
    public var truthCourse_deg: Double {
        if truthHeading == .zero { return -1 }
        let c = atan2(truthHeading.x, truthHeading.y) * EarthModel.degreesPerRadian
        return c < 0 ? c + 360 : c
    }
}

/// A whole replicate in memory (only when asked: `ScenarioGenerator.generate`).
public struct GeneratedReplicate: Sendable, Hashable {
    public var scenario: String
    public var replicate: Int
    public var provenance: GenerationProvenance
    /// Every delivered item, in delivery order.
    public var samples: [GeneratedSample]

    /// Delivery times, s.
    public var times_s: [Double] { samples.map(\.time_s) }
    /// Truth at each delivery time.
    public var truths: [Coordinate] { samples.map(\.truth) }
    /// The delivered fixes (nil in gaps), aligned with `samples`.
    public var fixes: [Fix?] { samples.map(\.fix) }
    /// The fault label of each item.
    public var faults: [FaultLabel] { samples.map(\.fault) }
}

/// What reports record about how a replicate was generated.
public struct GenerationProvenance: Sendable, Hashable {
    /// GSL generator algorithm (`mt19937`, `taus2`).
    public var generator: String
    /// The replicate seed derived from the scenario seed.
    public var replicateSeed: UInt64
    /// Seeds of the route, noise, accuracy and fault streams, in that order.
    public var streamSeeds: [UInt64]
    /// The GSL version linked at run time.
    public var gslVersion: String
}
