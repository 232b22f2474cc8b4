import Foundation
import Testing

@testable import _FenceLabSupport

/// `MemoryBudget`'s /proc parser reads the same fields as the substring split it replaced.
@Suite struct MemoryBudgetTests {
    /// The parser as it was: split into lines, each line into words at ":", " " and tabs.
    static func reference(_ text: String) -> [String: UInt64] {
        var fields: [String: UInt64] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(whereSeparator: { $0 == ":" || $0 == " " || $0 == "\t" })
            guard parts.count >= 3, parts[2] == "kB", let kib = UInt64(parts[1]) else { continue }
            fields[String(parts[0])] = kib * 1024
        }
        return fields
    }

    @Test func parsesTheKilobyteLines() {
        let text = """
            Name:\tfencelab
            VmPeak:\t  123456 kB
            VmSize:\t  120000 kB
            VmData:\t    4096 kB
            Threads:\t2
            SigQ:\t0/63439

            MemAvailable:    7340032 kB
            Odd: 12 MB
            Extra:   5 kB trailing words
            Huge: 17179869184 kB
            """
        let fields = MemoryBudget.kilobyteFields(text: text)
        #expect(fields == Self.reference(text))
        #expect(fields["VmSize"] == 120_000 * 1024)
        #expect(fields["VmData"] == 4096 * 1024)
        #expect(fields["MemAvailable"] == 7_340_032 * 1024)
        #expect(fields["Extra"] == 5 * 1024)
        #expect(fields["Threads"] == nil && fields["Odd"] == nil && fields["Name"] == nil)
        #expect(fields.count == 6)
    }

    @Test func parsesThisMachinesProcFilesAsBefore() throws {
        for path in ["/proc/self/status", "/proc/meminfo"] {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
            let fields = MemoryBudget.kilobyteFields(text: text)
            #expect(fields == Self.reference(text), "\(path)")
            #expect(!fields.isEmpty, "\(path)")
        }
    }
}
