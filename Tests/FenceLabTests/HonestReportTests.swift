import DeviceLogKit
import Foundation
import GeoPolicy
import Testing
import _TestSupport

@testable import FenceLab
@testable import ReportKit
@testable import _FenceLabSupport

/// Pages that cannot mislead: the headline states the overall outcome, figures
/// without a bound are neutral, axes use round values, a far-away route is warned about.
@Suite struct HonestReportTests {
    /// A device level from the committed synthetic Berlin log (it fails: injected rule flutter).
    static func failingDevice() throws -> DeviceAcceptance {
        let path = TestPaths.packageRoot.appendingPathComponent("scenarios/device-logs/synthetic-loiter-berlin.csv")
            .path
        let log = try DeviceLogImporter.load(path: path)
        let replay = try DeviceReplay.run(
            log, center: try Coordinate(latitude: 52.52, longitude: 13.405), rule: .default)
        #expect(replay.status == .failed)
        return DeviceAcceptance(replays: [replay])
    }

    /// Rules level passed (one passing scenario), device level given.
    static func report(device: DeviceAcceptance) throws -> RunReport {
        let pass = try SampleReport.scenario(
            name: "highway-pass", loiter: false, seed: 40,
            bounds: [
                try ExpectationBound(path: "flutter.missed", max: 0)
            ])
        let run = RunInfo(
            toolVersion: ToolVersion.string, gitCommit: nil, swiftToolchain: "t", gslVersion: "g",
            generator: "mt19937", seeds: [40], rulesVersions: ["hysteresis-80-120-acc30"], time_utc: "t")
        return RunReport(run: run, scenarios: [pass], device: device)
    }

    @Test func failedDeviceLevelMakesTheHeadlineFailedEvenWhenRulesPass() throws {
        let report = try Self.report(device: try Self.failingDevice())
        #expect(report.acceptance.rules.status == .passed)
        #expect(report.overallStatus == .failed)
        let html = HTMLReport.render(report)
        #expect(html.contains("<header class=\"banner fail\"><h1>FAILED</h1>"))
        #expect(
            html.contains(
                "<title>FenceLab report: FAILED — rules level passed (1 checks) · device level FAILED (1 of 1 device log)</title>"
            ))
        #expect(!html.contains("banner pass"))
        #expect(MarkdownReport.render(report).hasPrefix("# FenceLab report: FAILED — rules level passed"))
    }

    @Test func overallStatusOfEachCombination() throws {
        var report = try Self.report(device: .notVerified)
        #expect(report.overallStatus == .passed)
        #expect(
            HTMLReport.render(report).contains(
                "<header class=\"banner pass\"><h1>PASSED</h1><p>rules level passed (1 checks) · device level not verified (no device log)</p>"
            ))
        report.acceptance.rules.status = .notVerified
        #expect(report.overallStatus == .notVerified)
        #expect(HTMLReport.render(report).contains("<header class=\"banner unknown\"><h1>NOT-VERIFIED</h1>"))
        report.acceptance.device = try Self.failingDevice()
        #expect(report.overallStatus == .failed)  // the replay page: the log's result
    }

    @Test func figuresWithoutABoundAreNeutralNotPass() throws {
        let report = try Self.report(device: .notVerified)
        let html = HTMLReport.render(report)
        let row = try #require(
            html.components(separatedBy: "<tr><td><a href=\"#s0\">highway-pass</a></td>").dropFirst().first?
                .components(separatedBy: "</tr>").first)
        // flutter.spurious has no bound: neutral, labelled; flutter.missed has one: green.
        let cells = row.components(separatedBy: "<td").dropFirst().map { "<td" + $0 }
        #expect(cells.count == 7)
        #expect(cells[0].contains("class=\"ok\"") && cells[0].contains("pass · 1 bound"))
        #expect(cells[1].hasPrefix("<td class=\"nobound\" title=\"measured, no bound\">"))
        #expect(cells[2].hasPrefix("<td class=\"ok\" title=\"bound ≤ 0\">"))
        #expect(html.contains("Measured, no bound: flutter.spurious = "))
        // outside the collapsed table
        #expect(html.contains("Throughput (differs between runs): engineFixes_per_s 2.50e+07 fixes/s"))
        let none = ScenarioReport(
            name: "n", rulesVersion: "v", seed: 1, replicates: 1, metrics: report.scenarios[0].metrics,
            expectations: [])
        #expect(HTMLReport.verdict(none).text == "no bounds" && HTMLReport.verdict(none).cls == "nobound")
    }

    @Test func unitsAreNamedForEveryMetricKind() {
        #expect(MetricCatalog.unit(of: "flutter.spurious") == "per drive")
        #expect(MetricCatalog.unit(of: "flutter.latency_s.median") == "s")
        #expect(MetricCatalog.unit(of: "kalman.raw.rmse_m") == "m")
        #expect(MetricCatalog.unit(of: "gapFill.linear.10-30s.gaps") == "per drive")
        #expect(MetricCatalog.unit(of: "throughput.engineFixes_per_s") == "fixes/s")
    }

    @Test func timeAxisTicksLieOnRoundValues() {
        // A 1349 s drive: ticks on multiples of 5 min, labelled as time.
        let axis = SVGPlots.timeAxis(LinearScale(domain: (0, 1349), start: 70, length: 718), ticks: 6, y: 100)
        let labels = axis.components(separatedBy: "<text class=\"tick-t\"").dropFirst().map {
            $0.components(separatedBy: ">")[1].components(separatedBy: "<")[0]
        }
        #expect(labels == ["0", "5 min", "10 min", "15 min", "20 min"], "\(axis)")
    }

    @Test func scaleBarSitsBelowThePlotArea() throws {
        let plots = try #require(try SampleReport.scenario(name: "s", loiter: true, seed: 7, bounds: []).plots)
        let svg = SVGPlots.track(plots, id: "t")
        // The plot area ends at the clip rectangle's height; the scale bar's label is below it.
        let clip = try #require(
            svg.firstMatch(of: /<clipPath id="clip-t"><rect x="0" y="0" width="[0-9.]+" height="([0-9.]+)"/))
        let label = try #require(
            svg.firstMatch(of: /<text x="[0-9.]+" y="([0-9.]+)" text-anchor="end">[0-9.]+ m<\/text>/))
        let areaBottom = try #require(Double(clip.1))
        let labelY = try #require(Double(label.1))
        #expect(labelY - 10 > areaBottom, "label baseline \(labelY), plot bottom \(areaBottom)")  // 10 px ≈ cap height
    }

    @Test func farRouteIsWarnedAboutAtTenTimesTheRadius() {
        #expect(ScenarioReport.farRouteWarning(closestApproach_m: 4_999, largestRadius_m: 500) == nil)
        let w = ScenarioReport.farRouteWarning(closestApproach_m: 4_912_000, largestRadius_m: 120)
        #expect(w?.contains("closest 4912 km, radius 120 m") == true, "\(w ?? "nil")")
        #expect(ScenarioReport.farRouteWarning(closestApproach_m: nil, largestRadius_m: 120) == nil)
    }

    @Test func secondsInMessagesAreRoundedToMilliseconds() {
        #expect(ReportText.seconds(23.134999990463257) == "23.135 s")
        #expect(ReportText.seconds(60) == "60 s")
        #expect(ReportText.seconds(-0.0001) == "0 s")
        #expect(ReportText.seconds(.nan) == "NaN s")
    }
}
