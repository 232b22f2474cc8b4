import Foundation
import GeoPolicy
import Testing
import _TestSupport

@testable import FenceLab

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// junit.xml as CI systems read it: one case per fixture assertion and per scenario bound,
/// `time` everywhere, failures with unrounded values; valid against Tests/Schemas/junit.xsd.
@Suite struct JUnitSchemaTests {
    /// Sample scenarios (one bound fails) + every committed fixture + one failing device log.
    static func acceptanceReport() throws -> RunReport {
        var report = try SampleReport.make()
        report.scenarios[0].compute_s = 1.25
        report.scenarios[1].compute_s = 0.5
        let suite = try FixtureSuite.load(
            directory: TestPaths.packageRoot.appendingPathComponent("scenarios/fixtures").path)
        report.addFixtures(suite.run())
        report.acceptance.device = try HonestReportTests.failingDevice()
        return report
    }

    @Test func oneCasePerCheckWithTimesAndUnroundedFailures() throws {
        let report = try Self.acceptanceReport()
        let xml = JUnitReport.render(report)
        let fixtureChecks = report.acceptance.rules.fixtureChecks
        #expect(fixtureChecks >= 143)
        let cases = xml.components(separatedBy: "<testcase ").count - 1
        #expect(cases == 4 + fixtureChecks + 1)
        #expect(
            xml.contains("<testsuites name=\"fencelab\" tests=\"\(cases)\" failures=\"2\" errors=\"0\" skipped=\"0\""))
        // Every case and suite carries a time.
        for line in xml.split(separator: "\n") where line.contains("<testcase ") || line.contains("<testsuite ") {
            #expect(line.contains(" time=\""), "\(line)")
        }
        // Scenario suite time is the measured compute time; its two cases share it.
        #expect(xml.contains("tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\" time=\"1.250\">"))
        #expect(xml.components(separatedBy: "time=\"0.625\"").count - 1 == 2)
        // The failing bound: the message holds the unrounded mean.
        let failed = try #require(report.acceptance.rules.failures.first?.result.measured)
        #expect(
            xml.contains(
                "message=\"flutter.spurious = \(failed.mean) (ci95 \(failed.lower)…\(failed.upper), n \(failed.n)) violates max 0\""
            ))
        // One suite per fixture file, named by the file.
        for file in report.acceptance.rules.fixtureFiles {
            #expect(xml.contains("<testsuite name=\"\(file.file)\""), "\(file.file)")
        }
        #expect(XMLParser(data: Data(xml.utf8)).parse())
    }

    @Test func failingFixtureCarriesItsValues() throws {
        var report = try SampleReport.make()
        let bad = FixtureCheckResult(
            file: "f/x.json", keyPath: "cases[3]", rulesVersion: "v",
            assertion: "isInside(distance_m: 80.0, radius_m: 80.0) == true",
            passed: false, actual: "false", values: [FixtureValue("distance_m", 80.00000000000001)])
        report.addFixtures(FixtureReport(checks: [bad], files: [], checkSeconds: [0.0004]))
        let xml = JUnitReport.render(report)
        #expect(
            xml.contains(
                "<testcase classname=\"fencelab.fixtures.x\" name=\"cases[3]: isInside(distance_m: 80.0, radius_m: 80.0) == true\" time=\"0.000\">"
            ))
        #expect(
            xml.contains(
                "message=\"isInside(distance_m: 80.0, radius_m: 80.0) == true; got false (distance_m=80.00000000000001)\" type=\"fixture\""
            ))
    }

    @Test(.enabled(if: XMLSchema.testsEnabled, "needs xmllint (libxml2-utils); CI sets FENCELAB_REQUIRE_XMLLINT=1"))
    func validatesAgainstTheJUnitSchema() throws {
        let schema = XMLSchema.schema("junit.xsd")
        let acceptance = JUnitReport.render(try Self.acceptanceReport())
        let ok = try XMLSchema.validate(acceptance, schema: schema)
        #expect(ok.status == 0, "\(ok.stderr)")
        // A plain run report (no fixtures, no device suite) and a replay report validate too.
        let run = try XMLSchema.validate(JUnitReport.render(try SampleReport.make()), schema: schema)
        #expect(run.status == 0, "\(run.stderr)")
        let replay = RunReport.deviceOnly(
            run: try SampleReport.make().run, device: try HonestReportTests.failingDevice())
        let r = try XMLSchema.validate(JUnitReport.render(replay), schema: schema)
        #expect(r.status == 0, "\(r.stderr)")
        // The schema is not vacuous: a case without `time` is refused.
        let untimed = acceptance.replacingOccurrences(of: " time=\"0.625\"", with: "")
        let refused = try XMLSchema.validate(untimed, schema: schema)
        #expect(refused.status != 0 && refused.stderr.contains("time"), "\(refused.stderr)")
    }
}
