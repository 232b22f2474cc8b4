/// Renders a `RunReport` to the four files of a report folder and writes them atomically.
public enum ReportWriter {
    /// The file names of a report folder (contract).
    public static let fileNames = ["report.json", "report.md", "junit.xml", "index.html"]

    /// The four files as (name, UTF-8 bytes), in `fileNames` order. Pure: no I/O.
    public static func render(_ report: RunReport) -> [(name: String, bytes: [UInt8])] {
        [("report.json", Array(JSONReport.render(report).utf8)),
         ("report.md", Array(MarkdownReport.render(report).utf8)),
         ("junit.xml", Array(JUnitReport.render(report).utf8)),
         ("index.html", Array(HTMLReport.render(report).utf8))]
    }

    /// Renders and writes the folder atomically (see `ReportFolder.write`). Run
    /// `ReportFolder.preflight(destination:)` before the long work starts.
    public static func write(_ report: RunReport, to destination: String) throws(OutputError) {
        try ReportFolder.write(files: render(report), to: destination)
    }
}
