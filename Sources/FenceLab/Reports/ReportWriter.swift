import _FenceLabSupport

/// Renders a `RunReport` to the four files of a report folder and writes them atomically.
package enum ReportWriter {
    /// The file names of a report folder (contract).
    package static let fileNames = ["report.json", "report.md", "junit.xml", "index.html"]

    /// Names an existing destination may contain and still be replaced by a run report.
    package static var replaceableNames: Set<String> { Set(fileNames) }

    /// Checks before the long work starts that `destination` can take a run report
    /// (`ReportFolder.preflight`).
    package static func preflight(destination: String) throws(OutputError) {
        try ReportFolder.preflight(destination: destination, replaceable: replaceableNames)
    }

    /// The four files as (name, UTF-8 bytes), in `fileNames` order. Pure: no I/O.
    package static func render(_ report: RunReport) -> [(name: String, bytes: [UInt8])] {
        [
            ("report.json", Array(JSONReport.render(report).utf8)),
            ("report.md", Array(MarkdownReport.render(report).utf8)),
            ("junit.xml", Array(JUnitReport.render(report).utf8)),
            ("index.html", Array(HTMLReport.render(report).utf8)),
        ]
    }

    /// Renders and writes the folder atomically (see `ReportFolder.write`). Run
    /// `preflight(destination:)` before the long work starts.
    package static func write(_ report: RunReport, to destination: String) throws(OutputError) {
        try ReportFolder.write(files: render(report), to: destination, replaceable: replaceableNames)
    }
}
