import Foundation
import GSLKit
import GeoPolicy
import Testing
import _TestSupport

/// Statistical properties of `KalmanFilter` on noisy drives (noise from GSL, seeded).
@Suite struct KalmanStatisticsTests {
    static let sigma_m = 5.0  // per-axis noise σ; the fixes report DRMS = σ√2
    static let q_m2ps3 = 1.0  // filter's acceleration density
    static let speed_mps = 30.0
    static let relativeTolerance = 0.05

    /// Per-axis steady state of the filter with dt = 1 s, from the Riccati recursion:
    /// gain K∞, and the filtered position variance E∞ of the error on a truly constant-velocity
    /// track (no process noise in the truth): E = (I−KH) F E Fᵀ (I−KH)ᵀ + K r Kᵀ.
    static func steadyState(
        q: Double, r: Double
    ) -> (gain: SIMD2<Double>, riccatiP00: Double, constantVelocityE00: Double) {
        var p = (pp: r, pv: 0.0, vv: 900.0)  // any SPD start converges
        var k = SIMD2<Double>.zero
        for _ in 0..<10_000 {
            // Predict: F P Fᵀ + Q, dt = 1.
            let pp = p.pp + 2 * p.pv + p.vv + q / 3
            let pv = p.pv + p.vv + q / 2
            let vv = p.vv + q
            let s = pp + r
            k = SIMD2(pp / s, pv / s)
            p = (pp - k.x * pp, pv - k.x * pv, vv - k.y * pv)
        }
        var e = (pp: r, pv: 0.0, vv: 900.0)
        for _ in 0..<10_000 {
            let pp = e.pp + 2 * e.pv + e.vv
            let pv = e.pv + e.vv
            let vv = e.vv
            // A = [[1−k0, 0], [−k1, 1]]; A M Aᵀ + r k kᵀ.
            let a00 = 1 - k.x
            let a10 = -k.y
            let npp = a00 * a00 * pp + r * k.x * k.x
            let npv = a00 * (a10 * pp + pv) + r * k.x * k.y
            let nvv = a10 * a10 * pp + 2 * a10 * pv + vv + r * k.y * k.y
            e = (npp, npv, nvv)
        }
        return (k, p.pp, e.pp)
    }

    struct DriveStats {
        var rmse_m: Double
        var max_m: Double
        var seedRMSE_m: Double
        var seedMax_m: Double
    }

    /// `replicates` straight constant-speed drives of `duration_s` through `middle` with `bearing_deg`
    /// (a great circle through the middle), white Gaussian noise σ per axis, 1 Hz; error statistics after burn-in.
    static func drive(
        middle: Coordinate, bearing_deg: Double, seed: UInt64, replicates: Int = 120,
        duration_s: Int = 400, burnIn_s: Int = 100
    ) throws -> DriveStats {
        let rng = try RandomSource(seed: seed)
        let frame = LocalFrame(anchor: middle)
        let b = bearing_deg * Double.pi / 180
        var sum2 = 0.0
        var n = 0.0
        var maxErr = 0.0
        var seedSum2 = 0.0
        var seedMax = 0.0
        let haversine = Haversine()
        for _ in 0..<replicates {
            var filter = try KalmanFilter(accelerationDensity_m2ps3: q_m2ps3)
            var seedFilter = try SeedKalman()
            for i in 0...duration_s {
                let s = speed_mps * Double(i - duration_s / 2)
                let truth = frame.coordinate(east_m: s * sin(b), north_m: s * cos(b))
                let noisy = LocalFrame(anchor: truth).coordinate(
                    east_m: rng.gaussian(sigma: sigma_m),
                    north_m: rng.gaussian(sigma: sigma_m))
                let fix = Fix(
                    timestamp_s: Double(i), latitude: noisy.latitude, longitude: noisy.longitude,
                    horizontalAccuracy_m: sigma_m * 2.0.squareRoot())
                try filter.update(fix)
                let seedOut = try seedFilter.process(fix)
                guard i >= burnIn_s else { continue }
                let d = haversine.distance_m(try #require(filter.estimate).position, truth)
                sum2 += d * d
                n += 1
                maxErr = max(maxErr, d)
                let ds = haversine.distance_m(seedOut.position, truth)
                seedSum2 += ds * ds
                seedMax = max(seedMax, ds)
            }
        }
        return DriveStats(
            rmse_m: (sum2 / n).squareRoot(), max_m: maxErr,
            seedRMSE_m: (seedSum2 / n).squareRoot(), seedMax_m: seedMax)
    }

    static let reference = try! Coordinate(latitude: 45, longitude: 10)
    static let dateLine = try! Coordinate(latitude: 0.5, longitude: 180)
    /// 1 km from the north pole on the 180° meridian; a drive heading east there passes the
    /// pole at 1 km, its longitude sweeping from about −100° through ±180° to +100°.
    static let nearPole = try! Coordinate(
        latitude: 90 - 1000 / EarthModel.sphereRadius_m * 180 / Double.pi, longitude: 180)

    /// Straight constant-speed drive with white noise: the steady-state RMS error matches the
    /// Riccati prediction within 5 %, at mid-latitudes, across the date line and past a pole.
    @Test func steadyStateErrorMatchesRiccati() throws {
        let ss = Self.steadyState(q: Self.q_m2ps3, r: Self.sigma_m * Self.sigma_m)
        let predicted_m = (2 * ss.constantVelocityE00).squareRoot()  // horizontal = √(2 × per-axis variance)
        var results: [String: DriveStats] = [:]
        for (name, middle) in [("reference", Self.reference), ("dateLine", Self.dateLine), ("pole", Self.nearPole)] {
            let stats = try Self.drive(middle: middle, bearing_deg: 90, seed: 404)
            results[name] = stats
            #expect(
                isClose(stats.rmse_m, predicted_m, relativeTolerance: Self.relativeTolerance),
                "\(name): RMSE \(stats.rmse_m) m, Riccati \(predicted_m) m")
            // Far below the raw noise (DRMS = σ√2 ≈ 7.07 m) and never a wild point.
            #expect(stats.max_m < 10 * Self.sigma_m, "\(name): max \(stats.max_m) m")
        }
        let ref = try #require(results["reference"])
        for name in ["dateLine", "pole"] {
            let r = try #require(results[name])
            #expect(isClose(r.rmse_m, ref.rmse_m, relativeTolerance: Self.relativeTolerance), "\(name) vs reference")
        }
        // The seed filter lags in motion everywhere (≈ 90 m behind at 30 m/s) …
        #expect(ref.seedRMSE_m > 5 * ref.rmse_m, "seed \(ref.seedRMSE_m) m vs \(ref.rmse_m) m")
        // … and breaks where longitude wraps: across ±180° at the equator it averages to the other
        // side of the Earth (thousands of km); 1 km from the pole the same wrap throws the
        // estimate across the polar cap, to the far side of the pole (≈ 2 km off, > 1 km).
        let dl = try #require(results["dateLine"])
        let pole = try #require(results["pole"])
        #expect(dl.seedMax_m > 1_000_000, "seed max across the date line \(dl.seedMax_m) m")
        #expect(
            pole.seedMax_m > 1_000 && pole.seedMax_m > 5 * ref.seedMax_m,
            "seed max near the pole \(pole.seedMax_m) m vs \(ref.seedMax_m) m")
    }

    /// When the truth itself has white acceleration of density q, the error covariance is the
    /// Riccati solution P∞ itself (drive simulated per axis in one plane).
    @Test func matchedModelErrorEqualsRiccatiCovariance() throws {
        let ss = Self.steadyState(q: Self.q_m2ps3, r: Self.sigma_m * Self.sigma_m)
        let rng = try RandomSource(seed: 77)
        let q = Self.q_m2ps3
        // Cholesky of Q = q[[1/3, 1/2], [1/2, 1]] for dt = 1.
        let l00 = (q / 3).squareRoot()
        let l10 = (q / 2) / l00
        let l11 = (q - l10 * l10).squareRoot()
        var sum2 = 0.0
        var n = 0.0
        let anchor = Self.reference
        for _ in 0..<100 {
            let frame = LocalFrame(anchor: anchor)
            var x = SIMD4<Double>(0, 0, 20, 5)  // east, north, vE, vN
            var filter = try KalmanFilter(accelerationDensity_m2ps3: q)
            for i in 0...400 {
                if i > 0 {
                    x = SIMD4(x[0] + x[2], x[1] + x[3], x[2], x[3])
                    for axis in 0..<2 {
                        let w0 = rng.gaussian(sigma: 1)
                        let w1 = rng.gaussian(sigma: 1)
                        x[axis] += l00 * w0
                        x[axis + 2] += l10 * w0 + l11 * w1
                    }
                }
                let truth = frame.coordinate(east_m: x[0], north_m: x[1])
                let noisy = LocalFrame(anchor: truth).coordinate(
                    east_m: rng.gaussian(sigma: Self.sigma_m),
                    north_m: rng.gaussian(sigma: Self.sigma_m))
                try filter.update(
                    Fix(
                        timestamp_s: Double(i), latitude: noisy.latitude, longitude: noisy.longitude,
                        horizontalAccuracy_m: Self.sigma_m * 2.0.squareRoot()))
                guard i >= 100 else { continue }
                let d = Haversine().distance_m(try #require(filter.estimate).position, truth)
                sum2 += d * d
                n += 1
            }
        }
        let rmse = (sum2 / n).squareRoot()
        let predicted = (2 * ss.riccatiP00).squareRoot()
        #expect(
            isClose(rmse, predicted, relativeTolerance: Self.relativeTolerance),
            "RMSE \(rmse) m, Riccati \(predicted) m")
    }

    @Test func covarianceStaysSymmetricPositiveDefiniteOverAMillionUpdates() throws {
        let rng = try RandomSource(seed: 2026)
        var filter = try KalmanFilter(accelerationDensity_m2ps3: 0.5)
        var t = 0.0
        var distance = 0.0
        let start = try Coordinate(latitude: 0.3, longitude: 179.0)
        var failures = 0
        for i in 0..<1_000_000 {
            // Mostly 1 Hz, sometimes 1 ms, sometimes a 10-minute gap; accuracy 0.5 … 200 m.
            let u = rng.uniform()
            let dt = u < 0.01 ? 1e-3 : (u > 0.999 ? 600 : 0.2 + 2 * rng.uniform())
            t += dt
            distance = (distance + 30 * dt).truncatingRemainder(dividingBy: 40_000_000)
            let acc = 0.5 + 199.5 * rng.uniform()
            let truth = start.destination(bearing_deg: 80, distance_m: distance)
            let p = LocalFrame(anchor: truth).coordinate(
                east_m: rng.gaussian(sigma: acc / 2.0.squareRoot()),
                north_m: rng.gaussian(sigma: acc / 2.0.squareRoot()))
            try filter.update(
                Fix(timestamp_s: t, latitude: p.latitude, longitude: p.longitude, horizontalAccuracy_m: acc))
            if !filter.covariance.isSymmetricPositiveDefinite {
                failures += 1
                if failures < 5 { Issue.record("step \(i): covariance \(filter.covariance) not SPD") }
            }
        }
        #expect(failures == 0)
        #expect(filter.reanchorCount > 1000)
    }
}
