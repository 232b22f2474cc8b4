#ifndef FENCELAB_CPROCESSCONTROL_SHIM_H
#define FENCELAB_CPROCESSCONTROL_SHIM_H
// prctl(2) is variadic, which Swift cannot call, and glibc declares
// posix_spawn_file_actions_addclosefrom_np and sync_file_range only for _GNU_SOURCE: these
// wrappers are FenceLab's one use of each. Only _FenceLabSupport's Syscalls.swift imports this
// module.
#include <errno.h>
#include <spawn.h>
#include <stdint.h>
#if defined(__linux__)
#include <sys/prctl.h>
/// prctl(PR_SET_CHILD_SUBREAPER, 1): 0 when this process now adopts its orphaned descendants,
/// -1 with errno otherwise.
static inline int fl_become_child_subreaper(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1L, 0L, 0L, 0L); }
#else
/// Not Linux: no subreaper (-1, errno ENOSYS).
static inline int fl_become_child_subreaper(void) { errno = ENOSYS; return -1; }
#endif

#if defined(__linux__)
// glibc's sync_file_range under a name of this module's (the system headers declare it only for
// _GNU_SOURCE, which a module cannot set without clashing with the C library's own module);
// SYNC_FILE_RANGE_WRITE is 2 in the Linux ABI.
extern int fl_sync_file_range_(int fd, int64_t offset, int64_t nbytes, unsigned int flags) __asm__("sync_file_range");
/// sync_file_range(fd, offset, nbytes, SYNC_FILE_RANGE_WRITE): starts writing back the dirty
/// pages of that byte range without waiting for them; 0 when started, -1 with errno otherwise.
static inline int fl_start_writeback(int fd, long long offset, long long nbytes) {
    return fl_sync_file_range_(fd, (int64_t)offset, (int64_t)nbytes, 2u);
}
#else
/// Not Linux: nothing started (-1, errno ENOSYS); the final fsync writes everything.
static inline int fl_start_writeback(int fd, long long offset, long long nbytes) {
    (void)fd;
    (void)offset;
    (void)nbytes;
    errno = ENOSYS;
    return -1;
}
#endif

#if defined(__GLIBC__)
// glibc 2.34 and later; weak, so an older C library runs without it (then 0 is not closed).
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *, int) __attribute__((weak));
#endif
/// Adds "close every descriptor from `fd` on" to `actions`: 1 when added, 0 where the C library
/// cannot (not glibc, or glibc before 2.34).
static inline int fl_spawn_close_from(posix_spawn_file_actions_t *actions, int fd) {
#if defined(__GLIBC__)
    if (posix_spawn_file_actions_addclosefrom_np != 0) {
        return posix_spawn_file_actions_addclosefrom_np(actions, fd) == 0;
    }
#endif
    (void)actions;
    (void)fd;
    return 0;
}
#endif
