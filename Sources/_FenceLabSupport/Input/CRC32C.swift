/// CRC-32C (Castagnoli; polynomial 0x1EDC6F41, reflected 0x82F63B78, initial value and final XOR
/// 0xFFFFFFFF), the checksum of iSCSI, SCTP and ext4 metadata (RFC 3720, appendix B.4). Check
/// value: CRC-32C("123456789") = 0xE3069283.
///
/// Slicing-by-8 (eight 256-entry tables, eight bytes per step): a few instructions per byte, no
/// allocation; the sweep computes one per record line.
package enum CRC32C {
    /// The reflected polynomial.
    static let polynomial: UInt32 = 0x82F6_3B78

    /// tables[k][b]: the CRC of byte b followed by k zero bytes.
    static let tables: [[UInt32]] = {
        var t = [[UInt32]](repeating: [UInt32](repeating: 0, count: 256), count: 8)
        for b in 0..<256 {
            var c = UInt32(b)
            for _ in 0..<8 { c = c & 1 != 0 ? (c >> 1) ^ polynomial : c >> 1 }
            t[0][b] = c
        }
        for b in 0..<256 {
            for k in 1..<8 { t[k][b] = (t[k - 1][b] >> 8) ^ t[0][Int(t[k - 1][b] & 0xff)] }
        }
        return t
    }()

    /// The CRC-32C of `bytes`.
    package static func checksum(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        let t = tables
        var c: UInt32 = 0xFFFF_FFFF
        var i = 0
        let n = bytes.count
        t[0].withUnsafeBufferPointer { t0 in
            t[1].withUnsafeBufferPointer { t1 in
                t[2].withUnsafeBufferPointer { t2 in
                    t[3].withUnsafeBufferPointer { t3 in
                        t[4].withUnsafeBufferPointer { t4 in
                            t[5].withUnsafeBufferPointer { t5 in
                                t[6].withUnsafeBufferPointer { t6 in
                                    t[7].withUnsafeBufferPointer { t7 in
                                        while i + 8 <= n {
                                            let lo =
                                                c
                                                ^ (UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8
                                                    | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24)
                                            let hi =
                                                UInt32(bytes[i + 4]) | UInt32(bytes[i + 5]) << 8
                                                | UInt32(bytes[i + 6]) << 16 | UInt32(bytes[i + 7]) << 24
                                            c =
                                                t7[Int(lo & 0xff)] ^ t6[Int((lo >> 8) & 0xff)]
                                                ^ t5[Int((lo >> 16) & 0xff)] ^ t4[Int(lo >> 24)]
                                                ^ t3[Int(hi & 0xff)] ^ t2[Int((hi >> 8) & 0xff)]
                                                ^ t1[Int((hi >> 16) & 0xff)] ^ t0[Int(hi >> 24)]
                                            i += 8
                                        }
                                        while i < n {
                                            c = (c >> 8) ^ t0[Int((c ^ UInt32(bytes[i])) & 0xff)]
                                            i += 1
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return c ^ 0xFFFF_FFFF
    }

    /// The CRC-32C of `bytes`.
    package static func checksum(_ bytes: [UInt8]) -> UInt32 { bytes.withUnsafeBufferPointer { checksum($0) } }
}
