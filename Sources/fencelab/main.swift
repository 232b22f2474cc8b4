import FenceLab
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

AllocatorTuning.keepHeapTopPadded()
let code = CLI.flushingStandardOutput(CLI.run(Array(CommandLine.arguments.dropFirst())))
exit(code.rawValue)
