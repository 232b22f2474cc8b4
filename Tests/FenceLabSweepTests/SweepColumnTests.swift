import Testing

@testable import FenceLabSweep

/// `SweepColumn` keeps per-point figures as one value, floats or doubles; every value must come
/// back bit for bit whatever form the column took.
@Suite struct SweepColumnTests {
    static func roundTrips(_ values: [Double]) -> Bool {
        var c = SweepColumn()
        c.reserveCapacity(values.count)
        for v in values { c.append(v) }
        guard c.count == values.count else { return false }
        return zip(c, values).allSatisfy { a, b in a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN) }
    }

    @Test func valuesComeBackBitForBitInEveryForm() {
        let third = 1.0 / 3
        let cases: [[Double]] = [
            [],
            [3600, 3600, 3600],  // constant
            [0, -0.0, 0],  // signs differ: not one value
            [1, 2, 0.5, .infinity, -.infinity, .nan, 3],  // floats exactly
            [1, 2, third, 4],  // a double after floats
            [third, third, 1],  // a double constant, then another value
            [.nan, .nan, 1e300],  // NaN constant, then beyond a float's range
            [1, 2, 5e-324, 4],  // subnormal: not a float
            [Double(Float.greatestFiniteMagnitude), 16_777_217],  // 2^24 + 1 is no float
        ]
        for values in cases { #expect(Self.roundTrips(values), "\(values)") }
    }

    @Test func equalValuesInDifferentFormsAreEqual() {
        var a = SweepColumn()
        var b = SweepColumn()
        for v in [1.0, 1, 1] { a.append(v) }
        for v in [1.0, 1, 1] { b.append(v) }
        #expect(a == b)
        a.append(2)
        b.append(2.5)
        #expect(a != b)
    }
}
