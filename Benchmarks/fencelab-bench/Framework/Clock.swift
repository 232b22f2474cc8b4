#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Monotonic time in nanoseconds (`clock_gettime(CLOCK_MONOTONIC)`).
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}

/// Keeps a checksum alive so the optimiser cannot delete the benchmarked work.
nonisolated(unsafe) var blackHoleSink: Double = 0

@inline(never)
func blackHole(_ x: Double) {
    blackHoleSink += x
}
