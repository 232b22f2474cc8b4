import Foundation
import GeoPolicy
import _FenceLabSupport

/// What one lockstep session of an external engine cost (`EngineLockstep.run`).
package struct EngineSessionTiming: Sendable, Hashable {
    /// Seconds from the spawn to the `ready` line (the answer to the `fence` message).
    package var startup_s: Double
    /// Per fix, seconds from writing its line to reading its answer line.
    package var roundTrip_s: [Double]
    /// Seconds from writing the first fix to reading the last answer.
    package var fixes_s: Double
    /// User + system CPU seconds of the engine process and the descendants it (or the harness)
    /// reaped, whole session (start-up included): `getrusage(RUSAGE_CHILDREN)` difference
    /// around reaping the engine.
    package var cpu_s: Double
    /// Largest peak resident set of any child this process has reaped so far, kibibytes
    /// (`ru_maxrss` of `RUSAGE_CHILDREN`).
    package var maxResident_kB: Int
    /// The engine's answers, in fix order.
    package var answers: [EngineAnswer]
}

/// Drives an external engine one fix at a time: each fix line is written only after the answer
/// to the one before has been read, so the time between the two is the engine's round trip
/// (pipe, wake-up, parse, rule, answer). The engine must flush each answer (an engine that
/// buffers its output, as the protocol allows for `run`, gets `.timeout` on fix 0).
/// Bounded like `EngineProcess.exchange`: every wait has a deadline, the engine's process
/// group is killed on any failure.
package enum EngineLockstep {
    package static func run(
        command: String, fence: EngineFence, fixes: [Fix], now_s: [Double],
        perFixTimeout_s: Double, startupGrace_s: Double
    ) throws(ExternalEngineError) -> EngineSessionTiming {
        precondition(fixes.count == now_s.count, "one now per fix")
        _ = EngineProcess.ignoreSIGPIPE
        // Encoded before the spawn: nothing of the encoder is inside a round trip.
        let encoded = EngineRequests.encode(fence: fence, fixes: fixes, now_s: now_s)
        var lineEnds: [Int] = []
        lineEnds.reserveCapacity(fixes.count + 1)
        for (i, byte) in encoded.enumerated() where byte == 0x0A { lineEnds.append(i + 1) }
        precondition(lineEnds.count == fixes.count + 1, "one line per fix after the fence line")

        let usageBefore = Syscalls.reapedChildrenUsage()
        let start = ProgressReporter.monotonicSeconds()
        let child = try EngineChild.spawn(command: command)
        let tail = StderrTail()
        let errFD = child.stderrFD
        let stderrDone = tail.drain(errFD)
        var stdinOpen = true
        func closeInput() {
            if stdinOpen { Syscalls.close(child.stdinFD) }
            stdinOpen = false
        }
        func fail(_ error: ExternalEngineError) -> ExternalEngineError {
            closeInput()
            let exited = child.waitForExit(timeout_s: 0.2)
            let status = child.finish()
            _ = stderrDone.wait(timeout: .now() + 1)
            switch error {
            case .timeout(let s, let i, _): return .timeout(seconds: s, firstUnanswered: i, stderrTail: tail.text)
            case .noReady: return .noReady(status: exited ? status : nil, stderrTail: tail.text)
            case .readyTimeout(let s, _): return .readyTimeout(seconds: s, stderrTail: tail.text)
            case .exited(_, let answered, let expected, _):
                return .exited(status: status, answered: answered, expected: expected, stderrTail: tail.text)
            default: return error
            }
        }

        var reader = LineReader(fd: child.stdoutFD)
        var roundTrips: [Double] = []
        roundTrips.reserveCapacity(fixes.count)
        var answers: [EngineAnswer] = []
        answers.reserveCapacity(fixes.count)
        let startup_s: Double
        var fixesStart = 0.0
        do throws(ExternalEngineError) {
            // An engine gone already fails on the read below, with what it printed (if anything).
            _ = write(child.stdinFD, encoded, 0..<lineEnds[0])
            guard let readyLine = try reader.next(timeout_s: startupGrace_s + perFixTimeout_s) else {
                throw .noReady(status: nil, stderrTail: "")
            }
            guard let ready = readyLine else {
                throw .readyTimeout(seconds: startupGrace_s + perFixTimeout_s, stderrTail: "")
            }
            try EngineRequests.decodeReady(Substring(ready))
            startup_s = ProgressReporter.monotonicSeconds() - start
            fixesStart = ProgressReporter.monotonicSeconds()
            for i in 0..<fixes.count {
                let sent = ProgressReporter.monotonicSeconds()
                guard write(child.stdinFD, encoded, lineEnds[i]..<lineEnds[i + 1]) else {
                    throw .exited(status: -1, answered: i, expected: fixes.count, stderrTail: "")
                }
                guard let line = try reader.next(timeout_s: perFixTimeout_s) else {
                    throw .exited(status: -1, answered: i, expected: fixes.count, stderrTail: "")
                }
                roundTrips.append(ProgressReporter.monotonicSeconds() - sent)
                guard let text = line else {
                    throw .timeout(seconds: perFixTimeout_s, firstUnanswered: i, stderrTail: "")
                }
                answers.append(try EngineRequests.decodeAnswer(Substring(text), line: i + 2, expectedIndex: i))
            }
        } catch {
            throw fail(error)
        }
        let fixes_s = ProgressReporter.monotonicSeconds() - fixesStart
        closeInput()
        // Nothing more may come: end of file, then the engine's exit.
        let extra: String??
        do { extra = try reader.next(timeout_s: perFixTimeout_s) } catch { throw fail(error) }
        if case let line?? = extra {
            throw fail(
                .garbage(
                    line: fixes.count + 2, text: EngineRequests.shorten(Substring(line)),
                    reason: "more answers than fixes (\(fixes.count))"))
        }
        if case .some(.none) = extra {
            throw fail(.lingered(seconds: perFixTimeout_s, answered: fixes.count, outputOpen: true, stderrTail: ""))
        }
        guard child.waitForExit(timeout_s: perFixTimeout_s) else {
            throw fail(.lingered(seconds: perFixTimeout_s, answered: fixes.count, outputOpen: false, stderrTail: ""))
        }
        let status = child.finish()
        let usageAfter = Syscalls.reapedChildrenUsage()
        _ = stderrDone.wait(timeout: .now() + 1)
        guard status == 0 else {
            throw .exited(status: status, answered: fixes.count, expected: fixes.count, stderrTail: tail.text)
        }
        return EngineSessionTiming(
            startup_s: startup_s, roundTrip_s: roundTrips, fixes_s: fixes_s,
            cpu_s: usageAfter.cpu_s - usageBefore.cpu_s, maxResident_kB: usageAfter.maxResident_kB,
            answers: answers)
    }

    private static func write(_ fd: Int32, _ bytes: [UInt8], _ range: Range<Int>) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = range.lowerBound
            while offset < range.upperBound {
                let n = Syscalls.write(fd, raw.baseAddress! + offset, range.upperBound - offset)
                if n < 0 {
                    if Syscalls.errno == Syscalls.EINTR { continue }
                    return false
                }
                offset += n
            }
            return true
        }
    }

    /// Lines of the engine's stdout, each within a deadline.
    private struct LineReader {
        let fd: Int32
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)

        init(fd: Int32) { self.fd = fd }

        /// The next line without its newline; `.some(nil)` when none came within `timeout_s`;
        /// nil at end of file (a last line without a newline is `.garbage`).
        mutating func next(timeout_s: Double) throws(ExternalEngineError) -> String?? {
            let deadline = ProgressReporter.monotonicSeconds() + timeout_s
            while true {
                if let nl = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[..<nl], as: UTF8.self)
                    pending.removeFirst(nl + 1)
                    return .some(line)
                }
                if pending.count > 1 << 20 {
                    throw .garbage(line: 0, text: "(over 1 MiB without a newline)", reason: "line too long")
                }
                let remaining = deadline - ProgressReporter.monotonicSeconds()
                if remaining <= 0 { return .some(nil) }
                let ready = Syscalls.pollReadable(fd, timeout_ms: Int32((min(remaining, 1) * 1000).rounded(.up)))
                if ready < 0 {
                    if Syscalls.errno == Syscalls.EINTR { continue }
                    return nil
                }
                if ready == 0 { continue }
                let n = buffer.withUnsafeMutableBytes { Syscalls.read(fd, $0.baseAddress, 65536) }
                if n < 0 {
                    if Syscalls.errno == Syscalls.EINTR { continue }
                    return nil
                }
                if n == 0 {
                    guard pending.isEmpty else {
                        throw .garbage(
                            line: 0, text: EngineRequests.shorten(Substring(String(decoding: pending, as: UTF8.self))),
                            reason: "last line has no newline")
                    }
                    return nil
                }
                pending.append(contentsOf: buffer[0..<n])
            }
        }
    }
}
