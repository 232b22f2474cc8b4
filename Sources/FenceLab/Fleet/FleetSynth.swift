import Foundation
import GSLKit
import GeoPolicy
import ReportKit
import _FenceLabSupport

/// A synthetic fleet of device logs (`fencelab fleet-example`, `scenarios/fleet/`): no phone
/// recorded them. Each log drives four straight passes through the fence centre at 12 m/s, one fix
/// every 2 s with 4 m Gaussian noise per axis (reported accuracy 8 m), and holds 50 s at 600 m
/// between passes. The "system" reports every true crossing of the enter (80 m) and exit (120 m)
/// radius of `hysteresis:80:120:30` after a log-normal delay (median 8 s, σ 0.5 of the log), with
/// per-cohort behaviour injected:
/// - `os=ios-17`: exits 90 s late (beyond the 60 s match window: late system events);
/// - `device=galaxy-s23`: each event delivered a second time 5 s later with probability ½;
/// - `app=2.3.1` on `device=pixel-7` (the regression, `regression: true`): every event 40 s later.
package enum FleetSynth {
    /// The fence the synthetic logs monitor (Berlin, the replay examples' fence).
    package static let centerLatitude = 52.52
    package static let centerLongitude = 13.405
    /// The cohorts, `(device, os)`, and the two builds.
    package static let cohorts = [
        ("pixel-7", "android-14"), ("galaxy-s23", "android-14"), ("iphone-14", "ios-17"), ("iphone-14", "ios-18"),
    ]
    package static let builds = ["2.3.0", "2.3.1"]
    /// Logs per (device, os, app) of `scenarios/fleet/` (`fleet-example --logs-per-cohort`, default).
    package static let logsPerCohort = 10

    /// Injected behaviour of one log.
    package struct Behaviour: Sendable, Hashable {
        package var exitDelay_s = 0.0
        package var extraDelay_s = 0.0
        package var duplicateProbability = 0.0
    }

    package static func behaviour(device: String, os: String, app: String, regression: Bool) -> Behaviour {
        var b = Behaviour()
        if os == "ios-17" { b.exitDelay_s = 90 }
        if device == "galaxy-s23" { b.duplicateProbability = 0.5 }
        if regression, app == "2.3.1", device == "pixel-7" { b.extraDelay_s = 40 }
        return b
    }

    /// The CSV device-log text of one synthetic log (docs/device-logs.md, CSV format).
    package static func logText(seed: UInt64, start_s: Double, behaviour b: Behaviour) throws -> String {
        let rng = try RandomSource(seed: seed)
        let speed_mps = 12.0
        let reach_m = 600.0
        let step_s = 2.0
        let metresPerDegreeLat = 111_320.0
        let metresPerDegreeLon = metresPerDegreeLat * cos(centerLatitude * .pi / 180)
        var rows: [(Double, String)] = []
        var t = start_s
        var events: [(Double, String)] = []
        for pass in 0..<4 {
            let direction = pass % 2 == 0 ? 1.0 : -1.0
            let passStart = t
            let duration = 2 * reach_m / speed_mps
            var s = 0.0
            while s <= duration {
                let x = direction * (-reach_m + speed_mps * s)
                let east = x + rng.gaussian(sigma: 4)
                let north = rng.gaussian(sigma: 4)
                let lat = centerLatitude + north / metresPerDegreeLat
                let lon = centerLongitude + east / metresPerDegreeLon
                rows.append(
                    (
                        passStart + s,
                        "\(CFormat.fixed(passStart + s, decimals: 3)),\(CFormat.fixed(lat, decimals: 7)),\(CFormat.fixed(lon, decimals: 7)),8,"
                    ))
                s += step_s
            }
            // True crossings: |x| = 80 m inbound (enter), |x| = 120 m outbound (exit).
            let enter_s = passStart + (reach_m - 80) / speed_mps
            let exit_s = passStart + (reach_m + 120) / speed_mps
            for (kind, time) in [("enter", enter_s), ("exit", exit_s)] {
                var delay = rng.logNormal(zeta: log(8.0), sigma: 0.5) + b.extraDelay_s
                if kind == "exit" { delay += b.exitDelay_s }
                events.append((time + delay, kind))
                if rng.uniform() < b.duplicateProbability { events.append((time + delay + 5, kind)) }
            }
            t = passStart + duration + 50
            // Hold at the far end between passes.
            var hold = passStart + duration + step_s
            while hold < t {
                let east = direction * reach_m + rng.gaussian(sigma: 4)
                let north = rng.gaussian(sigma: 4)
                rows.append(
                    (
                        hold,
                        "\(CFormat.fixed(hold, decimals: 3)),\(CFormat.fixed(centerLatitude + north / metresPerDegreeLat, decimals: 7)),\(CFormat.fixed(centerLongitude + east / metresPerDegreeLon, decimals: 7)),8,"
                    ))
                hold += step_s
            }
        }
        for (time, kind) in events { rows.append((time, "\(CFormat.fixed(time, decimals: 3)),,,,\(kind)")) }
        rows.sort { $0.0 < $1.0 }
        return "timestamp,latitude,longitude,horizontal_accuracy,event\n" + rows.map { $0.1 + "\n" }.joined()
    }

    /// The files of the example fleet as (relative path, text): `logs/*.csv`, `manifest.csv` (with the
    /// regression) and `manifest-no-regression.csv` (the same logs, the pixel-7 2.3.1 ones replaced
    /// by logs without it). `logsPerCohort` logs per (device, os, app), ≥ 1.
    package static func files(
        seed: UInt64, logsPerCohort: Int = FleetSynth.logsPerCohort
    ) throws -> [(path: String, text: String)] {
        var files: [(String, String)] = []
        var manifest = "file,device,os,app\n"
        var clean = "file,device,os,app\n"
        var n: UInt64 = 0
        for (device, os) in cohorts {
            for app in builds {
                for i in 0..<logsPerCohort {
                    n += 1
                    let name = "logs/\(device)-\(os)-\(app)-\(i).csv"
                    let start = 1_772_366_400 + Double(n) * 1000
                    let logSeed = SeedDerivation.streamSeed(replicateSeed: seed, stream: n)
                    let b = behaviour(device: device, os: os, app: app, regression: true)
                    files.append((name, try logText(seed: logSeed, start_s: start, behaviour: b)))
                    manifest += "\(name),\(device),\(os),\(app)\n"
                    if b.extraDelay_s > 0 {
                        let cleanName = "logs/\(device)-\(os)-\(app)-\(i)-no-regression.csv"
                        let cleanBehaviour = behaviour(device: device, os: os, app: app, regression: false)
                        files.append((cleanName, try logText(seed: logSeed, start_s: start, behaviour: cleanBehaviour)))
                        clean += "\(cleanName),\(device),\(os),\(app)\n"
                    } else {
                        clean += "\(name),\(device),\(os),\(app)\n"
                    }
                }
            }
        }
        files.append(("manifest.csv", manifest))
        files.append(("manifest-no-regression.csv", clean))
        return files
    }
}
