#ifndef FENCELAB_CGSL_SHIM_H
#define FENCELAB_CGSL_SHIM_H
// Every GSL header FenceLab uses, in one place. Only GSLKit imports this module.
#include <gsl/gsl_version.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <gsl/gsl_sort_double.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_sf_bessel.h>
#include <gsl/gsl_interp.h>
#include <gsl/gsl_spline.h>

// GSL exposes its generator types and version as mutable globals, which Swift 6
// refuses to touch; these accessors read them.
static inline const gsl_rng_type *fl_rng_type_mt19937(void) { return gsl_rng_mt19937; }
static inline const gsl_rng_type *fl_rng_type_taus2(void) { return gsl_rng_taus2; }
static inline const char *fl_gsl_version(void) { return gsl_version; }
#endif
