import FenceLab
import _FenceLabSupport

let code = CLI.flushingStandardOutput(CLI.run(Array(CommandLine.arguments.dropFirst())))
Syscalls.exit(code.rawValue)
