import DriveSim
import GeoPolicy

/// Every place's true visits from the noiseless positions, visiting per position only the places
/// whose radius can contain it (`PlaceIndex`): the same visits as
/// `Visits.trueVisits(time_s:truth:center:place:end_s:)` per place, in O(samples · log N + inside
/// samples) time and memory instead of O(samples · N).
package enum PlaceSetTruth {
    /// A place's index reach for the truth, metres: beyond `radius_m / (1 − sphereMargin)` the
    /// haversine distance decides "outside" without the WGS84 check (`Visits.sphereMargin`).
    static func reach_m(_ radius_m: Double) -> Double { radius_m / (1 - Visits.sphereMargin) * (1 + 1e-6) }

    /// The index of the set's centres with the truth reach of each place.
    package static func index(_ set: PlaceSetSpec) -> PlaceIndex {
        PlaceIndex(centers: set.places.map(\.center), reach_m: set.places.map { reach_m($0.radius_m) })
    }

    /// True visits per place, in place order, from positions `truth` at sorted `time_s`.
    package static func trueVisits(
        set: PlaceSetSpec, index: PlaceIndex, time_s: [Double], truth: [Coordinate], end_s: Double
    ) -> [[Visit]] {
        let sphere = Haversine()
        let ellipsoid = WGS84()
        let m = Visits.sphereMargin
        // Per place: the sample slots inside it, ascending.
        var inside = [[Int32]](repeating: [], count: set.places.count)
        for j in truth.indices {
            let c = truth[j]
            index.forEachCandidate(near: c) { p in
                let place = set.places[p]
                let d = sphere.distance_m(place.center, c)
                let isIn =
                    abs(d - place.radius_m) > m * Swift.max(d, place.radius_m)
                    ? d <= place.radius_m : ellipsoid.distance_m(place.center, c) <= place.radius_m
                if isIn { inside[p].append(Int32(j)) }
            }
        }
        return set.places.indices.map { p in
            spans(inside: inside[p], time_s: time_s, place: set.placeSpec(p), end_s: end_s)
        }
    }

    /// The visits of one place from its inside slots: each run of consecutive slots is a span from
    /// its first slot's time to the next slot's (or `end_s`, open), then merged and filtered.
    static func spans(inside: [Int32], time_s: [Double], place: PlaceSpec, end_s: Double) -> [Visit] {
        var spans: [Visit] = []
        var k = 0
        while k < inside.count {
            var last = k
            while last + 1 < inside.count, inside[last + 1] == inside[last] + 1 { last += 1 }
            let after = Int(inside[last]) + 1
            let start = time_s[Int(inside[k])]
            spans.append(
                after < time_s.count
                    ? Visit(start_s: start, end_s: time_s[after])
                    : Visit(start_s: start, end_s: end_s, openAtEnd: true))
            k = last + 1
        }
        return Visits.mergeAndFilter(spans, place: place)
    }
}
