import FenceLab
import Testing

@testable import FenceLabSweep

/// `SweepCellJSON` writes a cell's sweep.json result as the `JSONValue` tree of
/// `SweepOutput.resultJSON` serializes it: with and without each optional figure and
/// notification group, at several indents, with edge numbers (−0, NaN and ±∞ as null, large and
/// small magnitudes, integers).
@Suite struct SweepCellJSONTests {
    static func estimate(_ g: inout some RandomNumberGenerator) -> Estimate {
        let values: [Double] = [
            0, -0.0, 1, 3600, 0.05, 12.35, 1.0 / 3, 1e-7, 2.5e16, .nan, .infinity, -.infinity, 0.1 + 0.2,
            2_147_483_647.5,
        ]
        func pick() -> Double {
            Bool.random(using: &g) ? values.randomElement(using: &g)! : Double.random(in: -1e4...1e4, using: &g)
        }
        return Estimate(mean: pick(), lower: pick(), upper: pick(), n: Int.random(in: 0...40, using: &g))
    }

    static func cell(_ g: inout some RandomNumberGenerator, optionals: Bool?, notify: Bool) -> SweepCell {
        func opt() -> Estimate? {
            (optionals ?? Bool.random(using: &g)) ? estimate(&g) : nil
        }
        let visits = SweepVisitCell(
            trueVisits: estimate(&g), matchedVisits: estimate(&g), recall: opt(), falseVisits: estimate(&g),
            fragments: estimate(&g), falsePerHour: estimate(&g), fragmentsPerHour: estimate(&g),
            earlyEntries: estimate(&g), entryLatencyP95_s: opt(), lateEntryP95_s: opt(), exitLatencyP95_s: opt(),
            trueExits: estimate(&g))
        let notifications =
            notify
            ? SweepNotifyCell(
                entriesPerTrueVisit: opt(), unwantedPerHour: estimate(&g), falseDwellsPerHour: estimate(&g),
                dwellRecall: opt(), dwellLatencyP95_s: opt()) : nil
        return SweepCell(
            point: Int.random(in: 0...1_000_000, using: &g), spurious: estimate(&g), missed: estimate(&g),
            flaps: estimate(&g), transitions: estimate(&g), truthTransitions: estimate(&g),
            latencyMedian_s: opt(), latencyP95_s: opt(), visits: visits, filterRMSE_m: opt(),
            cost: SweepCostCell(fixesPerHour: estimate(&g), wakeupsPerHour: estimate(&g)),
            notifications: notifications)
    }

    @Test func bytesAreTheTreesBytes() {
        var g = SystemRandomNumberGenerator()
        var writer = SweepCellJSON()
        var checked = 0
        for optionals in [true, false, nil] {
            for notify in [false, true] {
                for _ in 0..<60 {
                    let c = Self.cell(&g, optionals: optionals, notify: notify)
                    let frontier = Bool.random(using: &g)
                    for indent in [0, 1, 4] {
                        var expected = ""
                        SweepOutput.resultJSON(c, frontier: frontier).write(into: &expected, indent: indent)
                        writer.write(c, frontier: frontier, indent: indent)
                        #expect(String(decoding: writer.bytes, as: UTF8.self) == expected)
                        // As an array element: padded, then `,` or the last element's line break.
                        let pad = String(repeating: "  ", count: indent)
                        writer.write(c, frontier: frontier, indent: indent, padded: true, last: false)
                        #expect(String(decoding: writer.bytes, as: UTF8.self) == pad + expected + ",\n")
                        writer.write(c, frontier: frontier, indent: indent, padded: true, last: true)
                        #expect(String(decoding: writer.bytes, as: UTF8.self) == pad + expected + "\n")
                        checked += 1
                    }
                }
            }
        }
        #expect(checked == 3 * 2 * 60 * 3)
    }

    /// One cell's literal text, so the comparison above is not only against the tree.
    @Test func knownCell() {
        let e = Estimate(mean: 1.5, lower: -0.0, upper: .nan, n: 20)
        let visits = SweepVisitCell(
            trueVisits: e, matchedVisits: e, recall: nil, falseVisits: e, fragments: e, falsePerHour: e,
            fragmentsPerHour: e, earlyEntries: e, entryLatencyP95_s: nil, lateEntryP95_s: e, exitLatencyP95_s: nil,
            trueExits: e)
        let c = SweepCell(
            point: 7, spurious: e, missed: e, flaps: e, transitions: e, truthTransitions: e, latencyMedian_s: nil,
            latencyP95_s: nil, visits: visits, filterRMSE_m: nil,
            cost: SweepCostCell(fixesPerHour: Estimate(mean: 3600, lower: 3600, upper: 3600, n: 20), wakeupsPerHour: e),
            notifications: nil)
        var writer = SweepCellJSON()
        writer.write(c, frontier: true, indent: 0)
        let est = #"{"mean": 1.5, "ci95": [-0.0, null], "n": 20}"#
        let expected = """
            {
              "point": 7,
              "spurious": \(est),
              "missed": \(est),
              "flaps": \(est),
              "transitions": \(est),
              "truthTransitions": \(est),
              "latency_s": {"median": null, "p95": null},
              "frontier": true,
              "visits": {
                "trueVisits": \(est),
                "matchedVisits": \(est),
                "recall": null,
                "falseVisits": \(est),
                "fragments": \(est),
                "falsePerHour": \(est),
                "fragmentsPerHour": \(est),
                "earlyEntries": \(est),
                "entryLatency_s": {
                  "p95": null,
                  "p95EarlyAsZero": \(est)
                },
                "exitLatency_s": {"p95": null},
                "trueExits": \(est)
              },
              "filterRMSE_m": null,
              "cost": {
                "fixesPerHour": {"mean": 3600.0, "ci95": [3600.0, 3600.0], "n": 20},
                "wakeupsPerHour": \(est)
              },
              "notifications": null
            }
            """
        #expect(String(decoding: writer.bytes, as: UTF8.self) == expected)
    }
}
