/// Which places an app registers with the OS, which monitors only so many regions (iOS: 20 per
/// app, `CLLocationManager.monitoredRegions`; Android: 100 geofences per app, `GeofencingClient`):
/// every place, or the K nearest re-chosen when the user has moved (a "refresh region").
///
/// App logic, deterministic, from the delivered fixes only. Spec strings: `all`,
/// `nearest:K+refresh:R` (K ≥ 1 places, R > 0 metres: the set is chosen again at the first
/// delivered fix more than R metres, haversine, from where it was last chosen).
public enum MonitoringStrategy: Sendable, Hashable, CustomStringConvertible {
    /// Every place registered, no budget.
    case all
    /// The `count` places nearest to the fix where the set was chosen; chosen again at the first
    /// delivered fix more than `refresh_m` from there.
    case nearest(count: Int, refresh_m: Double)

    /// Most places a budget may name (the place-set limit).
    public static let maxCount = 100_000

    public var isAll: Bool { self == .all }

    /// The spec string (`all`, `nearest:20+refresh:500`).
    public var description: String {
        switch self {
        case .all: return "all"
        case .nearest(let k, let r): return "nearest:\(k)+refresh:\(Self.number(r))"
        }
    }

    /// The rules-version suffix: empty for `all`, `+nearest20-refresh500` otherwise.
    public var versionSuffix: String {
        switch self {
        case .all: return ""
        case .nearest(let k, let r): return "+nearest\(k)-refresh\(Self.number(r))"
        }
    }

    static func number(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e15 ? String(Int64(x)) : "\(x)"
    }

    /// Parses `all` or `nearest:K+refresh:R`.
    public static func parse(_ text: String) throws(MonitoringStrategyError) -> MonitoringStrategy {
        if text == "all" { return .all }
        let parts = text.split(separator: "+", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, parts[0].hasPrefix("nearest:"), parts[1].hasPrefix("refresh:") else {
            throw .malformed(spec: text, reason: "expected all or nearest:K+refresh:R")
        }
        let kText = parts[0].dropFirst("nearest:".count)
        guard let k = Int(kText), String(k) == kText, k >= 1, k <= maxCount else {
            throw .malformed(spec: text, reason: "K must be an integer within 1...\(maxCount)")
        }
        guard let r = Double(parts[1].dropFirst("refresh:".count)), r.isFinite, r > 0 else {
            throw .malformed(spec: text, reason: "R must be finite and > 0 metres")
        }
        return .nearest(count: k, refresh_m: r)
    }
}

/// Why a monitoring strategy spec was refused.
public enum MonitoringStrategyError: Error, Sendable, Hashable, CustomStringConvertible {
    case malformed(spec: String, reason: String)

    public var description: String {
        switch self {
        case .malformed(let s, let r): return "monitoring strategy '\(ShownText.shown(s))': \(r)"
        }
    }
}

/// The registered set of a `MonitoringStrategy` over fixed places, updated per delivered fix.
///
/// Per fix: one haversine distance to where the set was chosen; a refresh selects the K nearest
/// places (great-circle order: largest dot product of unit vectors, ties to the lower index) from
/// a `PlaceIndex` in O(K log N) typical into buffers allocated once, so nothing is allocated per fix.
public struct RegionBudget: Sendable {
    public let strategy: MonitoringStrategy
    /// The centres' index for the nearest-K selection.
    let index: PlaceIndex
    /// Per place: whether it is registered now.
    public private(set) var isRegistered: [Bool]
    /// The registered places' indices: all of them in order for `.all`; otherwise the last
    /// choice, nearest first (ties to the lower index).
    public private(set) var registered: [Int]
    /// Where the set was last chosen; nil before the first valid fix.
    public private(set) var anchor: Coordinate?
    /// Refreshes that changed the set (the first choice is not one).
    public private(set) var swaps = 0
    /// Max-heap of (dot product, index) for the selection, capacity K.
    var heap: [(dot: Double, index: Int)]
    let sphere = Haversine()

    public init(strategy: MonitoringStrategy, centers: [Coordinate]) {
        self.init(strategy: strategy, index: PlaceIndex(centers: strategy.isAll ? [] : centers), count: centers.count)
    }

    /// A budget over the places of `index` (built once per place set and shared by replicates).
    public init(strategy: MonitoringStrategy, index: PlaceIndex) {
        self.init(strategy: strategy, index: index, count: index.count)
    }

    private init(strategy: MonitoringStrategy, index: PlaceIndex, count: Int) {
        self.strategy = strategy
        self.index = index
        switch strategy {
        case .all:
            isRegistered = Array(repeating: true, count: count)
            registered = Array(0..<count)
            heap = []
        case .nearest(let k, _):
            isRegistered = Array(repeating: false, count: count)
            registered = []
            registered.reserveCapacity(min(k, count))
            heap = []
            heap.reserveCapacity(min(k, count))
        }
    }

    /// Updates the set for a delivered fix at `position` (nil: an invalid position, which never
    /// refreshes). Returns true when the set was chosen (first choice or refresh).
    public mutating func update(_ position: Coordinate?) -> Bool {
        guard case .nearest(let k, let r) = strategy, let position else { return false }
        if let a = anchor, sphere.distance_m(a, position) <= r { return false }
        let first = anchor == nil
        anchor = position
        if select(k, around: position.unitVector), !first { swaps += 1 }
        return true
    }

    /// Chooses the `k` nearest places (`PlaceIndex.nearest`). Returns true when the set differs
    /// from the one before.
    @discardableResult
    mutating func select(_ k: Int, around u: SIMD3<Double>) -> Bool {
        index.nearest(k, to: u, into: &heap)
        let unchanged = heap.count == registered.count && heap.allSatisfy { isRegistered[$0.index] }
        if unchanged { return false }
        for i in registered { isRegistered[i] = false }
        registered.removeAll(keepingCapacity: true)
        // Pop the farthest kept place until empty, then reverse: nearest first.
        while let last = heap.last {
            registered.append(heap[0].index)
            isRegistered[heap[0].index] = true
            heap[0] = last
            heap.removeLast()
            var j = 0
            let n = heap.count
            while true {
                let l = 2 * j + 1
                var m = j
                if l < n, BoundedHeap.worse(heap[l], heap[m]) { m = l }
                if l + 1 < n, BoundedHeap.worse(heap[l + 1], heap[m]) { m = l + 1 }
                if m == j { break }
                heap.swapAt(j, m)
                j = m
            }
        }
        registered.reverse()
        return true
    }

    /// The `k` nearest places by a scan of every place (the index's test oracle), in the same
    /// order as `registered`: nearest first, ties to the lower index.
    package static func scanNearest(_ k: Int, around u: SIMD3<Double>, centers: [SIMD3<Double>]) -> [Int] {
        var heap: [(dot: Double, index: Int)] = []
        let n = min(k, centers.count)
        for i in centers.indices { BoundedHeap.offer((dot: (centers[i] * u).sum(), index: i), capacity: n, &heap) }
        return heap.sorted { BoundedHeap.worse($1, $0) }.map(\.index)
    }
}
