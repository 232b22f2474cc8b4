import Foundation
import GeoPolicy
import _FenceLabSupport

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

    /// Reads `fd` to its end on a thread of its own, keeping the tail here, then closes it; the
    /// semaphore is signalled when the descriptor is closed.
    func drain(_ fd: Int32) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = buffer.withUnsafeMutableBytes { Syscalls.read(fd, $0.baseAddress, 4096) }
                if n < 0, Syscalls.errno == Syscalls.EINTR { continue }
                if n <= 0 { break }
                self.append(buffer[0..<n])
            }
            Syscalls.close(fd)
            done.signal()
        }
        reader.start()
        return done
    }
}

/// Process plumbing for the engine protocol: spawn, write in the background,
/// read with a deadline, kill on failure. Never blocks past the deadline.
///
/// Every engine is `/bin/sh -c COMMAND` started as the leader of its own process group
/// (`POSIX_SPAWN_SETPGROUP`), so whatever the shell forks (`sleep 100000; true`) is
/// killed with it: the group gets SIGKILL on timeout, on error and after the engine
/// exits, before the leader is reaped (so the group id cannot have been reused).
enum EngineProcess {
    static let ignoreSIGPIPE: Void = { Syscalls.ignoreBrokenPipeSignal() }()

    static func exchange(
        command: String, request: [UInt8], expected: Int, timeout_s: Double,
        readyTimeout_s: Double
    ) throws(ExternalEngineError) -> [EngineAnswer] {
        try exchange(command: command, expected: expected, timeout_s: timeout_s, readyTimeout_s: readyTimeout_s) { fd in
            writeAll(fd: fd, request)
        }
    }

    /// Like `exchange(command:request:expected:timeout_s:)`, with the request written by
    /// `writeRequest(fd)` on the writer thread, so a large request can be encoded chunk by
    /// chunk while the engine already answers the first lines.
    ///
    /// - Parameters:
    ///   - timeout_s: seconds allowed for each answer after the previous one, and for the
    ///     engine to exit after its last answer.
    ///   - readyTimeout_s: seconds allowed for the ready line after the start.
    static func exchange(
        command: String, expected: Int, timeout_s: Double, readyTimeout_s: Double,
        writeRequest: @escaping @Sendable (Int32) -> Void
    ) throws(ExternalEngineError) -> [EngineAnswer] {
        _ = ignoreSIGPIPE
        let child = try EngineChild.spawn(command: command)
        let writeFD = child.stdinFD
        let writerDone = DispatchSemaphore(value: 0)
        let writer = Thread {
            writeRequest(writeFD)
            Syscalls.close(writeFD)
            writerDone.signal()
        }
        writer.start()
        let tail = StderrTail()
        let errFD = child.stderrFD
        let stderrDone = tail.drain(errFD)

        var answers: [EngineAnswer] = []
        answers.reserveCapacity(expected)
        let status: Int32
        do throws(ExternalEngineError) {
            try readAnswers(
                fd: child.stdoutFD, expected: expected,
                readyTimeout_s: readyTimeout_s, answerTimeout_s: timeout_s, into: &answers)
            guard child.waitForExit(timeout_s: timeout_s) else {
                if answers.count == expected {
                    throw ExternalEngineError.lingered(
                        seconds: timeout_s, answered: expected, outputOpen: false, stderrTail: "")
                }
                throw ExternalEngineError.timeout(seconds: timeout_s, firstUnanswered: answers.count, stderrTail: "")
            }
            status = child.finish()
        } catch {
            // Output closed before `ready`: usually the engine exited; name its status when it did.
            let exitedEarly =
                error == .noReady(status: nil, stderrTail: "") && child.waitForExit(timeout_s: min(timeout_s, 1))
            // No answer in time, but the engine itself has exited: something it started holds stdout.
            var leaderGone = false
            if case .timeout = error { leaderGone = child.waitForExit(timeout_s: 0) }
            let status = child.finish()
            // Bounded: a grandchild that left the group could keep these pipes open for ever.
            _ = writerDone.wait(timeout: .now() + 1)
            _ = stderrDone.wait(timeout: .now() + 1)
            switch error {
            case .timeout(let s, let i, _) where leaderGone:
                throw .outputHeldOpen(
                    status: status, answered: i, expected: expected, seconds: s, stderrTail: tail.text)
            case .timeout(let s, let i, _): throw .timeout(seconds: s, firstUnanswered: i, stderrTail: tail.text)
            case .lingered(let s, let n, let open, _):
                throw .lingered(seconds: s, answered: n, outputOpen: open, stderrTail: tail.text)
            case .noReady: throw .noReady(status: exitedEarly ? status : nil, stderrTail: tail.text)
            case .readyTimeout(let s, _): throw .readyTimeout(seconds: s, stderrTail: tail.text)
            default: throw error
            }
        }
        // stderr reaches EOF once the group is gone: wait briefly so the message carries what the engine said.
        _ = stderrDone.wait(timeout: .now() + 1)
        _ = writerDone.wait(timeout: .now() + 1)
        guard status == 0, answers.count == expected else {
            throw .exited(status: status, answered: answers.count, expected: expected, stderrTail: tail.text)
        }
        return answers
    }

    /// Writes all of `bytes`; false when the engine has gone (EPIPE: the reader reports why).
    @discardableResult
    static func writeAll(fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Syscalls.write(fd, raw.baseAddress! + offset, min(65536, raw.count - offset))
                if n < 0 {
                    if Syscalls.errno == Syscalls.EINTR { continue }
                    return false
                }
                offset += n
            }
            return true
        }
    }

    /// The answer on a plain line that `EngineRequests.decodeAnswer` would accept, or nil
    /// (then the caller decodes the line fully, which accepts it or names the problem).
    static func fastAnswer(
        _ line: UnsafeBufferPointer<UInt8>, expectedIndex: Int,
        fields: inout FlatJSONFields
    ) -> EngineAnswer? {
        guard fields.scan(line) else { return nil }
        let v = fields.values
        guard case .number(let index)? = v[0], index == Double(expectedIndex),
            case .string(let stateText)? = v[1], let state = FenceState(rawValue: stateText)
        else { return nil }
        var rejected: String? = nil
        switch v[2] {
        case nil: break
        case .string(let r)?: rejected = r
        default: return nil
        }
        return EngineAnswer(index: expectedIndex, state: state, rejected: rejected)
    }

    /// Reads `ready` then `expected` answers; stops at EOF (the caller checks the count).
    /// The ready line must arrive within `readyTimeout_s` of the start, every answer within
    /// `answerTimeout_s` of the line before it (monotonic clock: a wall-clock step changes nothing).
    static func readAnswers(
        fd: Int32, expected: Int, readyTimeout_s: Double, answerTimeout_s: Double,
        into answers: inout [EngineAnswer]
    ) throws(ExternalEngineError) {
        var pending: [UInt8] = []
        var fields = FlatJSONFields(keys: ["index", "state", "rejected"])
        var buffer = [UInt8](repeating: 0, count: 65536)
        var line = 0
        var sawReady = false
        var deadline = ProgressReporter.monotonicSeconds() + readyTimeout_s
        while true {
            let remaining = deadline - ProgressReporter.monotonicSeconds()
            if remaining <= 0 {
                guard sawReady else { throw .readyTimeout(seconds: readyTimeout_s, stderrTail: "") }
                if answers.count == expected {
                    // All answered, no end of file: something still holds the engine's stdout.
                    throw .lingered(seconds: answerTimeout_s, answered: expected, outputOpen: true, stderrTail: "")
                }
                throw .timeout(seconds: answerTimeout_s, firstUnanswered: answers.count, stderrTail: "")
            }
            let ready = Syscalls.pollReadable(fd, timeout_ms: Int32((min(remaining, 1) * 1000).rounded(.up)))
            if ready < 0 {
                if Syscalls.errno == Syscalls.EINTR { continue }
                break
            }
            if ready == 0 { continue }
            let n = buffer.withUnsafeMutableBytes { Syscalls.read(fd, $0.baseAddress, 65536) }
            if n < 0 {
                if Syscalls.errno == Syscalls.EINTR { continue }
                break
            }
            if n == 0 { break }
            pending.append(contentsOf: buffer[0..<n])
            var lineStart = 0
            let answeredBefore = answers.count
            let readyBefore = sawReady
            while let nl = pending[lineStart...].firstIndex(of: 0x0A) {
                line += 1
                // Plain answers take the dictionary-free scanner; anything else the full decoder.
                if sawReady, answers.count < expected,
                    let answer = pending.withUnsafeBufferPointer({
                        fastAnswer(
                            UnsafeBufferPointer(rebasing: $0[lineStart..<nl]),
                            expectedIndex: answers.count, fields: &fields)
                    })
                {
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
                    throw .garbage(
                        line: line, text: EngineRequests.shorten(text), reason: "more answers than fixes (\(expected))")
                }
                answers.append(try EngineRequests.decodeAnswer(text, line: line, expectedIndex: answers.count))
            }
            if answers.count > answeredBefore || sawReady != readyBefore {
                deadline = ProgressReporter.monotonicSeconds() + answerTimeout_s
            }
            if lineStart > 0 { pending.removeFirst(lineStart) }
            if pending.count > 1 << 20 {
                throw .garbage(line: line + 1, text: "(over 1 MiB without a newline)", reason: "line too long")
            }
        }
        if !pending.isEmpty, sawReady {
            throw .garbage(
                line: line + 1, text: EngineRequests.shorten(Substring(String(decoding: pending, as: UTF8.self))),
                reason: "last line has no newline")
        }
        guard sawReady else {
            if !pending.isEmpty {
                throw .garbage(
                    line: 1, text: EngineRequests.shorten(Substring(String(decoding: pending, as: UTF8.self))),
                    reason: "expected the ready message; the line has no newline")
            }
            throw .noReady(status: nil, stderrTail: "")
        }
    }
}

/// One engine process: `/bin/sh -c COMMAND`, leader of its own process group, with pipes
/// on its stdin, stdout and stderr (close-on-exec on our side, so engines started by other
/// threads at the same moment never inherit them and hold them open).
final class EngineChild {
    let pid: Int32
    /// The engine's `FENCELAB_ENGINE_ID` value, inherited by every process it starts.
    let marker: String
    let stdinFD: Int32, stdoutFD: Int32, stderrFD: Int32
    private var reaped = false
    private var status: Int32 = -1

    private init(pid: Int32, marker: String, stdinFD: Int32, stdoutFD: Int32, stderrFD: Int32) {
        self.pid = pid
        self.marker = marker
        self.stdinFD = stdinFD
        self.stdoutFD = stdoutFD
        self.stderrFD = stderrFD
    }

    deinit {
        _ = finish()
        Syscalls.close(stdoutFD)
    }

    static func spawn(command: String) throws(ExternalEngineError) -> EngineChild {
        func failure(_ what: String, _ code: Int32) -> ExternalEngineError {
            .startFailed(command: command, reason: "\(what): \(Syscalls.errorText(code))")
        }
        // Pipes and spawn while no other engine starts, so none inherits our pipe ends.
        var fds: [Int32] = []
        let started = try LiveChildren.start { (environmentEntry: String) throws(ExternalEngineError) -> Int32 in
            for _ in 0..<3 {
                guard let p = Syscalls.closeOnExecPipe() else {
                    let e = Syscalls.errno
                    for fd in fds { Syscalls.close(fd) }
                    throw failure("pipe", e)
                }
                fds += [p.read, p.write]
            }
            // fds: [stdin read, stdin write, stdout read, stdout write, stderr read, stderr write]
            let spawned = Syscalls.spawnShell(
                command: command, stdin: fds[0], stdout: fds[3], stderr: fds[5], environmentEntry: environmentEntry)
            Syscalls.close(fds[0])
            Syscalls.close(fds[3])
            Syscalls.close(fds[5])
            switch spawned {
            case .success(let child): return child
            case .failure(let spawnFailure):
                Syscalls.close(fds[1])
                Syscalls.close(fds[2])
                Syscalls.close(fds[4])
                throw failure("posix_spawn", spawnFailure.code)
            }
        }
        guard let started else {
            throw .startFailed(command: command, reason: "FenceLab is stopping (interrupted)")
        }
        return EngineChild(
            pid: started.pid, marker: started.marker, stdinFD: fds[1], stdoutFD: fds[2], stderrFD: fds[4])
    }

    /// True once the leader has exited (not reaped: its pid and group id stay reserved),
    /// false when it is still running after `timeout_s` (monotonic clock).
    func waitForExit(timeout_s: Double) -> Bool {
        let deadline = ProgressReporter.monotonicSeconds() + timeout_s
        var pause_us: UInt32 = 200
        while true {
            // true also when there is nothing to wait for (already reaped); nil: interrupted
            if Syscalls.childHasExited(pid) == true { return true }
            if ProgressReporter.monotonicSeconds() >= deadline { return false }
            Syscalls.sleep(microseconds: pause_us)
            pause_us = min(pause_us * 2, 20_000)
        }
    }

    /// Kills the whole process group (the leader and anything it started), reaps the leader
    /// and returns its exit status (128 + signal when killed); then ends what the engine started
    /// outside its group (`Descendants.endEngine`). Idempotent; bounded.
    @discardableResult
    func finish() -> Int32 {
        guard !reaped else { return status }
        defer { if reaped { Descendants.endEngine(group: pid, marker: marker) } }
        Syscalls.killProcessGroup(pid)
        var raw: Int32 = 0
        let deadline = ProgressReporter.monotonicSeconds() + 5
        while true {
            let wait = Syscalls.reapIfExited(pid)
            raw = wait.rawStatus
            if wait.rc == pid { break }
            if wait.rc < 0, Syscalls.errno != Syscalls.EINTR {
                reaped = true
                LiveChildren.unregister(pid)
                return status
            }
            // SIGKILL is not deliverable in uninterruptible sleep: give up after 5 s rather than hang.
            if ProgressReporter.monotonicSeconds() >= deadline { return status }
            Syscalls.sleep(microseconds: 1000)
        }
        reaped = true
        LiveChildren.unregister(pid)
        let signal = raw & 0x7F
        status = signal == 0 ? (raw >> 8) & 0xFF : 128 + signal
        return status
    }
}
