// The ceiling for a two-thread speed-up in this minute, for scripts/jobs-speedup.sh: a program
// with no serial part, no shared data and no memory traffic (integer and floating-point streams
// held in registers) runs ITERATIONS steps on one thread, then the same on each of two threads.
// Prints the two wall times in ms; 2 × the first ÷ the second is what the host gives two threads
// of such a program. Usage: parallel-ceiling ITERATIONS
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long iterations;

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void *run(void *result) {
    uint64_t a = 1, b = 88172645463325252u, c = 3, d = 4;
    double x = 1, y = 2, z = 3, w = 4;
    for (long i = 0; i < iterations; i++) {
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
    *(uint64_t *)result = a ^ b ^ c ^ d ^ (uint64_t)(x + y + z + w);
    return NULL;
}

int main(int argc, char **argv) {
    char *end = NULL;
    iterations = argc == 2 ? strtol(argv[1], &end, 10) : 0;
    if (iterations <= 0 || *end != '\0') {
        fprintf(stderr, "usage: parallel-ceiling ITERATIONS (a whole number > 0)\n");
        return 2;
    }
    uint64_t sink[3];
    double t0 = now_ms();
    run(&sink[0]);
    double one = now_ms() - t0;
    pthread_t threads[2];
    t0 = now_ms();
    for (int i = 0; i < 2; i++)
        if (pthread_create(&threads[i], NULL, run, &sink[1 + i]) != 0) {
            fprintf(stderr, "parallel-ceiling: cannot start a thread\n");
            return 1;
        }
    for (int i = 0; i < 2; i++) pthread_join(threads[i], NULL);
    double two = now_ms() - t0;
    if (sink[0] != sink[1] || sink[1] != sink[2]) {  // the same work on every thread
        fprintf(stderr, "parallel-ceiling: the threads' results differ\n");
        return 1;
    }
    printf("%.0f %.0f\n", one, two);
    return 0;
}
