/// `junit.xml`: one test suite per scenario, one test case per expectation, so CI systems
/// list each bound. A scenario without expectations is an empty suite.
public enum JUnitReport {
    public static func render(_ report: RunReport) -> String {
        let device = report.acceptance.device
        // Acceptance and replay reports (fixtures ran or logs were replayed) list the device level
        // too, as a skipped case when nothing was replayed; plain `run` reports do not.
        let deviceSuite = report.acceptance.rules.fixtureChecks > 0 || !device.replays.isEmpty
        let total = report.scenarios.reduce(0) { $0 + $1.expectations.count } + report.acceptance.rules.fixtureChecks
            + (deviceSuite ? max(1, device.replays.count) : 0)
        let failed = report.acceptance.rules.failureCount + device.replays.filter { $0.status == .failed }.count
        var x = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
                 "<testsuites name=\"fencelab\" tests=\"\(total)\" failures=\"\(failed)\" errors=\"0\">"]
        for s in report.scenarios {
            let f = s.expectations.filter { !$0.passed }.count
            x.append("  <testsuite name=\"\(ReportText.xml(s.name))\" tests=\"\(s.expectations.count)\" failures=\"\(f)\" errors=\"0\" skipped=\"0\">")
            for e in s.expectations {
                let name = ReportText.xml("\(e.bound.path) \(e.bound.text)")
                let open = "    <testcase classname=\"fencelab.\(ReportText.xml(s.name))\" name=\"\(name)\""
                if e.passed {
                    x.append(open + "/>")
                } else {
                    x.append(open + ">")
                    x.append("      <failure message=\"\(ReportText.xml(e.message))\" type=\"expectation\">\(ReportText.xml(e.message))</failure>")
                    x.append("    </testcase>")
                }
            }
            x.append("  </testsuite>")
        }
        let rules = report.acceptance.rules
        if rules.fixtureChecks > 0 {
            x.append("  <testsuite name=\"rules-fixtures\" tests=\"\(rules.fixtureChecks)\" failures=\"\(rules.fixtureFailures.count)\" errors=\"0\" skipped=\"0\">")
            for f in rules.fixtureFailures {
                x.append("    <testcase classname=\"fencelab.fixtures\" name=\"\(ReportText.xml(f.file + " " + f.keyPath))\">")
                x.append("      <failure message=\"\(ReportText.xml(f.assertion))\" type=\"fixture\">\(ReportText.xml(f.description))</failure>")
                x.append("    </testcase>")
            }
            let passed = rules.fixtureChecks - rules.fixtureFailures.count
            if passed > 0 { x.append("    <testcase classname=\"fencelab.fixtures\" name=\"\(passed) passing fixture assertions\"/>") }
            x.append("  </testsuite>")
        }
        if deviceSuite { x += deviceCases(device) }
        x.append("</testsuites>")
        return x.joined(separator: "\n") + "\n"
    }

    static func deviceCases(_ device: DeviceAcceptance) -> [String] {
        var x: [String] = []
        x.append("  <testsuite name=\"device-level\" tests=\"\(max(1, device.replays.count))\" failures=\"\(device.replays.filter { $0.status == .failed }.count)\" errors=\"0\" skipped=\"\(device.replays.isEmpty ? 1 : 0)\">")
        if device.replays.isEmpty {
            x.append("    <testcase classname=\"fencelab.device\" name=\"device logs\"><skipped message=\"\(ReportText.xml(device.note))\"/></testcase>")
        }
        for r in device.replays {
            let open = "    <testcase classname=\"fencelab.device\" name=\"\(ReportText.xml(r.file))\""
            if r.status == .passed { x.append(open + "/>"); continue }
            let message = r.divergences.failing.map { "\($0.kind.rawValue): \($0.detail)" }.joined(separator: "\n")
            x.append(open + ">")
            x.append("      <failure message=\"\(ReportText.xml(r.criteria))\" type=\"device\">\(ReportText.xml(message))</failure>")
            x.append("    </testcase>")
        }
        x.append("  </testsuite>")
        return x
    }
}
