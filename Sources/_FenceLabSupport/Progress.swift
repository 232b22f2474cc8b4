import Foundation

/// Progress of a long run on stderr: "scenario k/n, replicate r/m, ETA m:ss".
///
/// Shown only when stderr is a terminal (`isatty(2)`) or when forced (`--progress`).
/// On a terminal the line is redrawn in place (`\r` + erase to end of line); when forced
/// without a terminal (CI logs) each update is its own line. Updates are throttled to one
/// per `minimumInterval_s`, except the final one. Thread-safe: work items may report
/// from any thread.
package final class ProgressReporter: Sendable {
    private let totalItems: Int
    private let scenarios: Int
    private let minimumInterval_s: Double
    private let clock: @Sendable () -> Double
    private let sink: @Sendable (String) -> Void
    private let inPlace: Bool
    /// Whether anything is printed at all.
    package let isEnabled: Bool
    private let start_s: Double
    /// Items finished before this process started (resumed): shown in the count, not in the rate.
    private let alreadyDone: Int
    /// What changes as items finish; every report locks it, so lines never interleave.
    private struct Tally: Sendable {
        var done = 0
        var lastEmit_s = -Double.infinity
        var printedInPlace = false
    }
    private let tally: Locked<Tally>

    /// - Parameters:
    ///   - scenarios: number of scenarios (≥ 0).
    ///   - totalWorkItems: scenario × replicate items of the whole run (≥ 0).
    ///   - alreadyDone: items of `totalWorkItems` finished by an earlier process (a resume, ≥ 0):
    ///     counted as done but not in the rate, so the ETA comes from items evaluated here.
    ///   - force: print even when stderr is not a terminal (`--progress`).
    ///   - isTerminal: whether stderr is a terminal; default `isatty(2)`.
    ///   - minimumInterval_s: throttle, seconds (≥ 0).
    ///   - clock: monotonic seconds; injectable for tests.
    ///   - sink: where text goes; default stderr.
    package init(
        scenarios: Int, totalWorkItems: Int, alreadyDone: Int = 0, force: Bool = false,
        isTerminal: Bool = Syscalls.isTerminal(2), minimumInterval_s: Double = 0.5,
        clock: @escaping @Sendable () -> Double = ProgressReporter.monotonicSeconds,
        sink: @escaping @Sendable (String) -> Void = ProgressReporter.standardError
    ) {
        self.scenarios = max(0, scenarios)
        self.totalItems = max(0, totalWorkItems)
        self.alreadyDone = min(max(0, alreadyDone), self.totalItems)
        self.tally = Locked(Tally(done: self.alreadyDone))
        self.isEnabled = force || isTerminal
        self.inPlace = isTerminal
        self.minimumInterval_s = max(0, minimumInterval_s)
        self.clock = clock
        self.sink = sink
        self.start_s = clock()
    }

    /// Records one finished work item: replicate `replicate` of `replicates` (1-based) of
    /// scenario `scenario` (1-based), and prints a throttled update.
    package func completed(scenario: Int, replicate: Int, of replicates: Int) {
        guard isEnabled else { return }
        tally.withLock { t in
            t.done += 1
            let now = clock()
            guard t.done >= totalItems || now - t.lastEmit_s >= minimumInterval_s else { return }
            t.lastEmit_s = now
            let line = Self.line(
                scenario: scenario, of: scenarios, replicate: replicate, of: replicates,
                done: t.done, total: totalItems, elapsed_s: now - start_s)
            if inPlace {
                sink("\r" + line + "\u{1B}[K")
                t.printedInPlace = true
            } else {
                sink(line + "\n")
            }
        }
    }

    /// Records `count` finished units of a run counted in `unit` (e.g. "grid points") and prints a
    /// throttled "grid points 120/300, ETA 0:42" (totalWorkItems counts the same units). The ETA is
    /// elapsed · remaining / (units finished by this process), "--" before the first.
    package func advance(by count: Int, unit: String) {
        guard isEnabled else { return }
        tally.withLock { t in
            t.done += count
            let now = clock()
            guard t.done >= totalItems || now - t.lastEmit_s >= minimumInterval_s else { return }
            t.lastEmit_s = now
            let eta = Self.eta(elapsed_s: now - start_s, doneHere: t.done - alreadyDone, remaining: totalItems - t.done)
            let line = "\(unit) \(t.done)/\(totalItems), ETA \(eta)"
            if inPlace {
                sink("\r" + line + "\u{1B}[K")
                t.printedInPlace = true
            } else {
                sink(line + "\n")
            }
        }
    }

    /// Ends the in-place line (prints a newline) so later output starts on a fresh line.
    package func finish() {
        guard isEnabled else { return }
        tally.withLock { t in
            if t.printedInPlace {
                sink("\n")
                t.printedInPlace = false
            }
        }
    }

    /// The progress text. ETA = elapsed · (total − done)/done, "--" before the first item.
    package static func line(
        scenario: Int, of scenarios: Int, replicate: Int, of replicates: Int,
        done: Int, total: Int, elapsed_s: Double
    ) -> String {
        let eta: String
        if done <= 0 || !elapsed_s.isFinite || elapsed_s < 0 {
            eta = "--"
        } else {
            eta = duration(elapsed_s * Double(max(0, total - done)) / Double(done))
        }
        return "scenario \(scenario)/\(scenarios), replicate \(replicate)/\(replicates), ETA \(eta)"
    }

    /// Time left at the rate of this process: elapsed · remaining / doneHere; "--" before the first item.
    package static func eta(elapsed_s: Double, doneHere: Int, remaining: Int) -> String {
        guard doneHere > 0, elapsed_s.isFinite, elapsed_s >= 0 else { return "--" }
        return duration(elapsed_s * Double(max(0, remaining)) / Double(doneHere))
    }

    /// "m:ss" below an hour, "h:mm:ss" above; seconds rounded up.
    package static func duration(_ seconds: Double) -> String {
        // Int(exactly:) is nil for NaN, ±∞ and beyond Int: an absurd estimate prints "--:--", never traps.
        guard let s = Int(exactly: seconds.rounded(.up)), s >= 0 else { return "--:--" }
        let h = s / 3600
        let m = (s % 3600) / 60
        let sec = s % 60
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return h > 0 ? "\(h):\(two(m)):\(two(sec))" : "\(m):\(two(sec))"
    }

    /// Monotonic clock in seconds (`CLOCK_MONOTONIC`).
    package static let monotonicSeconds: @Sendable () -> Double = { Syscalls.monotonicSeconds() }

    /// Writes to stderr unbuffered.
    package static let standardError: @Sendable (String) -> Void = { text in
        FileHandle.standardError.write(Data(text.utf8))
    }
}
