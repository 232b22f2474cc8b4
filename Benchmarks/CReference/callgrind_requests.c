// Callgrind client requests for `fencelab-bench --metric instructions`: the measured
// region is bracketed in the benchmark binary itself, so only the body calls are counted.
// The macros come from valgrind's own header (Debian package `valgrind`); a build without
// it compiles these as no-ops and fl_callgrind_requests_compiled() says so.
#include "CReference.h"

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define FL_HAVE_CALLGRIND 1
#endif
#endif

#ifdef FL_HAVE_CALLGRIND
int fl_callgrind_requests_compiled(void) { return 1; }
int fl_running_on_valgrind(void) { return RUNNING_ON_VALGRIND ? 1 : 0; }
void fl_callgrind_start_instrumentation(void) { CALLGRIND_START_INSTRUMENTATION; }
void fl_callgrind_zero_stats(void) { CALLGRIND_ZERO_STATS; }
void fl_callgrind_toggle_collect(void) { CALLGRIND_TOGGLE_COLLECT; }
void fl_callgrind_dump_stats_at(const char *reason) { CALLGRIND_DUMP_STATS_AT(reason); }
#else
int fl_callgrind_requests_compiled(void) { return 0; }
int fl_running_on_valgrind(void) { return 0; }
void fl_callgrind_start_instrumentation(void) {}
void fl_callgrind_zero_stats(void) {}
void fl_callgrind_toggle_collect(void) {}
void fl_callgrind_dump_stats_at(const char *reason) { (void)reason; }
#endif
