/// The key prefixes of a JSON object FenceLab writes byte by byte (`{"item":`, `,"spurious":`,
/// …), all in one buffer. They are appended from a pointer into it, so writing a key retains
/// nothing: with an array per key every key appended retained and released its array, and with
/// two workers writing at once both kept taking the same counters' cache lines from each other.
/// `SweepRecord`'s lines and the manifest's points (`SweepPointJSON`) are written with it.
struct KeyPrefixes: Sendable {
    let bytes: [UInt8]
    /// Key k's prefix is `bytes[ends[k - 1]..<ends[k]]` (from 0 for the first).
    let ends: [Int]

    init(_ prefixes: [[UInt8]]) {
        bytes = prefixes.flatMap { $0 }
        var end = 0
        ends = prefixes.map { p in
            end += p.count
            return end
        }
    }

    /// Calls `body` with the prefixes borrowed for the call.
    func withKeys<R>(_ body: (Keys) throws -> R) rethrows -> R {
        try bytes.withUnsafeBufferPointer { b in
            try ends.withUnsafeBufferPointer { e in try body(Keys(bytes: b, ends: e)) }
        }
    }

    /// `KeyPrefixes` borrowed for one call of `withKeys`.
    struct Keys {
        let bytes: UnsafeBufferPointer<UInt8>
        let ends: UnsafeBufferPointer<Int>

        /// Key k's prefix.
        @inline(__always)
        subscript(k: Int) -> UnsafeBufferPointer<UInt8> {
            let start = k == 0 ? 0 : ends[k - 1]
            return UnsafeBufferPointer(start: bytes.baseAddress! + start, count: ends[k] - start)
        }
    }
}
