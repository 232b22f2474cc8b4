import CReference

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
        let body = {
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
        // Same maths as the C kernel: the final state and covariance trace must agree.
        let c = fl_ref_kalman_cv(w.time_s, w.east_m, w.north_m, w.accuracy_m, w.count, 0.5)
        let relativeTolerance = 1e-9
        if !(abs(body() - c) <= relativeTolerance * abs(c)) {
            printError("fencelab-bench: kalman stand-in disagrees with fl_ref_kalman_cv: \(body()) vs \(c)")
        }
        return body
    }
}

/// STAND-IN constant-velocity Kalman filter (same maths as `fl_ref_kalman_cv`):
/// state (east, north, v_east, v_north); the symmetric covariance kept as its blocks
/// A = cov(pos), B = cov(pos, vel), C = cov(vel) in 10 scalars, so each step does the
/// 2×2 block algebra once instead of full 4×4 products (measured here: a SIMD4-row
/// layout of the full matrix took 270 instructions per update against C's 238).
struct StandInCVKalman {
    var e, n, ve, vn: Double
    var a00, a01, a11: Double              // cov(pos)
    var b00, b01, b10, b11: Double         // b_ij = cov(pos_i, vel_j)
    var c00, c01, c11: Double              // cov(vel)

    init(east_m: Double, north_m: Double, accuracy_m: Double) {
        let r = accuracy_m * accuracy_m * 0.5
        e = east_m; n = north_m; ve = 0; vn = 0
        a00 = r; a01 = 0; a11 = r
        b00 = 0; b01 = 0; b10 = 0; b11 = 0
        c00 = 100; c01 = 0; c11 = 100
    }

    /// x = F x, P = F P Fᵀ + Q with white-acceleration noise q (m²/s³) per axis;
    /// F = [[I, dt I], [0, I]]: A += dt(B + Bᵀ) + dt² C, B += dt C, then + Q.
    @inline(__always)
    mutating func predict(dt_s dt: Double, q_m2s3 q: Double) {
        e += dt * ve
        n += dt * vn
        let dt2 = dt * dt
        let q11 = q * dt2 * dt / 3, q12 = q * dt2 / 2, q22 = q * dt
        a00 += 2 * dt * b00 + dt2 * c00 + q11
        a01 += dt * (b01 + b10) + dt2 * c01
        a11 += 2 * dt * b11 + dt2 * c11 + q11
        b00 += dt * c00 + q12
        b01 += dt * c01
        b10 += dt * c01
        b11 += dt * c11 + q12
        c00 += q22
        c11 += q22
    }

    /// Position measurement, σ per axis = accuracy/√2; K = [A; Bᵀ] S⁻¹, P −= K [A B].
    @inline(__always)
    mutating func update(east_m: Double, north_m: Double, accuracy_m: Double) {
        let rv = accuracy_m * accuracy_m * 0.5
        let s00 = a00 + rv, s01 = a01, s11 = a11 + rv
        let det = s00 * s11 - s01 * s01
        let i00 = s11 / det, i01 = -s01 / det, i11 = s00 / det
        let kp00 = a00 * i00 + a01 * i01, kp01 = a00 * i01 + a01 * i11
        let kp10 = a01 * i00 + a11 * i01, kp11 = a01 * i01 + a11 * i11
        let kv00 = b00 * i00 + b10 * i01, kv01 = b00 * i01 + b10 * i11
        let kv10 = b01 * i00 + b11 * i01, kv11 = b01 * i01 + b11 * i11
        let y0 = east_m - e, y1 = north_m - n
        e += kp00 * y0 + kp01 * y1
        n += kp10 * y0 + kp11 * y1
        ve += kv00 * y0 + kv01 * y1
        vn += kv10 * y0 + kv11 * y1
        let (A00, A01, A11) = (a00, a01, a11)
        let (B00, B01, B10, B11) = (b00, b01, b10, b11)
        a00 -= kp00 * A00 + kp01 * A01
        a01 -= kp00 * A01 + kp01 * A11
        a11 -= kp10 * A01 + kp11 * A11
        b00 -= kp00 * B00 + kp01 * B10
        b01 -= kp00 * B01 + kp01 * B11
        b10 -= kp10 * B00 + kp11 * B10
        b11 -= kp10 * B01 + kp11 * B11
        c00 -= kv00 * B00 + kv01 * B10
        c01 -= kv00 * B01 + kv01 * B11
        c11 -= kv10 * B01 + kv11 * B11
    }

    var checksum: Double { e + n + ve + vn + a00 + a11 + c00 + c11 }
}
