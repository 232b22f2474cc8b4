/// A `Double`'s `description` (Swift's shortest round-trip form) written as bytes, without making
/// a `String`. The common values of reports (zero, integers and decimals with at most three
/// fractional digits below 2³¹ in magnitude) take a digit path of this type's own; every other
/// finite value is written by the standard library (`TextOutputStreamable.write(to:)`) to a
/// stream of bytes, which receives its characters from the library's stack buffer
/// (`_writeASCII`) instead of as a `String` (an allocation per value past 15 characters: 40 000 in
/// the outputs of the 97 600-point sweep). Infinities and NaN take `description`.
///
/// Why the fast path gives the same characters: a decimal d with k ≤ 3 fractional digits reads
/// back as `value` exactly when `Double(n) / 10ᵏ == value` for n = d·10ᵏ (both the division and
/// parsing round correctly to the nearest double). Below 2³¹ a double's spacing is under 10⁻⁶, so
/// at most one k-digit decimal reads back as it, and the smallest such k gives the fewest
/// significant digits: the digits `description` chooses. `description` writes such values
/// (≥ 0.001 in magnitude) without an exponent, with `.0` after an integer. `DecimalDigitsTests`
/// compares both on edge values and on millions of random ones.
package enum DecimalDigits {
    /// Values below this magnitude may take the digit path.
    package static let limit = 2_147_483_648.0

    /// Appends `value.description` (any double, also NaN and infinities, as `description`).
    @inline(__always)
    package static func append(_ value: Double, to out: inout [UInt8]) {
        if !appendFast(value, to: &out) { appendOffPath(value, to: &out) }
    }

    /// `append` for a value the digit path does not take, through a stack buffer (a function of
    /// its own: inlined, its buffer's setup runs on every call, 22 M instructions more on the
    /// 97 600-point sweep).
    @inline(never)
    static func appendOffPath(_ value: Double, to out: inout [UInt8]) {
        var digits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { raw in
            var stream = BufferStream(buffer: raw.bindMemory(to: UInt8.self), at: 0)
            writeOffPath(value, to: &stream)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: stream.buffer[..<stream.at]))
        }
    }

    /// A value the digit path does not take: a finite one as the standard library writes it, the
    /// others (NaN, infinities: at most 4 characters) through `description`.
    static func writeOffPath(_ value: Double, to stream: inout BufferStream) {
        if value.isFinite {
            value.write(to: &stream)
        } else {
            stream.write(value.description)
        }
    }

    /// A buffer the caller made room in, written from `at`, that a finite double writes itself
    /// to (`write(to:)`): the standard library hands its characters over as ASCII bytes
    /// (`_writeASCII`), or as a string where it does not.
    struct BufferStream: TextOutputStream {
        let buffer: UnsafeMutableBufferPointer<UInt8>
        var at: Int

        mutating func write(_ string: String) {
            for byte in string.utf8 {
                buffer[at] = byte
                at += 1
            }
        }

        mutating func _writeASCII(_ ascii: UnsafeBufferPointer<UInt8>) {
            _ = UnsafeMutableBufferPointer(rebasing: buffer[at..<(at + ascii.count)]).initialize(from: ascii)
            at += ascii.count
        }
    }

    /// `value.description` as a string (small strings are made without allocating).
    package static func string(_ value: Double) -> String {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        let made = withUnsafeMutableBytes(of: &digits) { raw -> String? in
            var count = 0
            guard fill(value, into: raw, count: &count) else { return nil }
            return String(decoding: raw.bindMemory(to: UInt8.self)[..<count], as: UTF8.self)
        }
        return made ?? value.description
    }

    /// Writes `value.description` (at most 24 characters) into `buffer` from `at`, moving `at` past
    /// it; the caller makes room.
    @inline(__always)
    package static func write(_ value: Double, into buffer: UnsafeMutableBufferPointer<UInt8>, at: inout Int) {
        var count = 0
        if fill(
            value, into: UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[at...])),
            count: &count)
        {
            at += count
            return
        }
        var stream = BufferStream(buffer: buffer, at: at)
        writeOffPath(value, to: &stream)
        at = stream.at
    }

    /// Writes an integer's `description` (at most 20 characters) into `buffer` from `at`.
    @inline(__always)
    package static func write(_ value: Int, into buffer: UnsafeMutableBufferPointer<UInt8>, at: inout Int) {
        if value < 0 {
            buffer[at] = UInt8(ascii: "-")
            at += 1
        }
        writeDigits(UInt64(value.magnitude), into: UnsafeMutableRawBufferPointer(buffer), at: &at)
    }

    /// Writes the decimal digits of `value`, most significant first, into `raw` from `at` and
    /// moves `at` past them (at most 20).
    @inline(__always)
    static func writeDigits(_ value: UInt64, into raw: UnsafeMutableRawBufferPointer, at: inout Int) {
        var v = value
        var width = 1
        var probe = v
        while probe >= 10 {
            probe /= 10
            width += 1
        }
        var i = at + width - 1
        repeat {
            raw[i] = UInt8(ascii: "0") + UInt8(v % 10)
            v /= 10
            i -= 1
        } while v > 0
        at += width
    }

    /// Appends an integer in decimal, a leading `-` when negative (as `description`): the digits
    /// are written into a stack buffer and appended at once (one copy, no per-byte append).
    @inline(__always)
    package static func append(_ value: Int, to out: inout [UInt8]) {
        if value >= 0, value < 10 {
            out.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { raw in
            let buffer = raw.bindMemory(to: UInt8.self)
            var at = 0
            write(value, into: buffer, at: &at)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<at]))
        }
    }

    /// The fast path of `append`: false (nothing appended) when `value` is not one of its values.
    @inline(__always)
    package static func appendFast(_ value: Double, to out: inout [UInt8]) -> Bool {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        return withUnsafeMutableBytes(of: &digits) { raw in
            var count = 0
            guard fill(value, into: raw, count: &count) else { return false }
            // As typed bytes, so the append is one copy (a raw buffer is appended byte by byte).
            out.append(contentsOf: UnsafeBufferPointer(rebasing: raw.bindMemory(to: UInt8.self)[..<count]))
            return true
        }
    }

    /// Writes the fast path's characters of `value` into `raw` (≥ 24 bytes; at most 1 + 10 + 1 + 3
    /// are used), their count into `count`; false when `value` is not one of its values.
    @inline(__always)
    static func fill(_ value: Double, into raw: UnsafeMutableRawBufferPointer, count: inout Int) -> Bool {
        let m = value.magnitude
        guard m < limit else { return false }  // also NaN
        var whole: UInt64 = 0
        var k = 0
        var scale = 1.0
        while true {
            // The nearest integer to m·10ᵏ (< 2⁴³), by truncation after adding ½: when a k-digit
            // decimal reads back as m this is its digits, and the check below accepts nothing else.
            whole = UInt64(m * scale + 0.5)
            if Double(whole) / scale == m { break }
            k += 1
            if k > 3 { return false }
            scale *= 10
        }
        var at = 0
        if value.sign == .minus {
            raw[at] = UInt8(ascii: "-")
            at += 1
        }
        var unit: UInt64 = 1
        for _ in 0..<k { unit &*= 10 }
        var fraction = whole % unit
        writeDigits(whole / unit, into: raw, at: &at)
        raw[at] = UInt8(ascii: ".")
        at += 1
        if k == 0 {
            raw[at] = UInt8(ascii: "0")
            at += 1
        } else {
            var j = at + k - 1
            for _ in 0..<k {
                raw[j] = UInt8(ascii: "0") + UInt8(fraction % 10)
                fraction /= 10
                j -= 1
            }
            at += k
        }
        count = at
        return true
    }
}
