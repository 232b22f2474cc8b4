import GSLKit
import Testing
import _TestSupport

@testable import GeoPolicy

/// The fence input stage: `FilteredFenceMonitor` and the `+kalman` / `+imm` spec parts.
@Suite struct FilteredFenceMonitorTests {
    static let center = FenceMonitorTests.center

    static func fix(_ t: Double, _ distance_m: Double, accuracy_m: Double = 5) -> Fix {
        FenceMonitorTests.fix(t, distance_m, accuracy_m: accuracy_m)
    }

    /// The raw monitor of `FenceMonitorTests` (staleness 10 s, logging off) and its filtered twin.
    static func monitors(
        _ spec: RuleSpec = .default, input kind: FenceInput.Kind = .kalman
    ) throws
        -> (raw: FenceMonitor<AnyFenceRule, Haversine>, filtered: FilteredFenceMonitor<AnyFenceRule, Haversine>)
    {
        let raw = try FenceMonitorTests.monitor(spec, logging: .off)
        return (raw, try FilteredFenceMonitor(monitor: raw, input: try FenceInput(kind)))
    }

    /// Every fix the raw monitor refuses for a rule-independent reason is refused with the same
    /// reason, and leaves the filter and the state alone.
    @Test(arguments: [FenceInput.Kind.kalman, .imm])
    func refusesWithTheRawMonitorsReasons(kind: FenceInput.Kind) throws {
        var (raw, filtered) = try Self.monitors(input: kind)
        let good = [Self.fix(0, 150), Self.fix(1, 151)]
        for f in good {
            _ = raw.process(f, now_s: f.timestamp_s)
            _ = filtered.process(f, now_s: f.timestamp_s)
        }
        let bad: [(Fix, Double, RejectionReason)] = [
            (Fix(timestamp_s: .nan, latitude: 52.52, longitude: 13.405, horizontalAccuracy_m: 5), 2, .invalidTimestamp),
            (Fix(timestamp_s: 2, latitude: 91, longitude: 13.405, horizontalAccuracy_m: 5), 2, .invalidCoordinate),
            (Self.fix(2, 150, accuracy_m: -1), 2, .invalidAccuracy),
            (Self.fix(2, 150, accuracy_m: .infinity), 2, .invalidAccuracy),
            (Self.fix(2, 150), 20, .stale),
            (good[1], 2, .duplicate),
            (Self.fix(0.5, 150), 2, .outOfOrder),
        ]
        let before = filtered
        for (f, now, reason) in bad {
            #expect(raw.process(f, now_s: now).rejection == reason)
            let d = filtered.process(f, now_s: now)
            #expect(d.rejection == reason && d.newState == before.state)
        }
        #expect(filtered.order == before.order)
        // An accuracy of exactly 0 is valid for the raw rule but carries no finite weight for a filter.
        let zero = Self.fix(3, 150, accuracy_m: 0)
        #expect(raw.process(zero, now_s: 3).rejection == nil)
        #expect(filtered.process(zero, now_s: 3).rejection == .invalidAccuracy)
    }

    /// The rule sees the estimate: its distance and the accuracy of the filter's covariance. A run of
    /// 60 m-accuracy fixes (refused as `inaccurate` by the raw 80/120/30 rule) feeds the filter,
    /// whose accuracy falls below 30 m, and the rule then decides on it.
    @Test func accuracyGateSeesTheFiltersUncertainty() throws {
        var (raw, filtered) = try Self.monitors()
        var rawInaccurate = 0
        var filteredInaccurate = 0
        var last: FenceDecision?
        for i in 0..<60 {
            let f = Self.fix(Double(i), 200, accuracy_m: 60)
            if raw.process(f, now_s: Double(i)).rejection == .inaccurate { rawInaccurate += 1 }
            let d = filtered.process(f, now_s: Double(i))
            if d.rejection == .inaccurate { filteredInaccurate += 1 }
            last = d
        }
        #expect(rawInaccurate == 60)
        #expect(
            filteredInaccurate > 0 && filteredInaccurate < 20,
            "the first estimates carry the fix's 60 m: \(filteredInaccurate)")
        let d = try #require(last)
        #expect(d.accuracy_m < 30 && d.newState == .outside)
        let distanceTolerance_m = 1.0  // noiseless fixes: the estimate sits on them
        #expect(isClose(d.distance_m, 200, absoluteTolerance: distanceTolerance_m))
    }

    @Test func rulesVersionCarriesTheInput() throws {
        let (_, kalman) = try Self.monitors()
        #expect(kalman.rulesVersion == "hysteresis-80-120-acc30+kalman-q1")
        let imm = try FilteredFenceMonitor(
            monitor: try Self.monitors().raw, input: try FenceInput(.imm, accelerationDensity_m2ps3: 0.25))
        #expect(imm.rulesVersion == "hysteresis-80-120-acc30+imm-q0.25")
        #expect(throws: TrackError.self) { try FilteredFenceMonitor(monitor: try Self.monitors().raw, input: .raw) }
    }

    @Test(arguments: [
        ("hysteresis:80:120:30+kalman", "hysteresis-80-120-acc30+kalman-q1"),
        ("hysteresis:80:120:30+confirm3+imm", "hysteresis-80-120-acc30+confirm3+imm-q1"),
        ("threshold:100+imm:0.5+confirm10s", "threshold-100+confirm10s+imm-q0.5"),
        ("conservative:100+kalman:2", "conservative-100+kalman-q2"),
        ("hysteresis+raw", "hysteresis-80-120-acc30"),
        ("threshold:500", "threshold-500"),
    ])
    func setupSpecsParseAndRoundTrip(text: String, version: String) throws {
        let setup = try FenceSetup.parse(text)
        #expect(try setup.rulesVersion() == version)
        #expect(try FenceSetup.parse(setup.description) == setup, "description must round-trip: \(setup.description)")
    }

    @Test func badInputPartsNameThePart() {
        #expect(throws: RuleSpecError.badInput(spec: "threshold:1+kalman:x", part: "kalman:x")) {
            try FenceSetup.parse("threshold:1+kalman:x")
        }
        #expect(throws: RuleSpecError.badInput(spec: "threshold:1+imm:-1", part: "imm:-1")) {
            try FenceSetup.parse("threshold:1+imm:-1")
        }
        #expect(throws: RuleSpecError.badInput(spec: "threshold:1+imm:nan", part: "imm:nan")) {
            try FenceSetup.parse("threshold:1+imm:nan")
        }
        #expect(throws: RuleSpecError.badInput(spec: "threshold:1+raw:2", part: "raw:2")) {
            try FenceSetup.parse("threshold:1+raw:2")
        }
        #expect(throws: RuleSpecError.extraPart(spec: "threshold:1+kalman+imm", part: "imm")) {
            try FenceSetup.parse("threshold:1+kalman+imm")
        }
        #expect(throws: RuleSpecError.unknownKind(spec: "circle:1+kalman", kind: "circle")) {
            try FenceSetup.parse("circle:1+kalman")
        }
        // Where only a rule is accepted (fixtures, engines), an input stage is refused by name.
        #expect(throws: RuleSpecError.inputNotAccepted(spec: "threshold:1+kalman", part: "kalman")) {
            try RuleSpec.parse("threshold:1+kalman")
        }
    }

    /// A parked phone 100 m from the centre (in the 80/120 band), 8 m noise: the raw rule flutters,
    /// the filtered rule rarely does.
    @Test(arguments: [FenceInput.Kind.kalman, .imm])
    func filteredInputFluttersLessOnAParkedPhone(kind: FenceInput.Kind) throws {
        let rng = try RandomSource(seed: 23)
        var (raw, filtered) = try Self.monitors(input: kind)
        var rawChanges = 0
        var filteredChanges = 0
        var rawState = FenceState.unknown
        var filteredState = FenceState.unknown
        let spot = Self.center.destination(bearing_deg: 45, distance_m: 100)
        for i in 0..<3_600 {
            let c = LocalFrame(anchor: spot).coordinate(east_m: rng.gaussian(sigma: 8), north_m: rng.gaussian(sigma: 8))
            let f = Fix(
                timestamp_s: Double(i), latitude: c.latitude, longitude: c.longitude,
                horizontalAccuracy_m: 8 * 2.0.squareRoot())
            let a = raw.process(f, now_s: Double(i)).newState
            let b = filtered.process(f, now_s: Double(i)).newState
            if a != rawState {
                rawChanges += 1
                rawState = a
            }
            if b != filteredState {
                filteredChanges += 1
                filteredState = b
            }
        }
        #expect(
            filteredChanges * 5 < rawChanges, "\(kind): \(filteredChanges) state changes vs \(rawChanges) on raw fixes")
    }
}
