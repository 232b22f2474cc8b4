/// The metric paths that exist (names and definitions: docs/metrics.md) and their fixed report order.
///
/// A path is dot-separated: `group.name[.sub[.field]]`. Groups: `flutter`, `rejections`,
/// `faults`, `kalman`, `gapFill`, `throughput`, `visits`, `notify`, `cost`.
package struct MetricCatalog: Sendable, Hashable {
    /// Rejection reasons `rejections.<reason>` may name (FenceMonitor's reasons).
    package var rejectionReasons: [String]
    /// Fault labels `faults.{labelled,caught}.<label>` may name; nil accepts any identifier.
    package var faultLabels: [String]?
    /// Gap-fill methods `gapFill.<method>` may name.
    package var gapFillMethods: [String]

    package init(
        rejectionReasons: [String] = MetricCatalog.designRejectionReasons,
        faultLabels: [String]? = nil, gapFillMethods: [String] = GapFillMethodName.all
    ) {
        self.rejectionReasons = rejectionReasons
        self.faultLabels = faultLabels
        self.gapFillMethods = gapFillMethods
    }

    /// The catalogue of docs/metrics.md.
    package static let standard = MetricCatalog()
    /// FenceMonitor's rejection reasons (`RejectionReason`), as docs/metrics.md lists them.
    package static let designRejectionReasons = [
        "invalidTimestamp", "invalidCoordinate", "invalidAccuracy", "inaccurate", "stale", "outOfOrder", "duplicate",
    ]

    static let groups = [
        "flutter", "visits", "notify", "places", "cost", "rejections", "faults", "kalman", "gapFill", "throughput",
    ]
    /// `notify.*`: only with a notification policy (`dwell*` only with `dwell:T`).
    static let notifyNames = [
        "entries", "exits", "dwells", "entriesPerTrueVisit", "unwanted", "unwantedPerHour", "dwellRecall",
        "falseDwells", "falseDwellsPerHour", "dwellLatency_s",
    ]
    static let costNames = ["fixesPerHour", "wakeupsPerHour"]
    /// `places.*`: only with a place set; `places.byPlace.I.*` per place index I.
    static let placeNames = [
        "trueVisits", "matchedVisits", "missedVisits", "recall", "falseVisits", "falsePerHour", "fragments",
        "fragmentsPerHour", "attributionErrors", "attributionErrorsPerHour", "orderingErrors", "oscillations",
        "oscillationsPerHour", "trueOscillations", "notMonitored", "ruleMissed", "notMonitoredShare", "swaps",
        "swapsPerHour", "byPlace",
    ]
    static let perPlaceNames = [
        "trueVisits", "recall", "falseVisits", "fragments", "attributionErrors", "orderingErrors",
    ]
    static let visitNames = [
        "trueVisits", "matchedVisits", "missedVisits", "recall", "falseVisits", "fragments",
        "falsePerHour", "fragmentsPerHour", "entryLatency_s", "exitLatency_s", "earlyEntries",
    ]
    static let flutterNames = [
        "transitions", "truthTransitions", "spurious", "missed", "flaps", "latency_s", "modelDisagreements",
    ]
    static let latencyNames = ["median", "p95"]
    static let errorFields = ["rmse_m", "p50_m", "p95_m", "max_m"]
    /// `kalman.<track>.{nees,nis}.{mean,outside95}`: the filters that claim a covariance.
    static let consistencyTracks = [KalmanTrack.filtered, .smoothed, .imm].map(\.rawValue)
    static let consistencyNames = ["nees", "nis"]
    static let consistencyFields = ["mean", "outside95"]
    static let gapFields = ["gaps", "rmse_m", "max_m"]
    static let throughputNames = ["engineFixes_per_s", "generatorFixes_per_s"]
    static let faultKinds = ["labelled", "caught"]

    /// True when `path` names a metric of this catalogue (whether or not it was measured).
    package func contains(_ path: String) -> Bool {
        let p = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard let group = p.first else { return false }
        switch (group, p.count) {
        case ("flutter", 2): return Self.flutterNames.contains(p[1]) && p[1] != "latency_s"
        case ("flutter", 3): return p[1] == "latency_s" && Self.latencyNames.contains(p[2])
        case ("visits", 2): return Self.visitNames.contains(p[1]) && !p[1].hasSuffix("Latency_s")
        case ("visits", 3):
            return p[1].hasSuffix("Latency_s") && Self.visitNames.contains(p[1]) && Self.latencyNames.contains(p[2])
        case ("rejections", 2): return rejectionReasons.contains(p[1])
        case ("faults", 3):
            return Self.faultKinds.contains(p[1]) && (faultLabels?.contains(p[2]) ?? Self.isIdentifier(p[2]))
        case ("kalman", 3): return KalmanTrack(rawValue: p[1]) != nil && Self.errorFields.contains(p[2])
        case ("kalman", 4):
            return Self.consistencyTracks.contains(p[1]) && Self.consistencyNames.contains(p[2])
                && Self.consistencyFields.contains(p[3])
        case ("gapFill", 4):
            return gapFillMethods.contains(p[1]) && GapBucket(rawValue: p[2]) != nil && Self.gapFields.contains(p[3])
        case ("throughput", 2): return Self.throughputNames.contains(p[1])
        case ("cost", 2): return Self.costNames.contains(p[1])
        case ("places", 2): return Self.placeNames.contains(p[1]) && p[1] != "byPlace"
        case ("places", 4):
            return p[1] == "byPlace" && Int(p[2]).map { $0 >= 0 && String($0) == p[2] } == true
                && Self.perPlaceNames.contains(p[3])
        case ("notify", 2): return Self.notifyNames.contains(p[1]) && p[1] != "dwellLatency_s"
        case ("notify", 3): return p[1] == "dwellLatency_s" && Self.latencyNames.contains(p[2])
        default: return false
        }
    }

    /// The unit a report prints after a figure of `path`: `m` (`…_m`), `s` (`flutter.latency_s.*`),
    /// `fixes/s` (`throughput.*`), otherwise a count per simulated drive (one replicate): `per drive`.
    package static func unit(of path: String) -> String {
        if path.hasPrefix("throughput.") { return "fixes/s" }
        if path.hasPrefix("cost.") { return "per hour" }
        if path.hasPrefix("places.") {
            if path.hasSuffix("PerHour") { return "per hour" }
            if path.hasSuffix(".recall") || path.hasSuffix("Share") { return "fraction" }
        }
        if path.hasPrefix("notify.") {
            if path.hasSuffix("PerHour") { return "per hour" }
            if path.hasPrefix("notify.dwellLatency_s.") { return "s" }
            if path == "notify.entriesPerTrueVisit" { return "per true visit" }
            if path == "notify.dwellRecall" { return "fraction" }
        }
        if path.hasSuffix("_m") { return "m" }
        if path.hasPrefix("flutter.latency_s.") { return "s" }
        return "per drive"
    }

    /// True for count paths whose absence in a replicate means zero (`rejections.*`, `faults.*`).
    package static func absentMeansZero(_ path: String) -> Bool {
        path.hasPrefix("rejections.") || path.hasPrefix("faults.")
    }

    /// Position of a path component among its siblings for the fixed report order;
    /// names the catalogue does not list sort after the listed ones, alphabetically.
    static func rank(_ component: String, depth: Int, parent: [String]) -> Int {
        let lists: [[String]] = [
            groups, flutterNames, latencyNames, errorFields, gapFields, throughputNames, faultKinds,
            KalmanTrack.allCases.map(\.rawValue), GapFillMethodName.all, GapBucket.allCases.map(\.rawValue),
            designRejectionReasons, visitNames, costNames, notifyNames,
        ]
        let list: [String]
        switch (parent.first, depth) {
        case (nil, _): list = lists[0]
        case ("flutter", 1): list = lists[1]
        case ("flutter", 2): list = lists[2]
        case ("visits", 1): list = lists[11]
        case ("visits", 2): list = lists[2]
        case ("kalman", 1): list = lists[7]
        case ("kalman", 2): list = lists[3] + consistencyNames
        case ("kalman", 3): list = consistencyFields
        case ("gapFill", 1): list = lists[8]
        case ("gapFill", 2): list = lists[9]
        case ("gapFill", 3): list = lists[4]
        case ("throughput", 1): list = lists[5]
        case ("cost", 1): list = lists[12]
        case ("notify", 1): list = lists[13]
        case ("places", 1): list = placeNames
        case ("places", 3): list = perPlaceNames
        case ("notify", 2): list = lists[2]
        case ("faults", 1): list = lists[6]
        case ("rejections", 1): list = lists[10]
        default: list = []
        }
        return list.firstIndex(of: component) ?? Int.max
    }

    /// Orders sibling path components: catalogue order first, then the rest alphabetically.
    static func ordered(_ components: [String], depth: Int, parent: [String]) -> [String] {
        components.sorted { a, b in
            let ra = rank(a, depth: depth, parent: parent)
            let rb = rank(b, depth: depth, parent: parent)
            return ra != rb ? ra < rb : a.utf8.lexicographicallyPrecedes(b.utf8)
        }
    }

    private static func isIdentifier(_ s: String) -> Bool {
        !s.isEmpty
            && s.utf8.allSatisfy { c in
                (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 95 || c == 45
            }
    }
}
