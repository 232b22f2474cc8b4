import GeoPolicy

/// The sorted axes of a sweep grid, from which every point is computed by its id: nothing per
/// point is stored (a `SweepPoint` is 112 bytes; a 10⁶-point grid held as an array took 112 MB,
/// and building it through a set and a sorted copy three times that).
///
/// The grid is the cartesian product of the rule settings and the stages, in `SweepPoint` order
/// (enter radius, exit radius, accuracy gate, confirmation by fixes, by seconds, input stage),
/// crossed with the notification policies (outer, in the order given) and the sampling policies
/// (outermost, in the order given). For hysteresis only exit radii above the enter radius count,
/// so the settings of enter radius i start at `enterStart[i]`. The seeds' 80/120/30, when it is
/// not one of the product's settings, is one extra setting at its sorted place (`extraAt`).
package struct SweepPointAxes: Sendable, Hashable {
    package var kind: SweepRuleKind
    /// Distinct enter radii, ascending, metres.
    package var enters: [Double]
    /// Distinct exit radii, ascending, metres (hysteresis; empty otherwise).
    package var exits: [Double]
    /// Distinct accuracy gates, ascending, metres (hysteresis; `[+∞]` otherwise).
    package var accuracies: [Double]
    /// Distinct confirmations by fixes, ascending.
    package var confirms: [Int]
    /// Distinct confirmations by seconds, ascending (nil, none, first).
    package var seconds: [Double?]
    /// Distinct input stages (kind, q) in `SweepPoint` order.
    package var stages: [Stage]
    /// Notification policies in grid order (`[nil]`: none scored).
    package var notifications: [String?]
    /// Sampling policies in grid order (`[nil]`: each scenario's own).
    package var samplings: [String?]
    /// Per enter radius: the index into `exits` of its first exit radius (hysteresis).
    var firstExit: [Int]
    /// Per enter radius: the product settings before it (one more entry: the product's count).
    var enterStart: [Int]
    /// Where the extra seeds' setting sits among the settings, or nil when it is in the product.
    var extraAt: Int?

    /// Axes without a point: what a `SweepPointList` of stored points holds in their place.
    static let none = SweepPointAxes(
        kind: .hysteresis, enters: [], exits: [], accuracies: [], confirms: [], seconds: [], stages: [],
        notifications: [], samplings: [])

    package struct Stage: Sendable, Hashable {
        package var input: FenceInput.Kind
        package var q_m2s3: Double
    }

    /// Settings per (enter, exit) pair, or per enter radius for threshold and conservative rules.
    var inner: Int { (kind == .hysteresis ? accuracies.count : 1) * confirms.count * seconds.count * stages.count }

    /// Product settings (without the extra seeds' setting).
    var productCount: Int { enterStart[enterStart.count - 1] }

    /// Settings in one notification × sampling block.
    package var blockCount: Int { productCount + (extraAt == nil ? 0 : 1) }

    /// Every point.
    package var count: Int { blockCount * notifications.count * samplings.count }

    package init(
        kind: SweepRuleKind, enters: [Double], exits: [Double], accuracies: [Double], confirms: [Int],
        seconds: [Double?], stages: [Stage], notifications: [String?], samplings: [String?]
    ) {
        self.kind = kind
        self.enters = enters
        self.exits = kind == .hysteresis ? exits : []
        self.accuracies = kind == .hysteresis ? accuracies : [.infinity]
        self.confirms = confirms
        self.seconds = seconds
        self.stages = stages
        self.notifications = notifications.isEmpty ? [nil] : notifications
        self.samplings = samplings.isEmpty ? [nil] : samplings
        firstExit = []
        enterStart = [0]
        extraAt = nil
        let perPair = inner
        for e in enters {
            var n = perPair
            if kind == .hysteresis {
                var lo = 0
                var hi = self.exits.count
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if self.exits[mid] > e { hi = mid } else { lo = mid + 1 }
                }
                firstExit.append(lo)
                n = (self.exits.count - lo) * perPair
            }
            enterStart.append(enterStart[enterStart.count - 1] + n)
        }
        // The seeds' setting: in the product, or one extra setting at its sorted place.
        let reference = SweepPoint.seedReference
        var lo = 0
        var hi = productCount
        while lo < hi {
            let mid = (lo + hi) / 2
            if setting(mid) < reference { lo = mid + 1 } else { hi = mid }
        }
        if lo == productCount || setting(lo) != reference { extraAt = lo }
    }

    /// The grid's axes from the options as `SweepGrid.init` takes them: duplicates removed
    /// (the first of equal values kept), sorted; seconds 0 means none.
    init(
        kind: SweepRuleKind, enter: [Double], exit: [Double], maxAccuracy: [Double], confirm: [Int],
        inputs: [FenceInput.Kind], kalmanQ: [Double], confirmSeconds: [Double], notify: [String], sampling: [String?]
    ) {
        func distinct<T: Hashable & Comparable>(_ values: [T]) -> [T] {
            var seen = Set<T>()
            return values.filter { seen.insert($0).inserted }.sorted()
        }
        let secs = distinct(confirmSeconds.map { $0 > 0 ? $0 : 0 }).map { $0 > 0 ? $0 : nil }
        var stages: [Stage] = []
        for k in FenceInput.Kind.allCases where inputs.contains(k) {
            if k == .raw {
                stages.append(Stage(input: k, q_m2s3: FenceInput.defaultAccelerationDensity_m2ps3))
            } else {
                stages += distinct(kalmanQ).map { Stage(input: k, q_m2s3: $0) }
            }
        }
        var notifications: [String?] = []
        for n in notify where !notifications.contains(n) { notifications.append(n) }
        var samplings: [String?] = []
        for s in sampling where !samplings.contains(s) { samplings.append(s) }
        self.init(
            kind: kind, enters: distinct(enter), exits: distinct(exit), accuracies: distinct(maxAccuracy),
            confirms: distinct(confirm), seconds: secs, stages: stages, notifications: notifications,
            samplings: samplings)
    }

    /// Product setting `i` (0 ≤ i < `productCount`) with the policies given (none by default).
    func setting(_ i: Int, sampling: String? = nil, notify: String? = nil) -> SweepPoint {
        // The enter radius: the last start ≤ i.
        var lo = 0
        var hi = enters.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if enterStart[mid] <= i { lo = mid } else { hi = mid - 1 }
        }
        let e = lo
        var rest = i - enterStart[e]
        let st = rest % stages.count
        rest /= stages.count
        let sc = rest % seconds.count
        rest /= seconds.count
        let c = rest % confirms.count
        rest /= confirms.count
        let stage = stages[st]
        let enter = enters[e]
        switch kind {
        case .hysteresis:
            let a = rest % accuracies.count
            let x = firstExit[e] + rest / accuracies.count
            return SweepPoint(
                kind: kind, enter_m: enter, exit_m: exits[x], maxAccuracy_m: accuracies[a], confirm_n: confirms[c],
                input: stage.input, q_m2s3: stage.q_m2s3, sampling: sampling, confirm_s: seconds[sc], notify: notify)
        case .threshold, .conservative:
            return SweepPoint(
                kind: kind, enter_m: enter, exit_m: enter, maxAccuracy_m: .infinity, confirm_n: confirms[c],
                input: stage.input, q_m2s3: stage.q_m2s3, sampling: sampling, confirm_s: seconds[sc], notify: notify)
        }
    }

    /// Setting `i` of a block (0 ≤ i < `blockCount`), the extra seeds' setting included, with the
    /// policies given (none by default).
    func blockSetting(_ i: Int, sampling: String? = nil, notify: String? = nil) -> SweepPoint {
        guard let extraAt else { return setting(i, sampling: sampling, notify: notify) }
        if i == extraAt {
            var p = SweepPoint.seedReference
            p.sampling = sampling
            p.notify = notify
            return p
        }
        return setting(i < extraAt ? i : i - 1, sampling: sampling, notify: notify)
    }

    /// Point `id`, built at once with its block's policies (set afterwards on a built point, they
    /// cost a copy and a destruction of the point per read: ≈ 130 of ≈ 580 instructions).
    package subscript(id: Int) -> SweepPoint {
        let block = id / blockCount
        return blockSetting(
            id - block * blockCount, sampling: samplings[block / notifications.count],
            notify: notifications[block % notifications.count])
    }

    /// The index of point `id`'s sampling policy in `samplings`.
    func samplingOrdinal(_ id: Int) -> Int { id / (blockCount * notifications.count) }

    /// The index of point `id`'s notification policy in `notifications`.
    func notifyOrdinal(_ id: Int) -> Int { (id / blockCount) % notifications.count }

    /// The ids of the seeds' 80/120/30, one per notification × sampling block, ascending.
    var referenceIds: [Int] {
        let at: Int
        if let extraAt {
            at = extraAt
        } else {
            // In the product: its sorted place (found again; the axes keep no per-point data).
            var lo = 0
            var hi = productCount
            while lo < hi {
                let mid = (lo + hi) / 2
                if setting(mid) < .seedReference { lo = mid + 1 } else { hi = mid }
            }
            at = lo
        }
        return (0..<(notifications.count * samplings.count)).map { $0 * blockCount + at }
    }
}

/// A sweep grid's points in id order: computed from `SweepPointAxes` for a grid the sweep builds
/// (nothing stored per point), or an array for points read from a file or given one by one.
package struct SweepPointList: RandomAccessCollection, Sendable, Hashable, Codable, ExpressibleByArrayLiteral {
    // Two stored forms side by side rather than an enum with the axes or the array as payload:
    // reading a point from an enum payload copied the payload first, retaining and releasing
    // each of the axes' ten arrays per point (and with two threads reading points at once, both
    // kept taking the same counters' cache lines from each other).
    /// The axes the points are computed from (`fromAxes`), else `SweepPointAxes.none`.
    private let computed: SweepPointAxes
    /// The points held one by one (not `fromAxes`), else empty.
    private let stored: [SweepPoint]
    private let fromAxes: Bool
    package let count: Int

    package init(axes: SweepPointAxes) {
        computed = axes
        stored = []
        fromAxes = true
        count = axes.count
    }

    package init(_ points: [SweepPoint]) {
        computed = .none
        stored = points
        fromAxes = false
        count = points.count
    }

    package init(arrayLiteral elements: SweepPoint...) { self.init(elements) }

    package var startIndex: Int { 0 }
    package var endIndex: Int { count }
    package func index(after i: Int) -> Int { i + 1 }
    package func index(before i: Int) -> Int { i - 1 }

    package subscript(i: Int) -> SweepPoint {
        guard fromAxes else { return stored[i] }
        precondition(i >= 0 && i < count, "SweepPointList: point \(i) outside 0..<\(count)")
        return computed[i]
    }

    /// The axes the points are computed from (nil: stored points).
    package var axes: SweepPointAxes? { fromAxes ? computed : nil }

    /// Whether some point decides on `kind`. A grid built from options has a filtered input
    /// exactly when one of its stages does (the seeds' setting it may gain is raw), so only the
    /// raw input, and points held one by one, take a pass over the points.
    package func hasInput(_ kind: FenceInput.Kind) -> Bool {
        if kind != .raw, let axes { return axes.stages.contains { $0.input == kind } }
        return contains { $0.input == kind }
    }

    /// The distinct sampling policies in the order they first appear.
    package var samplings: [String?] {
        if fromAxes { return computed.samplings }
        var out: [String?] = []
        for p in self where !out.contains(p.sampling) { out.append(p.sampling) }
        return out
    }

    /// Whether the points carry a notification policy (the first point does), read without
    /// making the point: the summary asks once per point.
    package var scoresNotifications: Bool {
        guard count > 0 else { return false }
        return fromAxes ? computed.notifications[0] != nil : stored[0].notify != nil
    }

    /// The distinct notification policies in the order they first appear.
    package var notifications: [String?] {
        if fromAxes { return computed.notifications }
        var out: [String?] = []
        for p in self where !out.contains(p.notify) { out.append(p.notify) }
        return out
    }

    /// Ids of the seeds' 80/120/30 (at every sampling and notification policy), ascending.
    package var referenceIds: [Int] {
        if fromAxes { return computed.referenceIds }
        return indices.filter { self[$0].isSeedReference }
    }

    /// Point `i`'s sampling policy as an index into `samplings`.
    package func samplingOrdinal(_ i: Int, in samplings: [String?]) -> Int {
        if fromAxes { return computed.samplingOrdinal(i) }
        return samplings.firstIndex(of: self[i].sampling) ?? 0
    }

    /// Point `i`'s notification policy as an index into `notifications`.
    package func notifyOrdinal(_ i: Int, in notifications: [String?]) -> Int {
        if fromAxes { return computed.notifyOrdinal(i) }
        return notifications.firstIndex(of: self[i].notify) ?? 0
    }

    package static func == (a: SweepPointList, b: SweepPointList) -> Bool {
        guard a.count == b.count else { return false }
        if let x = a.axes, let y = b.axes, x == y { return true }
        return a.elementsEqual(b)
    }

    package static func == (a: SweepPointList, b: [SweepPoint]) -> Bool { a.elementsEqual(b) }

    package static func == (a: [SweepPoint], b: SweepPointList) -> Bool { b.elementsEqual(a) }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        if let first { hasher.combine(first) }
        if let last { hasher.combine(last) }
    }

    package init(from decoder: any Decoder) throws {
        self.init(try [SweepPoint](from: decoder))
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.unkeyedContainer()
        for p in self { try c.encode(p) }
    }
}
