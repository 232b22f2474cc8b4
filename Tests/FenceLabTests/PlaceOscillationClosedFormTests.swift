import DriveSim
import Foundation
import GeoPolicy
import Testing
import _TestSupport

@testable import FenceLab

/// Closed form: a user standing midway between two places, isotropic Gaussian noise, one
/// threshold rule per place. Each rule's state is a two-state chain; a threshold rule has no
/// memory, so its next state is the side of the next fix: inside A with p_A = P(Rice(ν, σ) ≤ r)
/// (ν the distance to A's centre), inside B with p_B, and — the discs being disjoint — never both.
/// The expected A→B→A count (docs/metrics.md "Places") then follows exactly from those chains by
/// a short recursion over the joint state after each entry.
@Suite struct PlaceOscillationClosedFormTests {
    /// Half the distance between the centres, the rule radius and the noise, metres.
    static let nu_m = 30.0
    static let radius_m = 22.0
    static let sigma_m = 8.0
    static let fixes = 3600
    static let window_fixes = 60
    static let replicates = 20

    /// P(an A-entry at step 0 is followed, within `w` steps, by a B-entry and then an A-entry).
    /// Stages: waiting for B after A (last symbol A or none), waiting for A after B (last B or none).
    static func completion(_ w: Int, pA: Double, pB: Double) -> Double {
        let p0 = 1 - pA - pB
        var s1A = 1.0
        var s10 = 0.0
        var s2B = 0.0
        var s20 = 0.0
        var done = 0.0
        for _ in 0..<w {
            done += (s2B + s20) * pA
            let n1A = s1A * pA
            let n10 = (s1A + s10) * p0
            let n2B = (s1A + s10 + s2B) * pB
            let n20 = (s2B + s20) * p0
            (s1A, s10, s2B, s20) = (n1A, n10, n2B, n20)
        }
        return done
    }

    /// Expected oscillations in `n` fixes: every entry (A or B; the first fix's determination
    /// counts) times the chance its pattern completes within the window or the drive's end.
    static func expected(n: Int, w: Int, p: Double) -> Double {
        var total = 0.0
        for k in 0..<n {
            let entry = k == 0 ? p : p * (1 - p)
            total += 2 * entry * completion(min(w, n - 1 - k), pA: p, pB: p)
        }
        return total
    }

    static func scenario(radius_m r: Double) throws -> String {
        let frame = LocalFrame(anchor: try Coordinate(latitude: 52.52, longitude: 13.405))
        let a = frame.coordinate(east_m: -nu_m, north_m: 0)
        let b = frame.coordinate(east_m: nu_m, north_m: 0)
        let rule = "threshold-\(Int(r))"
        return #"""
            {"name":"midway","description":"d","rulesVersion":"\#(rule)","seed":11,"replicates":\#(replicates),
             "fence":{"center":[52.52,13.405],"rule":{"kind":"threshold","radius_m":\#(r)}},
             "places":{"list":[{"name":"A","center":[\#(a.latitude),\#(a.longitude)],"radius_m":10},
                               {"name":"B","center":[\#(b.latitude),\#(b.longitude)],"radius_m":10}]},
             "route":{"kind":"stationary","distance_m":0,"bearing_deg":0},
             "sampling":{"rate_hz":1,"duration_s":\#(fixes)},
             "noise":{"model":"gaussian","sigma_m":\#(sigma_m)},
             "accuracy":{"model":"drms"}}
            """#
    }

    @Test func oscillationRateMatchesTheTwoChains() throws {
        let report = try PlaceSetRunTests.run(["m.json": try Self.scenario(radius_m: Self.radius_m)])
        let e = try #require(report.scenarios[0].metrics.estimate("places.oscillations"))
        let p = try RiceModel(nu_m: Self.nu_m, sigma_m: Self.sigma_m).cdf(Self.radius_m)
        let model = Self.expected(n: Self.fixes, w: Self.window_fixes, p: p)
        // The report's 95 % interval is mean ± t(0.975, 19)·s/√n; the check allows the 99.9 %
        // interval, t(0.9995, 19) = 3.883, so a correct model fails one seed in a thousand.
        let se = (e.upper - e.lower) / 2 / 2.093
        #expect(abs(e.mean - model) <= 3.883 * se, "measured \(e.mean) ± \(se), model \(model), p_A \(p)")
        #expect(model > 10)  // not vacuous: many oscillations per drive
        // A wrong model — the rate for a 20 m radius — lies far outside the interval.
        let wrong = Self.expected(
            n: Self.fixes, w: Self.window_fixes, p: try RiceModel(nu_m: Self.nu_m, sigma_m: Self.sigma_m).cdf(20))
        #expect(abs(e.mean - wrong) > 3.883 * se)
        // The user never enters either place: no true oscillation.
        #expect(report.scenarios[0].metrics.estimate("places.trueOscillations")?.mean == 0)
    }
}
