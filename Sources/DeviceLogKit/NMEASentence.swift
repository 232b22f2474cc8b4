/// NMEA 0183 sentence framing shared by the importer and the exporter: `$BODY*hh`.
///
/// Checksum: XOR of every byte between `$` and `*`, as two upper-case hex digits (NMEA 0183 §5.2.1).
public enum NMEASentence {
    /// One knot in m/s (1852 m per hour, exact).
    public static let knot_mps = 1852.0 / 3600.0

    /// XOR of the bytes of `body` (the text between `$` and `*`), as two upper-case hex digits.
    public static func checksum(_ body: some StringProtocol) -> String {
        var x: UInt8 = 0
        for b in body.utf8 { x ^= b }
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(x >> 4)], digits[Int(x & 0xF)]])
    }

    /// `$BODY*hh` and CRLF, the line ending NMEA 0183 prescribes.
    public static func sentence(_ body: String) -> String { "$\(body)*\(checksum(body))\r\n" }
}
