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
    ])
    func badSpecsAreRefusedWithOneLine(text: String) {
        #expect(throws: SamplingPolicyError.self) { _ = try SamplingPolicy.parse(text) }
        do { _ = try SamplingPolicy.parse(text) } catch {
            #expect(!error.description.contains("\n"))
            #expect(error.description.hasPrefix("sampling policy"))
        }
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
    }
}
