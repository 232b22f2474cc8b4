import GeoPolicy
import Testing

/// The monitoring strategy (`all`, `nearest:K+refresh:R`) and its registered set.
@Suite struct MonitoringStrategyTests {
    @Test func parsesAndRefuses() throws {
        #expect(try MonitoringStrategy.parse("all") == .all)
        #expect(try MonitoringStrategy.parse("nearest:20+refresh:500") == .nearest(count: 20, refresh_m: 500))
        #expect(try MonitoringStrategy.parse("nearest:20+refresh:500").versionSuffix == "+nearest20-refresh500")
        #expect(MonitoringStrategy.nearest(count: 3, refresh_m: 12.5).description == "nearest:3+refresh:12.5")
        for bad in [
            "nearest:0+refresh:500", "nearest:-1+refresh:5", "nearest:20+refresh:0", "nearest:20+refresh:-3",
            "nearest:20+refresh:nan", "nearest:20", "nearest:2.5+refresh:9", "some",
        ] {
            #expect(throws: MonitoringStrategyError.self) { try MonitoringStrategy.parse(bad) }
        }
        #expect(
            (try? MonitoringStrategy.parse("nearest:0+refresh:500")) == nil
                && MonitoringStrategyError.malformed(
                    spec: "nearest:0+refresh:500", reason: "K must be an integer within 1...100000"
                )
                .description == "monitoring strategy 'nearest:0+refresh:500': K must be an integer within 1...100000")
    }

    /// The chosen set is the K nearest by great-circle distance (ties to the lower index), chosen
    /// again only beyond the refresh radius; a swap is a refresh that changes the set.
    @Test func nearestMatchesABruteForceChoice() throws {
        let frame = LocalFrame(anchor: try Coordinate(latitude: 48.1, longitude: 11.5))
        // A 10 × 10 grid 50 m apart.
        let places = (0..<100).map { i in frame.coordinate(east_m: Double(i % 10) * 50, north_m: Double(i / 10) * 50) }
        var budget = RegionBudget(strategy: .nearest(count: 7, refresh_m: 120), centers: places)
        let sphere = Haversine()
        func brute(_ c: Coordinate) -> Set<Int> {
            Set(
                places.indices.sorted {
                    (sphere.distance_m(places[$0], c), $0) < (sphere.distance_m(places[$1], c), $1)
                }.prefix(7))
        }
        var p = frame.coordinate(east_m: 10, north_m: 20)
        let first = budget.update(p)
        #expect(first)
        #expect(Set(budget.registered) == brute(p) && budget.swaps == 0)
        #expect(budget.registered.allSatisfy { budget.isRegistered[$0] })
        #expect(budget.isRegistered.filter { $0 }.count == 7)
        // 100 m on: within the refresh radius, nothing changes.
        let near = budget.update(frame.coordinate(east_m: 110, north_m: 20))
        #expect(!near)
        // 300 m on: chosen again around the new position, a swap.
        p = frame.coordinate(east_m: 310, north_m: 220)
        let refreshed = budget.update(p)
        #expect(refreshed)
        #expect(Set(budget.registered) == brute(p) && budget.swaps == 1)
        #expect(budget.isRegistered.filter { $0 }.count == 7)
        // An invalid position never refreshes.
        let invalid = budget.update(nil)
        #expect(!invalid)
        // `all` registers everything and never refreshes.
        var all = RegionBudget(strategy: .all, centers: places)
        let none = all.update(p)
        #expect(!none && all.registered == Array(0..<100) && all.swaps == 0)
    }
}
