import _FenceLabSupport

/// Numbers of `sweep.csv` as bytes, the same characters as their `description`: an `Int` in
/// decimal with a leading `-` when negative; a `Double` by Swift's shortest round-trip
/// `description`, written without making a `String` for zero, integers and decimals of up to
/// three fractional digits below 2³¹ in magnitude (`DecimalDigits`; `SweepCSVDigitsTests` and
/// `DecimalDigitsTests` compare both with `description`).
enum CSVDigits {
    /// Integral doubles below this magnitude take the digit path.
    static let integralLimit = DecimalDigits.limit

    @inline(__always)
    static func append(_ value: Int, to out: inout [UInt8]) { DecimalDigits.append(value, to: &out) }

    /// A finite `value` as its `description`.
    @inline(__always)
    static func append(_ value: Double, to out: inout [UInt8]) { DecimalDigits.append(value, to: &out) }
}
