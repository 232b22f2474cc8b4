import _FenceLabSupport

/// Monotonic time in nanoseconds (`clock_gettime(CLOCK_MONOTONIC)`, through `Syscalls`).
@inline(__always)
func monotonicNanoseconds() -> UInt64 { Syscalls.monotonicNanoseconds() }

/// Keeps a checksum alive so the optimiser cannot delete the benchmarked work.
nonisolated(unsafe) var blackHoleSink: Double = 0

/// Keeps `x` alive: a body that computes a value nobody reads can return it, or pass it here.
@inline(never)
public func blackHole(_ x: Double) {
    blackHoleSink += x
}
