import FenceLab
import Foundation
import GeoPolicy
import Testing

/// The library API (`RuleLab`) against the command-line pipeline it wraps.
@Suite struct RuleLabTests {
    /// A 10-minute loiter in the 80/120 m band under 8 m noise, with one bound.
    static func loiter(rulesVersion: String = "hysteresis-80-120-acc30", expectMax: Double = 1000) -> String {
        """
        { "name": "lab-loiter", "description": "RuleLab test: loitering at 100 m.",
          "rulesVersion": "\(rulesVersion)", "seed": 5, "replicates": 3,
          "fence": { "center": [52.52, 13.405],
                     "rule": { "kind": "hysteresis", "enter_m": 80, "exit_m": 120, "maxAccuracy_m": 30 } },
          "route": { "kind": "loiter", "distance_m": 100, "radialSigma_m": 6, "tau_s": 120,
                     "tangentialSigma_m": 0.5, "maxDeviation_m": 15 },
          "sampling": { "rate_hz": 1, "duration_s": 600 },
          "noise": { "model": "gaussian", "sigma_m": 8 },
          "accuracy": { "model": "drms" },
          "expect": { "flutter.spurious": { "max": \(expectMax) } } }
        """
    }

    @Test func builtInRuleGivesTheSameFiguresAsTheRunner() throws {
        let scenario = try RuleLab.scenario(json: Self.loiter(), name: "lab-loiter.json")
        let result = try RuleLab().run(scenario: scenario, rule: Hysteresis.seedDefault, jobs: 2)
        #expect(result.replicates == 3)
        #expect(result.passed)
        #expect(result.scenario.expectations.count == 1)
        // Same scenario through ScenarioRunner (what `fencelab run` calls), from a file.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rulelab-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("lab-loiter.json")
        try Self.loiter().write(to: file, atomically: true, encoding: .utf8)
        var request = RunRequest()
        request.paths = [file.path]
        request.jobs = 1
        let report = try ScenarioRunner.run(try ScenarioRunner.prepare(request), request: request)
        for path in ["flutter.transitions", "flutter.spurious", "flutter.flaps", "kalman.filtered.rmse_m"] {
            #expect(try result.mean(path) == report.scenarios[0].metrics.estimate(path)?.mean, "\(path)")
        }
        let spurious = try result.values("flutter.spurious")
        #expect(spurious.count == 3)
        #expect(spurious.reduce(0, +) / 3 == (try result.mean("flutter.spurious")))
        let tolerance_per_h = 1e-9
        #expect(abs(result.spuriousPerHour.mean - (try result.mean("flutter.spurious")) * 6) <= tolerance_per_h)
        #expect(try result.mean("flutter.spurious") > 0)
    }

    /// Replicates are aggregated as they finish, in replicate order: the report's figures are the
    /// same bits for 1, 2 and 3 threads and equal the aggregate of the kept replicates; the worst
    /// replicate (whose plots the report draws) is the one `worstReplicate` picks from them.
    @Test func streamedAggregateIsIndependentOfTheThreadCount() throws {
        let scenario = try RuleLab.scenario(json: Self.loiter(), name: "lab-loiter.json")
        let runs = try [1, 2, 3].map { jobs in
            try RuleLab().run(scenario: scenario, rule: Hysteresis.seedDefault, replicates: 24, jobs: jobs)
        }
        let kept = runs[0].replicateMetrics
        #expect(kept.count == 24)
        let expected = try MetricAggregate.aggregate(kept)
        for (jobs, r) in zip([1, 2, 3], runs) {
            var figures = r.scenario.metrics
            figures.estimates = figures.estimates.filter { !$0.key.hasPrefix("throughput.") }
            var want = expected
            want.estimates = want.estimates.filter { !$0.key.hasPrefix("throughput.") }
            #expect(figures == want, "jobs \(jobs)")
            let worst = try #require(ScenarioReport.worstReplicate(kept, by: "flutter.spurious"))
            #expect(r.scenario.plots?.caption.contains("replicate \(worst) of 24") == true, "jobs \(jobs)")
        }
    }

    @Test func closureRuleDecidesLikeTheTypeItMirrors() throws {
        let scenario = try RuleLab.scenario(json: Self.loiter())
        let closure = try ClosureRule(rulesVersion: "closure-seed", maxAccuracy_m: 30) { previous, d, _ in
            d <= 80 ? .inside : (d >= 120 ? .outside : previous)
        }
        let lab = RuleLab()
        let a = try lab.run(
            scenario: scenario, rule: closure, rulesVersion: .override(scenarioRecordedFor: "hysteresis-80-120-acc30"))
        let b = try lab.run(scenario: scenario, rule: Hysteresis.seedDefault)
        #expect(a.rulesVersion == "closure-seed")
        #expect(try a.values("flutter.transitions") == b.values("flutter.transitions"))
        #expect(try a.values("rejections.inaccurate") == b.values("rejections.inaccurate"))
        // Under the override the scenario's expectations (recorded for other rules) are not checked.
        #expect(a.scenario.expectations.isEmpty)
    }

    @Test func confirmationIsPartOfTheRulesVersionAndReducesFlutter() throws {
        let scenario = try RuleLab.scenario(json: Self.loiter())
        let policy = RulesVersionPolicy.override(scenarioRecordedFor: "hysteresis-80-120-acc30")
        let plain = try RuleLab().run(scenario: scenario, rule: Hysteresis.seedDefault)
        let dwell = try RuleLab().run(
            scenario: scenario, rule: Hysteresis.seedDefault, confirmation: .seconds(10),
            rulesVersion: policy)
        #expect(dwell.rulesVersion == "hysteresis-80-120-acc30+confirm10s")
        #expect(try dwell.mean("flutter.spurious") < plain.mean("flutter.spurious"))
    }

    @Test func rulesVersionChecks() throws {
        let scenario = try RuleLab.scenario(json: Self.loiter(), name: "inline:loiter")
        let other = try Hysteresis(enter_m: 70, exit_m: 130, maxAccuracy_m: 30)
        #expect(
            throws: LabError.rulesVersionMismatch(
                file: "inline:loiter", scenario: "hysteresis-80-120-acc30",
                rule: "hysteresis-70-130-acc30")
        ) {
            _ = try RuleLab().run(scenario: scenario, rule: other)
        }
        #expect(
            throws: LabError.overrideMismatch(
                file: "inline:loiter", scenario: "hysteresis-80-120-acc30",
                named: "hysteresis-80-120-acc25")
        ) {
            _ = try RuleLab().run(
                scenario: scenario, rule: other, rulesVersion: .override(scenarioRecordedFor: "hysteresis-80-120-acc25")
            )
        }
    }

    @Test func scenarioExpectationsDecidePassedUnderMustMatch() throws {
        let scenario = try RuleLab.scenario(json: Self.loiter(expectMax: 0))
        let result = try RuleLab().run(scenario: scenario, rule: Hysteresis.seedDefault, replicates: 2)
        #expect(!result.passed)
        #expect(result.report.acceptance.rules.failures.count == 1)
    }

    @Test func badArgumentsAndPathsAreNamed() throws {
        let scenario = try RuleLab.scenario(json: Self.loiter())
        #expect(throws: LabError.invalidArgument(name: "replicates", value: "0", reason: "must be within 1...100000")) {
            _ = try RuleLab().run(scenario: scenario, rule: Hysteresis.seedDefault, replicates: 0)
        }
        #expect(throws: LabError.invalidArgument(name: "jobs", value: "0", reason: "must be >= 1")) {
            _ = try RuleLab().run(scenario: scenario, rule: Hysteresis.seedDefault, jobs: 0)
        }
        #expect(throws: LabError.invalidArgument(name: "window_s", value: "0.0", reason: "must be finite and > 0")) {
            _ = try RuleLab(window_s: 0).run(scenario: scenario, rule: Hysteresis.seedDefault)
        }
        #expect(
            throws: LabError.invalidRule(
                rulesVersion: "hysteresis-80-120-acc30", reason: "confirmation needs at least 1 fix, got 0")
        ) {
            _ = try RuleLab().run(scenario: scenario, rule: Hysteresis.seedDefault, confirmation: .fixes(0))
        }
        #expect(throws: LabError.invalidArgument(name: "rulesVersion", value: "\"\"", reason: "must not be empty")) {
            _ = try ClosureRule(rulesVersion: "") { p, _, _ in p }
        }
        do {
            _ = try RuleLab.loadScenario(path: "/nonexistent/scenario.json")
            Issue.record("a missing file must throw")
        } catch {
            #expect(error.description.contains("/nonexistent/scenario.json"))
        }
        do {
            _ = try RuleLab.scenario(
                json: Self.loiter().replacingOccurrences(of: "\"seed\": 5", with: "\"sede\": 5"), name: "typo")
            Issue.record("an unknown key must throw")
        } catch {
            #expect(error.description.contains("typo"))
            #expect(error.description.contains("seed"))
        }
        let result = try RuleLab().run(scenario: scenario, rule: Hysteresis.seedDefault, replicates: 1)
        #expect(throws: LabError.unknownMetric(path: "flutter.spurius")) { _ = try result.mean("flutter.spurius") }
    }

    @Test func writesTheFourReportFiles() throws {
        let scenario = try RuleLab.scenario(json: Self.loiter())
        let result = try RuleLab().run(scenario: scenario, rule: Hysteresis.seedDefault, replicates: 1)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rulelab-out-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try result.writeReports(to: dir.path)
        for name in ReportWriter.fileNames {
            #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent(name).path), "\(name)")
        }
        let json = try String(contentsOf: dir.appendingPathComponent("report.json"), encoding: .utf8)
        #expect(json.contains("\"lab-loiter\""))
        #expect(!json.contains("52.52"), "no raw coordinates unless asked")
    }
}
