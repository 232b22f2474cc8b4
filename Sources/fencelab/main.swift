import FenceLab
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let code = CLI.flushingStandardOutput(CLI.run(Array(CommandLine.arguments.dropFirst())))
exit(code.rawValue)
