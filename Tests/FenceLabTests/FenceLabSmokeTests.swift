import FenceLab
import Testing
import _CommandLineKit

@Suite struct FenceLabSmokeTests {
    @Test func exitCodesAreTheContract() {
        #expect(ExitCode.success.rawValue == 0)
        #expect(ExitCode.checkFailed.rawValue == 1)
        #expect(ExitCode.badInput.rawValue == 2)
        #expect(ExitCode.usage.rawValue == 64)
    }
}
