import DriveSim
import FenceLabBench
import GSLKit
import GeoPolicy

/// `ScenarioGenerator.next(into:)` fixes/s per noise model on a moving waypoint route, scored
/// against raw `gsl_ran_gaussian_ziggurat` draws in C (ratio = fixes/s ÷ draws/s). Isotropic
/// noise needs two draws per fix, so 0.5× is the ceiling of a generator doing nothing else;
/// the 2e7 fixes/s is ≈ 0.42× of the C ziggurat (≈ 4.8e7 draws/s here).
enum GeneratorBenchmarks {
    static let all: [Benchmark] = [isotropic, anisotropic, gaussMarkov, studentT, isotropicStationary]

    static let fixesPerRun = 4096

    /// A spec built in code: 15 m/s around a ≈ 5 400 km loop of European cities, 50 Hz, 10⁶ s
    /// (5·10⁷ slots: the benchmark never reaches the end), drms accuracy, no faults.
    static func spec(noise: NoiseSpec, moving: Bool = true) -> ScenarioSpec {
        func c(_ lat: Double, _ lon: Double) -> Coordinate {
            do { return try Coordinate(latitude: lat, longitude: lon) } catch { fatalError("\(error)") }
        }
        let loop = [
            c(52.52, 13.405), c(52.23, 21.01), c(50.45, 30.52), c(41.01, 28.98), c(41.90, 12.50),
            c(48.86, 2.35), c(52.52, 13.405),
        ]
        let route: RouteSpec =
            moving
            ? .waypoints(
                WaypointRouteSpec(
                    points: loop + Array(loop.dropFirst()) + Array(loop.dropFirst()),
                    speed: .constant(speed_mps: 15, variation_mps: 0, variationTau_s: 1)))
            : .stationary(distance_m: 100, bearing_deg: 30)
        return ScenarioSpec(
            name: "bench-generator", description: "benchmark", rulesVersion: "hysteresis-80-120-acc30",
            seed: 31, replicates: 1,
            fence: FenceSpec(
                center: c(52.52, 13.405),
                rule: FenceRuleSpec(kind: .hysteresis(enter_m: 80, exit_m: 120, maxAccuracy_m: 30))),
            route: route, sampling: SamplingSpec(rate_hz: 50, duration_s: 1_000_000),
            noise: noise, accuracy: AccuracySpec())
    }

    /// A generator kept across body calls (recreated if it ever ends).
    final class Stream {
        let spec: ScenarioSpec
        var generator: ScenarioGenerator
        var item = GeneratedSample.placeholder
        init(_ spec: ScenarioSpec) {
            self.spec = spec
            do { generator = try ScenarioGenerator(spec: spec, replicate: 0) } catch {
                fatalError("fencelab-bench: \(error)")
            }
        }
        func run(_ n: Int) -> Double {
            var s = 0.0
            var g = generator
            var item = self.item
            for _ in 0..<n {
                if !g.next(into: &item) {
                    do { g = try ScenarioGenerator(spec: spec, replicate: 0) } catch { fatalError("\(error)") }
                    continue
                }
                s += item.fix?.latitude ?? 0
            }
            generator = g
            self.item = item
            return s
        }
    }

    /// `spread`: measured spread of the ratio (`Benchmark.noise`), 2026-11-29 and 11-30 runs, load 1–20.
    static func benchmark(
        _ name: String, _ noise: NoiseSpec, moving: Bool = true, target: String,
        spread: Double
    ) -> Benchmark {
        Benchmark(
            "generator/\(name)", group: "generator", itemsPerRun: fixesPerRun, unit: "fix",
            reference: ReferenceKernels.ziggurat.name, target: target, noise: spread
        ) {
            let stream = Stream(spec(noise: noise, moving: moving))
            return { stream.run(fixesPerRun) }
        }
    }

    static let isotropic = benchmark(
        "isotropic-moving", NoiseSpec(white: .gaussian(sigma_m: 5)),
        target: "≥ 2e7 fixes/s (≈ 0.42× C draws)", spread: 0.30)  // 0.167–0.211
    static let anisotropic = benchmark(
        "anisotropic-moving",
        NoiseSpec(white: .anisotropic(alongTrackSigma_m: 6, crossTrackSigma_m: 3, rho: 0.3)),
        target: "tracked", spread: 0.30)  // 0.118–0.150
    static let gaussMarkov = benchmark(
        "gauss-markov-moving",
        NoiseSpec(white: .gaussian(sigma_m: 3), bias: NoiseSpec.Bias(sigma_m: 4, tau_s: 60)),
        target: "tracked", spread: 0.34)  // 0.120–0.161
    static let studentT = benchmark(
        "student-t-moving", NoiseSpec(white: .gaussian(sigma_m: 5), tails: .studentT(nu: 4)),
        target: "tracked", spread: 0.36)  // 0.103–0.141
    static let isotropicStationary = benchmark(
        "isotropic-stationary", NoiseSpec(white: .gaussian(sigma_m: 5)),
        moving: false, target: "≥ 2e7 fixes/s", spread: 0.36)  // 0.272–0.368
}
