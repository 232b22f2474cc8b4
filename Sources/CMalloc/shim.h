#ifndef FENCELAB_CMALLOC_SHIM_H
#define FENCELAB_CMALLOC_SHIM_H
// The one allocator setting FenceLab makes (glibc's mallopt); only _FenceLabSupport imports this module.
#if defined(__has_include)
#if __has_include(<malloc.h>) && __has_include(<features.h>)
#include <features.h>
#endif
#endif
#if defined(__GLIBC__)
#include <malloc.h>
/// mallopt(M_TOP_PAD, bytes): 1 when set, 0 when refused.
static inline int fl_malloc_set_top_pad(int bytes) { return mallopt(M_TOP_PAD, bytes); }
#else
/// Not glibc: nothing to set (0: not set).
static inline int fl_malloc_set_top_pad(int bytes) { (void)bytes; return 0; }
#endif
#endif
