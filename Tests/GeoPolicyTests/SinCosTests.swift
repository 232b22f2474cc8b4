import GeoPolicy
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `_sinCos` (glibc's sincos) replaces pairs of `sin` and `cos` calls of one argument in the
/// engine and the generator, so it must give their bits exactly: every report is byte-identical
/// to the two calls'.
@Suite struct SinCosTests {
    /// Values from every binade the engine meets and far beyond it: ±0, subnormals, the smallest
    /// and largest normals, multiples and near-multiples of π/2 (where range reduction is hardest),
    /// and a deterministic spread of 200 000 values from 10⁻³⁰⁰ to 10³⁰⁰ of both signs.
    static func arguments() -> [Double] {
        var values: [Double] = [
            0, -0.0, Double.leastNonzeroMagnitude, -Double.leastNonzeroMagnitude, Double.leastNormalMagnitude,
            Double.greatestFiniteMagnitude, -Double.greatestFiniteMagnitude, 1e-8, 1e-5, 0.5, 1, 3, 1e6, 1e22,
        ]
        for k in 1...64 {
            let x = Double(k) * Double.pi / 2
            values += [x, x.nextUp, x.nextDown, -x]
        }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<200_000 {
            // xorshift64: the same sequence on every machine.
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            let exponent = Double(Int(state % 601) - 300)
            let mantissa = 1 + Double(state >> 11) / Double(1 << 53)
            let sign: Double = state & 1 == 0 ? 1 : -1
            values.append(sign * mantissa * pow(10, exponent))
        }
        return values
    }

    @Test func givesTheBitsOfSinAndCos() {
        var mismatches: [Double] = []
        for x in Self.arguments() {
            let (s, c) = _sinCos(x)
            if s.bitPattern != sin(x).bitPattern || c.bitPattern != cos(x).bitPattern { mismatches.append(x) }
        }
        #expect(mismatches.isEmpty, "first mismatches: \(mismatches.prefix(5))")
    }

    @Test func nonFiniteArgumentsGiveNaNLikeSinAndCos() {
        for x in [Double.infinity, -Double.infinity, Double.nan] {
            let (s, c) = _sinCos(x)
            #expect(s.isNaN && c.isNaN, "\(x)")
            #expect(sin(x).isNaN && cos(x).isNaN, "\(x)")
        }
    }
}
