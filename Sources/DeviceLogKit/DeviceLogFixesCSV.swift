import _FenceLabSupport

/// The fixes of an imported log as CSV, for checking an import against another parser
/// (`fencelab replay --fixes-csv FILE`; docs/device-logs.md, "The fixes as read").
///
/// Columns: `line,timestamp,latitude,longitude,horizontal_accuracy,speed,course,provider`, one row
/// per fix in the log's order. Numbers are written in full precision (the shortest text that reads
/// back as the same double; `nan`, `inf`); `timestamp` is Unix seconds; `speed`, `course` and
/// `provider` are empty when the log does not give them. The file holds **raw coordinates**: it is
/// written only when asked for.
public enum DeviceLogFixesCSV {
    /// The header line, without its line end.
    public static let header = "line,timestamp,latitude,longitude,horizontal_accuracy,speed,course,provider"

    /// Appends the header and one row per fix.
    package static func render(_ log: DeviceLog, into sink: inout some TextSink) {
        sink.append(header + "\n")
        for f in log.fixes {
            var row = "\(f.line),\(f.fix.timestamp_s),\(f.fix.latitude),\(f.fix.longitude),"
            row += "\(f.fix.horizontalAccuracy_m),"
            row += (f.speed_mps.map { "\($0)" } ?? "") + "," + (f.course_deg.map { "\($0)" } ?? "") + ","
            row += (f.provider?.rawValue ?? "") + "\n"
            sink.append(row)
        }
    }

    /// The CSV text (tests).
    public static func text(_ log: DeviceLog) -> String {
        var s = ""
        render(log, into: &s)
        return s
    }

    /// Writes the CSV to `path` atomically.
    package static func write(_ log: DeviceLog, to path: String) throws(OutputError) {
        try FileSystem.atomicWrite(to: path) { render(log, into: &$0) }
    }
}
