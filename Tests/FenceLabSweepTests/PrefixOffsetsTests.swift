import Testing

@testable import FenceLabSweep

/// `PrefixOffsets` reads back every entry it was given, in its compact form (steps of up to
/// 65 535 within a block) and after a larger step has turned it into 4-byte entries.
@Suite struct PrefixOffsetsTests {
    /// A seeded walk of non-decreasing offsets: mostly small steps, some zero, some at the edge.
    static func walk(count: Int, bigStepAt: Int?) -> [Int32] {
        var out: [Int32] = [0]
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        for i in 1..<count {
            x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let step: Int32 = i == bigStepAt ? 70_000 : Int32((x >> 33) % 4)
            out.append(out[i - 1] + step)
        }
        return out
    }

    @Test func compactFormReadsBackEveryEntry() {
        let values = Self.walk(count: 1_000, bigStepAt: nil)
        var o = PrefixOffsets(first: values[0])
        o.reserveCapacity(values.count)
        for v in values.dropFirst() { o.append(v) }
        #expect(o.count == values.count)
        #expect(Array(o) == values)
    }

    /// A block whose entries span exactly 65 535 stays compact; one more turns the form wide.
    @Test func stepsAtTheEdgeAndBeyond() {
        var edge = PrefixOffsets(first: 10)
        edge.append(10 + 65_535)
        #expect(Array(edge) == [10, 65_545])
        let values = Self.walk(count: 300, bigStepAt: 130)
        var o = PrefixOffsets(first: 0)
        for v in values.dropFirst() { o.append(v) }
        #expect(Array(o) == values)
        #expect(o[129] + 70_000 <= o[130])
    }

    /// Equal entries are equal sequences whatever the form each is held in.
    @Test func equalityDoesNotDependOnTheForm() {
        var wide = PrefixOffsets(first: 0)
        wide.append(100_000)
        var compact = PrefixOffsets(first: 0)
        compact.append(60_000)
        var compactToo = PrefixOffsets(first: 0)
        compactToo.append(60_000)
        #expect(compact == compactToo)
        #expect(compact != wide)
        var a = PrefixOffsets(first: 0)
        var b = PrefixOffsets(first: 0)
        for v in [5, 70_000, 70_001] as [Int32] { a.append(v) }
        for v in [5, 70_000, 70_001] as [Int32] { b.append(v) }
        #expect(a == b)
        #expect(Array(a) == [0, 5, 70_000, 70_001])
    }
}
