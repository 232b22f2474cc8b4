import CProcessControl

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Every call FenceLab makes into the C library, in one file: the single seam to port to another
/// platform or to replace in a test (the model of swift-system's `Syscalls.swift`). Each wrapper
/// is thin — one C call, its result as the C library gives it (`-1` and `errno` on failure) — and
/// names the C function it calls. No other file of the package imports Glibc or Darwin, except
/// the engine's and the generator's libm users (GeoPolicy `Math.swift`, DriveSim's generators),
/// which the layering test checks for system calls.
package enum Syscalls {
    // MARK: errors

    /// `errno` of the calling thread.
    package static var errno: Int32 {
        #if canImport(Glibc)
            Glibc.errno
        #else
            Darwin.errno
        #endif
    }

    /// The system's text for `code` (`strerror`).
    package static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// The system's text for the current `errno`.
    package static func lastErrorText() -> String { errorText(errno) }

    /// `errno` values the callers tell apart.
    package static let EINTR: Int32 = {
        #if canImport(Glibc)
            Glibc.EINTR
        #else
            Darwin.EINTR
        #endif
    }()
    package static let ENOENT: Int32 = {
        #if canImport(Glibc)
            Glibc.ENOENT
        #else
            Darwin.ENOENT
        #endif
    }()
    package static let EWOULDBLOCK: Int32 = {
        #if canImport(Glibc)
            Glibc.EWOULDBLOCK
        #else
            Darwin.EWOULDBLOCK
        #endif
    }()
    package static let ENOTDIR: Int32 = {
        #if canImport(Glibc)
            Glibc.ENOTDIR
        #else
            Darwin.ENOTDIR
        #endif
    }()

    // MARK: files

    /// `open(2)` flags the package uses.
    package static let O_RDONLY = _O_RDONLY
    package static let O_WRONLY = _O_WRONLY, O_CREAT = _O_CREAT, O_EXCL = _O_EXCL, O_CLOEXEC = _O_CLOEXEC
    package static let O_APPEND = _O_APPEND, O_NOFOLLOW = _O_NOFOLLOW, O_DIRECTORY = _O_DIRECTORY
    package static let O_NONBLOCK = _O_NONBLOCK, O_RDWR = _O_RDWR

    /// `open(path, flags, mode)`: a descriptor, or -1 with `errno`.
    package static func open(_ path: String, _ flags: Int32, _ mode: UInt32 = 0) -> Int32 {
        #if canImport(Glibc)
            Glibc.open(path, flags, mode)
        #else
            Darwin.open(path, flags, mode_t(mode))
        #endif
    }

    /// `close(fd)`.
    @discardableResult
    package static func close(_ fd: Int32) -> Int32 {
        #if canImport(Glibc)
            Glibc.close(fd)
        #else
            Darwin.close(fd)
        #endif
    }

    /// `read(fd, buffer, count)`: bytes read, 0 at the end, -1 with `errno`.
    package static func read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.read(fd, buffer, count)
        #else
            Darwin.read(fd, buffer, count)
        #endif
    }

    /// `write(fd, bytes, count)`: bytes written, -1 with `errno`.
    package static func write(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.write(fd, bytes, count)
        #else
            Darwin.write(fd, bytes, count)
        #endif
    }

    /// `pread(fd, buffer, count, offset)`.
    package static func pread(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int, _ offset: Int) -> Int {
        #if canImport(Glibc)
            Glibc.pread(fd, buffer, count, off_t(offset))
        #else
            Darwin.pread(fd, buffer, count, off_t(offset))
        #endif
    }

    /// `pwrite(fd, bytes, count, offset)`.
    package static func pwrite(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int, _ offset: Int) -> Int {
        #if canImport(Glibc)
            Glibc.pwrite(fd, bytes, count, off_t(offset))
        #else
            Darwin.pwrite(fd, bytes, count, off_t(offset))
        #endif
    }

    /// `sync_file_range(fd, offset, length, SYNC_FILE_RANGE_WRITE)` on Linux: starts the
    /// write-back of that range's dirty pages and returns without waiting; elsewhere −1 (ENOSYS).
    package static func startWriteback(_ fd: Int32, offset: Int64, length: Int64) -> Int32 {
        fl_start_writeback(fd, offset, length)
    }

    /// `posix_fadvise(fd, offset, length, POSIX_FADV_DONTNEED)` where the C library has it: the
    /// range's clean cached pages are dropped (pages still dirty or being written stay; length 0:
    /// to the end of the file); elsewhere nothing is done (−1).
    package static func dropCachedPages(_ fd: Int32, offset: Int64, length: Int64) -> Int32 {
        #if canImport(Glibc)
            Glibc.posix_fadvise(fd, off_t(offset), off_t(length), POSIX_FADV_DONTNEED)
        #else
            -1
        #endif
    }

    /// `fsync(fd)`.
    package static func fsync(_ fd: Int32) -> Int32 {
        #if canImport(Glibc)
            Glibc.fsync(fd)
        #else
            Darwin.fsync(fd)
        #endif
    }

    /// The 2 MiB page of `mapZeroedMemory`.
    static let hugePage_bytes = 2 << 20

    /// What `mapZeroedMemory(bytes)` maps: on Linux, from 2 MiB on, `bytes` rounded up to whole
    /// 2 MiB pages, so that the end of the memory is a 2 MiB page too (one fault instead of up to
    /// 511; a larger anonymous mapping starts on a 2 MiB boundary since Linux 6.7).
    static func mappedLength(_ bytes: Int) -> Int {
        #if canImport(Glibc)
            guard bytes >= hugePage_bytes, bytes <= Int.max - hugePage_bytes else { return bytes }
            return (bytes + hugePage_bytes - 1) / hugePage_bytes * hugePage_bytes
        #else
            return bytes
        #endif
    }

    /// `mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)`: at least
    /// `bytes` of zeroed memory (`mappedLength`), or nil. On Linux also `madvise(MADV_HUGEPAGE)`
    /// (its result ignored: it is advice), so the memory is touched 2 MiB at a time where the
    /// system allows it (one page fault instead of 512). Give it back with `unmapMemory` and the
    /// same `bytes`.
    package static func mapZeroedMemory(_ bytes: Int) -> UnsafeMutableRawPointer? {
        guard bytes > 0 else { return nil }
        #if canImport(Glibc)
            let length = mappedLength(bytes)
            let p = Glibc.mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
            guard let p, p != MAP_FAILED else { return nil }
            _ = Glibc.madvise(p, length, MADV_HUGEPAGE)
            return p
        #else
            let p = Darwin.mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANON, -1, 0)
            guard let p, p != MAP_FAILED else { return nil }
            return p
        #endif
    }

    /// `munmap` of memory from `mapZeroedMemory(bytes)`.
    package static func unmapMemory(_ memory: UnsafeMutableRawPointer, _ bytes: Int) {
        #if canImport(Glibc)
            _ = Glibc.munmap(memory, mappedLength(bytes))
        #else
            _ = Darwin.munmap(memory, bytes)
        #endif
    }

    /// `ftruncate(fd, length)`.
    package static func ftruncate(_ fd: Int32, _ length: Int) -> Int32 {
        #if canImport(Glibc)
            Glibc.ftruncate(fd, off_t(length))
        #else
            Darwin.ftruncate(fd, off_t(length))
        #endif
    }

    /// `rename(from, to)`.
    package static func rename(_ from: String, _ to: String) -> Int32 {
        #if canImport(Glibc)
            Glibc.rename(from, to)
        #else
            Darwin.rename(from, to)
        #endif
    }

    /// `unlink(path)`.
    @discardableResult
    package static func unlink(_ path: String) -> Int32 {
        #if canImport(Glibc)
            Glibc.unlink(path)
        #else
            Darwin.unlink(path)
        #endif
    }

    /// `mkdir(path, mode)`.
    package static func mkdir(_ path: String, _ mode: UInt32) -> Int32 {
        #if canImport(Glibc)
            Glibc.mkdir(path, mode)
        #else
            Darwin.mkdir(path, mode_t(mode))
        #endif
    }

    /// `mkstemp(template)`, then `unlink` of the created name: a descriptor of a file no name
    /// refers to, or -1 with `errno`. `template` ends in `XXXXXX`.
    package static func openUnlinkedTemporary(template: String) -> Int32 {
        var name = Array(template.utf8CString)
        let fd = name.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if fd >= 0 { _ = name.withUnsafeBufferPointer { unlink(String(cString: $0.baseAddress!)) } }
        return fd
    }

    /// Clears `O_NONBLOCK` on `fd` (`fcntl(F_GETFL)`, `fcntl(F_SETFL)`).
    package static func setBlocking(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
    }

    /// What a file is, from `stat`/`lstat`/`fstat`.
    package enum FileType: Sendable, Equatable {
        case regular, directory, symbolicLink, fifo, characterDevice, blockDevice, socket, unknown
    }

    /// The type and size of a file.
    package struct FileStatus: Sendable, Equatable {
        package let type: FileType
        package let size_bytes: Int
    }

    private static func status(_ st: stat) -> FileStatus {
        let type: FileType
        switch st.st_mode & S_IFMT {
        case S_IFREG: type = .regular
        case S_IFDIR: type = .directory
        case S_IFLNK: type = .symbolicLink
        case S_IFIFO: type = .fifo
        case S_IFCHR: type = .characterDevice
        case S_IFBLK: type = .blockDevice
        case S_IFSOCK: type = .socket
        default: type = .unknown
        }
        return FileStatus(type: type, size_bytes: Int(st.st_size))
    }

    /// `stat(path)` (following a final symbolic link), or `lstat(path)` when `followingLinks` is
    /// false; nil with `errno` when it fails.
    package static func status(path: String, followingLinks: Bool = true) -> FileStatus? {
        var st = stat()
        let rc = followingLinks ? stat(path, &st) : lstat(path, &st)
        return rc == 0 ? status(st) : nil
    }

    /// The (device, inode) pair of the file at `path`, following links (`stat`): the same for
    /// every path that reaches it; nil when it cannot be read.
    package static func fileIdentity(path: String) -> (device: UInt64, inode: UInt64)? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return (UInt64(truncatingIfNeeded: st.st_dev), UInt64(truncatingIfNeeded: st.st_ino))
    }

    /// `fstat(fd)`; nil with `errno` when it fails.
    package static func status(fd: Int32) -> FileStatus? {
        var st = stat()
        return fstat(fd, &st) == 0 ? status(st) : nil
    }

    /// `realpath(path)`: the absolute path with `.`, `..` and every symbolic link resolved;
    /// nil when the path does not exist (or `realpath` fails otherwise).
    package static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `flock(fd, LOCK_EX | LOCK_NB)`: 0 when this descriptor now holds the exclusive lock,
    /// else -1 with `errno` (`EWOULDBLOCK` while another open file holds it).
    package static func lockExclusiveNonBlocking(_ fd: Int32) -> Int32 {
        flock(fd, LOCK_EX | LOCK_NB)
    }

    /// The (device, inode) pair of the open file `fd` (`fstat`); nil when it cannot be read.
    package static func fileIdentity(fd: Int32) -> (device: UInt64, inode: UInt64)? {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        return (UInt64(truncatingIfNeeded: st.st_dev), UInt64(truncatingIfNeeded: st.st_ino))
    }

    /// The (device, inode) pair of `path` itself, not following a final symbolic link (`lstat`).
    package static func linkIdentity(path: String) -> (device: UInt64, inode: UInt64)? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return (UInt64(truncatingIfNeeded: st.st_dev), UInt64(truncatingIfNeeded: st.st_ino))
    }

    // MARK: the process

    /// `getpid()`.
    package static func processID() -> Int32 { getpid() }

    /// True when no process `pid` exists (`kill(pid, 0)` fails with `ESRCH`).
    package static func processIsGone(_ pid: Int32) -> Bool {
        kill(pid, 0) != 0 && errno == ESRCH
    }

    /// `isatty(fd) != 0`.
    package static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) != 0 }

    /// `exit(status)`: flushes C streams and ends the process.
    package static func exit(_ status: Int32) -> Never {
        #if canImport(Glibc)
            Glibc.exit(status)
        #else
            Darwin.exit(status)
        #endif
    }

    /// The signal number of SIGINT (for a dispatch signal source).
    package static let SIGINT: Int32 = {
        #if canImport(Glibc)
            Glibc.SIGINT
        #else
            Darwin.SIGINT
        #endif
    }()

    /// The signal numbers of SIGTERM and SIGHUP (for dispatch signal sources).
    package static let SIGTERM: Int32 = {
        #if canImport(Glibc)
            Glibc.SIGTERM
        #else
            Darwin.SIGTERM
        #endif
    }()
    package static let SIGHUP: Int32 = {
        #if canImport(Glibc)
            Glibc.SIGHUP
        #else
            Darwin.SIGHUP
        #endif
    }()

    /// `signal(number, SIG_IGN)` for a signal a dispatch source then takes.
    package static func ignoreSignal(_ number: Int32) { _ = signal(number, SIG_IGN) }

    /// `signal(SIGPIPE, SIG_IGN)`: a write to a closed pipe fails with `EPIPE` instead of
    /// ending the process.
    package static func ignoreBrokenPipeSignal() { _ = signal(SIGPIPE, SIG_IGN) }

    /// `clock_gettime(CLOCK_MONOTONIC)` in nanoseconds.
    package static func monotonicNanoseconds() -> UInt64 { nanoseconds(of: CLOCK_MONOTONIC) }

    /// `clock_gettime(clock)` in nanoseconds.
    private static func nanoseconds(of clock: clockid_t) -> UInt64 {
        let ts = now(clock)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// `clock_gettime(clock)`.
    private static func now(_ clock: clockid_t) -> timespec {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return ts
    }

    /// `signal(SIGXFSZ, SIG_IGN)`: a write past the file-size limit (`ulimit -f`) fails with
    /// `EFBIG`, which the writers report and clean up after, instead of ending the process
    /// without a word.
    package static func ignoreFileSizeSignal() { _ = signal(SIGXFSZ, SIG_IGN) }

    /// `clock_gettime(CLOCK_PROCESS_CPUTIME_ID)` in nanoseconds: the CPU time of every thread of
    /// the process so far.
    package static func processCPUNanoseconds() -> UInt64 { nanoseconds(of: CLOCK_PROCESS_CPUTIME_ID) }

    /// `getenv(name)`: the variable's value, nil when it is not set.
    package static func environmentValue(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// `clock_gettime(CLOCK_MONOTONIC)` in seconds.
    package static func monotonicSeconds() -> Double {
        let ts = now(CLOCK_MONOTONIC)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }

    /// `fflush(nil)`: every C output stream; false when one could not be written (`errno` says why).
    package static func flushAllStreams() -> Bool { fflush(nil) == 0 }

    /// `usleep(microseconds)`.
    package static func sleep(microseconds: UInt32) { _ = usleep(microseconds) }

    // MARK: child processes

    /// `pipe` with `FD_CLOEXEC` set on both ends right after (`pipe2` is not visible from Swift's
    /// Glibc; the caller keeps concurrent spawns out of the gap): (read end, write end), or nil
    /// with `errno`.
    package static func closeOnExecPipe() -> (read: Int32, write: Int32)? {
        var p: [Int32] = [-1, -1]
        guard pipe(&p) == 0 else { return nil }
        _ = fcntl(p[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(p[1], F_SETFD, FD_CLOEXEC)
        return (p[0], p[1])
    }

    /// `posix_spawn` of `/bin/sh -c command` as the leader of its own process group
    /// (`POSIX_SPAWN_SETPGROUP`, pgid = pid), with `stdin`, `stdout` and `stderr` dup'ed onto its
    /// 0, 1 and 2 and every other descriptor closed (glibc), SIGPIPE back to its default action and no signal blocked, and this process's
    /// environment (`environ`) with `environmentEntry` (`NAME=VALUE`) replacing any entry of
    /// that name. Returns the child's pid, or the error number `posix_spawn` returned.
    package static func spawnShell(
        command: String, stdin: Int32, stdout: Int32, stderr: Int32, environmentEntry: String
    ) -> Result<Int32, SpawnFailure> {
        #if canImport(Darwin)
            var actions: posix_spawn_file_actions_t? = nil
            var attributes: posix_spawnattr_t? = nil
        #else
            var actions = posix_spawn_file_actions_t()
            var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        // Nothing else this process inherited (a caller's pipe without close-on-exec) reaches
        // the engine, so no helper it starts can hold such a pipe open (glibc 2.34 and later).
        _ = fl_spawn_close_from(&actions, 3)
        // Own process group (pgid = pid); SIGPIPE back to default (we ignore it, and exec keeps SIG_IGN).
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup(command), nil]
        defer {
            for arg in argv { free(arg) }
        }
        let name = environmentEntry.prefix { $0 != "=" } + "="
        var environment: [UnsafeMutablePointer<CChar>?] = [strdup(environmentEntry)]
        var entry: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
        while let text = entry?.pointee {
            if !String(cString: text).hasPrefix(name) { environment.append(strdup(text)) }
            entry = entry.map { $0 + 1 }
        }
        environment.append(nil)
        defer {
            for text in environment { free(text) }
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, environment)
        return rc == 0 ? .success(pid) : .failure(SpawnFailure(code: rc))
    }

    /// `prctl(PR_SET_CHILD_SUBREAPER, 1)` (Linux): from now on an orphaned descendant of this
    /// process (its parent exited) becomes this process's child instead of init's, so it can be
    /// found and ended. False where there is no such call (other systems) or it failed.
    package static func becomeChildSubreaper() -> Bool { fl_become_child_subreaper() == 0 }

    /// Signal numbers for ending processes.
    package static let SIGKILL: Int32 = {
        #if canImport(Glibc)
            Glibc.SIGKILL
        #else
            Darwin.SIGKILL
        #endif
    }()
    package static let SIGCONT: Int32 = {
        #if canImport(Glibc)
            Glibc.SIGCONT
        #else
            Darwin.SIGCONT
        #endif
    }()

    /// `kill(pid, signal)`: 0 when sent, -1 with `errno`.
    @discardableResult
    package static func sendSignal(_ pid: Int32, _ signal: Int32) -> Int32 { kill(pid, signal) }

    /// True while some process (a zombie too) is a member of process group `pgid`
    /// (`kill(-pgid, 0)` succeeds or fails with `EPERM`).
    package static func processGroupExists(_ pgid: Int32) -> Bool {
        kill(-pgid, 0) == 0 || errno == EPERM
    }

    /// `waitpid(-pgid, &status, WNOHANG)`: reaps one exited child of this process in group
    /// `pgid`; its pid, 0 when none has exited, -1 with `errno` (`ECHILD`: no child in the group).
    package static func reapExitedChild(inGroup pgid: Int32) -> Int32 {
        var raw: Int32 = 0
        return waitpid(-pgid, &raw, WNOHANG)
    }

    /// The error number `posix_spawn` returned.
    package struct SpawnFailure: Error, Sendable {
        package let code: Int32
    }

    /// Whether child `pid` has exited, without reaping it (`waitid(P_PID, pid, WEXITED | WNOHANG |
    /// WNOWAIT)`): true when it has, or when there is nothing to wait for (already reaped);
    /// false while it runs; nil when interrupted (EINTR: ask again).
    package static func childHasExited(_ pid: Int32) -> Bool? {
        var info = siginfo_t()
        let rc = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
        if rc == 0 { return info.si_signo == SIGCHLD }
        return errno == EINTR ? nil : true
    }

    /// `kill(-pid, SIGKILL)`: the whole process group `pid` leads.
    package static func killProcessGroup(_ pid: Int32) { _ = kill(-pid, SIGKILL) }

    /// `waitpid(pid, &status, WNOHANG)`: (its result, the raw wait status).
    package static func reapIfExited(_ pid: Int32) -> (rc: Int32, rawStatus: Int32) {
        var raw: Int32 = 0
        let rc = waitpid(pid, &raw, WNOHANG)
        return (rc, raw)
    }

    /// `poll` for `POLLIN` on one descriptor: > 0 ready, 0 on timeout, -1 with `errno`.
    package static func pollReadable(_ fd: Int32, timeout_ms: Int32) -> Int32 {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&pfd, 1, timeout_ms)
    }

    // MARK: resource usage

    /// `getrusage(RUSAGE_CHILDREN)`: user + system CPU seconds of every child this process has
    /// reaped (each with the descendants it reaped), and the largest peak resident set among
    /// them (`ru_maxrss`, kibibytes on Linux). Taken before and after reaping one child, the CPU
    /// difference is that child's.
    package static func reapedChildrenUsage() -> (cpu_s: Double, maxResident_kB: Int) {
        var usage = rusage()
        guard getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage) == 0 else { return (.nan, 0) }
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) * 1e-6 }
        return (seconds(usage.ru_utime) + seconds(usage.ru_stime), Int(usage.ru_maxrss))
    }

    // MARK: resource limits

    /// The soft limits on this process's address space (`getrlimit(RLIMIT_AS)`) and data segment
    /// (`RLIMIT_DATA`), bytes; nil for one that is unlimited or cannot be read.
    package static func memoryLimits() -> (addressSpace_bytes: UInt64?, data_bytes: UInt64?) {
        func soft(_ resource: Int32) -> UInt64? {
            var limit = rlimit()
            #if canImport(Glibc)
                guard getrlimit(__rlimit_resource_t(UInt32(resource)), &limit) == 0 else { return nil }
            #else
                guard getrlimit(resource, &limit) == 0 else { return nil }
            #endif
            return limit.rlim_cur == rlim_t.max ? nil : UInt64(limit.rlim_cur)
        }
        #if canImport(Glibc)
            return (soft(Int32(RLIMIT_AS.rawValue)), soft(Int32(RLIMIT_DATA.rawValue)))
        #else
            return (soft(RLIMIT_AS), soft(RLIMIT_DATA))
        #endif
    }

    // MARK: numbers as text

    /// `vsnprintf(buffer, 352, pattern, x)` into a stack buffer: printf-style text of one double
    /// in the "C" locale (FenceLab never calls `setlocale`, so "." decimals).
    package static func format(_ pattern: StaticString, _ x: Double) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 352) { buffer in
            let n = withVaList([x]) { args in
                pattern.withUTF8Buffer { f in
                    f.withMemoryRebound(to: CChar.self) { vsnprintf(buffer.baseAddress!, 352, $0.baseAddress!, args) }
                }
            }
            let length = Int(max(0, min(n, 351)))
            return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress!, count: length), as: UTF8.self)
        }
    }

    /// `strtod` of all of `text`, used only for fewer than 64 bytes and while the C library's
    /// decimal point is '.' (`localeconv`; strtod follows `LC_NUMERIC`): `.some(value)`, or
    /// `.some(nil)` when `text` is not one number; `nil` when strtod was not used (longer text,
    /// another locale), so the caller decides another way.
    package static func parseDouble(_ text: UnsafeBufferPointer<UInt8>) -> Double?? {
        guard text.count < 64, let point = localeconv()?.pointee.decimal_point, point[0] == 0x2E, point[1] == 0 else {
            return .none
        }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buf -> Double? in
            for k in 0..<text.count { buf[k] = CChar(bitPattern: text[k]) }
            buf[text.count] = 0
            var end: UnsafeMutablePointer<CChar>? = nil
            let v = strtod(buf.baseAddress!, &end)
            guard let end, end - buf.baseAddress! == text.count else { return nil }
            return v
        } as Double?
    }
}

// The `open(2)` flags, read once from the C library.
private let _O_RDONLY = Int32(O_RDONLY)
private let _O_WRONLY = Int32(O_WRONLY)
private let _O_CREAT = Int32(O_CREAT)
private let _O_EXCL = Int32(O_EXCL)
private let _O_CLOEXEC = Int32(O_CLOEXEC)
private let _O_APPEND = Int32(O_APPEND)
private let _O_NOFOLLOW = Int32(O_NOFOLLOW)
private let _O_DIRECTORY = Int32(O_DIRECTORY)
private let _O_NONBLOCK = Int32(O_NONBLOCK)
private let _O_RDWR = Int32(O_RDWR)
