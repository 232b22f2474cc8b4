import Foundation
import Testing

@testable import ReportKit

/// `DurationText.seconds` gives what it gave with Foundation's `String(format: "%.3f")`, which it
/// no longer calls (a replay writes one per divergence): the same text for special values, ties
/// at the third decimal, negative zero, huge and tiny values, and a seeded sweep of others.
@Suite struct DurationTextTests {
    /// The former implementation, as the oracle.
    static func foundation(_ x: Double) -> String {
        guard x.isFinite else { return x.isNaN ? "NaN s" : (x > 0 ? "∞ s" : "−∞ s") }
        var t = String(format: "%.3f", x)
        while t.hasSuffix("0") { t.removeLast() }
        if t.hasSuffix(".") { t.removeLast() }
        return (t == "-0" ? "0" : t) + " s"
    }

    @Test func sameTextAsFoundationFormatting() {
        var values: [Double] = [
            0, -0.0, .nan, .infinity, -.infinity, 1, 60, 0.0005, 0.0015, 0.0025, -0.0004, -0.0005, 23.1355, 1e-300,
            -1e-300, 1e15, 1e300, -1e308, .greatestFiniteMagnitude, .leastNonzeroMagnitude, 2.675, 1.0005,
        ]
        var state: UInt64 = 0x5EED
        for _ in 0..<20_000 {
            // SplitMix64 (seeded): bit patterns and decimal-looking values.
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            values.append(Double(bitPattern: z))
            values.append(Double(Int64(bitPattern: z) % 10_000_000) / 2000)
        }
        for x in values {
            #expect(DurationText.seconds(x) == Self.foundation(x), "\(x)")
        }
    }
}
