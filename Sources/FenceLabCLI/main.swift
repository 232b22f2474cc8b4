import FenceLab
import _FenceLabSupport

// A file-size limit (`ulimit -f`) then gives a one-line error and no leftovers, not SIGXFSZ.
Syscalls.ignoreFileSizeSignal()
// Orphans of an engine's helpers become fencelab's children, so they are ended with it (Linux).
Descendants.adoptOrphans()
let code = CLI.flushingStandardOutput(CLI.run(Array(CommandLine.arguments.dropFirst())))
// After a signal, the handler reports and exits (128 + the signal), not the command's own end.
InterruptNotice.parkIfInterrupted()
// Nothing an engine started outlives the command, whatever the exit code.
Descendants.endAll()
Syscalls.exit(code.rawValue)
