import Testing

@testable import FenceLab
@testable import ReportKit

/// The pre-written estimate node is the text of the estimate's object node, alone and inside
/// documents whose layout depends on it (a one-line parent, a multi-line parent, an array).
@Suite struct EstimateJSONTests {
    static let values: [Double] = [
        0, -0.0, 1, -1.5, 0.1, 1e-300, 5e-324, 1.7976931348623157e308, 123_456.789, 1e21, .nan, .infinity,
        -.infinity,
    ]

    @Test func estimateTextEqualsTheObjectsSerialization() {
        var k = 0
        for mean in Self.values {
            for lower in Self.values.prefix(7) {
                k += 1
                let e = Estimate(mean: mean, lower: lower, upper: Self.values[k % Self.values.count], n: k * 37 - 100)
                let fast = JSONReport.estimate(e)
                let tree = JSONReport.estimateObject(e)
                #expect(fast.serialized() == tree.serialized())
                // As a member of a small object (which the object form would keep on several
                // lines, since an estimate is not flat), of a larger one and of an array.
                let small: (JSONValue) -> JSONValue = { .object([("point", .integer(3)), ("spurious", $0)]) }
                let large: (JSONValue) -> JSONValue = { v in
                    .object([
                        ("a", v), ("b", .object([("p95", v), ("x", .null)])), ("c", .array([v, v])), ("d", .number(1)),
                        ("e", .string("s")),
                    ])
                }
                #expect(small(fast).serialized() == small(tree).serialized())
                #expect(large(fast).serialized() == large(tree).serialized())
                #expect(JSONValue.array([fast, .null]).serialized() == JSONValue.array([tree, .null]).serialized())
            }
        }
        // The layout the serialization has: one line for the estimate, its parent spread out.
        let e = Estimate(mean: 1.5, lower: 1, upper: 2, n: 20)
        #expect(JSONReport.estimate(e).serialized() == #"{"mean": 1.5, "ci95": [1.0, 2.0], "n": 20}"#)
        #expect(
            JSONValue.object([("x", JSONReport.estimate(e))]).serialized()
                == "{\n  \"x\": {\"mean\": 1.5, \"ci95\": [1.0, 2.0], \"n\": 20}\n}")
    }
}
