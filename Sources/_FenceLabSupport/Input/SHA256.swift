/// SHA-256 (FIPS 180-4) of a byte buffer, for stable file hashes in reports.
/// Written here because CryptoKit is not available on Linux; checked against the
/// FIPS 180-4 example vectors in the tests.
package enum SHA256 {
    fileprivate static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    /// The 32-byte digest.
    package static func digest(_ message: [UInt8]) -> [UInt8] {
        var hasher = Hasher()
        message.withUnsafeBufferPointer { hasher.update($0) }
        return hasher.finalize()
    }

    /// Incremental SHA-256: `update` with the message in pieces of any size, then `finalize`.
    /// Memory is one 64-byte block, so a 256 MiB file is hashed without holding it.
    package struct Hasher: Sendable {
        private var h: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
        private var block: [UInt8] = []
        private var length: UInt64 = 0
        private var w = [UInt32](repeating: 0, count: 64)

        package init() { block.reserveCapacity(64) }

        package mutating func update(_ bytes: UnsafeBufferPointer<UInt8>) {
            length &+= UInt64(bytes.count)
            var i = 0
            if !block.isEmpty {
                let take = min(64 - block.count, bytes.count)
                block.append(contentsOf: bytes[0..<take])
                i = take
                if block.count == 64 { compress(block); block.removeAll(keepingCapacity: true) }
            }
            while bytes.count - i >= 64 {
                compress(bytes[i..<(i + 64)])
                i += 64
            }
            if i < bytes.count { block.append(contentsOf: bytes[i...]) }
        }

        /// The digest of everything passed to `update` (FIPS 180-4 padding: 0x80, zeros, bit length).
        package mutating func finalize() -> [UInt8] {
            let bitLength = length &* 8
            var tail = block
            tail.append(0x80)
            while tail.count % 64 != 56 { tail.append(0) }
            for i in (0..<8).reversed() { tail.append(UInt8(truncatingIfNeeded: bitLength >> (UInt64(i) * 8))) }
            for chunk in stride(from: 0, to: tail.count, by: 64) { compress(tail[chunk..<(chunk + 64)]) }
            return h.flatMap { v in (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * UInt32($0))) } }
        }

        private mutating func compress<C: RandomAccessCollection>(_ data: C) where C.Element == UInt8, C.Index == Int {
            let base = data.startIndex
            for t in 0..<16 {
                let b = base + 4 * t
                w[t] = UInt32(data[b]) << 24 | UInt32(data[b + 1]) << 16 | UInt32(data[b + 2]) << 8 | UInt32(data[b + 3])
            }
            for t in 16..<64 {
                let s0 = SHA256.rotr(w[t - 15], 7) ^ SHA256.rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
                let s1 = SHA256.rotr(w[t - 2], 17) ^ SHA256.rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
                w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
            }
            var a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7]
            for t in 0..<64 {
                let s1 = SHA256.rotr(e, 6) ^ SHA256.rotr(e, 11) ^ SHA256.rotr(e, 25)
                let ch = (e & f) ^ (~e & g)
                let t1 = hh &+ s1 &+ ch &+ SHA256.k[t] &+ w[t]
                let s0 = SHA256.rotr(a, 2) ^ SHA256.rotr(a, 13) ^ SHA256.rotr(a, 22)
                let maj = (a & b) ^ (a & c) ^ (b & c)
                let t2 = s0 &+ maj
                hh = g; g = f; f = e; e = d &+ t1; d = c; c = b; b = a; a = t1 &+ t2
            }
            h[0] &+= a; h[1] &+= b; h[2] &+= c; h[3] &+= d; h[4] &+= e; h[5] &+= f; h[6] &+= g; h[7] &+= hh
        }
    }

    /// Lower-case hexadecimal of a digest.
    package static func hex(digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(digest.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }

    /// Lower-case hexadecimal digest.
    package static func hex(_ message: [UInt8]) -> String {
        hex(digest: digest(message))
    }

    @inline(__always) fileprivate static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }
}
