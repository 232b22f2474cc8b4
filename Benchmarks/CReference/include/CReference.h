#ifndef FENCELAB_CREFERENCE_H
#define FENCELAB_CREFERENCE_H
// C reference kernels for fencelab-bench: the same work as the Swift engine,
// written plainly in C, compiled -O2 in the same package and timed in the same run.
#include <stdint.h>

/// Sum of n Gaussian draws (sigma 1) from gsl_ran_gaussian_ziggurat on mt19937 seeded with `seed`.
double fl_ref_ziggurat_sum(unsigned long seed, long n);

#endif
