import Foundation

// libFuzzer entry for the client side of the engine protocol (built by fuzz/run.sh):
// what FenceLab reads from an external engine's stdout.
// fuzz-links: FenceLab
// fuzz-sources:
// The input is the engine's whole output. It is fed to `EngineProcess.readAnswers` (the real
// reader: line splitting, ready line, fast path, full decoder) through a file descriptor,
// expecting 3 answers. Any ExternalEngineError is a correct outcome; a crash, a hang or a
// sanitizer report is a bug. Properties beyond "no crash":
// - accepted answers are at most 3 and answer fixes 0, 1, 2 in order;
// - every line the fast path accepts, the strict decoder accepts with the same answer
//   (the fast path is only a front end: it must never widen the grammar);
// - an error's description is one line of bounded length.
@testable import FenceLab

/// One scratch file per process: the engine's output is written there and read back.
private let scratch: Int32 = {
    var template = Array("/tmp/fencelab-fuzz-engine-XXXXXX".utf8CString)
    let fd = mkstemp(&template)
    precondition(fd >= 0, "mkstemp failed")
    unlink(String(cString: template))
    return fd
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    precondition(ftruncate(scratch, 0) == 0 && lseek(scratch, 0, SEEK_SET) == 0)
    var written = 0
    while written < size {
        let n = write(scratch, data + written, size - written)
        precondition(n > 0, "scratch write failed")
        written += n
    }
    precondition(lseek(scratch, 0, SEEK_SET) == 0)
    var answers: [EngineAnswer] = []
    do {
        try EngineProcess.readAnswers(fd: scratch, expected: 3, readyTimeout_s: 5, answerTimeout_s: 5, into: &answers)
    } catch {
        check(error.description)
    }
    precondition(answers.count <= 3, "more answers than fixes")
    for (i, a) in answers.enumerated() { precondition(a.index == i, "answer \(i) has index \(a.index)") }

    // Fast path ⊆ strict decoder, line by line, for expected indices 0...2.
    var fields = FlatJSONFields(keys: ["index", "state", "rejected"])
    var start = 0
    for end in 0...size where end == size || bytes[end] == 0x0A {
        let line = UnsafeBufferPointer(rebasing: bytes[start..<end])
        start = end + 1
        for expected in 0..<3 {
            guard let fast = EngineProcess.fastAnswer(line, expectedIndex: expected, fields: &fields) else { continue }
            let text = Substring(String(decoding: line, as: UTF8.self))
            do {
                let strict = try EngineRequests.decodeAnswer(text, line: 2, expectedIndex: expected)
                precondition(strict == fast, "fast path \(fast) but strict decoder \(strict)")
            } catch {
                preconditionFailure("fast path accepted a line the strict decoder refuses: \(error)")
            }
        }
    }
    return 0
}

private func check(_ text: String) {
    precondition(!text.contains("\n"), "error spans several lines")
    precondition(text.utf8.count <= 2048, "error message is unbounded (\(text.utf8.count) bytes)")
}
