import Testing

@testable import FenceLabSweep

/// `SweepColumn` keeps per-point figures as one value, floats or doubles; every value must come
/// back bit for bit whatever form the column took, through the subscript and the reader.
@Suite struct SweepColumnTests {
    static func roundTrips(_ values: [Double]) -> Bool {
        var c = SweepColumn()
        c.reserveCapacity(values.count)
        for v in values { c.append(v) }
        guard c.count == values.count else { return false }
        func same(_ a: Double, _ b: Double) -> Bool { a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN) }
        // The reader the frontiers' sorts read through gives the same values.
        let read = c.withReader { r in
            r.count == values.count && values.indices.allSatisfy { same(r[$0], values[$0]) }
        }
        return read && zip(c, values).allSatisfy(same)
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

/// `MixPoints` stores a violation's value only when it is not the point's worst figure of its
/// constraint; every point must read back as it was appended.
@Suite struct MixPointsStorageTests {
    @Test func pointsWithViolationsReadBackAsAppended() {
        var points = MixPoints()
        var expected: [MixPoint] = []
        for i in 0..<300 {
            let recall = i % 7 == 0 ? nil : Double(i % 5) / 4
            var violations: [MixViolation] = []
            if let recall, recall < 0.95 {
                violations.append(MixViolation(constraint: .recall, scenario: i % 3, value: recall))  // the worst
                violations.append(MixViolation(constraint: .recall, scenario: 3, value: 0.9))  // another scenario's
            }
            if i % 2 == 0 {
                violations.append(MixViolation(constraint: .latency, scenario: 0, value: 61 + Double(i) / 3))
            }
            if i % 4 == 0 { violations.append(MixViolation(constraint: .exitLatency, scenario: 1, value: .infinity)) }
            if i % 5 == 0 { violations.append(MixViolation(constraint: .unwanted, scenario: nil, value: 0.25)) }
            let p = MixPoint(
                point: i, unwantedPerHour: i % 5 == 0 ? 0.25 : 0.1, worstEntryP95_s: 61 + Double(i) / 3,
                worstRecall: recall, worstExitP95_s: i % 4 == 0 ? .infinity : nil, fixesPerHour: 3600,
                wakeupsPerHour: 3600, cost: 3600, matchedVisits: Double(i % 3), violations: violations)
            points.append(p)
            expected.append(p)
        }
        #expect(points.count == expected.count)
        for p in expected {
            #expect(points[p.point] == p)
            // The ranking reads the count and the shortfall from the columns in place: the same
            // numbers, bit for bit, as from the point's list.
            #expect(points.violationCount(p.point) == p.violations.count)
            #expect(points.shortfall(p.point).bitPattern == SweepMix.shortfall(p).bitPattern)
        }
        #expect(expected.contains { SweepMix.shortfall($0) > 1 })
    }
}
