// libFuzzer entry for the csv device-log importer (built by fuzz/run.sh).
// fuzz-sources: Sources/FenceLab/DeviceLog/*.swift
// Any DeviceLogError is a correct outcome; a crash, hang or sanitizer report is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = DeviceLogLimits(maxFileSize_bytes: 1 << 20, maxLineLength_bytes: 4096)
    if let log = try? DeviceLogImporter.parse(bytes: bytes, file: "fuzz.csv", format: .csv, limits: limits) {
        // Invariants: every fix and event carries a line inside the input.
        let lines = bytes.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
        for fix in log.fixes { precondition(fix.line >= 1 && fix.line <= lines, "fix line out of range") }
        for event in log.events { precondition(event.line >= 1 && event.line <= lines, "event line out of range") }
        precondition(!log.fixes.isEmpty || !log.events.isEmpty, "empty log accepted")
    }
    return 0
}
