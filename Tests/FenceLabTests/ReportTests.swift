import FenceLab
import Foundation
import GSLKit
import GeoPolicy
import ReportKit
import Testing
import _FenceLabSupport
import _TestSupport

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Synthetic inputs that look like a run (no DriveSim/Track needed): a loitering user and a
/// straight pass, Gaussian noise from GSL, a local hysteresis rule, exponential smoothing
/// standing in for the filters.
enum SampleReport {
    static func hysteresis(_ previous: FenceState, _ d: Double) -> FenceState {
        d <= 80 ? .inside : (d >= 120 ? .outside : previous)
    }

    struct Replicate {
        var metrics: ReplicateMetrics
        var plots: ScenarioPlots
    }

    static func replicate(loiter: Bool, seed: UInt64) throws -> Replicate {
        let rng = try RandomSource(seed: seed)
        let duration = loiter ? 1800 : 200
        let sigma = loiter ? 8.0 : 5.0
        var truth: [PlanePoint] = []
        var obs: [TrackPoint] = []
        var truthStates: [StateSample] = []
        var obsStates: [StateSample] = []
        var times: [Double] = []
        var raw: [Double] = []
        var filtered: [Double] = []
        var seedBase: [Double] = []
        var ts = FenceState.unknown
        var os = FenceState.unknown
        var r = 100.0
        var bearing = 0.4
        var fE = 0.0
        var fN = 0.0
        var sE = 0.0
        var sN = 0.0
        for i in 0..<duration {
            let t = Double(i)
            let e: Double
            let n: Double
            if loiter {
                r += rng.gaussian(sigma: 0.6)
                bearing += 0.002
                e = r * cos(bearing)
                n = r * sin(bearing)
            } else {
                e = -2500 + 25 * t
                n = 30
            }
            let oe = e + rng.gaussian(sigma: sigma)
            let on = n + rng.gaussian(sigma: sigma)
            ts = hysteresis(ts, (e * e + n * n).squareRoot())
            os = hysteresis(os, (oe * oe + on * on).squareRoot())
            if i == 0 {
                fE = oe
                fN = on
                sE = oe
                sN = on
            }
            fE += 0.5 * (oe - fE)
            fN += 0.5 * (on - fN)
            sE += 0.15 * (oe - sE)
            sN += 0.15 * (on - sN)
            truth.append(PlanePoint(east_m: e, north_m: n))
            obs.append(TrackPoint(east_m: oe, north_m: on, state: os))
            truthStates.append(StateSample(time_s: t, state: ts))
            obsStates.append(StateSample(time_s: t, state: os))
            times.append(t)
            raw.append(((oe - e) * (oe - e) + (on - n) * (on - n)).squareRoot())
            filtered.append(((fE - e) * (fE - e) + (fN - n) * (fN - n)).squareRoot())
            seedBase.append(((sE - e) * (sE - e) + (sN - n) * (sN - n)).squareRoot())
        }
        var flutter = try Flutter.measure(
            truth: Flutter.transitions(of: truthStates), observed: Flutter.transitions(of: obsStates))
        flutter.modelDisagreements = 0
        var gaps: [FilledGap] = []
        for (k, length) in [8.0, 20, 45, 90].enumerated() {
            for (mi, method) in GapFillMethodName.all.enumerated() {
                let growth = [0.4, 0.9, 0.3][mi]
                gaps.append(
                    FilledGap(
                        method: method, duration_s: length,
                        errors_m: (0..<Int(length)).map { j in
                            abs(rng.gaussian(sigma: 2)) + growth * Double(j % (k + 5))
                        }))
            }
        }
        let rejections = RejectionMetrics.measure(
            rejections: [Rejection(fixIndex: 5, reason: "inaccurate"), Rejection(fixIndex: 9, reason: "stale")],
            faults: [LabelledFault(fixIndex: 9, label: "stale"), LabelledFault(fixIndex: 12, label: "duplicate")])
        let metrics = ReplicateMetrics(
            flutter: flutter, rejections: rejections,
            kalman: [
                .raw: try #require(try ErrorSummary.of(raw)), .filtered: try #require(try ErrorSummary.of(filtered)),
                .seedBaseline: try #require(try ErrorSummary.of(seedBase)),
            ],
            gapFill: try GapFillMetrics.measure(gaps, methods: GapFillMethodName.all),
            throughput: Throughput(engineFixes_per_s: 2.5e7, generatorFixes_per_s: 4e6))
        let plots = ScenarioPlots(
            fence: FencePlotGeometry(enter_m: 80, exit_m: 120, centerLatitude: 52.52, centerLongitude: 13.405),
            caption: "replicate 1", observedTrack: obs, truthTrack: truth,
            truthStates: truthStates, observedStates: obsStates,
            errors: ErrorSeries(time_s: times, raw_m: raw, filtered_m: filtered, seedBaseline_m: seedBase))
        return Replicate(metrics: metrics, plots: plots)
    }

    static func scenario(name: String, loiter: Bool, seed: UInt64, bounds: [ExpectationBound]) throws -> ScenarioReport
    {
        let reps = try (0..<5).map { try replicate(loiter: loiter, seed: seed + UInt64($0)) }
        let aggregate = try MetricAggregate.aggregate(reps.map(\.metrics))
        return ScenarioReport(
            name: name, rulesVersion: "hysteresis-80-120-acc30", seed: seed, replicates: reps.count,
            metrics: aggregate, expectations: try Expectations.check(bounds, against: aggregate),
            plots: reps[0].plots)
    }

    static func make(includeCoordinates: Bool = false, time: String = "2026-11-29T17:00:00Z") throws -> RunReport {
        let loiter = try scenario(
            name: "edge-loiter-100m <&\"'>", loiter: true, seed: 7,
            bounds: [
                try ExpectationBound(path: "flutter.spurious", max: 0),
                try ExpectationBound(path: "kalman.filtered.rmse_m", max: 20),
            ])
        let pass = try scenario(
            name: "highway-pass", loiter: false, seed: 40,
            bounds: [
                try ExpectationBound(path: "flutter.missed", max: 0),
                try ExpectationBound(path: "kalman.raw.rmse_m", min: 1, max: 20),
            ])
        let run = RunInfo(
            toolVersion: ToolVersion.string, gitCommit: "0123456789abcdef0123456789abcdef01234567",
            swiftToolchain: RunEnvironment.swiftToolchain, gslVersion: GSLRuntime.version,
            generator: "mt19937", seeds: [7, 40], rulesVersions: ["hysteresis-80-120-acc30"], time_utc: time)
        return RunReport(run: run, scenarios: [loiter, pass], includeCoordinates: includeCoordinates)
    }
}

@Suite struct ReportTests {
    @Test func acceptanceKeepsLevelsApart() throws {
        let report = try SampleReport.make()
        #expect(report.acceptance.rules.checks == 4)
        #expect(report.acceptance.rules.status == .failed)
        #expect(report.acceptance.rules.failures.map(\.result.bound.path) == ["flutter.spurious"])
        #expect(report.acceptance.device.status == .notVerified)
        #expect(!report.passed)
    }

    @Test func jsonIsDeterministicAndParses() throws {
        let a = JSONReport.render(try SampleReport.make())
        let b = JSONReport.render(try SampleReport.make())
        #expect(a == b)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(a.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["schema", "run", "scenarios", "acceptance"])
        // Fixed key order, independent of dictionary hashing.
        let keys = ["\"schema\"", "\"run\"", "\"scenarios\"", "\"acceptance\""].map { a.range(of: $0)!.lowerBound }
        #expect(keys == keys.sorted())
        let scenario = try #require((object["scenarios"] as? [[String: Any]])?.first)
        for group in JSONReport.metricGroups { #expect(scenario[group] != nil, "missing \(group)") }
        let spurious = try #require((scenario["flutter"] as? [String: Any])?["spurious"] as? [String: Any])
        #expect(Set(spurious.keys) == ["mean", "ci95", "n"])
        #expect((spurious["ci95"] as? [Double])?.count == 2)
        let device = try #require(
            ((object["acceptance"] as? [String: Any])?["device"] as? [String: Any])?["status"] as? String)
        #expect(device == "not-verified")
        let kalmanOrder = ["\"raw\"", "\"filtered\"", "\"seedBaseline\""].map { a.range(of: $0)!.lowerBound }
        #expect(kalmanOrder == kalmanOrder.sorted())
    }

    @Test func jsonNumbersRoundTripExactly() throws {
        let report = try SampleReport.make()
        let text = JSONReport.render(report)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let scenario = try #require((object["scenarios"] as? [[String: Any]])?.first)
        let raw = try #require(
            ((scenario["kalman"] as? [String: Any])?["raw"] as? [String: Any])?["rmse_m"] as? [String: Any])
        let expected = try #require(report.scenarios[0].metrics.estimate("kalman.raw.rmse_m"))
        // Foundation's Linux JSON parser is not correctly rounded, so compare loosely there and
        // check the exact round trip of the written text with Swift's own parser.
        #expect(isClose(try #require(raw["mean"] as? Double), expected.mean, relativeTolerance: 1e-14))
        let written = JSONValue.number(expected.mean).serialized()
        #expect(text.contains("\"mean\": " + written))
        for x in [
            expected.mean, expected.lower, 0.1, 1e-300, Double.leastNonzeroMagnitude, 123456789.123456789, -2.5e22,
        ] {
            #expect(Double(JSONValue.number(x).serialized()) == x, "round trip of \(x)")
        }
        #expect(JSONValue.number(.nan).serialized() == "null")
        #expect(JSONValue.string("a\"b\\c\n\u{1}").serialized() == "\"a\\\"b\\\\c\\n\\u0001\"")
    }

    @Test func onlyTimeDiffersBetweenIdenticalRuns() throws {
        let a = JSONReport.render(try SampleReport.make(time: "2026-11-29T17:00:00Z")).split(separator: "\n")
        let b = JSONReport.render(try SampleReport.make(time: "2026-11-29T18:00:00Z")).split(separator: "\n")
        let differing = zip(a, b).filter { $0 != $1 }
        #expect(a.count == b.count)
        #expect(differing.count == 1 && differing[0].0.contains("\"time\""))
    }

    @Test func noRawCoordinatesUnlessAsked() throws {
        // Default: no file holds the fence centre. Asked for: report.json and index.html show it.
        for include in [false, true] {
            let files = ReportWriter.render(try SampleReport.make(includeCoordinates: include))
            for file in files {
                let text = String(decoding: file.bytes, as: UTF8.self)
                let expected = include && (file.name == "report.json" || file.name == "index.html")
                #expect(
                    text.contains("52.52") == expected && text.contains("13.405") == expected,
                    "\(file.name) include \(include)")
            }
        }
    }

    @Test func markdownPutsWorstFirst() throws {
        let md = MarkdownReport.render(try SampleReport.make())
        #expect(
            md.hasPrefix("# FenceLab report: FAILED — rules level FAILED (1 of 4 checks) · device level not verified"))
        let expectSection = md.components(separatedBy: "## Expectations")[1].components(separatedBy: "## Flutter")[0]
        let rows = expectSection.split(separator: "\n").filter { $0.hasPrefix("| edge") || $0.hasPrefix("| highway") }
        #expect(rows.first?.contains("FAIL") == true)
        let flutter = md.components(separatedBy: "## Flutter")[1].split(separator: "\n").filter {
            $0.hasPrefix("| edge") || $0.hasPrefix("| highway")
        }
        #expect(flutter.first?.hasPrefix("| edge") == true)  // the loiter has more spurious transitions
        // Names are data, never markup: '<' and '&' arrive as entities (no raw HTML in report.md).
        #expect(md.contains("edge-loiter-100m &lt;&amp;\"'>"))
        #expect(!md.contains("<&"))
        #expect(md.contains("Device-level**: not-verified"))
    }

    @Test func junitHasOneCasePerExpectationAndEscapes() throws {
        let xml = JUnitReport.render(try SampleReport.make())
        #expect(xml.components(separatedBy: "<testcase ").count - 1 == 4)
        #expect(xml.components(separatedBy: "<failure ").count - 1 == 1)
        #expect(xml.contains("name=\"edge-loiter-100m &lt;&amp;&quot;&apos;&gt;\""))
        #expect(!xml.contains("<&\"'>"))
        #expect(xml.contains("<testsuites name=\"fencelab\" tests=\"4\" failures=\"1\""))
        // Well-formed: Foundation's XML parser accepts it.
        #expect(XMLParser(data: Data(xml.utf8)).parse())
    }

    @Test func htmlIsSelfContainedWithPlotsAndBothLevels() throws {
        let html = HTMLReport.render(try SampleReport.make())
        #expect(html.contains("<meta name=\"viewport\""))
        #expect(
            html.contains("<h1>FAILED</h1>") && html.contains("<title>FenceLab report: FAILED — rules level FAILED"))
        #expect(html.contains("<h2>Rules level</h2>") && html.contains("<h2>Device level</h2>"))
        // (track, gap fill, 2 × timeline, 2 × error) × 2 scenarios
        #expect(html.components(separatedBy: "<svg ").count - 1 == 12)
        for forbidden in ["<script", "http://", "https://", "src=", "@import", "url(", "<link"] {
            let outsideSVGNamespace = html.replacingOccurrences(of: "xmlns=\"http://www.w3.org/2000/svg\"", with: "")
                .replacingOccurrences(of: "url(#clip-", with: "")
            #expect(!outsideSVGNamespace.contains(forbidden), "found \(forbidden)")
        }
        #expect(html.contains("edge-loiter-100m &lt;&amp;&quot;&apos;&gt;"))
        #expect(
            XMLParser(
                data: Data(
                    HTMLReport.render(try SampleReport.make()).replacingOccurrences(of: "<!DOCTYPE html>", with: "")
                        .utf8)
            ).parse())
    }

    @Test func writesSampleFolderForInspection() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-sample-report").path
        // This test's own folder, written before report folders carried their marker (or by a
        // checkout without it): FenceLab refuses to replace it, so it is removed first.
        if !FileManager.default.fileExists(atPath: dir + "/" + ReportFolder.markerName) {
            try? FileManager.default.removeItem(atPath: dir)
        }
        try ReportWriter.write(try SampleReport.make(), to: dir)
        #expect(FileManager.default.fileExists(atPath: dir + "/" + ReportFolder.markerName))
        for name in ReportWriter.fileNames {
            #expect(FileManager.default.fileExists(atPath: dir + "/" + name))
        }
    }

    @Test func gitCommitIsReadFromTheCheckout() throws {
        let commit = RunEnvironment.gitCommit(searchFrom: TestPaths.packageRoot.path)
        let git = try? runProcess(
            URL(fileURLWithPath: "/usr/bin/git"), ["-C", TestPaths.packageRoot.path, "rev-parse", "HEAD"])
        if let git, git.status == 0 {
            #expect(commit == git.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        } else {
            #expect(commit == nil || commit?.count == 40)
        }
        #expect(RunEnvironment.gitCommit(searchFrom: "/") == nil)
        #expect(RunEnvironment.utcString(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(RunEnvironment.utcString(Date(timeIntervalSince1970: 1_798_563_661)) == "2026-12-29T17:01:01Z")
    }
}

@Suite struct ReportSummaryTests {
    @Test func summaryTableAndHelpers() throws {
        let report = try SampleReport.make()
        let text = SummaryTable.render(report)
        let lines = text.split(separator: "\n")
        #expect(lines.count <= 24)  // one screen
        #expect(lines[0].hasPrefix("scenario"))
        #expect(text.contains("rules-level: failed (4 checks, 1 failed); device-level: not-verified"))
        let a = ReplicateMetrics(
            flutter: FlutterMetrics(
                transitions: 3, truthTransitions: 1, spurious: 2, missed: 0, flaps: 1,
                latencyMedian_s: nil, latencyP95_s: nil))
        let b = ReplicateMetrics(
            flutter: FlutterMetrics(
                transitions: 9, truthTransitions: 1, spurious: 8, missed: 0, flaps: 4,
                latencyMedian_s: nil, latencyP95_s: nil))
        #expect(ScenarioReport.worstReplicate([a, b, a], by: "flutter.spurious") == 1)
        #expect(ScenarioReport.worstReplicate([a], by: "kalman.raw.rmse_m") == nil)
        let s = try ScenarioReport.make(
            name: "x", rulesVersion: "v", seed: 1, replicates: [a, b],
            bounds: [try ExpectationBound(path: "flutter.spurious", max: 4)])
        #expect(s.replicates == 2 && !s.passed)
        #expect(s.metrics.estimate("flutter.spurious")?.mean == 5)
    }
}
