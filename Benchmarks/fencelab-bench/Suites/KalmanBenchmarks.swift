/// Kalman update benchmarks.
///
/// STAND-IN: `StandInCVKalman` below is written here only to prove the timing path;
/// after the merge, replace it by the engine's `KalmanFilter` (GeoPolicy/Track) in
/// `cvStandIn` and rename the benchmark `kalman/cv-update`.
enum KalmanBenchmarks {
    static let all: [Benchmark] = [cvStandIn]

    static let cvStandIn = Benchmark(
        "kalman/cv-update-standin", group: "kalman", itemsPerRun: ReferenceKernels.updatesPerRun - 1,
        unit: "update", reference: ReferenceKernels.kalmanCV.name, target: "≥ 0.9× C"
    ) {
        let w = Workloads.TrackInPlane(count: ReferenceKernels.updatesPerRun, seed: 9)
        return {
            w.time_s.withUnsafeBufferPointer { t in
                w.east_m.withUnsafeBufferPointer { e in
                    w.north_m.withUnsafeBufferPointer { n in
                        w.accuracy_m.withUnsafeBufferPointer { a in
                            var f = StandInCVKalman(east_m: e[0], north_m: n[0], accuracy_m: a[0])
                            for i in 1..<t.count {
                                f.predict(dt_s: t[i] - t[i - 1], q_m2s3: 0.5)
                                f.update(east_m: e[i], north_m: n[i], accuracy_m: a[i])
                            }
                            return f.checksum
                        }
                    }
                }
            }
        }
    }
}

/// STAND-IN constant-velocity Kalman filter (same maths as `fl_ref_kalman_cv`):
/// state (east, north, v_east, v_north), covariance as four SIMD4 rows (symmetric).
struct StandInCVKalman {
    var x: SIMD4<Double>
    var p0, p1, p2, p3: SIMD4<Double>

    init(east_m: Double, north_m: Double, accuracy_m: Double) {
        let r = accuracy_m * accuracy_m * 0.5
        x = SIMD4(east_m, north_m, 0, 0)
        p0 = SIMD4(r, 0, 0, 0); p1 = SIMD4(0, r, 0, 0)
        p2 = SIMD4(0, 0, 100, 0); p3 = SIMD4(0, 0, 0, 100)
    }

    /// x = F x, P = F P Fᵀ + Q with white-acceleration noise q (m²/s³) per axis.
    @inline(__always)
    mutating func predict(dt_s dt: Double, q_m2s3 q: Double) {
        x.x += dt * x.z
        x.y += dt * x.w
        // F P: rows 0,1 gain dt × rows 2,3.
        let f0 = p0 + dt * p2, f1 = p1 + dt * p3
        // (F P) Fᵀ: columns 0,1 gain dt × columns 2,3.
        func right(_ r: SIMD4<Double>) -> SIMD4<Double> { r + dt * SIMD4(r.z, r.w, 0, 0) }
        p0 = right(f0); p1 = right(f1); p2 = right(p2); p3 = right(p3)
        let q11 = q * dt * dt * dt / 3, q12 = q * dt * dt / 2, q22 = q * dt
        p0 += SIMD4(q11, 0, q12, 0); p1 += SIMD4(0, q11, 0, q12)
        p2 += SIMD4(q12, 0, q22, 0); p3 += SIMD4(0, q12, 0, q22)
    }

    /// Position measurement, σ per axis = accuracy/√2.
    @inline(__always)
    mutating func update(east_m: Double, north_m: Double, accuracy_m: Double) {
        let rv = accuracy_m * accuracy_m * 0.5
        let s00 = p0.x + rv, s01 = p0.y, s10 = p1.x, s11 = p1.y + rv
        let det = s00 * s11 - s01 * s10
        let i00 = s11 / det, i01 = -s01 / det, i10 = -s10 / det, i11 = s00 / det
        // P symmetric: column 0 of P is row p0, column 1 is row p1.
        let k0 = p0 * i00 + p1 * i10, k1 = p0 * i01 + p1 * i11
        let y0 = east_m - x.x, y1 = north_m - x.y
        x += k0 * y0 + k1 * y1
        let h0 = p0, h1 = p1
        p0 -= k0.x * h0 + k1.x * h1
        p1 -= k0.y * h0 + k1.y * h1
        p2 -= k0.z * h0 + k1.z * h1
        p3 -= k0.w * h0 + k1.w * h1
    }

    var checksum: Double { x.sum() + p0.x + p1.y + p2.z + p3.w }
}
