/// SHA-256 (FIPS 180-4) of a byte buffer, for stable file hashes in reports.
/// Written here because CryptoKit is not available on Linux; checked against the
/// FIPS 180-4 example vectors in the tests.
package enum SHA256 {
    fileprivate static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
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
        private var h: [UInt32] = [
            0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
        ]
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
                if block.count == 64 {
                    compress(block)
                    block.removeAll(keepingCapacity: true)
                }
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
                w[t] =
                    UInt32(data[b]) << 24 | UInt32(data[b + 1]) << 16 | UInt32(data[b + 2]) << 8 | UInt32(data[b + 3])
            }
            for t in 16..<64 {
                let s0 = SHA256.rotr(w[t - 15], 7) ^ SHA256.rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
                let s1 = SHA256.rotr(w[t - 2], 17) ^ SHA256.rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
                w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
            }
            var a = h[0]
            var b = h[1]
            var c = h[2]
            var d = h[3]
            var e = h[4]
            var f = h[5]
            var g = h[6]
            var hh = h[7]
            for t in 0..<64 {
                let s1 = SHA256.rotr(e, 6) ^ SHA256.rotr(e, 11) ^ SHA256.rotr(e, 25)
                let ch = (e & f) ^ (~e & g)
                let t1 = hh &+ s1 &+ ch &+ SHA256.k[t] &+ w[t]
                let s0 = SHA256.rotr(a, 2) ^ SHA256.rotr(a, 13) ^ SHA256.rotr(a, 22)
                let maj = (a & b) ^ (a & c) ^ (b & c)
                let t2 = s0 &+ maj
                hh = g
                g = f
                f = e
                e = d &+ t1
                d = c
                c = b
                b = a
                a = t1 &+ t2
            }
            h[0] &+= a
            h[1] &+= b
            h[2] &+= c
            h[3] &+= d
            h[4] &+= e
            h[5] &+= f
            h[6] &+= g
            h[7] &+= hh
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
