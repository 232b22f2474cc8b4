#ifndef FENCELAB_CLIBM_SHIM_H
#define FENCELAB_CLIBM_SHIM_H
// The one libm function Swift's C-library modules do not show: glibc's sincos, a GNU extension
// declared only under _GNU_SOURCE. Only GeoPolicy imports this module.
#if defined(__has_include)
#if __has_include(<features.h>)
#include <features.h>
#endif
#endif
#if defined(__GLIBC__)
// glibc computes both values in one call the way sin and cos compute each (the same range
// reduction and polynomials), so the bits are those of sin(x) and cos(x); the GeoPolicy tests
// check that on values from 10⁻³⁰⁰ to 10³⁰⁰, ±0, subnormals, infinities and NaN.
extern void sincos(double x, double *sin_x, double *cos_x);
/// sin(x) and cos(x) in one call.
static inline void fl_sincos(double x, double *sin_x, double *cos_x) { sincos(x, sin_x, cos_x); }
#else
#include <math.h>
/// sin(x) and cos(x), as two calls where the C library's sincos is not known to give their bits.
static inline void fl_sincos(double x, double *sin_x, double *cos_x) {
    *sin_x = sin(x);
    *cos_x = cos(x);
}
#endif
#endif
