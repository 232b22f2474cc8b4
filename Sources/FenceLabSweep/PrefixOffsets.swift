/// A non-decreasing sequence of non-negative offsets (where each of a run of entries starts in a
/// shared array), held as compactly as its steps allow and read back exactly: per block of
/// `block` entries the block's first offset (4 bytes) and each entry's step above it (2 bytes),
/// 2.06 bytes an entry, while every entry is within 65 535 of its block's first; else 4 bytes an
/// entry. It changes form at most once, at the first entry the compact form cannot hold.
struct PrefixOffsets: Sendable, Hashable, RandomAccessCollection {
    /// Entries per block of the compact form.
    static let block = 64

    private var bases: [Int32] = []
    private var steps: [UInt16] = []
    /// The entries, once one did not fit the compact form (`isWide`; then `bases` and `steps` are
    /// empty). Not an optional: reading through `if let` copied the array, a retain per entry read.
    private var wide: [Int32] = []
    private var isWide = false
    private(set) var count = 0
    /// The last entry appended (what the next must not go below).
    private var lastOffset: Int32 = 0
    /// The count `reserveCapacity` announced.
    private var expected = 0

    /// A sequence whose first entry is `first`.
    init(first: Int32) { append(first) }

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    subscript(i: Int) -> Int32 {
        precondition(i >= 0 && i < count, "PrefixOffsets: index \(i) outside 0..<\(count)")
        if isWide { return wide[i] }
        return bases[i / Self.block] + Int32(steps[i])
    }

    mutating func reserveCapacity(_ n: Int) {
        expected = Swift.max(expected, n)
        if isWide {
            wide.reserveCapacity(n)
        } else {
            steps.reserveCapacity(n)
            bases.reserveCapacity(n / Self.block + 1)
        }
    }

    /// Appends `offset`, which must be ≥ 0 and ≥ the last entry.
    mutating func append(_ offset: Int32) {
        precondition(offset >= 0 && offset >= lastOffset, "PrefixOffsets: offsets must not decrease")
        lastOffset = offset
        if isWide {
            wide.append(offset)
        } else {
            if count % Self.block == 0 { bases.append(offset) }
            let step = Int(offset) - Int(bases[bases.count - 1])
            if step <= Int(UInt16.max) {
                steps.append(UInt16(step))
            } else {
                var w: [Int32] = []
                w.reserveCapacity(Swift.max(expected, count + 1))
                for i in 0..<count { w.append(self[i]) }
                w.append(offset)
                bases = []
                steps = []
                wide = w
                isWide = true
            }
        }
        count += 1
    }

    static func == (a: PrefixOffsets, b: PrefixOffsets) -> Bool {
        a.count == b.count && a.indices.allSatisfy { a[$0] == b[$0] }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        if let last { hasher.combine(last) }
    }
}
