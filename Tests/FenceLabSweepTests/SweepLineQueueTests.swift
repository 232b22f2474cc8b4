import Foundation
import Testing

@testable import FenceLabSweep
@testable import _FenceLabSupport

/// The queue that carries record lines from several workers to the resume file: every line
/// lands whole, after the file's first line, and a failure reaches the workers.
@Suite struct SweepLineQueueTests {
    static func manifest() -> SweepManifest {
        ScoringWeightsTests.manifest([1])
    }

    static func folder() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("linequeue-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Two workers submit 200 buffers of lines through a queue with 3 slots; the file holds the
    /// manifest's line and then exactly the submitted lines, each whole, each worker's in order.
    @Test func linesFromTwoWorkersLandWholeAfterTheManifest() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent(".out.sweep-partial.jsonl").path
        let manifest = Self.manifest()
        let store = try SweepRecordStore(count: 1, directory: dir.path, streams: 1)
        let checkpoint = Checkpoint(after_s: 0, store: store) { () throws(SweepError) -> RecordAppender in
            try RecordAppender(path: path, manifest: manifest) { _ in }
        }
        let queue = LineQueue(checkpoint: checkpoint, inFlight: 3)
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            var lines: [UInt8] = []
            for piece in 0..<100 {
                for line in 0..<(1 + piece % 7) {
                    // Lines of 40–4 000 bytes, so buffers differ in size from piece to piece.
                    let filler = String(repeating: "x", count: 40 + (piece * 37 + line * 11) % 3_960)
                    let text = "{\"w\":\(worker),\"p\":\(piece),\"l\":\(line),\"f\":\"\(filler)\"}\n"
                    lines.append(contentsOf: text.utf8)
                }
                do throws(SweepError) { try queue.submit(&lines) } catch {
                    failures.withLock { $0.append(error.description) }
                }
                #expect(lines.isEmpty)
            }
        }
        try queue.drain()
        try checkpoint.opened().close()
        #expect(failures.withLock { $0 }.isEmpty)

        let text = try String(contentsOfFile: path, encoding: .utf8)
        var rows = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(rows.removeLast() == "")  // the file ends with a newline
        var header = ""
        manifest.encode(pretty: false, jobs: 1) { header += $0 }
        #expect(rows.removeFirst() == header[...])
        var next = [0: (piece: 0, line: 0), 1: (piece: 0, line: 0)]
        for row in rows {
            let object = try #require(
                JSONSerialization.jsonObject(with: Data(row.utf8)) as? [String: Any], "a torn line: \(row.prefix(60))")
            let (w, p, l) = (object["w"] as! Int, object["p"] as! Int, object["l"] as! Int)
            #expect(p == next[w]!.piece && l == next[w]!.line, "worker \(w): got \(p).\(l), expected \(next[w]!)")
            next[w] = l + 1 < 1 + p % 7 ? (p, l + 1) : (p + 1, 0)
        }
        #expect(next[0]!.piece == 100 && next[1]!.piece == 100)
        #expect(rows.count == 2 * (0..<100).reduce(0) { $0 + 1 + $1 % 7 })
    }

    /// A resume file that cannot be opened: the failure reaches a later `submit` and `drain`, with
    /// the file's path and reason.
    @Test func aFileThatCannotBeOpenedFailsTheSubmittersAndTheDrain() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try SweepRecordStore(count: 1, directory: dir.path, streams: 1)
        let checkpoint = Checkpoint(after_s: 0, store: store) { () throws(SweepError) -> RecordAppender in
            throw SweepError.io(path: "/nowhere/.out.sweep-partial.jsonl", reason: "No such file or directory")
        }
        let queue = LineQueue(checkpoint: checkpoint, inFlight: 1)
        var lines = Array("{\"item\":0}\n".utf8)
        try queue.submit(&lines)  // queued before the opening failed
        #expect(lines.isEmpty)
        var thrown: SweepError?
        for _ in 0..<3 {
            lines = Array("{\"item\":1}\n".utf8)
            do throws(SweepError) { try queue.submit(&lines) } catch {
                thrown = error
                break
            }
        }
        let caught = try #require(thrown, "no submit failed after the file could not be opened")
        #expect(caught.description.contains("/nowhere/.out.sweep-partial.jsonl"))
        #expect(caught.description.contains("No such file or directory"))
        #expect(throws: SweepError.self) { try queue.drain() }
    }
}
