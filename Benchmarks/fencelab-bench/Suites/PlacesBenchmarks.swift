import CReference
import FenceLabBench
import GeoPolicy

/// The place index at city scale: per fix, the places whose entry reach can contain it — the
/// query `PlaceSetMonitor` asks `PlaceIndex` on every accepted fix — over one seeded drive through
/// a seeded city of 10, 10³ and 10⁵ places, against a plain C k-d tree of the same places
/// (`reference/c-places/…`). Item: one fix.
enum PlacesBenchmarks {
    static let fixesPerRun = 4096
    static let sizes = [10, 1_000, 100_000]

    static let all: [Benchmark] = sizes.map(index) + [monitor]
    static let kernels: [Benchmark] = sizes.map(kernel)

    /// One city per size, built once per process (the Swift row and its kernel share it).
    static let cities: [Int: City] = Dictionary(uniqueKeysWithValues: sizes.map { ($0, City(places: $0, seed: 41)) })

    /// Fixes of `places/monitor-10000`.
    static let monitorFixes = 100_000

    /// The city scale end to end through the monitor: `PlaceSetMonitor.process` over 10⁵ fixes
    /// (1 Hz, 5 m accuracy) of a drive through a city of 10⁴ places, each place decided by its
    /// own hysteresis (enter = its reach, exit = reach + 40 m, gate 30 m): the place-independent
    /// checks once per fix, the index query, and every place not at rest or within reach
    /// evaluated. One call = 10⁵ fixes; the monitor allocates nothing per fix.
    static let monitor = Benchmark(
        "places/monitor-10000", group: "places", itemsPerRun: monitorFixes, unit: "fix",
        target: "10⁴ places × 10⁵ fixes in seconds; 0 allocs/fix", noise: 0.3, maxSamples: 9,
        instructions: .counted(calls: 1)
    ) {
        let city = City(places: 10_000, seed: 43, fixes: monitorFixes)
        let prototype: PlaceSetMonitor
        do {
            let evaluators = try city.reach_m.map { r in
                try FenceEvaluator(
                    rule: AnyFenceRule.hysteresis(try Hysteresis(enter_m: r, exit_m: r + 40, maxAccuracy_m: 30)))
            }
            prototype = try PlaceSetMonitor(centers: city.centers, evaluators: evaluators, input: .raw, maxAge_s: 30)
        } catch { fatalError("fencelab-bench: places/monitor-10000: \(error)") }
        let fixes = city.fixes.enumerated().map { i, c in
            Fix(timestamp_s: Double(i), latitude: c.latitude, longitude: c.longitude, horizontalAccuracy_m: 5)
        }
        return {
            var m = prototype
            var changes = 0
            fixes.withUnsafeBufferPointer { b in
                for f in b { m.process(f, now_s: f.timestamp_s + 0.5) { _, _ in changes += 1 } }
            }
            return Double(changes)
        }
    }

    static func index(_ places: Int) -> Benchmark {
        Benchmark(
            "places/index-\(places)", group: "places", itemsPerRun: fixesPerRun, unit: "fix",
            reference: "reference/c-places/index-\(places)", target: "0 allocs/fix; ratio tracked"
        ) {
            let city = cities[places]!
            let index = PlaceIndex(centers: city.centers, reach_m: city.reach_m)
            if let problem = city.checkAgainstC(index) {
                printError("fencelab-bench: places/index-\(places): \(problem)")
            }
            let fixes = city.fixes
            return {
                var candidates = 0
                fixes.withUnsafeBufferPointer { b in
                    for c in b { index.forEachCandidate(near: c) { _ in candidates += 1 } }
                }
                return Double(candidates)
            }
        }
    }

    static func kernel(_ places: Int) -> Benchmark {
        Benchmark(
            "reference/c-places/index-\(places)", group: "reference", itemsPerRun: fixesPerRun, unit: "fix",
            isReference: true
        ) {
            let city = cities[places]!
            let tree = CPlaceTree(city)
            let lat = city.fixes.map(\.latitude)
            let lon = city.fixes.map(\.longitude)
            return { Double(fl_ref_places_count(tree.handle, lat, lon, lat.count, nil)) }
        }
    }

    /// `fl_ref_places_new`'s tree, freed with the last body that holds it.
    final class CPlaceTree {
        let handle: OpaquePointer
        init(_ city: City) {
            guard
                let h = fl_ref_places_new(
                    city.centers.map(\.latitude), city.centers.map(\.longitude), city.reach_m, city.centers.count,
                    EarthModel.sphereRadius_m)
            else { fatalError("fencelab-bench: fl_ref_places_new: out of memory") }
            handle = h
        }
        deinit { fl_ref_places_free(handle) }
    }

    /// A seeded city (Berlin, a 20 km × 20 km box): 30 % of the places uniform by area, 70 % in
    /// clusters of about 40 (σ 250 m per axis, the shops of a district), each with its own entry
    /// reach uniform in 25…150 m; and a 1 Hz drive at 12 m/s from place to place (each next
    /// target a random place of the set), with 4 m of Gaussian noise per axis.
    final class City: Sendable {
        let centers: [Coordinate]
        let reach_m: [Double]
        let fixes: [Coordinate]

        init(places: Int, seed: UInt64, fixes count: Int = PlacesBenchmarks.fixesPerRun) {
            let rng = Workloads.source(seed: seed)
            let frame = Workloads.centerFrame()
            let half_m = 10_000.0
            func uniform() -> SIMD2<Double> {
                SIMD2((2 * rng.uniform() - 1) * half_m, (2 * rng.uniform() - 1) * half_m)
            }
            let clusters = (0..<max(1, places / 40)).map { _ in uniform() }
            var planar: [SIMD2<Double>] = []
            var reach: [Double] = []
            for i in 0..<places {
                if i % 10 < 3 {
                    planar.append(uniform())
                } else {
                    let c = clusters[i % clusters.count]
                    planar.append(c + SIMD2(rng.gaussianZiggurat(sigma: 250), rng.gaussianZiggurat(sigma: 250)))
                }
                reach.append(25 + 125 * rng.uniform())
            }
            centers = planar.map { frame.coordinate(east_m: $0.x, north_m: $0.y) }
            reach_m = reach
            var position = planar[0]
            var target = planar[Int(rng.uniform() * Double(places)) % places]
            var fixes: [Coordinate] = []
            fixes.reserveCapacity(count)
            for _ in 0..<count {
                let toTarget = target - position
                let d = (toTarget * toTarget).sum().squareRoot()
                if d <= 12 {
                    position = target
                    target = planar[Int(rng.uniform() * Double(places)) % places]
                } else {
                    position += toTarget * (12 / d)
                }
                let noisy = position + SIMD2(rng.gaussianZiggurat(sigma: 4), rng.gaussianZiggurat(sigma: 4))
                fixes.append(frame.coordinate(east_m: noisy.x, north_m: noisy.y))
            }
            self.fixes = fixes
        }

        /// Per fix, the index's candidate count against the C kernel's; nil when all agree.
        func checkAgainstC(_ index: PlaceIndex) -> String? {
            let tree = CPlaceTree(self)
            var perFix = [Int](repeating: 0, count: fixes.count)
            _ = fl_ref_places_count(
                tree.handle, fixes.map(\.latitude), fixes.map(\.longitude), fixes.count, &perFix)
            var differ = 0
            for (i, c) in fixes.enumerated() {
                var n = 0
                index.forEachCandidate(near: c) { _ in n += 1 }
                if n != perFix[i] { differ += 1 }
            }
            return differ == 0
                ? nil : "\(differ) of \(fixes.count) fixes get another candidate count from fl_ref_places_count"
        }
    }
}
