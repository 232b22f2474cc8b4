import ReportKit

/// `junit.xml`: what CI test-report views (GitLab, Jenkins, GitHub actions) list.
///
/// One suite per scenario with one case per `expect` bound; one suite per fixture file with
/// one case per fixture assertion; a `device-level` suite with one case per replayed log (a
/// skipped case when an acceptance report replayed none). A failure's message carries the
/// unrounded values. Every suite and case has `time` in seconds (three decimals, the
/// Surefire form), measured, so it differs between runs:
/// - scenario suite: wall time of all its replicates' work items; each expectation case gets an
///   equal share (every bound is checked against the same aggregated figures);
/// - fixture case: the time of that assertion; fixture suite: the sum of its cases;
/// - device case: the replay of that log.
/// Validated against `Tests/Schemas/junit.xsd` (the Jenkins junit-10 structure, `time` required).
package enum JUnitReport {
    struct Case {
        var name: String
        var classname: String
        var time_s: Double
        var failure: (message: String, type: String, body: String)?
        var skipped: String?
    }

    struct Suite {
        var name: String
        var cases: [Case]
        var time_s: Double
        var failures: Int { cases.filter { $0.failure != nil }.count }
        var skipped: Int { cases.filter { $0.skipped != nil }.count }
    }

    package static func render(_ report: RunReport) -> String {
        let all = suites(report)
        let x = ReportText.xml
        let tests = all.reduce(0) { $0 + $1.cases.count }
        let failures = all.reduce(0) { $0 + $1.failures }
        let skipped = all.reduce(0) { $0 + $1.skipped }
        let time = all.reduce(0) { $0 + $1.time_s }
        var lines = [
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            "<testsuites name=\"fencelab\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"0\" skipped=\"\(skipped)\" time=\"\(seconds(time))\">",
        ]
        for suite in all {
            lines.append(
                "  <testsuite name=\"\(x(suite.name))\" tests=\"\(suite.cases.count)\" failures=\"\(suite.failures)\" errors=\"0\" "
                    + "skipped=\"\(suite.skipped)\" time=\"\(seconds(suite.time_s))\">")
            for c in suite.cases {
                let open =
                    "    <testcase classname=\"\(x(c.classname))\" name=\"\(x(c.name))\" time=\"\(seconds(c.time_s))\""
                if let f = c.failure {
                    lines.append(open + ">")
                    lines.append(
                        "      <failure message=\"\(x(f.message))\" type=\"\(x(f.type))\">\(x(f.body))</failure>")
                    lines.append("    </testcase>")
                } else if let s = c.skipped {
                    lines.append(open + "><skipped message=\"\(x(s))\"/></testcase>")
                } else {
                    lines.append(open + "/>")
                }
            }
            lines.append("  </testsuite>")
        }
        lines.append("</testsuites>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Seconds with three decimals, never negative or non-finite (Surefire's time form).
    static func seconds(_ t: Double) -> String {
        String(format: "%.3f", t.isFinite ? Swift.max(0, t) : 0)
    }

    static func suites(_ report: RunReport) -> [Suite] {
        var out = report.scenarios.map(scenarioSuite)
        out += fixtureSuites(report.acceptance.rules)
        let device = report.acceptance.device
        // Acceptance and replay reports (fixtures ran or logs were replayed) list the device level
        // too, as a skipped case when nothing was replayed; plain `run` reports do not.
        if report.acceptance.rules.fixtureChecks > 0 || !device.replays.isEmpty { out.append(deviceSuite(device)) }
        return out
    }

    static func scenarioSuite(_ s: ScenarioReport) -> Suite {
        let share = s.expectations.isEmpty ? 0 : s.compute_s / Double(s.expectations.count)
        let cases = s.expectations.map { e in
            Case(
                name: "\(e.bound.path) \(e.bound.text)", classname: "fencelab.scenario.\(s.name)", time_s: share,
                failure: e.passed ? nil : (e.message, "expectation", e.message), skipped: nil)
        }
        return Suite(name: s.name, cases: cases, time_s: s.compute_s)
    }

    /// One suite per fixture file, in run order.
    static func fixtureSuites(_ rules: RulesAcceptance) -> [Suite] {
        var suites: [Suite] = []
        for (i, f) in rules.fixtureResults.enumerated() {
            let t = i < rules.fixtureSeconds.count ? rules.fixtureSeconds[i] : 0
            let stem =
                f.file.split(separator: "/").last.map { $0.hasSuffix(".json") ? String($0.dropLast(5)) : String($0) }
                ?? f.file
            let failure =
                f.passed
                ? nil
                : (
                    message: "\(f.assertion); got \(f.actual)"
                        + (f.values.isEmpty ? "" : " (" + f.values.map(\.description).joined(separator: ", ") + ")"),
                    type: "fixture", body: f.description
                )
            let c = Case(
                name: "\(f.keyPath): \(f.assertion)", classname: "fencelab.fixtures.\(stem)", time_s: t,
                failure: failure, skipped: nil)
            if let last = suites.last, last.name == f.file {
                suites[suites.count - 1].cases.append(c)
                suites[suites.count - 1].time_s += t
            } else {
                suites.append(Suite(name: f.file, cases: [c], time_s: t))
            }
        }
        return suites
    }

    static func deviceSuite(_ device: DeviceAcceptance) -> Suite {
        guard !device.replays.isEmpty else {
            return Suite(
                name: "device-level",
                cases: [
                    Case(
                        name: "device logs", classname: "fencelab.device", time_s: 0,
                        failure: nil, skipped: device.note)
                ], time_s: 0)
        }
        let cases = device.replays.map { r in
            let body = r.divergences.failing.map { "\($0.kind.rawValue): \($0.detail)" }.joined(separator: "\n")
            return Case(
                name: r.file, classname: "fencelab.device", time_s: r.elapsed_s,
                failure: r.status == .passed ? nil : (r.criteria, "device", body), skipped: nil)
        }
        return Suite(name: "device-level", cases: cases, time_s: cases.reduce(0) { $0 + $1.time_s })
    }
}
