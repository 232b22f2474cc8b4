import Testing

@testable import _FenceLabSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `Syscalls.mapZeroedMemory` gives zeroed, writable memory; with `populate` its pages are in
/// memory before the first touch (Linux), without it none are.
@Suite struct ZeroedMemoryTests {
    static let bytes = 8 << 20

    #if canImport(Glibc)
        /// How many of the pages of `bytes` at `memory` are resident (`mincore`).
        static func residentPages(_ memory: UnsafeMutableRawPointer, _ bytes: Int) -> Int {
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            var flags = [UInt8](repeating: 0, count: (bytes + page - 1) / page)
            let status = flags.withUnsafeMutableBufferPointer { mincore(memory, bytes, $0.baseAddress) }
            #expect(status == 0, "mincore")
            return flags.count(where: { $0 & 1 != 0 })
        }
    #endif

    @Test(arguments: [false, true]) func memoryIsZeroedAndWritable(populate: Bool) throws {
        let memory = try #require(Syscalls.mapZeroedMemory(Self.bytes, populate: populate))
        defer { Syscalls.unmapMemory(memory, Self.bytes) }
        #if canImport(Glibc)
            let pages = Self.bytes / Int(sysconf(Int32(_SC_PAGESIZE)))
            let resident = Self.residentPages(memory, Self.bytes)
            // MADV_POPULATE_WRITE needs Linux 5.14; on an older kernel nothing is populated.
            var release = utsname()
            uname(&release)
            let version = withUnsafeBytes(of: &release.release) {
                String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            let parts = version.split(separator: ".").prefix(2).compactMap { Int($0) }
            let supported = parts.count == 2 && (parts[0], parts[1]) >= (5, 14)
            if populate && supported {
                #expect(resident == pages, "populated: \(resident) of \(pages) pages resident")
            } else if !populate {
                #expect(resident == 0, "not populated: \(resident) of \(pages) pages resident before any touch")
            }
        #endif
        let words = memory.bindMemory(to: UInt64.self, capacity: Self.bytes / 8)
        #expect((0..<(Self.bytes / 8)).allSatisfy { words[$0] == 0 })
        words[Self.bytes / 8 - 1] = 7
        #expect(words[Self.bytes / 8 - 1] == 7)
    }

    @Test func nothingIsMappedForNoBytes() {
        #expect(Syscalls.mapZeroedMemory(0, populate: true) == nil)
    }
}
