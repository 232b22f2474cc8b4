import GSLKit
import Testing

@testable import FenceLab

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The engine protocol's fast paths must read exactly what the full parser reads.
@Suite struct FlatJSONFastPathTests {
    /// strtod on a C string: the oracle for the number fast path.
    static func strtodValue(_ s: String) -> Double? {
        s.withCString { p -> Double? in
            var end: UnsafeMutablePointer<CChar>? = nil
            let v = strtod(p, &end)
            guard let end, end - UnsafeMutablePointer(mutating: p) == s.utf8.count else { return nil }
            return v
        }
    }

    static func parse(_ s: String) -> Double? {
        Array(s.utf8).withUnsafeBufferPointer { FlatJSON.parseDouble($0) }
    }

    @Test func numbersAreBitIdenticalToStrtod() throws {
        let rng = try RandomSource(seed: 0x5EED)
        var texts: [String] = [
            "0", "-0", "-0.0", "1", "12.5", "1e5", "1E-5", "2.5e+3", "9007199254740992",
            "9007199254740993", "123456789012345678", "0.1", "0.30000000000000004",
            "1e22", "1e23", "1e-22", "1e-23", "4.9e-324", "1.7976931348623157e308",
            "52.520345678912345", "-179.99999999999997", "00012", "1.", ".5", "+1", "-", "1e", "1.2.3", "e5",
        ]
        for _ in 0..<20_000 {
            let magnitude = rng.uniform() * 360 - 180
            let scaled = magnitude * Double(sign: .plus, exponent: Int(rng.uniformInt(below: 60)) - 30, significand: 1)
            texts.append("\(magnitude)")
            texts.append("\(scaled)")
            texts.append("\(Float(magnitude))")
        }
        for t in texts {
            let got = Self.parse(t)
            let expected = Self.strtodValue(t)
            #expect(got?.bitPattern == expected?.bitPattern, "\(t)")
        }
    }

    @Test func fieldScannerAgreesWithTheFullParserOrDeclines() throws {
        let lines = [
            #"{"type":"fix","index":3,"timestamp":12.5,"latitude":52.52,"longitude":13.405,"horizontal_accuracy":5,"now":13}"#,
            #"{ "index" : 1 , "latitude" : "NaN" , "now" : -2.5e-3 }"#,
            #"{"index":1,"index":2}"#,  // duplicate: declined
            #"{"index":1,"extra":2}"#,  // unknown key: declined
            #"{"index":true}"#,  // literal: declined
            #"{"type":"f\"ix","index":1}"#,  // escape: declined
            #"{"index":1}x"#,  // trailing text: declined
            #"{"index":1"#,  // unterminated: declined
            #"{}"#,
        ]
        var fields = FlatJSONFields(keys: [
            "type", "index", "timestamp", "latitude", "longitude", "horizontal_accuracy", "now",
        ])
        var accepted = 0
        for line in lines {
            let fast = Array(line.utf8).withUnsafeBufferPointer { fields.scan($0) }
            guard fast else { continue }
            accepted += 1
            let full = try FlatJSON.parseObject(line)
            for (k, key) in ["type", "index", "timestamp", "latitude", "longitude", "horizontal_accuracy", "now"]
                .enumerated()
            {
                #expect(fields.values[k] == full[key], "\(line) key \(key)")
            }
            #expect(full.count == fields.values.compactMap { $0 }.count)
        }
        #expect(accepted == 3)
    }
}
