import Foundation
import Testing
import _TestSupport

@testable import ReportKit

/// The one tick algorithm of every plot, checked against `AxisLabelCheck` (which reads printed
/// labels only) on the ranges the pages draw and on negative, tiny, huge and zero-width ones.
@Suite struct AxisTicksTests {
    /// Relative tolerance for comparing a tick with k × step and a label's value with its tick:
    /// both are a product of two doubles (a few ulps).
    static let relativeTolerance = 1e-12

    /// (data low, data high, intervals, quarter): the error plots' 0…23.1 m and 0…48 m, the gap-fill
    /// plot's 0…470 m, the sweep flutter plot's −0.15…0.75 s, the ACF's −0.37…1, then the edge cases.
    static let ranges: [(Double, Double, Int, Bool)] = [
        (0, 23.1, 5, false), (0, 25, 4, false), (0, 48, 5, false), (0, 470, 5, false), (-0.15, 0.75, 5, true),
        (-0.2, 0.8, 3, true), (-0.37, 1, 6, true), (0, 0.7, 4, false), (0, 83, 6, false),
        (-730, -12, 5, false), (-5, 3, 4, false), (1e-9, 3.7e-9, 5, false), (0.3, 0.7, 4, false),
        (0, 8.4e12, 5, false), (-1e300, 1e300, 4, false), (1e15, 1e15 + 4096, 4, false),
        (5, 5, 4, false), (0, 0, 4, false), (-3, -3, 5, true), (0.001, 0.001, 4, false),
    ]

    func checkCovering(_ lo: Double, _ hi: Double, intervals: Int, quarter: Bool) {
        let t = AxisTicks.covering(lo, hi, intervals: intervals, quarter: quarter)
        let context = "\(lo)…\(hi) in \(intervals): step \(t.step), ticks \(t.values)"
        #expect(AxisLabelCheck.isNiceStep(t.step), "\(context)")
        #expect(t.values.count >= 2 && t.values.count <= intervals + 2, "\(context)")
        for v in t.values {
            let k = (v / t.step).rounded()
            #expect(isClose(v, k * t.step, relativeTolerance: Self.relativeTolerance) || v == 0, "\(context)")
        }
        for (a, b) in zip(t.values, t.values.dropFirst()) {
            #expect(isClose(b - a, t.step, relativeTolerance: 1e-9), "\(context)")
        }
        #expect(t.lower <= min(lo, hi) && t.upper >= max(lo, hi), "data covered: \(context)")
        if lo < 0 && hi > 0 || lo == hi { #expect(t.values.contains(0), "0 included: \(context)") }
        // The labels print each tick's exact value, and the printed axis passes the page check.
        for v in t.values {
            let printed = AxisLabelCheck.value(of: t.label(v), time: false)
            #expect(
                printed.map { isClose($0, v, relativeTolerance: 1e-12) || $0 == v } == true, "\(t.label(v)): \(context)"
            )
        }
        let axis = AxisLabelCheck.Axis(plot: 0, kind: "tick-y", labels: t.values.map(t.label))
        #expect(AxisLabelCheck.problems(of: axis).isEmpty, "\(AxisLabelCheck.problems(of: axis))")
    }

    @Test func everyStepIsNiceEveryTickAMultipleAndTheDataCovered() {
        for (lo, hi, intervals, quarter) in Self.ranges {
            checkCovering(lo, hi, intervals: intervals, quarter: quarter)
            checkCovering(hi, lo, intervals: intervals, quarter: quarter)
        }
    }

    @Test func theCasesOfThePagesReadAsTheyShould() {
        func labels(_ t: AxisTicks) -> [String] { t.values.map(t.label) }
        // Error plot, 23.1 m peak: no quarter of the maximum, no 18.8.
        #expect(labels(.covering(0, 23.1, intervals: 5)) == ["0", "5", "10", "15", "20", "25"])
        #expect(labels(.covering(0, 48, intervals: 5)) == ["0", "10", "20", "30", "40", "50"])
        #expect(labels(.covering(0, 470, intervals: 5)) == ["0", "100", "200", "300", "400", "500"])
        // Flutter latency: a tick at 0, on multiples of the step.
        #expect(labels(.covering(-0.15, 0.75, intervals: 4, quarter: true)) == ["-0.25", "0", "0.25", "0.5", "0.75"])
        // A quarter step prints its exact value.
        #expect(labels(.covering(0, 7.5, intervals: 3, quarter: true)) == ["0", "2.5", "5", "7.5"])
        #expect(labels(.covering(0, 0.7, intervals: 4)) == ["0", "0.2", "0.4", "0.6", "0.8"])
        #expect(labels(.covering(0, 8.4e12, intervals: 5)) == ["0", "2e12", "4e12", "6e12", "8e12", "10e12"])
        #expect(labels(.covering(1e-9, 3.7e-9, intervals: 5)) == ["1e-9", "2e-9", "3e-9", "4e-9"])
        // Zero width: widened to reach 0.
        #expect(AxisTicks.covering(0, 0, intervals: 4).domain == (0, 1))
        #expect(AxisTicks.covering(5, 5, intervals: 5).values == [0, 1, 2, 3, 4, 5])
        #expect(AxisTicks.covering(.nan, 3, intervals: 4).domain == (0, 1))
    }

    @Test func timeAxesStepNaturallyAndReadAsTime() {
        func labels(_ t: AxisTicks) -> [String] { t.values.map(t.label) }
        #expect(AxisTicks.time(inside: 0, 1349, intervals: 6).values == [0, 300, 600, 900, 1200])
        #expect(labels(.time(inside: 0, 1349, intervals: 6)) == ["0", "5 min", "10 min", "15 min", "20 min"])
        #expect(
            labels(.time(inside: 0, 3600, intervals: 6)) == [
                "0", "10 min", "20 min", "30 min", "40 min", "50 min", "1 h",
            ])
        #expect(labels(.time(inside: 0, 5400, intervals: 3)) == ["0", "30 min", "1 h", "1 h 30 min"])
        #expect(labels(.time(inside: 12.5, 47, intervals: 4)) == ["20 s", "30 s", "40 s"])
        #expect(labels(.time(inside: 0, 2, intervals: 4)) == ["0", "0.5 s", "1 s", "1.5 s", "2 s"])
        #expect(labels(.time(inside: 0, 4 * 86400, intervals: 2)) == ["0", "2 d", "4 d"])
        #expect(AxisTicks.time(inside: 5, 5, intervals: 4).values.isEmpty)
        // Every step for a spread of spans is time-natural, and the ticks stay inside the data.
        var span = 0.3
        while span < 1e7 {
            for intervals in [3, 6] {
                let t = AxisTicks.time(inside: 7, 7 + span, intervals: intervals)
                #expect(AxisLabelCheck.isTimeStep(t.step), "\(span) s / \(intervals): \(t.step)")
                #expect(t.values.allSatisfy { $0 >= 7 && $0 <= 7 + span }, "\(span): \(t.values)")
                #expect(t.values.count >= 1 && t.values.count <= intervals + 1, "\(span): \(t.values)")
                let axis = AxisLabelCheck.Axis(plot: 0, kind: "tick-t", labels: t.values.map(t.label))
                #expect(AxisLabelCheck.problems(of: axis).isEmpty, "\(AxisLabelCheck.problems(of: axis))")
            }
            span *= 1.7
        }
    }

    /// The page check fails on the axes the pages drew before (a quarter of the maximum printed to
    /// three digits; a flutter axis off the multiples of its step).
    @Test func theLabelCheckRefusesAxesOffTheirGrid() {
        let bad: [[String]] = [
            ["0", "6.25", "12.5", "18.8", "25 m"], ["0", "12.5", "25", "37.5", "50 m"],
            ["-0.2", "0.05", "0.3", "0.55", "0.8 s"], ["0", "3", "6", "9 m"], ["0", "2", "5"], ["0", "x", "2"],
        ]
        for labels in bad {
            let axis = AxisLabelCheck.Axis(plot: 0, kind: "tick-x", labels: labels)
            #expect(!AxisLabelCheck.problems(of: axis).isEmpty, "\(labels)")
        }
        let page =
            "<svg><text class=\"tick-y\" x=\"1\">0</text><text class=\"tick-y\" x=\"1\">6.25</text>"
            + "<text class=\"tick-y\" x=\"1\">12.5 m</text></svg>"
        #expect(AxisLabelCheck.problems(in: page).count == 1)
        #expect(AxisLabelCheck.axes(in: page).first?.labels == ["0", "6.25", "12.5 m"])
        let good = AxisLabelCheck.Axis(plot: 0, kind: "tick-t", labels: ["0", "30 min", "1 h", "1 h 30 min"])
        #expect(AxisLabelCheck.problems(of: good).isEmpty)
    }
}
