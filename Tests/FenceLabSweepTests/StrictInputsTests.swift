import Foundation
import Testing

@testable import FenceLab
@testable import FenceLabSweep

/// Every JSON input goes through the one strict reader: the formats FenceLab
/// writes for itself (sweep records, shard manifests) and the engine protocol are no exception.
@Suite struct StrictInputsTests {
    /// A valid record line with every key `SweepRecord` writes and its checksum: item 3,
    /// latencyMedian_s 1.5, other measured values null, other counts 1.
    static let record: String = {
        var r = SweepRecord(
            item: 3, spurious: 1, missed: 1, flaps: 1, transitions: 1, truthTransitions: 1, latencyMedian_s: 1.5,
            latencyP95_s: nil)
        (r.trueVisits, r.matchedVisits, r.falseVisits, r.fragments, r.earlyEntries) = (1, 1, 1, 1, 1)
        return r.jsonLine
    }()

    @Test func sweepRecordsAreReadStrictly() throws {
        let r = try SweepRecord(parsing: Self.record[...], file: "r.jsonl", line: 1)
        #expect(r.item == 3 && r.latencyMedian_s == 1.5 && r.latencyP95_s == nil)
        let variants = [
            Self.record.replacingOccurrences(of: #""item":3"#, with: #""item":03"#),  // leading zero
            Self.record.replacingOccurrences(of: #""item":3"#, with: #""item":3.5"#),  // not a count
            Self.record.replacingOccurrences(of: #""item":3,"#, with: #""item":3,"item":4,"#),  // duplicate key
            Self.record.replacingOccurrences(of: "1.5", with: "1e999"),  // out of range
            Self.record + " x",  // trailing text
        ]
        for bad in variants {
            #expect(throws: SweepError.self, "\(bad)") {
                _ = try SweepRecord(parsing: bad[...], file: "r.jsonl", line: 7)
            }
        }
    }

    @Test func engineLinesRefuseWhatRFC8259Refuses() {
        for bad in [
            #"{"index":01,"state":"inside"}"#, #"{"index":1,"index":1,"state":"inside"}"#,
            #"{"index":1,"state":"inside"} {}"#, #"{"index":[1],"state":"inside"}"#, #"{"index":1e999}"#,
        ] {
            #expect(throws: FlatJSONError.self, "\(bad)") { _ = try FlatJSON.parseObject(bad) }
        }
    }

    @Test func shardManifestWithDuplicateKeysIsRefused() throws {
        let text = #"{"format":"x","format":"y"}"#
        #expect {
            _ = try SweepManifest.decode(Array(text.utf8), file: "shard.json")
        } throws: { error in
            "\(error)".contains("duplicate key")
        }
    }
}
