import FenceLabBench
import GSLKit
import GeoPolicy

/// Seeded test data shared by benchmarks and kernels (built once, outside timing).
/// Every draw comes from a GSL generator (GSLKit.RandomSource).
enum Workloads {
    static func source(seed: UInt64) -> RandomSource {
        do { return try RandomSource(seed: seed) } catch {
            fatalError("fencelab-bench: cannot create a GSL generator: \(error)")
        }
    }

    /// Fence centre (Berlin, as the example in docs/scenario-format.md).
    static let fenceCenter = (latitude: 52.52, longitude: 13.405)

    /// The local east/north frame at the fence centre.
    static func centerFrame() -> LocalFrame {
        do {
            return LocalFrame(anchor: try Coordinate(latitude: fenceCenter.latitude, longitude: fenceCenter.longitude))
        } catch {
            fatalError("fencelab-bench: fence centre: \(error)")
        }
    }

    /// Fixes around the fence centre as contiguous arrays (degrees, metres).
    final class FenceFixes: Sendable {
        let latitude: [Double]
        let longitude: [Double]
        let accuracy_m: [Double]
        var count: Int { latitude.count }

        /// Distances 0–200 m from the centre in a random walk across the 80/120 m band,
        /// accuracy 2–40 m (some above the 30 m gate), about 3 % invalid
        /// (NaN latitude, latitude 91, accuracy −1).
        init(count: Int, seed: UInt64) {
            let rng = Workloads.source(seed: seed)
            let frame = Workloads.centerFrame()
            var lat: [Double] = []
            var lon: [Double] = []
            var acc: [Double] = []
            lat.reserveCapacity(count)
            lon.reserveCapacity(count)
            acc.reserveCapacity(count)
            var r = 100.0
            for i in 0..<count {
                r = min(200, max(0, r + rng.gaussianZiggurat(sigma: 12)))
                let bearing = rng.uniform() * 2 * Double.pi
                let c = frame.coordinate(east_m: r * _sin(bearing), north_m: r * _cos(bearing))
                lat.append(i % 97 == 13 ? .nan : (i % 83 == 7 ? 91 : c.latitude))
                lon.append(c.longitude)
                acc.append(i % 89 == 5 ? -1 : 2 + 38 * rng.uniform())
            }
            latitude = lat
            longitude = lon
            accuracy_m = acc
        }
    }

    /// A straight drive at 15 m/s east with Gaussian position noise, 1 Hz, in a local plane.
    final class TrackInPlane: Sendable {
        let time_s: [Double], east_m: [Double], north_m: [Double], accuracy_m: [Double]
        let latitude: [Double], longitude: [Double]
        var count: Int { time_s.count }

        init(count: Int, seed: UInt64, sigma_m: Double = 5) {
            let rng = Workloads.source(seed: seed)
            let frame = Workloads.centerFrame()
            var t: [Double] = []
            var e: [Double] = []
            var n: [Double] = []
            var a: [Double] = []
            var la: [Double] = []
            var lo: [Double] = []
            for i in 0..<count {
                let east = 15 * Double(i) + rng.gaussianZiggurat(sigma: sigma_m)
                let north = rng.gaussianZiggurat(sigma: sigma_m)
                t.append(Double(i))
                e.append(east)
                n.append(north)
                a.append(sigma_m * 2.0.squareRoot())
                let c = frame.coordinate(east_m: east, north_m: north)
                la.append(c.latitude)
                lo.append(c.longitude)
            }
            time_s = t
            east_m = e
            north_m = n
            accuracy_m = a
            latitude = la
            longitude = lo
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
@inline(__always) func _sin(_ x: Double) -> Double { sin(x) }
@inline(__always) func _cos(_ x: Double) -> Double { cos(x) }
@inline(__always) func _asinDegrees(_ x: Double) -> Double { asin(x) * 180 / Double.pi }
