import GeoPolicy

/// The places a scenario watches (key `places`, docs/scenario-format.md "places"): each a named
/// circle that is the truth for its visits, with optional radii of its own for the rule.
/// Decoded (or generated) once per scenario; every replicate sees the same set.
public struct PlaceSetSpec: Sendable, Hashable {
    /// Most places a set may hold: a retailer's stores in a region, a city's points of interest.
    public static let maxPlaces = 100_000
    /// Longest place name, in Unicode scalars (as a scenario name).
    public static let maxNameLength = 200

    /// The places in file (or generation) order; names are unique.
    public var places: [NamedPlace]
    /// True visits shorter than this are dropped, seconds (key `minDwell_s`, default 0).
    public var minDwell_s: Double
    /// Inside spans separated by less than this much time outside are one visit, seconds
    /// (key `mergeGap_s`, default 60).
    public var mergeGap_s: Double
    /// Where the places came from, for reports: `inline`, `file`, or the generator's kind.
    public var source: String
    /// Which places the app registers with the OS (key `monitoring`, default `all`).
    public var monitoring: MonitoringStrategy = .all
    /// The place file the set was read from (key `file`, resolved against the scenario's folder)
    /// and the SHA-256 of the bytes read, lowercase hex; nil for inline and generated sets.
    public var file: (path: String, sha256: String)? {
        get { filePath.map { ($0, fileSHA256 ?? "") } }
        set {
            filePath = newValue?.path
            fileSHA256 = newValue?.sha256
        }
    }
    var filePath: String?
    var fileSHA256: String?

    public init(
        places: [NamedPlace], minDwell_s: Double = PlaceSpec.defaultMinDwell_s,
        mergeGap_s: Double = PlaceSpec.defaultMergeGap_s, source: String = "inline"
    ) {
        self.places = places
        self.minDwell_s = minDwell_s
        self.mergeGap_s = mergeGap_s
        self.source = source
    }

    /// The index of the place called `name`, if any.
    public func index(of name: String) -> Int? { places.firstIndex { $0.name == name } }

    /// The visit truth of place `i` (its radius, the set's dwell and merge gap).
    public func placeSpec(_ i: Int) -> PlaceSpec {
        PlaceSpec(radius_m: places[i].radius_m, minDwell_s: minDwell_s, mergeGap_s: mergeGap_s)
    }
}

/// One place of a set: a circle of `radius_m` around `center` that is the truth for its visits,
/// and the rule's own radii for it when they differ from the scenario's `fence.rule`.
public struct NamedPlace: Sendable, Hashable {
    /// 1 … 200 characters, no control characters; unique within the set.
    public var name: String
    public var center: Coordinate
    /// The place's radius for the truth, metres, finite and > 0.
    public var radius_m: Double
    /// The rule's enter radius for this place (hysteresis `enter_m`; the radius of a single-radius
    /// rule), metres; nil: the scenario's `fence.rule`.
    public var enter_m: Double?
    /// The rule's exit radius for this place (hysteresis `exit_m`; equal to `enter_m` for a
    /// single-radius rule), metres; nil: the scenario's `fence.rule`.
    public var exit_m: Double?
    /// The place's weight in the figures aggregated over places, finite and > 0 (default 1).
    public var weight: Double

    public init(
        name: String, center: Coordinate, radius_m: Double, enter_m: Double? = nil, exit_m: Double? = nil,
        weight: Double = 1
    ) {
        self.name = name
        self.center = center
        self.radius_m = radius_m
        self.enter_m = enter_m
        self.exit_m = exit_m
        self.weight = weight
    }
}

extension FenceRuleSpec {
    /// The rule for one place: the scenario's rule with the place's radii when it has its own.
    public func forPlace(_ place: NamedPlace) -> FenceRuleSpec {
        guard let e = place.enter_m, let x = place.exit_m else { return self }
        var rule = self
        switch kind {
        case .hysteresis(_, _, let a): rule.kind = .hysteresis(enter_m: e, exit_m: x, maxAccuracy_m: a)
        case .threshold: rule.kind = .threshold(radius_m: e)
        case .conservative: rule.kind = .conservative(radius_m: e)
        }
        return rule
    }
}
