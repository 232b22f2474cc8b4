import Testing

@testable import _FenceLabSupport

/// A phase mark's line: nanoseconds written as milliseconds with three decimals, truncated to the
/// microsecond, in integer arithmetic.
@Suite struct PhaseClockTests {
    @Test func lineGivesMillisecondsToTheMicrosecond() {
        #expect(
            PhaseClock.line(name: "evaluated", wall_ns: 25_018_624_819_475_123, cpu_ns: 169_032_696)
                == "fencelab-phase evaluated 25018624819.475 169.032\n")
        #expect(PhaseClock.milliseconds(0) == "0.000")
        #expect(PhaseClock.milliseconds(999) == "0.000")
        #expect(PhaseClock.milliseconds(1_000) == "0.001")
        #expect(PhaseClock.milliseconds(12_345_678) == "12.345")
        #expect(PhaseClock.milliseconds(1_000_000_000) == "1000.000")
    }
}
