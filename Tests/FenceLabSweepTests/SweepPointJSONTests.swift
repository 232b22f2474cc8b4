import Foundation
import GeoPolicy
import Testing

@testable import FenceLabSweep

/// The manifest's points written directly must be the bytes `JSONEncoder` writes for them,
/// compact and pretty, for every field combination and for numbers of every shape.
@Suite struct SweepPointJSONTests {
    /// Numbers of every spelling: integral, fractional, tiny and huge (exponent forms), negative
    /// zero, the largest and smallest finite, and the non-finite values.
    static let numbers: [Double] = [
        0, -0.0, 1, 80, 120.5, 0.1, 1e-5, 1.5e-7, 2.5e16, 1e21, 123_456_789.125, -3.75,
        .greatestFiniteMagnitude, .leastNonzeroMagnitude, .leastNormalMagnitude, .infinity, -.infinity,
    ]

    /// What `JSONEncoder` writes for `points` inside the manifest's array (the former path).
    static func encoderElements(_ points: [SweepPoint], pretty: Bool) -> String {
        let text = SweepManifest.encodeWhole(points, pretty: pretty)
        guard pretty else { return String(text.dropFirst().dropLast()) }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return lines.dropFirst().dropLast().map { "  " + $0 }.joined(separator: "\n")
    }

    static func direct(_ points: [SweepPoint], pretty: Bool) -> String? {
        var out = ""
        return SweepPointJSON.append(points[...], pretty: pretty, to: &out) ? out : nil
    }

    @Test func edgeNumbersAndOptionalFieldsMatchTheEncoder() throws {
        var points: [SweepPoint] = []
        for (i, x) in Self.numbers.enumerated() {
            var p = SweepPoint(
                kind: SweepRuleKind.allCases[i % 3], enter_m: x, exit_m: Self.numbers[(i + 5) % Self.numbers.count],
                maxAccuracy_m: Self.numbers[(i + 11) % Self.numbers.count], confirm_n: i - 3,
                input: FenceInput.Kind.allCases[i % 3], q_m2s3: abs(x).isFinite ? abs(x) : 0.5,
                sampling: i % 2 == 0 ? "interval:60" : nil, confirm_s: i % 3 == 0 ? x : nil)
            p.notify = i % 4 == 1 ? "entry,dwell:300/cooldown:600" : nil
            points.append(p)
        }
        // The ten stored fields SweepPointJSON writes; a new field must be added there as well.
        #expect(Mirror(reflecting: points[0]).children.count == 10)
        for pretty in [false, true] {
            let direct = try #require(Self.direct(points, pretty: pretty))
            #expect(direct == Self.encoderElements(points, pretty: pretty))
            for p in points {
                #expect(Self.direct([p], pretty: pretty) == Self.encoderElements([p], pretty: pretty))
            }
        }
    }

    /// 2 000 points with random bit patterns of finite doubles (every exponent) and random fields.
    @Test func randomPointsMatchTheEncoder() throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {  // splitmix64: a fixed sequence, no global generator
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        func finite() -> Double {
            while true {
                let x = Double(bitPattern: next())
                if x.isFinite { return next() % 4 == 0 ? (x * 1e3).rounded() / 1e3 : x }
            }
        }
        var points: [SweepPoint] = []
        for _ in 0..<2000 {
            var p = SweepPoint(
                kind: .hysteresis, enter_m: finite(), exit_m: finite(),
                maxAccuracy_m: next() % 5 == 0 ? .infinity : finite(), confirm_n: Int(next() % 9),
                input: .kalman, q_m2s3: finite(), sampling: next() % 2 == 0 ? "adaptive:5/60" : nil,
                confirm_s: next() % 2 == 0 ? finite() : nil)
            p.notify = next() % 3 == 0 ? "exit" : nil
            points.append(p)
        }
        for pretty in [false, true] {
            #expect(Self.direct(points, pretty: pretty) == Self.encoderElements(points, pretty: pretty))
        }
    }

    /// A string that needs escaping is left to the encoder, and the output is left as it was.
    @Test func escapedStringsFallBackToTheEncoder() {
        var p = SweepPoint(kind: .threshold, enter_m: 80, exit_m: 80, maxAccuracy_m: .infinity, confirm_n: 1)
        p.sampling = "a\"b"
        var out = "kept"
        #expect(!SweepPointJSON.append([p][...], pretty: false, to: &out))
        #expect(out == "kept")
        #expect(SweepManifest.elements([p], pretty: false) == Self.encoderElements([p], pretty: false))
    }
}

/// sweep.csv's rule column written as bytes must be `setupDescription`, and every point the
/// byte path declines must be one it cannot write (a filtered input or a number the rules
/// version does not write as an integer).
@Suite struct SweepSetupDescriptionTests {
    @Test func bytesEqualTheDescriptionOrAreDeclined() {
        let numbers: [Double] = [
            0, -0.0, 1, 40, 80, 120, 300, 120.5, 0.25, 1e-5, 999_999_999_999_999, 1e15, 2.5e16, -3, .infinity,
            .nan,
        ]
        var written = 0
        var declined = 0
        for (i, x) in numbers.enumerated() {
            for (j, y) in numbers.enumerated() {
                for confirm in [1, 2, 7] {
                    for seconds in [nil, 0, 10, 2.5, x] as [Double?] {
                        for input in FenceInput.Kind.allCases {
                            let p = SweepPoint(
                                kind: SweepRuleKind.allCases[(i + j + confirm) % 3], enter_m: x, exit_m: y,
                                maxAccuracy_m: numbers[(i * 7 + j) % numbers.count], confirm_n: confirm, input: input,
                                q_m2s3: 0.5, confirm_s: seconds)
                            var out: [UInt8] = [7]
                            if p.appendSetupDescription(to: &out) {
                                written += 1
                                #expect(String(decoding: out.dropFirst(), as: UTF8.self) == p.setupDescription)
                            } else {
                                declined += 1
                                #expect(out == [7], "declined without writing")
                                let integral = { (v: Double) in
                                    v.isFinite && v == v.rounded(.towardZero) && abs(v) < 1e15
                                }
                                let all =
                                    integral(p.enter_m) && (p.confirm_s.map(integral) ?? true)
                                    && (p.kind != .hysteresis || (integral(p.exit_m) && integral(p.maxAccuracy_m)))
                                #expect(p.input != .raw || !all, "\(p.setupDescription) was declined")
                            }
                        }
                    }
                }
            }
        }
        #expect(written > 1000 && declined > 1000, "\(written) written, \(declined) declined")
    }
}
