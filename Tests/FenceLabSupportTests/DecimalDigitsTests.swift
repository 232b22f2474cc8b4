import Testing

@testable import _FenceLabSupport

/// `DecimalDigits` writes a double's `description` (and an integer's) as bytes: the same
/// characters on edge values, on the values reports hold (counts, means of 20 replicates, rates
/// per hour, latencies) and on random bit patterns, through every entry point.
@Suite struct DecimalDigitsTests {
    /// What each entry point writes for `v`.
    static func written(_ v: Double) -> (append: String, string: String, buffer: String) {
        var out: [UInt8] = [UInt8(ascii: "x")]
        DecimalDigits.append(v, to: &out)
        let buffered = [UInt8](unsafeUninitializedCapacity: 40) { buffer, count in
            var at = 1
            buffer[0] = UInt8(ascii: "y")
            DecimalDigits.write(v, into: buffer, at: &at)
            count = at
        }
        return (
            String(decoding: out.dropFirst(), as: UTF8.self), DecimalDigits.string(v),
            String(decoding: buffered.dropFirst(), as: UTF8.self)
        )
    }

    static func expectDescription(_ v: Double, sourceLocation: SourceLocation = #_sourceLocation) {
        let w = written(v)
        #expect(w.append == v.description, "\(v.bitPattern)", sourceLocation: sourceLocation)
        #expect(w.string == v.description, "\(v.bitPattern)", sourceLocation: sourceLocation)
        if v.isFinite { #expect(w.buffer == v.description, "\(v.bitPattern)", sourceLocation: sourceLocation) }
    }

    @Test func edgeValuesAreTheirDescription() {
        let values: [Double] = [
            0, -0.0, 1, -1, 0.1, 0.3, 0.30000000000000004, 0.001, 0.0015, 0.0005, 0.0001, 1e-5, 0.999, 0.9995,
            9.995, 99.995, 3599.9999999999995, 3600, 123_456.125, 1e9, 1.5e9,
            DecimalDigits.limit, DecimalDigits.limit - 1, DecimalDigits.limit - 0.001, DecimalDigits.limit.nextDown,
            1e15, 1e16, 2.5e16, 1e21, .greatestFiniteMagnitude, .leastNonzeroMagnitude, .leastNormalMagnitude,
            .infinity, .nan,
        ]
        for v in values {
            Self.expectDescription(v)
            Self.expectDescription(-v)
        }
    }

    /// The literal characters of some values, so the comparison above is not against nothing.
    @Test func knownCharacters() {
        let cases: [(Double, String)] = [
            (0, "0.0"), (-0.0, "-0.0"), (3600, "3600.0"), (12.35, "12.35"), (-0.005, "-0.005"),
            (0.1 + 0.2, "0.30000000000000004"), (2_147_483_647, "2147483647.0"), (0.0001, "0.0001"),
        ]
        for (v, text) in cases {
            #expect(Self.written(v).append == text)
            #expect(Self.written(v).string == text)
            #expect(Self.written(v).buffer == text)
        }
        #expect(DecimalDigits.string(.nan) == "nan")
        #expect(DecimalDigits.string(-.infinity) == "-inf")
    }

    @Test func fastPathTakesTheCommonValues() {
        var out: [UInt8] = []
        for v in [0, -0.0, 7, 3600, 12.5, 0.05, 1234.567, -2_147_483_647.999] {
            #expect(DecimalDigits.appendFast(v, to: &out), "\(v)")
        }
        for v in [0.0001, 1.0 / 3, 2_147_483_648, .nan, .infinity, 0.1 + 0.2] {
            #expect(!DecimalDigits.appendFast(v, to: &out), "\(v)")
        }
    }

    @Test func randomValuesAreTheirDescription() {
        var g = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let scale = [1.0, 10, 100, 1000, 10_000][Int.random(in: 0...4, using: &g)]
            Self.expectDescription(Double(Int.random(in: -3_000_000_000_000...3_000_000_000_000, using: &g)) / scale)
            Self.expectDescription(Double(Int.random(in: -10_000...10_000, using: &g)) / scale)
            Self.expectDescription(Double(Int.random(in: 0...100_000, using: &g)) / 20)
            let d = Double(Int.random(in: 0...100_000_000, using: &g)) / scale
            Self.expectDescription(d.nextUp)
            Self.expectDescription(d.nextDown)
            Self.expectDescription(Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &g)))
            Self.expectDescription(
                Double(bitPattern: UInt64.random(in: 0x3F1A_36E2_EB1C_432D...0x41E6_0000_0000_0000, using: &g)))
        }
    }

    @Test func integersAreTheirDescription() {
        var values = [0, 1, 9, 10, 11, 99, 100, 101, -1, -9, -10, -12_345, Int.max, Int.min, Int.min + 1]
        var g = SystemRandomNumberGenerator()
        for _ in 0..<2000 { values.append(Int.random(in: Int.min...Int.max, using: &g)) }
        for v in values {
            var out: [UInt8] = []
            DecimalDigits.append(v, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == v.description)
            let buffered = [UInt8](unsafeUninitializedCapacity: 24) { buffer, count in
                var at = 0
                DecimalDigits.write(v, into: buffer, at: &at)
                count = at
            }
            #expect(String(decoding: buffered, as: UTF8.self) == v.description)
        }
    }

    /// The values past the digit path are written without a `String`: the standard library hands
    /// a finite double's characters to the stream as ASCII bytes (`_writeASCII`), which is what
    /// `DecimalDigits.append` and `write(_:into:at:)` rely on; `write(_ string:)` would also give
    /// the right characters, but through a string made per value.
    @Test func finiteValuesReachTheStreamAsBytes() {
        struct Counting: TextOutputStream {
            var strings = 0
            var bytes: [UInt8] = []
            mutating func write(_ string: String) { strings += 1 }
            mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) { bytes.append(contentsOf: buffer) }
        }
        for v in [1.0 / 3, 0.1 + 0.2, 1e-7, -2.5e22, .leastNonzeroMagnitude, .greatestFiniteMagnitude] {
            var stream = Counting()
            v.write(to: &stream)
            #expect(stream.strings == 0, "\(v)")
            #expect(String(decoding: stream.bytes, as: UTF8.self) == v.description)
        }
    }

    /// A file sink writes the same characters for numbers as a string sink.
    @Test func sinksWriteTheSameNumbers() throws {
        let values: [Double] = [0, -0.0, 1.5, 0.1 + 0.2, 1e21, 3600, -7.25]
        var text = ""
        for v in values {
            text.append(number: v)
            text.append(",")
            text.append(integer: Int(v.isFinite ? v.rounded(.towardZero).clamped : 0))
            text.append(";")
        }
        var expected = ""
        for v in values {
            expected += v.description + "," + String(Int(v.rounded(.towardZero).clamped)) + ";"
        }
        #expect(text == expected)
    }
}

extension Double {
    /// Within `Int`'s range, for the sink test.
    fileprivate var clamped: Double { Swift.min(Swift.max(self, -1e18), 1e18) }
}
