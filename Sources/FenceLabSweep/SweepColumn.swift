/// A column of doubles, one per grid point, held as compactly as its values allow and read back
/// bit for bit: one value while every value is the same (a cost at one sampling policy), 4-byte
/// floats while every value is one exactly (counts, rates per 1 h drive, recalls of small
/// fractions), else 8-byte doubles. A column changes form at most twice, at the first value the
/// form cannot hold.
struct SweepColumn: Sendable, Hashable, RandomAccessCollection {
    // The forms' storage side by side rather than as an enum's payloads: reading a value from an
    // enum payload copied the array out first, a retain and a release per value read (contended
    // when two threads read the same column).
    fileprivate enum Form: Sendable { case constant, floats, doubles }

    private var form = Form.constant
    /// The value of a `.constant` column.
    private var constant = 0.0
    /// The values of a `.floats` column (else empty).
    private var floats: [Float] = []
    /// The values of a `.doubles` column (else empty).
    private var doubles: [Double] = []
    private(set) var count = 0
    /// The count `reserveCapacity` announced: the arrays are made with it, never grown past need.
    private var expected = 0

    init() {}

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    subscript(i: Int) -> Double { Self.value(i, form, constant, floats, doubles, count: count) }

    /// Value `i` of a column of `count` values in `form`, from its storage (arrays or their addresses).
    @inline(__always)
    fileprivate static func value<Floats: RandomAccessCollection<Float>, Doubles: RandomAccessCollection<Double>>(
        _ i: Int, _ form: Form, _ constant: Double, _ floats: Floats, _ doubles: Doubles, count: Int
    ) -> Double where Floats.Index == Int, Doubles.Index == Int {
        precondition(i >= 0 && i < count, "SweepColumn: index \(i) outside 0..<\(count)")
        switch form {
        case .constant: return constant
        case .floats: return Double(floats[i])
        case .doubles: return doubles[i]
        }
    }

    /// The column's values read through its storage's addresses, valid inside `withReader`:
    /// reading one changes no reference count. A sort whose comparisons read columns through a
    /// closure that captured them copied the columns (a retain and a release per array) at every
    /// comparison, on the counts the other threads of `--jobs 2` read too.
    struct Reader {
        private let form: Form
        private let constant: Double
        private let floats: UnsafeBufferPointer<Float>
        private let doubles: UnsafeBufferPointer<Double>
        let count: Int

        fileprivate init(
            form: Form, constant: Double, floats: UnsafeBufferPointer<Float>, doubles: UnsafeBufferPointer<Double>,
            count: Int
        ) {
            self.form = form
            self.constant = constant
            self.floats = floats
            self.doubles = doubles
            self.count = count
        }

        subscript(i: Int) -> Double { SweepColumn.value(i, form, constant, floats, doubles, count: count) }
    }

    /// Calls `body` with a `Reader` of the column (the same values as its subscript).
    func withReader<R>(_ body: (Reader) -> R) -> R {
        floats.withUnsafeBufferPointer { f in
            doubles.withUnsafeBufferPointer { d in
                body(Reader(form: form, constant: constant, floats: f, doubles: d, count: count))
            }
        }
    }

    /// `withReader` of three columns at once.
    static func withReaders<R>(
        _ a: SweepColumn, _ b: SweepColumn, _ c: SweepColumn, _ body: (Reader, Reader, Reader) -> R
    ) -> R {
        a.withReader { a in b.withReader { b in c.withReader { c in body(a, b, c) } } }
    }

    /// True when `x` is a float exactly (NaN included: only `isNaN` is asked of it).
    private static func fitsFloat(_ x: Double) -> Bool { x.isNaN || Double(Float(x)).bitPattern == x.bitPattern }

    mutating func reserveCapacity(_ n: Int) { expected = Swift.max(expected, n) }

    mutating func append(_ x: Double) {
        switch form {
        case .constant:
            let v = constant
            if count == 0 || v.bitPattern == x.bitPattern || (v.isNaN && x.isNaN) {
                if count == 0 { constant = x }
            } else if Self.fitsFloat(v) && Self.fitsFloat(x) {
                floats.reserveCapacity(Swift.max(expected, count + 1))
                floats.append(contentsOf: repeatElement(Float(v), count: count))
                floats.append(Float(x))
                form = .floats
            } else {
                doubles.reserveCapacity(Swift.max(expected, count + 1))
                doubles.append(contentsOf: repeatElement(v, count: count))
                doubles.append(x)
                form = .doubles
            }
        case .floats:
            if Self.fitsFloat(x) {
                floats.append(Float(x))
            } else {
                doubles.reserveCapacity(Swift.max(expected, count + 1))
                for f in floats { doubles.append(Double(f)) }
                floats = []
                doubles.append(x)
                form = .doubles
            }
        case .doubles:
            doubles.append(x)
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
