import Foundation
import GeoPolicy
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The last bytes an engine wrote to stderr, kept for error messages.
final class StderrTail: Sendable {
    private let bytes = Locked<[UInt8]>([])
    private let limit = 2048

    func append(_ chunk: ArraySlice<UInt8>) {
        bytes.withLock { bytes in
            bytes.append(contentsOf: chunk)
            if bytes.count > limit { bytes.removeFirst(bytes.count - limit) }
        }
    }

    var text: String {
        let lines = bytes.withLock { String(decoding: $0, as: UTF8.self) }.split(separator: "\n").suffix(3)
        return lines.joined(separator: " | ")
    }
}

/// Process plumbing for the engine protocol: spawn, write in the background,
/// read with a deadline, kill on failure. Never blocks past the deadline.
enum EngineProcess {
    static let ignoreSIGPIPE: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    static func exchange(command: String, request: [UInt8], expected: Int,
                         timeout_s: Double) throws(ExternalEngineError) -> [EngineAnswer] {
        try exchange(command: command, expected: expected, timeout_s: timeout_s) { fd in writeAll(fd: fd, request) }
    }

    /// Like `exchange(command:request:expected:timeout_s:)`, with the request written by
    /// `writeRequest(fd)` on the writer thread, so a large request can be encoded chunk by
    /// chunk while the engine already answers the first lines.
    static func exchange(command: String, expected: Int, timeout_s: Double,
                         writeRequest: @escaping @Sendable (Int32) -> Void) throws(ExternalEngineError) -> [EngineAnswer] {
        _ = ignoreSIGPIPE
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        do { try process.run() } catch {
            throw .startFailed(command: command, reason: "\(error)")
        }
        try? input.fileHandleForReading.close()
        try? output.fileHandleForWriting.close()
        try? errors.fileHandleForWriting.close()

        let writeFD = input.fileHandleForWriting.fileDescriptor
        let writer = Thread {
            writeRequest(writeFD)
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let tail = StderrTail()
        let errFD = errors.fileHandleForReading.fileDescriptor
        let stderrDone = DispatchSemaphore(value: 0)
        let errReader = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(errFD, $0.baseAddress, 4096) }
                if n <= 0 { break }
                tail.append(buffer[0..<n])
            }
            stderrDone.signal()
        }
        errReader.start()

        let start = Date()
        var answers: [EngineAnswer] = []
        answers.reserveCapacity(expected)
        do {
            try readAnswers(fd: output.fileHandleForReading.fileDescriptor, expected: expected,
                            deadline: start.addingTimeInterval(timeout_s), timeout_s: timeout_s, into: &answers)
        } catch {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            _ = stderrDone.wait(timeout: .now() + 1)
            if case .timeout(let s, let i, _) = error { throw .timeout(seconds: s, firstUnanswered: i, stderrTail: tail.text) }
            throw error
        }
        process.waitUntilExit()
        // The engine's stderr reaches EOF when it exits (unless a child keeps it open): wait briefly
        // so the message below carries what the engine said.
        _ = stderrDone.wait(timeout: .now() + 1)
        guard process.terminationStatus == 0, answers.count == expected else {
            throw .exited(status: process.terminationStatus, answered: answers.count, expected: expected, stderrTail: tail.text)
        }
        return answers
    }

    /// Writes all of `bytes`; false when the engine has gone (EPIPE: the reader reports why).
    @discardableResult
    static func writeAll(fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, min(65536, raw.count - offset))
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += n
            }
            return true
        }
    }

    /// The answer on a plain line that `EngineRequests.decodeAnswer` would accept, or nil
    /// (then the caller decodes the line fully, which accepts it or names the problem).
    static func fastAnswer(_ line: UnsafeBufferPointer<UInt8>, expectedIndex: Int,
                           fields: inout FlatJSONFields) -> EngineAnswer? {
        guard fields.scan(line) else { return nil }
        let v = fields.values
        guard case let .number(index)? = v[0], index == Double(expectedIndex),
              case let .string(stateText)? = v[1], let state = FenceState(rawValue: stateText) else { return nil }
        var rejected: String? = nil
        switch v[2] {
        case nil: break
        case let .string(r)?: rejected = r
        default: return nil
        }
        return EngineAnswer(index: expectedIndex, state: state, rejected: rejected)
    }

    /// Reads `ready` then `expected` answers; stops at EOF (the caller checks the count).
    static func readAnswers(fd: Int32, expected: Int, deadline: Date, timeout_s: Double,
                            into answers: inout [EngineAnswer]) throws(ExternalEngineError) {
        var pending: [UInt8] = []
        var fields = FlatJSONFields(keys: ["index", "state", "rejected"])
        var buffer = [UInt8](repeating: 0, count: 65536)
        var line = 0
        var sawReady = false
        while true {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 {
                throw .timeout(seconds: timeout_s, firstUnanswered: answers.count, stderrTail: "")
            }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, Int32(min(remaining, 1) * 1000))
            if ready < 0 { if errno == EINTR { continue }; break }
            if ready == 0 { continue }
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, 65536) }
            if n < 0 { if errno == EINTR { continue }; break }
            if n == 0 { break }
            pending.append(contentsOf: buffer[0..<n])
            var lineStart = 0
            while let nl = pending[lineStart...].firstIndex(of: 0x0A) {
                line += 1
                // Plain answers take the dictionary-free scanner; anything else the full decoder.
                if sawReady, answers.count < expected,
                   let answer = pending.withUnsafeBufferPointer({ fastAnswer(UnsafeBufferPointer(rebasing: $0[lineStart..<nl]),
                                                                             expectedIndex: answers.count, fields: &fields) }) {
                    answers.append(answer)
                    lineStart = nl + 1
                    continue
                }
                let text = Substring(String(decoding: pending[lineStart..<nl], as: UTF8.self))
                lineStart = nl + 1
                if !sawReady {
                    try EngineRequests.decodeReady(text)
                    sawReady = true
                    continue
                }
                guard answers.count < expected else {
                    throw .garbage(line: line, text: EngineRequests.shorten(text), reason: "more answers than fixes (\(expected))")
                }
                answers.append(try EngineRequests.decodeAnswer(text, line: line, expectedIndex: answers.count))
            }
            if lineStart > 0 { pending.removeFirst(lineStart) }
            if pending.count > 1 << 20 {
                throw .garbage(line: line + 1, text: "(over 1 MiB without a newline)", reason: "line too long")
            }
        }
        if !pending.isEmpty {
            throw .garbage(line: line + 1, text: EngineRequests.shorten(Substring(String(decoding: pending, as: UTF8.self))),
                           reason: "last line has no newline")
        }
    }
}
