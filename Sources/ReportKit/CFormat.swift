import _FenceLabSupport

/// printf-style number text for the report writers' hot paths: the same bytes as
/// `String(format:)` with the "C" locale (FenceLab never calls `setlocale`, so "." decimals).
/// `fixed` rounds the exact binary value in integer arithmetic (no C varargs); what it cannot
/// (|x|·10^decimals ≥ 2^97) and `scientific2` go through the C library (`vsnprintf` into a
/// stack buffer).
package enum CFormat {
    /// `String(format: "%.<decimals>f", x)` (decimals 0…9).
    package static func fixed(_ x: Double, decimals: Int) -> String {
        let n = min(max(decimals, 0), 9)
        if let s = exactFixed(x, decimals: n) { return s }
        let formats: [StaticString] = ["%.0f", "%.1f", "%.2f", "%.3f", "%.4f", "%.5f", "%.6f", "%.7f", "%.8f", "%.9f"]
        return format(formats[n], x)
    }

    /// `String(format: "%.2e", x)`.
    package static func scientific2(_ x: Double) -> String { format("%.2e", x) }

    private static func format(_ pattern: StaticString, _ x: Double) -> String { Syscalls.format(pattern, x) }

    /// 10^k for k = 0…9.
    private static let powersOfTen: [UInt64] = [
        1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000,
    ]

    /// `%.<n>f` of `x` as glibc prints it: the exact value x·10ⁿ rounded to an integer, halves to
    /// even (glibc rounds the exact binary value in the default rounding mode), a minus sign
    /// whenever the sign bit is set (−0.0 and negatives that round to zero print "-0.0…"),
    /// "inf"/"nan" with their sign for non-finite values. x = m·2^e exactly (m < 2⁵³), so
    /// m·10ⁿ < 2⁸³ and the rounding is one shift and a compare in 128-bit integers. Nil when the
    /// rounded value needs more than 127 bits (|x|·10ⁿ ≥ 2⁹⁷), left to the C library.
    static func exactFixed(_ x: Double, decimals n: Int) -> String? {
        let negative = x.sign == .minus
        if !x.isFinite {
            return x.isNaN ? (negative ? "-nan" : "nan") : (negative ? "-inf" : "inf")
        }
        let bits = x.bitPattern
        let biased = Int((bits >> 52) & 0x7ff)
        var m = bits & ((1 << 52) - 1)
        var e = -1074
        if biased != 0 {
            m |= 1 << 52
            e = biased - 1075
        }
        let v = UInt128(m) * UInt128(powersOfTen[n])
        var q: UInt128
        if e >= 0 {
            guard e <= 44 else { return nil }
            q = v << e
        } else if e <= -128 {
            q = 0  // v < 2⁸³ < half of 2^-e: rounds to 0
        } else {
            let k = UInt128(-e)
            q = v >> k
            let r = v & ((1 << k) - 1)
            let half = UInt128(1) << (k - 1)
            if r > half || (r == half && q & 1 == 1) { q += 1 }
        }
        return digits(q, decimals: n, negative: negative)
    }

    /// `q / 10ⁿ` with n decimals: at most 39 integer digits, the point, n digits, a sign.
    private static func digits(_ q: UInt128, decimals n: Int, negative: Bool) -> String {
        String(unsafeUninitializedCapacity: 52) { buffer in
            // Right to left into the end of the buffer, then moved to the front.
            var end = 52
            var value = q
            func put(_ byte: UInt8) {
                end -= 1
                buffer[end] = byte
            }
            if n > 0 {
                var frac = UInt64(value % UInt128(powersOfTen[n]))
                value /= UInt128(powersOfTen[n])
                for _ in 0..<n {
                    put(UInt8(ascii: "0") + UInt8(frac % 10))
                    frac /= 10
                }
                put(UInt8(ascii: "."))
            }
            if value <= UInt128(UInt64.max) {
                var w = UInt64(value)
                repeat {
                    put(UInt8(ascii: "0") + UInt8(w % 10))
                    w /= 10
                } while w > 0
            } else {
                repeat {
                    put(UInt8(ascii: "0") + UInt8(value % 10))
                    value /= 10
                } while value > 0
            }
            if negative { put(UInt8(ascii: "-")) }
            let count = 52 - end
            for k in 0..<count { buffer[k] = buffer[end + k] }
            return count
        }
    }
}
