import FenceLabBench
import GeoPolicy

/// Per-fix engine pieces without a C kernel of their own: FenceMonitor (vs the C fence
/// kernel, which does a subset of its work), WGS84 inverse, geohash.
enum GeoBenchmarks {
    static let all: [Benchmark] = [monitor, wgs84Short, wgs84Global, geohashEncode, geohashDecode]

    /// `FenceMonitor.process` per fix (hysteresis 80/120/30 m, haversine, logging off):
    /// validation of time, coordinate and accuracy, order/duplicate checks, distance, rule, event.
    static let monitor = Benchmark(
        "fence/monitor-process", group: "fence", itemsPerRun: ReferenceKernels.fixesPerRun, unit: "fix",
        reference: ReferenceKernels.fenceScalar.name, target: "0 allocs/fix; ratio tracked",
        noise: 0.20  // ratio 0.53–0.635 (2026-11-29 and 11-30 runs, load 1–19)
    ) {
        let w = Workloads.FenceFixes(count: ReferenceKernels.fixesPerRun, seed: 8)
        let fixes = (0..<w.count).map {
            Fix(
                timestamp_s: Double($0), latitude: w.latitude[$0], longitude: w.longitude[$0],
                horizontalAccuracy_m: w.accuracy_m[$0])
        }
        let center: Coordinate
        let prototype: FenceMonitor<Hysteresis, Haversine>
        do {
            center = try Coordinate(
                latitude: Workloads.fenceCenter.latitude, longitude: Workloads.fenceCenter.longitude)
            prototype = try FenceMonitor(
                center: center, evaluator: FenceEvaluator(rule: Hysteresis.seedDefault),
                maxAge_s: 30, logging: .off)
        } catch { fatalError("fencelab-bench: monitor: \(error)") }
        return {
            var m = prototype
            var events = 0
            fixes.withUnsafeBufferPointer { b in
                for fix in b where m.process(fix, now_s: fix.timestamp_s + 0.5).event != nil { events += 1 }
            }
            return Double(events)
        }
    }

    /// Pairs of valid coordinates: the first uniform on the sphere, the second at a uniform
    /// distance in 0…`maxDistance_m` (nil: uniform on the sphere too) and a uniform bearing.
    final class Pairs: Sendable {
        let a: [Coordinate], b: [Coordinate]
        init(count: Int, seed: UInt64, maxDistance_m: Double?) {
            let rng = Workloads.source(seed: seed)
            func uniformOnSphere() -> Coordinate {
                let z = 2 * rng.uniform() - 1
                let lat = _asinDegrees(z)
                let lon = rng.uniform() * 360 - 180
                do { return try Coordinate(latitude: lat, longitude: lon) } catch { fatalError("\(error)") }
            }
            var a: [Coordinate] = []
            var b: [Coordinate] = []
            for _ in 0..<count {
                let p = uniformOnSphere()
                a.append(p)
                if let d = maxDistance_m {
                    b.append(p.destination(bearing_deg: rng.uniform() * 360, distance_m: rng.uniform() * d))
                } else {
                    b.append(uniformOnSphere())
                }
            }
            self.a = a
            self.b = b
        }
    }

    /// `WGS84().distance_m` for pairs ≤ 1 km (the engine's fast chord path).
    static let wgs84Short = Benchmark(
        "wgs84/distance-short", group: "wgs84", itemsPerRun: 4096, unit: "pair", target: "≥ 2e6/s",
        noise: 0.10  // items/s, 16 runs 2026-11-30 (load 12–20); 6.4e6–1.8e7 across days
    ) {
        let p = Pairs(count: 4096, seed: 21, maxDistance_m: 1_000)
        let model = WGS84()
        return { distanceSum(model, p) }
    }

    /// `WGS84().distance_m` for random global pairs (Karney's series + Newton iteration).
    static let wgs84Global = Benchmark(
        "wgs84/distance-global", group: "wgs84", itemsPerRun: 1024, unit: "pair", target: "tracked",
        noise: 0.10  // items/s, 16 runs 2026-11-30 (load 12–20)
    ) {
        let p = Pairs(count: 1024, seed: 22, maxDistance_m: nil)
        let model = WGS84()
        return { distanceSum(model, p) }
    }

    static func distanceSum(_ model: WGS84, _ p: Pairs) -> Double {
        var s = 0.0
        p.a.withUnsafeBufferPointer { a in
            p.b.withUnsafeBufferPointer { b in
                for i in 0..<a.count { s += model.distance_m(a[i], b[i]) }
            }
        }
        return s
    }

    /// `Geohash.encode` at precision 7 (≈ 150 m cells) for global coordinates.
    static let geohashEncode = Benchmark(
        "geohash/encode-p7", group: "geohash", itemsPerRun: 4096, unit: "fix", target: "0 allocs/fix",
        noise: 0.07  // items/s, 16 runs 2026-11-30 (load 12–20)
    ) {
        let p = Pairs(count: 4096, seed: 23, maxDistance_m: 1)
        return {
            var s = 0
            p.a.withUnsafeBufferPointer { a in
                for c in a {
                    do { s &+= try Geohash.encode(c, precision: 7).utf8.count } catch { s &+= 100 }
                }
            }
            return Double(s)
        }
    }

    /// `Geohash.decode` of precision-7 hashes.
    static let geohashDecode = Benchmark(
        "geohash/decode-p7", group: "geohash", itemsPerRun: 4096, unit: "hash", target: "0 allocs/hash",
        noise: 0.13  // items/s, 16 runs 2026-11-30 (load 12–20)
    ) {
        let p = Pairs(count: 4096, seed: 24, maxDistance_m: 1)
        let hashes: [String]
        do { hashes = try p.a.map { try Geohash.encode($0, precision: 7) } } catch { fatalError("\(error)") }
        return {
            var s = 0.0
            for h in hashes {
                do { s += try Geohash.decode(h).latitudeMin } catch { s += 1 }
            }
            return s
        }
    }
}
