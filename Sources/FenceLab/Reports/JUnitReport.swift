/// `junit.xml`: one test suite per scenario, one test case per expectation, so CI systems
/// list each bound. A scenario without expectations is an empty suite.
public enum JUnitReport {
    public static func render(_ report: RunReport) -> String {
        let total = report.scenarios.reduce(0) { $0 + $1.expectations.count }
        let failed = report.acceptance.rules.failures.count
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
        x.append("</testsuites>")
        return x.joined(separator: "\n") + "\n"
    }
}
