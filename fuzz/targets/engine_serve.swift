// libFuzzer entry for `fencelab engine-serve` (the built-in engine's side of the protocol).
// fuzz-links: FenceLab
// fuzz-sources:
// The input is the whole request stream (fence line, then fix lines). Any EngineServerError is
// a correct outcome; a crash, a hang or a sanitizer report is a bug. Properties:
// - the first output line, if any, is the ready line; every output line is a flat JSON object
//   that FlatJSON parses, and every answer carries an index that is a whole number ≥ 0;
// - at most one answer per input line;
// - an error's description is one line of bounded length.
import FenceLab
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)[...]
    let inputLines = lines.count
    var output = ""
    do {
        try EngineServer.serve(nextLine: { lines.popFirst() }, write: { output += $0 })
    } catch {
        let message = error.description
        precondition(!message.contains("\n"), "error spans several lines")
        precondition(message.utf8.count <= 2048, "error message is unbounded (\(message.utf8.count) bytes)")
    }
    let answers = output.split(separator: "\n")
    precondition(answers.count <= inputLines, "more output lines than input lines")
    for (i, line) in answers.enumerated() {
        let object: [String: EngineValue]
        do { object = try FlatJSON.parseObject(line.utf8) } catch {
            preconditionFailure("output line \(i + 1) is not flat JSON: \(error)")
        }
        if i == 0 {
            precondition(object["type"] == .string("ready"), "first output line is not ready")
        } else if let index = object["index"]?.double {
            precondition(index >= 0 && index == index.rounded() && index < 9.1e18, "answer index \(index)")
        } else {
            preconditionFailure("answer line without index")
        }
    }
    return 0
}
