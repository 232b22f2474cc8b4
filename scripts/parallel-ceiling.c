// The ceiling for a two-thread speed-up in this minute, for scripts/jobs-speedup.sh: a program
// with no serial part, no shared data and no memory traffic (integer and floating-point streams
// held in registers). ITERATIONS steps, cut into CHUNKS chunks, run on one thread; then twice
// that work (2 × CHUNKS chunks) on two threads that each take the next chunk as they finish one,
// so a vCPU the host runs slower takes fewer, as the sweep's workers take pieces. Prints the two
// wall times in ms and how many chunks each of the two threads ran ("a:b"); 2 × the first time ÷
// the second is what the host gives two threads of a program that balances its work.
// Usage: parallel-ceiling ITERATIONS
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { CHUNKS = 100 };

static long chunk_steps;
static long chunk_count;
static atomic_long next_chunk;

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static uint64_t chunk(void) {
    uint64_t a = 1, b = 88172645463325252u, c = 3, d = 4;
    double x = 1, y = 2, z = 3, w = 4;
    for (long i = 0; i < chunk_steps; i++) {
        a = a * 6364136223846793005u + 1442695040888963407u;  // Knuth's MMIX LCG
        b ^= b << 13;
        b ^= b >> 7;
        b ^= b << 17;  // Marsaglia's xorshift64
        c += a >> 11;
        d ^= c * 0x9E3779B97F4A7C15u;
        x = x * 0.9999999 + 1e-7;
        y = y * 0.9999998 + 2e-7;
        z = z * 0.9999997 + 3e-7;
        w = w * 0.9999996 + 4e-7;
    }
    return a ^ b ^ c ^ d ^ (uint64_t)(x + y + z + w);
}

struct worker {
    long chunks;      // chunks this thread ran
    uint64_t result;  // every chunk's result, which is the same for all
    int differs;      // a chunk's result differed from the first one's
};

static void *run(void *arg) {
    struct worker *me = arg;
    while (atomic_fetch_add(&next_chunk, 1) < chunk_count) {
        uint64_t r = chunk();
        if (me->chunks == 0) me->result = r;
        me->differs |= r != me->result;
        me->chunks++;
    }
    return NULL;
}

int main(int argc, char **argv) {
    char *end = NULL;
    long iterations = argc == 2 ? strtol(argv[1], &end, 10) : 0;
    if (iterations < CHUNKS || *end != '\0') {
        fprintf(stderr, "usage: parallel-ceiling ITERATIONS (a whole number, at least %d)\n", CHUNKS);
        return 2;
    }
    chunk_steps = iterations / CHUNKS;
    struct worker alone = {0}, pair[2] = {{0}, {0}};
    chunk_count = CHUNKS;
    atomic_store(&next_chunk, 0);
    double t0 = now_ms();
    run(&alone);
    double one = now_ms() - t0;
    pthread_t threads[2];
    chunk_count = 2 * CHUNKS;
    atomic_store(&next_chunk, 0);
    t0 = now_ms();
    for (int i = 0; i < 2; i++)
        if (pthread_create(&threads[i], NULL, run, &pair[i]) != 0) {
            fprintf(stderr, "parallel-ceiling: cannot start a thread\n");
            return 1;
        }
    for (int i = 0; i < 2; i++) pthread_join(threads[i], NULL);
    double two = now_ms() - t0;
    // The same work: 2 × CHUNKS chunks in all, every one with the lone thread's result.
    int same = pair[0].chunks + pair[1].chunks == 2 * CHUNKS && !alone.differs;
    for (int i = 0; i < 2; i++) same &= !pair[i].differs && (pair[i].chunks == 0 || pair[i].result == alone.result);
    if (!same) {
        fprintf(stderr, "parallel-ceiling: the threads did not do the lone thread's work twice over\n");
        return 1;
    }
    printf("%.0f %.0f %ld:%ld\n", one, two, pair[0].chunks, pair[1].chunks);
    return 0;
}
