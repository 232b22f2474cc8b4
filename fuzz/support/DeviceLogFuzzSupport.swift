// Shared checks for the device-log fuzz targets (compiled into each target by fuzz/run.sh).
@testable import DeviceLogKit

/// The outcome of one import, comparable bit for bit (NaN == NaN here).
enum ImportOutcome: Equatable {
    case log(fixes: [[UInt64]], lines: [Int], events: [String])
    case error(line: Int?, problem: DeviceLogProblem)
}

/// - Parameter chunk_bytes: read the bytes in pieces of this size (the file reader uses 1 MiB),
///   or `nil` for the whole buffer.
func importOutcome(_ bytes: [UInt8], _ format: DeviceLogFormat, chunk_bytes: Int? = nil) -> ImportOutcome {
    let limits = DeviceLogLimits(maxFileSize_bytes: 1 << 20, maxLineLength_bytes: 4096)
    do {
        let log = try bytes.withUnsafeBufferPointer { (buffer) throws(DeviceLogError) -> DeviceLog in
            try DeviceLogImporter.parse(
                buffer: buffer, file: "fuzz.\(format)", format: format, limits: limits,
                chunk_bytes: chunk_bytes ?? max(1, buffer.count))
        }
        let lineCount = bytes.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
        precondition(!log.fixes.isEmpty || !log.events.isEmpty, "empty log accepted")
        for fix in log.fixes { precondition(fix.line >= 1 && fix.line <= lineCount, "fix line out of range") }
        for event in log.events {
            precondition(event.line >= 1 && event.line <= lineCount, "event line out of range")
            precondition(event.timestamp_s.isFinite, "non-finite event time accepted")
        }
        return .log(
            fixes: log.fixes.map { f in
                [
                    f.fix.timestamp_s, f.fix.latitude, f.fix.longitude, f.fix.horizontalAccuracy_m,
                    f.speed_mps ?? -0.0, f.course_deg ?? -0.0,
                ].map(\.bitPattern) + [f.speed_mps == nil ? 1 : 0, f.course_deg == nil ? 1 : 0]
            },
            lines: log.fixes.map(\.line),
            events: log.events.map { "\($0.kind)@\($0.timestamp_s.bitPattern)#\($0.line)" })
    } catch {
        precondition(error.file == "fuzz.\(format)", "error names another file")
        precondition(error.line.map { $0 >= 1 } ?? true, "error line < 1")
        precondition(!error.description.contains("\n"), "multi-line error message")
        precondition(error.description.count < 400, "unbounded error message")
        return .error(line: error.line, problem: error.problem)
    }
}

/// Properties: no crash; a leading BOM changes nothing; for line formats without CR,
/// CRLF line ends change nothing; reading in pieces of 1–64 bytes (chosen by the first byte)
/// changes nothing (every format, GPX included).
func checkImporter(_ data: UnsafePointer<UInt8>, _ size: Int, _ format: DeviceLogFormat, crlfInvariant: Bool) {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let plain = importOutcome(bytes, format)
    if let first = bytes.first {
        precondition(
            importOutcome(bytes, format, chunk_bytes: 1 + Int(first % 64)) == plain,
            "reading in pieces changed the outcome")
    }
    if bytes.count < 3 || bytes[0] != 0xEF {
        precondition(importOutcome([0xEF, 0xBB, 0xBF] + bytes, format) == plain, "BOM changed the outcome")
    }
    if crlfInvariant, !bytes.contains(0x0D) {
        var crlf: [UInt8] = []
        crlf.reserveCapacity(bytes.count * 2)
        for b in bytes {
            if b == 0x0A { crlf.append(0x0D) }
            crlf.append(b)
        }
        precondition(importOutcome(crlf, format) == plain, "CRLF changed the outcome")
    }
}
