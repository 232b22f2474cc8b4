/// Phase clocks, for measuring where a run's time goes: with `FENCELAB_PHASE_CLOCKS` set in the
/// environment (to any value), every `mark` writes one line to standard error,
/// `fencelab-phase NAME WALL_MS CPU_MS`: the monotonic clock and the CPU time of the whole
/// process (every thread) at that moment, in milliseconds with three decimals. Differences
/// between two marks give a phase's wall time and the CPU time all threads spent in it; the
/// first mark's CPU time is what the process spent before it (loading, arguments, inputs).
/// Unset, a mark reads one flag and does nothing; the outputs do not change either way.
/// `fencelab sweep` marks its phases (docs/benchmarks.md, "Where the time goes").
package enum PhaseClock {
    /// The environment variable that switches the marks on.
    package static let environmentName = "FENCELAB_PHASE_CLOCKS"

    /// Whether marks are written (read once).
    package static let isOn = Syscalls.environmentValue(environmentName) != nil

    /// Writes the mark `name` (no spaces) when `isOn`, through the progress lines' stderr sink.
    package static func mark(_ name: StaticString) {
        guard isOn else { return }
        ProgressReporter.standardError(
            line(name: "\(name)", wall_ns: Syscalls.monotonicNanoseconds(), cpu_ns: Syscalls.processCPUNanoseconds()))
    }

    /// The line of a mark: `fencelab-phase NAME WALL_MS CPU_MS` and a newline.
    package static func line(name: String, wall_ns: UInt64, cpu_ns: UInt64) -> String {
        "fencelab-phase \(name) \(milliseconds(wall_ns)) \(milliseconds(cpu_ns))\n"
    }

    /// `ns` in milliseconds with three decimals, truncated to the microsecond (integer arithmetic).
    static func milliseconds(_ ns: UInt64) -> String {
        let us = ns / 1_000
        let fraction = String(us % 1_000)
        return "\(us / 1_000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
