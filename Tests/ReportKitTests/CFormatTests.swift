import Foundation
import Testing

@testable import ReportKit

/// `CFormat.fixed` (integer rounding of the exact binary value, no C varargs) against
/// `String(format:)` (the C library's printf) byte for byte: every decimals count on random bit
/// patterns of every magnitude, exact ties, the neighbours of ties, signed zeros, the smallest
/// subnormals, values past the integer path, and non-finite values.
struct CFormatTests {
    static func values() -> [Double] {
        var out: [Double] = [
            0, -0.0, 0.5, 1.5, 2.5, -0.5, -2.5, 0.125, 0.375, 0.05, 0.15, 0.25, 0.35, 1e-3, -1e-3, 0.0004, -0.04,
            .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude, 1e15, 123_456_789.987_654_321,
            Double(UInt64.max), 9_007_199_254_740_993, 1e20, 1e28, 1.5e29, 1e30, 7.9e28, -3.3e29,
            .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .infinity, -.infinity, .nan, -.nan,
        ]
        // Exact ties at every decimals count (k + ½)·10⁻ⁿ that are binary fractions, and their neighbours.
        for k in 0..<400 {
            let tie = (Double(k) + 0.5) / 8
            out += [tie, tie.nextUp, tie.nextDown, -tie]
            let decimal = (Double(k) + 0.5) / 10
            out += [decimal, decimal.nextUp, decimal.nextDown, -decimal]
            let hundredth = (Double(k) + 0.5) / 100
            out += [hundredth, hundredth.nextUp, hundredth.nextDown]
        }
        // Random bit patterns (finite) and random values of plot and report magnitudes.
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        for _ in 0..<20_000 {
            let x = Double(bitPattern: next())
            if x.isFinite { out.append(x) }
            let y = (Double(next() >> 11) / Double(1 << 53) - 0.5) * pow(10, Double(next() % 24) - 8)
            out.append(y)
        }
        return out
    }

    @Test func fixedEqualsPrintfByteForByte() {
        let formats = ["%.0f", "%.1f", "%.2f", "%.3f", "%.4f", "%.5f", "%.6f", "%.7f", "%.8f", "%.9f"]
        var mismatches = 0
        var exactPaths = 0
        for x in Self.values() {
            for n in 0...9 {
                let expected = String(format: formats[n], x)
                let actual = CFormat.fixed(x, decimals: n)
                if CFormat.exactFixed(x, decimals: n) != nil { exactPaths += 1 }
                if actual != expected {
                    mismatches += 1
                    if mismatches <= 10 {
                        Issue.record(
                            "\(formats[n]) of \(x) (bits \(String(x.bitPattern, radix: 16))): \(actual) ≠ \(expected)")
                    }
                }
            }
        }
        #expect(mismatches == 0)
        // Nearly every value takes the integer path (the rest are |x|·10ⁿ ≥ 2⁹⁷).
        #expect(exactPaths > 250_000, "only \(exactPaths) values took the integer path")
    }

    @Test func decimalsOutsideZeroToNineAreClamped() {
        #expect(CFormat.fixed(2.71828, decimals: -3) == "3")
        #expect(CFormat.fixed(2.71828, decimals: 12) == "2.718280000")
    }
}
