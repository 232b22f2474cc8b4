// libFuzzer entry for the geojson device-log importer (built by fuzz/run.sh).
// fuzz-sources: fuzz/support/DeviceLogFuzzSupport.swift
// Any DeviceLogError is a correct outcome; a crash, a hang, a sanitizer report or a failed
// property in DeviceLogFuzzSupport.swift (BOM and CRLF invariance, line numbers in range) is a bug.
import DeviceLogKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    checkImporter(data, size, .geojson, crlfInvariant: true)
    return 0
}
