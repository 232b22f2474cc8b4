import GeoPolicy
import Testing
import _TestSupport

@Suite struct FenceMonitorTests {
    static let center = try! Coordinate(latitude: 52.52, longitude: 13.405)
    static let maxAge_s = 10.0

    /// A fix at `distance_m` from the centre (north-east), valid unless told otherwise.
    static func fix(_ t: Double, _ distance_m: Double, accuracy_m: Double = 5, bearing_deg: Double = 45) -> Fix {
        let c = center.destination(bearing_deg: bearing_deg, distance_m: distance_m)
        return Fix(timestamp_s: t, latitude: c.latitude, longitude: c.longitude, horizontalAccuracy_m: accuracy_m)
    }

    static func monitor(
        _ spec: RuleSpec = .default, logging: FenceLogOptions = .decisions
    ) throws
        -> FenceMonitor<AnyFenceRule, Haversine>
    {
        try FenceMonitor(center: center, evaluator: try spec.evaluator(), maxAge_s: maxAge_s, logging: logging)
    }

    @Test func firstDeterminationThenEnterAndExit() throws {
        var m = try Self.monitor()
        #expect(m.state == .unknown)
        let band = m.process(Self.fix(0, 100), now_s: 0)
        #expect(band.event == nil && band.newState == .unknown && band.accepted)
        let first = m.process(Self.fix(1, 150), now_s: 1)
        #expect(first.event?.kind == .determined && first.event?.state == .outside && first.event?.previous == .unknown)
        let enter = m.process(Self.fix(2, 50), now_s: 2)
        #expect(enter.event?.kind == .entered && enter.event?.sampleIndex == 2)
        let exit = m.process(Self.fix(3, 130), now_s: 3)
        #expect(exit.event?.kind == .exited)
        let ids = [first, enter, exit].compactMap { $0.event?.id }
        #expect(ids == ids.sorted() && Set(ids).count == 3)
    }

    @Test func distanceIsTheModelsUnrounded() throws {
        var m = try Self.monitor()
        let f = Self.fix(0, 123.456)
        let d = m.process(f, now_s: 0)
        let expected = Haversine().distance_m(Self.center, try f.coordinate())
        #expect(d.distance_m == expected)
        #expect(isClose(d.distance_m, 123.456, absoluteTolerance: 1e-6))
    }

    @Test func neverTwiceForTheSameState() throws {
        var m = try Self.monitor()
        var events: [FenceEvent] = []
        for i in 0..<50 {
            if let e = m.process(Self.fix(Double(i), i % 7 == 0 ? 100 : 20), now_s: Double(i)).event {
                events.append(e)
            }
        }
        #expect(events.count == 1)
        #expect(events.first?.kind == .determined && events.first?.state == .inside)
    }

    @Test(arguments: [
        (Fix(timestamp_s: 5, latitude: 91, longitude: 0, horizontalAccuracy_m: 5), RejectionReason.invalidCoordinate),
        (Fix(timestamp_s: 5, latitude: .nan, longitude: 0, horizontalAccuracy_m: 5), .invalidCoordinate),
        (Fix(timestamp_s: 5, latitude: 0, longitude: 181, horizontalAccuracy_m: 5), .invalidCoordinate),
        (Fix(timestamp_s: .nan, latitude: 52.52, longitude: 13.405, horizontalAccuracy_m: 5), .invalidTimestamp),
        (fix(5, 10, accuracy_m: -1), .invalidAccuracy),
        (fix(5, 10, accuracy_m: .nan), .invalidAccuracy),
        (fix(5, 10, accuracy_m: .infinity), .invalidAccuracy),
        (fix(5, 10, accuracy_m: 30.01), .inaccurate),
        (fix(-5.001, 10), .stale),
    ])
    func rejectsWithReasonAndChangesNothing(fix: Fix, reason: RejectionReason) throws {
        var m = try Self.monitor()
        _ = m.process(Self.fix(-6, 200), now_s: -6)  // known state: outside
        #expect(m.state == .outside)
        let d = m.process(fix, now_s: 5)
        #expect(d.rejection == reason)
        #expect(d.event == nil && d.newState == .outside && m.state == .outside)
        // The reference fix is still usable afterwards: nothing was recorded as accepted.
        let ok = m.process(Self.fix(6, 10), now_s: 6)
        #expect(ok.accepted && ok.event?.kind == .entered)
    }

    @Test func staleBoundaryIsInclusive() throws {
        var m = try Self.monitor()
        #expect(m.process(Self.fix(0, 10), now_s: Self.maxAge_s).accepted)
        #expect(m.process(Self.fix(1, 10), now_s: 1 + Self.maxAge_s + 0.001).rejection == .stale)
    }

    @Test func orderAndDuplicates() throws {
        var m = try Self.monitor()
        let a = Self.fix(10, 10)
        #expect(m.process(a, now_s: 10).event?.kind == .determined)
        #expect(m.process(a, now_s: 11).rejection == .duplicate)
        #expect(m.process(Self.fix(10, 200), now_s: 11).rejection == .outOfOrder)  // same time, other place
        #expect(m.process(Self.fix(9, 200), now_s: 11).rejection == .outOfOrder)
        #expect(m.state == .inside)
        #expect(m.process(Self.fix(11, 200), now_s: 11).event?.kind == .exited)
    }

    @Test func authorizationLossReturnsToUnknownAndRedetermines() throws {
        var m = try Self.monitor()
        let first = try #require(m.process(Self.fix(0, 10), now_s: 0).event)
        let lost = m.authorizationLost(now_s: 1)
        #expect(lost.oldState == .inside && lost.newState == .unknown && lost.event == nil && m.state == .unknown)
        #expect(m.process(Self.fix(2, 100), now_s: 2).event == nil)  // band: stays unknown
        let again = try #require(m.process(Self.fix(3, 10), now_s: 3).event)
        #expect(again.kind == .determined && again.state == .inside)
        #expect(again.id > first.id)
        #expect(m.process(Self.fix(1.5, 500), now_s: 3).rejection == .outOfOrder)  // order survives the loss
    }

    @Test func confirmationThroughTheMonitor() throws {
        var m = try Self.monitor(try RuleSpec.parse("hysteresis:80:120:30+confirm2"))
        #expect(m.rulesVersion == "hysteresis-80-120-acc30+confirm2")
        #expect(m.process(Self.fix(0, 10), now_s: 0).event == nil)
        #expect(m.process(Self.fix(1, 10, accuracy_m: 40), now_s: 1).rejection == .inaccurate)
        #expect(m.process(Self.fix(2, 10), now_s: 2).event?.kind == .determined)
    }

    @Test func logHasNoCoordinatesByDefault() throws {
        var m = try Self.monitor()
        _ = m.process(Self.fix(0, 10), now_s: 0)
        _ = m.process(Fix(timestamp_s: 1, latitude: 91, longitude: 13.405, horizontalAccuracy_m: 5), now_s: 1)
        _ = m.process(Self.fix(2, 10, accuracy_m: -1), now_s: 2)
        let log = m.log
        #expect(log.entries.count == 3)
        #expect(log.entries.allSatisfy { $0.latitude == nil && $0.longitude == nil })
        #expect(!log.description.contains("52.52") && !log.description.contains("13.4"))
        #expect(log.entries.map(\.decision.sampleIndex) == [0, 1, 2])
        #expect(log.entries.map(\.decision.rejection) == [nil, .invalidCoordinate, .invalidAccuracy])
        #expect(log.description.contains("rejected=invalidAccuracy"))
        #expect(isClose(log.entries[0].decision.distance_m, 10, absoluteTolerance: 1e-6))
    }

    @Test func coordinatesOnlyWhenAskedAndNoLogWhenOff() throws {
        var withCoords = try Self.monitor(logging: .decisionsWithCoordinates)
        let f = Self.fix(0, 10)
        _ = withCoords.process(f, now_s: 0)
        #expect(withCoords.log.entries.first?.latitude == f.latitude)
        #expect(withCoords.log.description.contains("latitude="))
        var off = try Self.monitor(logging: .off)
        for i in 0..<100 { _ = off.process(Self.fix(Double(i), Double(i * 3)), now_s: Double(i)) }
        #expect(off.log.entries.isEmpty && off.samplesSeen == 100)
    }

    /// A long deterministic stream with every kind of fault: events only for accepted
    /// fixes that change state, consecutive events never announce the same state, ids increase.
    @Test func faultStreamProperty() throws {
        var m = try Self.monitor(logging: .off)
        var lastEvent: FenceEvent?
        var t = 0.0
        for i in 0..<5_000 {
            t += 1
            var f = Self.fix(t, Double((i * 37) % 260), accuracy_m: Double((i * 13) % 40))
            switch i % 11 {
            case 3: f.timestamp_s -= 30  // stale
            case 5: f.timestamp_s -= 1.5  // out of order
            case 7: f.latitude = .nan
            case 9: f.horizontalAccuracy_m = -1
            default: break
            }
            let before = m.state
            let d = m.process(f, now_s: t)
            if d.rejection != nil {
                #expect(d.event == nil && m.state == before)
            }
            if let e = d.event {
                #expect(d.accepted && e.state == m.state && e.previous == before && e.state != before)
                if let lastEvent {
                    #expect(e.id > lastEvent.id && e.state != lastEvent.state)
                }
                lastEvent = e
            }
        }
        #expect(lastEvent != nil)
    }

    @Test func invalidMaxAgeThrows() {
        #expect(throws: FenceRuleError.negative(parameter: "maxAge_s", value: -1)) {
            try FenceMonitor(
                center: Self.center, evaluator: try FenceEvaluator(rule: Hysteresis.seedDefault), maxAge_s: -1)
        }
        #expect(throws: FenceRuleError.self) {
            try FenceMonitor(
                center: Self.center, evaluator: try FenceEvaluator(rule: Hysteresis.seedDefault), maxAge_s: .nan)
        }
    }
}
