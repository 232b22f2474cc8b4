#ifndef FENCELAB_CMALLOC_SHIM_H
#define FENCELAB_CMALLOC_SHIM_H
// The allocator settings FenceLab makes (glibc's mallopt); only _FenceLabSupport imports this module.
#if defined(__has_include)
#if __has_include(<malloc.h>) && __has_include(<features.h>)
#include <features.h>
#endif
#endif
#if defined(__GLIBC__)
#include <malloc.h>
/// mallopt(M_TOP_PAD, bytes): 1 when set, 0 when refused.
static inline int fl_malloc_set_top_pad(int bytes) { return mallopt(M_TOP_PAD, bytes); }
/// mallopt(M_ARENA_MAX, count): 1 when set, 0 when refused.
static inline int fl_malloc_set_arena_max(int count) { return mallopt(M_ARENA_MAX, count); }
/// malloc_trim(0): returns the free memory of every arena to the system; 1 when some was returned.
static inline int fl_malloc_trim(void) { return malloc_trim(0); }
#else
/// Not glibc: nothing to set (0: not set).
static inline int fl_malloc_set_top_pad(int bytes) { (void)bytes; return 0; }
/// Not glibc: no arenas to limit (0: not set).
static inline int fl_malloc_set_arena_max(int count) { (void)count; return 0; }
/// Not glibc: nothing to trim.
static inline int fl_malloc_trim(void) { return 0; }
#endif
#endif
