import GeoPolicy
import Testing

/// The sampling-policy stage: spec strings, refusals, and the gate's decisions on hand-made fixes.
@Suite struct SamplingPolicyTests {
    static func fix(_ t: Double, north_m: Double = 0) -> Fix {
        // Along the meridian through (0, 0): 1 m north is 1/111 195 ° (R = 6 371 000 m).
        Fix(
            timestamp_s: t, latitude: north_m / (EarthModel.sphereRadius_m * .pi / 180), longitude: 0,
            horizontalAccuracy_m: 5)
    }

    @Test(arguments: [
        ("all", "all", ""), ("interval:60", "interval:60", "+interval60"),
        ("distance:50", "distance:50", "+distance50"),
        ("interval:30+batch:300", "interval:30+batch:300", "+interval30-batch300"),
        ("all+batch:120", "all+batch:120", "+batch120"),
        ("distance:12.5+batch:60", "distance:12.5+batch:60", "+distance12.5-batch60"),
        ("distance:50:elastic", "distance:50:elastic:1", "+distance50-elastic1"),
        ("distance:50:elastic:0.5+batch:60", "distance:50:elastic:0.5+batch:60", "+distance50-elastic0.5-batch60"),
        ("adaptive:30:300", "adaptive:30:300:200:300", "+adaptive30-300-r200-t300"),
        ("adaptive:30:300:25:120+batch:600", "adaptive:30:300:25:120+batch:600", "+adaptive30-300-r25-t120-batch600"),
        ("adaptive:60:60:10:60", "adaptive:60:60:10:60", "+adaptive60-60-r10-t60"),
        ("rampup:50:10:60", "rampup:50:10:60", "+rampup50-10-60"),
        ("rampup:50:10:60+batch:120", "rampup:50:10:60+batch:120", "+rampup50-10-60-batch120"),
    ])
    func specsRoundTrip(text: String, description: String, suffix: String) throws {
        let p = try SamplingPolicy.parse(text)
        #expect(p.description == description)
        #expect(p.versionSuffix == suffix)
        #expect(try SamplingPolicy.parse(p.description) == p)
    }

    @Test(arguments: [
        "", "every", "interval", "interval:", "interval:0", "interval:-5", "interval:nan", "interval:inf",
        "distance:abc", "distance:0", "all:3", "interval:60+distance:50", "interval:60+batch:0", "interval:60+batch",
        "interval:60+batch:30+batch:30", "interval:60:5",
        "adaptive", "adaptive:30", "adaptive:30:300:50", "adaptive:300:30", "adaptive:30:300:0:300",
        "adaptive:30:300:50:-1", "adaptive:30:inf", "rampup:50:10", "rampup:0:10:60", "rampup:50:60:10",
        "rampup:50:nan:60", "distance:50:elastic:0", "distance:50:springy", "distance:50:elastic:1:2",
        "adaptive:30:300+rampup:50:10:60", "interval:60+adaptive:30:300", "rampup:50:10:60+batch:0",
    ])
    func badSpecsAreRefusedWithOneLine(text: String) {
        #expect(throws: SamplingPolicyError.self) { _ = try SamplingPolicy.parse(text) }
        do { _ = try SamplingPolicy.parse(text) } catch {
            #expect(!error.description.contains("\n"))
            #expect(error.description.hasPrefix("sampling policy"))
        }
    }

    /// Errors are typed and name the part of the spec at fault.
    @Test func refusalsAreTypedAndNameThePart() {
        func error(_ text: String) -> SamplingPolicyError? {
            do { _ = try SamplingPolicy.parse(text) } catch { return error }
            return nil
        }
        #expect(
            error("adaptive:300:30")
                == .inconsistentIn(
                    spec: "adaptive:300:30", reason: "adaptive MOVING_S (300.0) must be ≤ STOPPED_S (30.0)"))
        #expect(
            error("rampup:50:60:10")
                == .inconsistentIn(spec: "rampup:50:60:10", reason: "rampup NEAR_S (60.0) must be ≤ FAR_S (10.0)"))
        #expect(error("rampup:0:10:60") == .invalidParameterIn(spec: "rampup:0:10:60", name: "rampup R", value: 0))
        #expect(
            error("adaptive:30:300:50:-1")
                == .invalidParameterIn(spec: "adaptive:30:300:50:-1", name: "adaptive T", value: -1))
        #expect(
            error("distance:50:elastic:0")
                == .invalidParameterIn(spec: "distance:50:elastic:0", name: "distance elasticity K", value: 0))
        #expect(
            error("adaptive:30:300+rampup:50:10:60")
                == .impossibleComposition(
                    spec: "adaptive:30:300+rampup:50:10:60", part: "rampup:50:10:60",
                    reason: "adaptive and rampup do not compose; only batch:S may follow '+'"))
        #expect(error("every:5") == .unknownPolicy(spec: "every:5", name: "every"))
        #expect(throws: SamplingPolicyError.inconsistent(reason: "adaptive MOVING_S (2.0) must be ≤ STOPPED_S (1.0)")) {
            _ = try SamplingPolicy(.adaptive(moving_s: 2, stopped_s: 1, stopRadius_m: 5, stopTime_s: 5))
        }
    }

    /// The documented elasticity: D · max(1, K · round(v / 5 m/s)), half away from zero, in metres.
    @Test(arguments: [
        (30.0, 1.0, 7.7, 60.0), (50.0, 1.0, 27.0, 250.0), (50.0, 1.0, 2.4, 50.0), (50.0, 0.5, 27.0, 125.0),
        (50.0, 1.0, 12.5, 150.0), (50.0, 1.0, Double.nan, 50.0), (50.0, 2.0, 0.0, 50.0), (50.0, 0.1, 12.0, 50.0),
    ])
    func elasticDistanceFollowsTheDocumentedRule(d: Double, k: Double, v: Double, expected: Double) {
        let got = SamplingPolicy.elasticDistance_m(distance_m: d, multiplier: k, speed_mps: v)
        #expect(abs(got - expected) <= 1e-9, "\(got) m, expected \(expected) m")
    }

    /// At 12 m/s with D = 20: the first step uses D (no speed yet), then D · round(12/5) = 40 m,
    /// kept at the first 1 Hz fix at or beyond it (48 m, every 4 s).
    @Test func elasticDistanceWidensWithTheDeliveredSpeed() throws {
        var gate = SamplingGate(policy: try SamplingPolicy(.elasticDistance(distance_m: 20, multiplier: 1)))
        var kept: [Double] = []
        for t in stride(from: 0.0, through: 20, by: 1) where gate.offer(Self.fix(t, north_m: 12 * t), now_s: t) != nil {
            kept.append(t)
        }
        #expect(kept == [0, 2, 6, 10, 14, 18])
    }

    /// Standing still: MOVING_S ticks until every delivered fix of T s lies within R of the
    /// anchor, then STOPPED_S ticks; a fix more than R from the anchor switches back at once.
    @Test func adaptiveSlowsDownWhenStoppedAndSpeedsUpWhenMoved() throws {
        let policy = try SamplingPolicy(.adaptive(moving_s: 10, stopped_s: 60, stopRadius_m: 5, stopTime_s: 30))
        var gate = SamplingGate(policy: policy, phase_s: 0)
        var taken: [Double] = []
        for t in stride(from: 0.0, through: 300, by: 1) {
            if gate.offer(Self.fix(t, north_m: t < 200 ? 0 : 10), now_s: t) != nil { taken.append(t) }
        }
        #expect(taken == [0, 10, 20, 30, 60, 120, 180, 240, 250, 260, 270, 300])
    }

    /// With batching, the detector's verdict takes effect when the app receives the fix (at the
    /// batch), not when it was measured: MOVING_S goes on until the batch at 100 s.
    @Test func adaptiveStateTakesEffectAtDelivery() throws {
        let policy = try SamplingPolicy(
            .adaptive(moving_s: 10, stopped_s: 60, stopRadius_m: 5, stopTime_s: 30), batch_s: 100)
        var gate = SamplingGate(policy: policy, phase_s: 0)
        var taken: [Double] = []
        var delivered: [Double] = []
        for t in stride(from: 0.0, through: 250, by: 1) {
            if let at = gate.offer(Self.fix(t), now_s: t) {
                taken.append(t)
                delivered.append(at)
            }
        }
        #expect(taken == [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 120, 180, 240])
        #expect(delivered == [0, 100, 100, 100, 100, 100, 100, 100, 100, 100, 200, 200, 300])
    }

    /// Walking in from 200 m at 1 m/s towards an edge of 100 m with R = 20: FAR_S ticks until a
    /// fix lies within [80, 120] m of the centre, then NEAR_S until one lies outside it.
    @Test func rampupSamplesFastNearTheEdge() throws {
        let center = try Coordinate(latitude: 0, longitude: 0)
        var gate = SamplingGate(
            policy: try SamplingPolicy(.rampup(ring_m: 20, near_s: 5, far_s: 30)), phase_s: 0,
            context: SamplingContext(center: center, edge_m: 100))
        var taken: [Double] = []
        for t in stride(from: 0.0, through: 200, by: 1) where gate.offer(Self.fix(t, north_m: 200 - t), now_s: t) != nil
        {
            taken.append(t)
        }
        #expect(taken == [0, 30, 60, 90, 95, 100, 105, 110, 115, 120, 125, 150, 180])
    }

    @Test func allDeliversEveryFixAtOnce() {
        var gate = SamplingGate(policy: .all)
        for t in stride(from: 0.0, to: 10, by: 1) { #expect(gate.offer(Self.fix(t), now_s: t) == t) }
    }

    /// Ticks at phase + k·S; the first fix at or after each tick is taken; a gap skips ticks.
    @Test func intervalTakesTheFirstFixAfterEachTick() throws {
        var gate = SamplingGate(policy: try SamplingPolicy(.interval(period_s: 10)), phase_s: 3.5)
        var taken: [Double] = []
        for t in stride(from: 0.0, through: 60, by: 1) where !(t > 20 && t < 41) {  // a 20 s signal gap
            if let at = gate.offer(Self.fix(t), now_s: t) { taken.append(at) }
        }
        #expect(taken == [4, 14, 41, 44, 54])
    }

    /// A distance filter keeps a fix when it lies ≥ D from the last kept one: on a straight walk of
    /// 1 m per second, D = 5 keeps every fifth fix; standing still keeps nothing.
    @Test func distanceKeepsFixesDApart() throws {
        var gate = SamplingGate(policy: try SamplingPolicy(.distance(distance_m: 4.999)))
        var kept: [Double] = []
        for t in stride(from: 0.0, through: 20, by: 1) {
            if gate.offer(Self.fix(t, north_m: t), now_s: t) != nil { kept.append(t) }
        }
        for t in stride(from: 21.0, through: 40, by: 1) {
            if gate.offer(Self.fix(t, north_m: 20), now_s: t) != nil { kept.append(t) }
        }
        #expect(kept == [0, 5, 10, 15, 20])
        // An invalid coordinate is never kept (and never becomes the reference).
        let bad = Fix(timestamp_s: 41, latitude: .nan, longitude: 0, horizontalAccuracy_m: 5)
        #expect(gate.offer(bad, now_s: 41) == nil)
    }

    /// Batching hands a fix over at the next delivery time phase + k·S at or after its arrival.
    @Test func batchDelaysToTheNextDelivery() throws {
        var gate = SamplingGate(policy: try SamplingPolicy(.all, batch_s: 30), phase_s: 7)
        let at = [0.0, 6.9, 7, 7.1, 36.9, 37, 100].map { gate.offer(Self.fix($0), now_s: $0) }
        #expect(at == [7, 7, 7, 37, 37, 37, 127])
    }

    @Test func periodsAndFlags() throws {
        #expect(SamplingPolicy.all.isAll && !SamplingPolicy.all.usesPhase && SamplingPolicy.all.shortestPeriod_s == nil)
        let p = try SamplingPolicy(.interval(period_s: 60), batch_s: 300)
        #expect(!p.isAll && p.usesPhase && p.shortestPeriod_s == 60)
        #expect(try SamplingPolicy(.distance(distance_m: 50)).shortestPeriod_s == nil)
        #expect(try !SamplingPolicy(.all, batch_s: 5).isAll)
        let a = try SamplingPolicy.parse("adaptive:30:300:50:120+batch:600")
        #expect(a.usesPhase && !a.needsContext && a.periods_s == [30, 300, 600] && a.shortestPeriod_s == 30)
        let r = try SamplingPolicy.parse("rampup:50:10:60")
        #expect(r.usesPhase && r.needsContext && r.periods_s == [10, 60] && r.shortestPeriod_s == 10)
        let e = try SamplingPolicy.parse("distance:50:elastic")
        #expect(!e.usesPhase && e.shortestPeriod_s == nil)
    }
}
