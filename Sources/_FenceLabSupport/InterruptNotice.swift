import Dispatch
import Foundation

/// Ctrl-C (SIGINT), SIGTERM or SIGHUP during a long command: every engine process group still
/// running is killed (`LiveChildren`) and every process the engines started is ended
/// (`Descendants.endAll`), then one line on stderr saying what was kept and how to
/// continue, and exit 128 + the signal (130 for Ctrl-C, what a shell reports for an interrupted
/// command; 143 for SIGTERM, 129 for SIGHUP).
///
/// The signals are received through dispatch sources, so the message is built in normal context
/// (it may read files) rather than in an async-signal handler; the workers keep running until
/// `exit` ends the process. Files that matter are safe at any instant: reports are swapped in
/// atomically (`ReportFolder`), and the sweep's resume file drops a torn last line.
package enum InterruptNotice {
    /// The exit status after Ctrl-C (128 + SIGINT).
    package static let exitStatus: Int32 = 130

    private nonisolated(unsafe) static var sources: [DispatchSourceSignal] = []
    private static let interrupted = Locked(false)

    /// True once a signal was received: the handler is ending the engines and will exit with
    /// 128 + the signal, so what fails meanwhile because its engine was killed is not reported
    /// and the command's own exit waits for the handler's (`parkIfInterrupted`).
    package static var isInterrupted: Bool { interrupted.withLock { $0 } }

    /// Never returns once a signal was received (the handler exits the process); returns at once
    /// otherwise.
    package static func parkIfInterrupted() {
        while isInterrupted { Syscalls.sleep(microseconds: 100_000) }
    }

    /// Replaces the default action of SIGINT, SIGTERM and SIGHUP: kills the live engines, prints
    /// `message()` (prefixed `fencelab: `) on stderr and exits with 128 + the signal. Call once,
    /// before the long work starts.
    package static func install(_ message: @escaping @Sendable () -> String) {
        let queue = DispatchQueue(label: "fencelab.interrupt")
        for number in [Syscalls.SIGINT, Syscalls.SIGTERM, Syscalls.SIGHUP] {
            Syscalls.ignoreSignal(number)
            let s = DispatchSource.makeSignalSource(signal: number, queue: queue)
            s.setEventHandler {
                interrupted.withLock { $0 = true }
                LiveChildren.killAll()
                Descendants.endAll()
                FileHandle.standardError.write(Data(("\nfencelab: " + message() + "\n").utf8))
                OutputLock.releaseAll()
                Syscalls.exit(128 + number)
            }
            s.resume()
            sources.append(s)
        }
    }

    /// The line for an interrupted `fencelab run`/`accept`: nothing is written before the end.
    package static func runMessage(out: String) -> String {
        "interrupted; nothing was kept: the report is written only when the run completes, so \(out) is unchanged. "
            + "Run the same command again to start over."
    }

    /// The line for an interrupted `fencelab sweep`: how many finished work items the resume file
    /// holds and the command to continue. The workers run on until `exit`, so the count is a lower
    /// bound ("at least"); the file is counted 1 MiB at a time (it holds ~300 bytes per item).
    /// `resumeFile`: the sweep's resume file (`SweepRunner.partialPath(out:)`). When there is none
    /// (the sweep had not run `checkpointAfter_s` seconds, when it starts the file), nothing was kept.
    package static func sweepMessage(resumeFile path: String, checkpointAfter_s: Double) -> String {
        guard FileSystem.kind(of: path) != .missing else {
            return "interrupted; nothing was kept: a sweep starts its resume file after "
                + "\(Syscalls.format("%g", checkpointAfter_s)) s of work (--checkpoint-after) and this one "
                + "had not. Run the same command again to start over."
        }
        let lines = newlineCount(path: path)
        // the first line is the manifest; a torn last line has no newline and is dropped on resume
        let kept = max(0, lines - 1)
        return "interrupted; at least \(kept) finished work item\(kept == 1 ? "" : "s") kept in \(path); "
            + "run the same command with --resume to continue without recomputing them"
    }

    /// Newline bytes in the file at `path` (0 if it cannot be read), read in 1 MiB pieces.
    package static func newlineCount(path: String) -> Int {
        guard let file = try? InputFileReader(path: path) else { return 0 }
        var count = 0
        try? file.forEachPiece { piece in
            for byte in piece where byte == 0x0A { count += 1 }
        }
        return count
    }
}
