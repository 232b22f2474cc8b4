import FenceLab
import _FenceLabSupport

// A file-size limit (`ulimit -f`) then gives a one-line error and no leftovers, not SIGXFSZ.
Syscalls.ignoreFileSizeSignal()
let code = CLI.flushingStandardOutput(CLI.run(Array(CommandLine.arguments.dropFirst())))
Syscalls.exit(code.rawValue)
