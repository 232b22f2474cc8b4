import Foundation
import ReportKit
import Testing
import _TestSupport

@testable import FenceLab

/// docs/report-format.md names every key report.json writes.
@Suite struct ReportFormatDocumentTests {
    static func page(_ path: String) throws -> String {
        try String(contentsOf: TestPaths.packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// Every key `report.json` writes (outside the metric groups, whose names the metrics page
    /// owns) is named in docs/report-format.md.
    @Test func reportJSONKeysAreDocumented() throws {
        let page = try Self.page("docs/report-format.md")
        var keys = Set<String>()
        func walk(_ v: JSONValue) {
            switch v {
            case .object(let pairs):
                for (key, value) in pairs {
                    keys.insert(key)
                    if !JSONReport.metricGroups.contains(key) { walk(value) }
                }
            case .array(let items): items.forEach(walk)
            default: break
            }
        }
        walk(JSONReport.document(try SampleReport.make(includeCoordinates: true)))
        #expect(keys.count > 30)
        let missing = keys.filter { !page.contains("`\($0)`") }.sorted()
        #expect(missing.isEmpty, "report.json keys not in docs/report-format.md: \(missing)")
    }
}
