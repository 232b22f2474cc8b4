// Allocation counter for fencelab-bench: this object defines the C allocation
// functions for the whole process (an executable's definitions win over libc's in
// ELF symbol resolution) and forwards to glibc's exported __libc_* functions.
#include "CReference.h"
#include <stdatomic.h>
#include <stddef.h>
#include <errno.h>
#include <stdlib.h>

#if defined(__linux__) && defined(__GLIBC__)
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static atomic_int counting = 0;
static atomic_ullong allocations = 0;

static inline void note(void) {
    if (atomic_load_explicit(&counting, memory_order_relaxed))
        atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
}

void *malloc(size_t size) { note(); return __libc_malloc(size); }
void *calloc(size_t n, size_t size) { note(); return __libc_calloc(n, size); }
void *realloc(void *p, size_t size) { note(); return __libc_realloc(p, size); }
void *memalign(size_t alignment, size_t size) { note(); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { note(); return __libc_memalign(alignment, size); }
int posix_memalign(void **out, size_t alignment, size_t size) {
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    note();
    void *p = __libc_memalign(alignment, size);
    if (p == NULL) return ENOMEM;
    *out = p;
    return 0;
}

void fl_alloc_count_start(void) {
    atomic_store(&allocations, 0);
    atomic_store(&counting, 1);
}

uint64_t fl_alloc_count_stop(void) {
    atomic_store(&counting, 0);
    return atomic_load(&allocations);
}

int fl_alloc_counter_active(void) {
    fl_alloc_count_start();
    void *volatile p = malloc(24);
    uint64_t n = fl_alloc_count_stop();
    free(p);
    return n > 0;
}
#else
void fl_alloc_count_start(void) {}
uint64_t fl_alloc_count_stop(void) { return 0; }
int fl_alloc_counter_active(void) { return 0; }
#endif
