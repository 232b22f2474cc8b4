/// Numbers of `sweep.csv` as bytes, the same characters as their `description`: an `Int` in
/// decimal with a leading `-` when negative; a `Double` by Swift's shortest round-trip
/// `description`, which for an integral value below 2³¹ in magnitude (counts, most figures of
/// one replicate) is its digits and `.0`, written here without making a `String`
/// (`SweepCSVDigitsTests` compares both with `description`).
enum CSVDigits {
    /// Integral doubles below this magnitude take the digit path.
    static let integralLimit = 2_147_483_648.0

    static func append(_ value: Int, to out: inout [UInt8]) {
        var v = value.magnitude
        if value < 0 { out.append(UInt8(ascii: "-")) }
        if v < 10 {
            out.append(UInt8(ascii: "0") + UInt8(v))
            return
        }
        let start = out.count
        while v > 0 {
            out.append(UInt8(ascii: "0") + UInt8(v % 10))
            v /= 10
        }
        out[start...].reverse()
    }

    /// A finite `value` as its `description`.
    static func append(_ value: Double, to out: inout [UInt8]) {
        if value.magnitude < integralLimit, value.rounded(.towardZero) == value, value.sign == .plus || value != 0 {
            append(Int(value), to: &out)
            out.append(UInt8(ascii: "."))
            out.append(UInt8(ascii: "0"))
        } else {
            out.append(contentsOf: value.description.utf8)
        }
    }
}
