#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// printf-style number text through the C library (`vsnprintf` into a stack buffer), for the
/// report writers' hot paths: the same text as `String(format:)` with the "C" locale (FenceLab
/// never calls `setlocale`, so "." decimals), without Foundation's format-string machinery.
enum CFormat {
    /// `String(format: "%.<decimals>f", x)` (decimals 0…9).
    static func fixed(_ x: Double, decimals: Int) -> String {
        let formats: [StaticString] = ["%.0f", "%.1f", "%.2f", "%.3f", "%.4f", "%.5f", "%.6f", "%.7f", "%.8f", "%.9f"]
        return format(formats[min(max(decimals, 0), 9)], x)
    }

    /// `String(format: "%.2e", x)`.
    static func scientific2(_ x: Double) -> String { format("%.2e", x) }

    private static func format(_ pattern: StaticString, _ x: Double) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 352) { buffer in
            let n = withVaList([x]) { args in
                pattern.withUTF8Buffer { f in
                    f.withMemoryRebound(to: CChar.self) { vsnprintf(buffer.baseAddress!, 352, $0.baseAddress!, args) }
                }
            }
            let length = Int(max(0, min(n, 351)))
            return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress!, count: length), as: UTF8.self)
        }
    }
}
