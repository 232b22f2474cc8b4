#include "CReference.h"
#include <gsl/gsl_rng.h>
#include <gsl/gsl_randist.h>

double fl_ref_ziggurat_sum(unsigned long seed, long n) {
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, seed);
    double s = 0;
    for (long i = 0; i < n; i++) s += gsl_ran_gaussian_ziggurat(r, 1.0);
    gsl_rng_free(r);
    return s;
}
