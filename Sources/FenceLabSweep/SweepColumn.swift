/// A column of doubles, one per grid point, held as compactly as its values allow and read back
/// bit for bit: one value while every value is the same (a cost at one sampling policy), 4-byte
/// floats while every value is one exactly (counts, rates per 1 h drive, recalls of small
/// fractions), else 8-byte doubles. A column changes form at most twice, at the first value the
/// form cannot hold.
struct SweepColumn: Sendable, Hashable, RandomAccessCollection {
    private enum Form: Sendable {
        case constant(Double)
        case floats([Float])
        case doubles([Double])
    }

    private var form: Form = .constant(0)
    private(set) var count = 0
    /// The count `reserveCapacity` announced: the arrays are made with it, never grown past need.
    private var expected = 0

    init() {}

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    subscript(i: Int) -> Double {
        precondition(i >= 0 && i < count, "SweepColumn: index \(i) outside 0..<\(count)")
        switch form {
        case .constant(let v): return v
        case .floats(let a): return Double(a[i])
        case .doubles(let a): return a[i]
        }
    }

    /// True when `x` is a float exactly (NaN included: only `isNaN` is asked of it).
    private static func fitsFloat(_ x: Double) -> Bool { x.isNaN || Double(Float(x)).bitPattern == x.bitPattern }

    mutating func reserveCapacity(_ n: Int) { expected = Swift.max(expected, n) }

    mutating func append(_ x: Double) {
        switch form {
        case .constant(let v):
            if count == 0 || v.bitPattern == x.bitPattern || (v.isNaN && x.isNaN) {
                form = .constant(count == 0 ? x : v)
            } else if Self.fitsFloat(v) && Self.fitsFloat(x) {
                var a: [Float] = []
                a.reserveCapacity(Swift.max(expected, count + 1))
                a.append(contentsOf: repeatElement(Float(v), count: count))
                a.append(Float(x))
                form = .floats(a)
            } else {
                var a: [Double] = []
                a.reserveCapacity(Swift.max(expected, count + 1))
                a.append(contentsOf: repeatElement(v, count: count))
                a.append(x)
                form = .doubles(a)
            }
        case .floats(var a):
            if Self.fitsFloat(x) {
                form = .constant(0)  // `a` is the only reference while it grows
                a.append(Float(x))
                form = .floats(a)
            } else {
                var d: [Double] = []
                d.reserveCapacity(Swift.max(expected, count + 1))
                for f in a { d.append(Double(f)) }
                a = []
                d.append(x)
                form = .doubles(d)
            }
        case .doubles(var a):
            form = .constant(0)
            a.append(x)
            form = .doubles(a)
        }
        count += 1
    }

    static func == (a: SweepColumn, b: SweepColumn) -> Bool {
        a.count == b.count
            && a.indices.allSatisfy { a[$0].bitPattern == b[$0].bitPattern || a[$0].isNaN && b[$0].isNaN }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        if let first { hasher.combine(first.isNaN ? .nan : first) }
    }
}
