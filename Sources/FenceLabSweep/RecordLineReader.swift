import DriveSim
import Foundation
import _FenceLabSupport

/// A record file (a sweep's resume file, a shard's `items.jsonl`) read 1 MiB at a time: the file
/// (≈ 300 bytes per work item) is never in memory whole, so `--resume` and `fencelab merge` stay
/// flat in the number of items. Bytes are consumed from the front; whole lines are handed out as
/// slices of the current piece.
final class RecordLineReader {
    /// Bytes read per piece.
    static let pieceBytes = 1 << 20
    let path: String
    /// What the file is, for the read error ("the resume file").
    private let what: String
    /// The open file (`InputFileReader`: a regular file only).
    private let file: InputFileReader
    /// The unconsumed bytes are `buffer[at...]`; its capacity settles at about two pieces, so
    /// reading allocates nothing per piece.
    private var buffer: [UInt8] = [], at = 0

    /// nil when there is no file at `path`; a FIFO, a device or a directory is refused.
    /// - Throws: `.io` naming the file when it is not a regular file or cannot be opened.
    init?(path: String, what: String) throws(SweepError) {
        do { file = try InputFileReader(path: path) } catch {
            if case .missing = error { return nil }
            throw .io(path: path, reason: "cannot read \(what): \(error.description)")
        }
        self.path = path
        self.what = what
    }

    /// Appends the next piece of the file (dropping what was consumed); false at the end.
    private func more() throws(SweepError) -> Bool {
        buffer.removeFirst(at)
        at = 0
        let kept = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: Self.pieceBytes))
        let got: Int
        do {
            got = try buffer.withUnsafeMutableBytes { (all) throws(InputFileProblem) -> Int in
                try file.read(into: UnsafeMutableRawBufferPointer(rebasing: all[kept...]))
            }
        } catch {
            buffer.removeLast(Self.pieceBytes)
            throw .io(path: path, reason: "cannot read \(what): \(error)")
        }
        buffer.removeLast(Self.pieceBytes - got)
        return got > 0
    }

    /// The next byte without consuming it; nil at the end of the file.
    func peek() throws(SweepError) -> UInt8? {
        if at == buffer.count, try !more() { return nil }
        return buffer[at]
    }

    /// Consumes the byte `peek` returned.
    func skip() { at += 1 }

    /// Whether a newline comes anywhere in the rest of the file (consumes the rest).
    func restHasNewline() throws(SweepError) -> Bool {
        repeat {
            if buffer[at...].contains(UInt8(ascii: "\n")) { return true }
            at = buffer.count
        } while try more()
        return false
    }

    /// Hands each remaining whole line (without its newline) to `body`, in order; returns the
    /// bytes after the last newline (a line without its newline; empty when the file ends with one).
    func lines(_ body: (ArraySlice<UInt8>) throws(SweepError) -> Void) throws(SweepError) -> [UInt8] {
        repeat {
            var i = at
            while i < buffer.count {
                if buffer[i] == UInt8(ascii: "\n") {
                    try body(buffer[at..<i])
                    at = i + 1
                }
                i += 1
            }
        } while try more()
        return Array(buffer[at...])
    }
}
