/// Process exit codes of `fencelab` (contract, README.md "Commands").
package enum ExitCode: Int32, Sendable {
    /// Everything ran and every check passed.
    case success = 0
    /// A check, fixture or expectation failed.
    case checkFailed = 1
    /// Bad input: a file or value was refused.
    case badInput = 2
    /// `bench-engine --compare NAME` without that baseline (as `fencelab-bench`).
    case baselineMissing = 5
    /// Usage error: unknown command or option, missing argument (BSD `EX_USAGE`).
    case usage = 64

    /// `bench-engine`: a gated figure regressed (2, as `fencelab-bench`; its measurement failures are 1).
    package static let regression = ExitCode.badInput
}
