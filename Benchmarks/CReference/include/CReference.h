#ifndef FENCELAB_CREFERENCE_H
#define FENCELAB_CREFERENCE_H
// C reference kernels for fencelab-bench: the same work as the Swift engine,
// written plainly in C, compiled -O2 in the same package and timed in the same
// run, so that the suite can report ratios instead of drifting absolute times.
// Plus the allocation counter of the benchmark binary (alloc_counter.c).
#include <stdint.h>

// ---- Allocation counter -----------------------------------------------------
// The benchmark binary defines malloc/calloc/realloc/aligned_alloc/memalign/
// posix_memalign itself and forwards them to glibc's __libc_* entry points, so
// every allocation in the process (Swift runtime included) passes here. Counting
// is off by default and costs one relaxed atomic load per allocation.

/// Starts counting (resets the count to 0).
void fl_alloc_count_start(void);
/// Stops counting and returns the number of allocation calls since the start.
uint64_t fl_alloc_count_stop(void);
/// 1 when this binary's allocation functions are the ones the process uses
/// (checked by allocating once while counting), else 0.
int fl_alloc_counter_active(void);

// ---- (a) validate + haversine + hysteresis per fix ---------------------------
/// Runs the seed-000 hysteresis fence (enter at d <= enter_m, exit at d >= exit_m,
/// keep in between; a fix counts only with finite accuracy in 0...maxAccuracy_m and
/// a valid coordinate) over n fixes given as contiguous arrays in degrees/metres.
/// Distance by haversine on R = 6 371 000 m, both cosines per fix, asin + sqrt.
/// `state`: 0 unknown, 1 inside, 2 outside; updated in place.
/// Returns the number of state changes.
long fl_ref_fence_scalar(const double *lat_deg, const double *lon_deg, const double *hAcc_m,
                         long n, double centerLat_deg, double centerLon_deg,
                         double enter_m, double exit_m, double maxAccuracy_m, int *state);

// ---- (b) 4-state constant-velocity Kalman ------------------------------------
/// Constant-velocity Kalman filter in a local east/north plane: state
/// (east, north, v_east, v_north) and 4x4 covariance on the stack; per
/// measurement a predict over dt = t[i] - t[i-1] with white-acceleration
/// process noise of spectral density q_m2s3 (m^2/s^3) per axis, then an update
/// with the 2-D position measurement, sigma per axis = hAcc/sqrt(2).
/// The first measurement initialises the state (velocity 0, velocity variance 100 m^2/s^2).
/// Returns a checksum (sum of final state and trace of P).
double fl_ref_kalman_cv(const double *t_s, const double *east_m, const double *north_m,
                        const double *hAcc_m, long n, double q_m2s3);

/// The same filter as fl_ref_kalman_cv; writes the final state (east, north, vEast, vNorth)
/// to out[0..3] and the diagonal of P to out[4..7] (for checking the engine's filter).
void fl_ref_kalman_cv_final(const double *t_s, const double *east_m, const double *north_m,
                            const double *hAcc_m, long n, double q_m2s3, double out[8]);

/// The same constant-velocity filter as the engine's `KalmanFilter` with everything the engine
/// does around it, transcribed operation for operation (the fair kernel):
/// per fix it validates (finite time later than the last accepted one, finite latitude in
/// -90...90 and longitude in -180...180, finite accuracy > 0; a refused fix changes nothing),
/// projects latitude/longitude into the local azimuthal equidistant plane of the anchor
/// (Taylor series of `AnchorProjection` within 0.01 rad, else the exact atan2 form), and
/// re-anchors at the estimate when it is more than reanchor_m from the anchor (new anchor
/// by sin/cos/atan2, state and covariance through the exact Jacobian of the frame change).
/// Upper-triangle covariance, sigma per axis = hAcc/sqrt(2), first fix: velocity variance
/// speedSigma^2. Returns the sum of the final state, the covariance diagonal and the number
/// of refused fixes.
double fl_ref_kalman_geo(const double *t_s, const double *lat_deg, const double *lon_deg,
                         const double *hAcc_m, long n, double q_m2s3, double speedSigma_mps,
                         double reanchor_m);

/// As fl_ref_kalman_geo; writes the final state (east, north, vEast, vNorth in the final
/// anchor's plane) to out[0..3], the upper triangle of P (p00 p01 p02 p03 p11 p12 p13 p22 p23
/// p33) to out[4..13], the anchor latitude/longitude to out[14..15], and the number of
/// re-anchorings and of refused fixes to out[16..17].
void fl_ref_kalman_geo_final(const double *t_s, const double *lat_deg, const double *lon_deg,
                             const double *hAcc_m, long n, double q_m2s3, double speedSigma_mps,
                             double reanchor_m, double out[18]);

/// Interacting-multiple-model filter (Blom & Bar-Shalom 1988) in the same plane: model 0
/// near-constant position (position random walk of density qPosition_m2s per axis, velocity
/// held at 0), model 1 the constant-velocity filter above (q_m2s3); a two-state Markov chain
/// with mean sojourn times tau0_s, tau1_s and exact transition probabilities over dt; per
/// measurement: mixing, both model predictions and updates, Gaussian likelihoods of the
/// innovations, new model probabilities, moment-matched output. The first measurement
/// initialises both models (CV velocity variance v0_m2s2). Writes the final combined state to
/// out[0..3], its covariance diagonal to out[4..7] and the model probabilities to out[8..9];
/// returns a checksum (sum of out[0..9]). out may be NULL.
double fl_ref_imm(const double *t_s, const double *east_m, const double *north_m, const double *hAcc_m,
                  long n, double q_m2s3, double qPosition_m2s, double tau0_s, double tau1_s,
                  double v0_m2s2, double *out10);

/// Seed 004's scalar filter on raw latitude/longitude degrees with one variance
/// (variance += dt * speedVariance; gain = var / (var + hAcc^2)). Returns lat + lon + var at the end.
double fl_ref_seed_kalman(const double *t_s, const double *lat_deg, const double *lon_deg,
                          const double *hAcc_m, long n, double speedVariance);

// ---- (c) Gaussian draws --------------------------------------------------------
/// An mt19937 generator owned by the C side (opaque).
typedef struct fl_ref_rng fl_ref_rng;
/// Allocates and seeds an mt19937 generator; NULL when out of memory.
fl_ref_rng *fl_ref_rng_new(unsigned long seed);
void fl_ref_rng_free(fl_ref_rng *r);
/// Sum of n draws of gsl_ran_gaussian_ziggurat(r, sigma).
double fl_ref_ziggurat_sum_rng(fl_ref_rng *r, long n, double sigma);
/// Fills out[0..<n] with gsl_ran_gaussian_ziggurat(r, sigma).
void fl_ref_ziggurat_fill(fl_ref_rng *r, double *out, long n, double sigma);
/// Sum of n Gaussian draws (sigma 1) from a fresh mt19937 seeded with `seed`.
double fl_ref_ziggurat_sum(unsigned long seed, long n);

/// Quantiles the GSL way: copies x[0..<n] to work, gsl_sort, then
/// gsl_stats_quantile_from_sorted_data for each of p[0..<np] into out[0..<np]. Returns their sum.
double fl_ref_gsl_sort_quantiles(const double *x, long n, const double *p, long np, double *work, double *out);

// ---- (d) natural cubic spline ------------------------------------------------------
/// Builds gsl_interp_cspline (natural) on nKnots knots (x strictly increasing),
/// evaluates at nEval points with an accelerator, frees everything.
/// Returns the sum of the evaluations, or NaN when GSL refuses the input.
double fl_ref_cspline(const double *x, const double *y, long nKnots,
                      const double *xEval, long nEval);

// ---- (e) sweep scan ------------------------------------------------------------------
/// One sweep grid point (hysteresis enter/exit, accuracy gate, staleness, order check,
/// confirmation by `confirm` fixes) over a drive's precomputed arrays (FenceLab's
/// SweepFixArrays: now, fix time, Haversine distance, accuracy with NaN for invalid fixes).
/// Writes the determined-state changes (time, 1 = inside) and returns how many.
long fl_ref_sweep_scan(const double *now_s, const double *timestamp_s, const double *distance_m,
                       const double *gateAccuracy_m, long n, double enter_m, double exit_m,
                       double maxAccuracy_m, double maxAge_s, int confirm,
                       double *change_time_s, unsigned char *change_inside);

// ---- (f) sweep scan across grid points (AVX2) ---------------------------------------
/// 1 when the CPU runs the AVX2 kernel below, else 0.
int fl_ref_sweep_lanes_available(void);
/// `points` hysteresis grid points (enter_m[p], exit_m[p], confirmation by confirm[p] fixes)
/// over one stream of accepted fixes (time, distance), eight points per pass: one 64-bit AVX2
/// lane per grid point, two 256-bit registers per pass, the hysteresis decision and the
/// pending-count update as vector compares and blends, a movemask test for any change per
/// fix, scalar appends for the lanes that change. Writes every determined-state change
/// (time, point, 1 = inside) in pass order into buffers of `capacity` (a power of two) entries,
/// cyclically (a benchmark keeps the writes, not every change), and returns how many there were.
long fl_ref_sweep_lanes(const double *time_s, const double *distance_m, long n,
                        const double *enter_m, const double *exit_m, const int *confirm, long points,
                        double *change_time_s, int *change_point, unsigned char *change_inside,
                        long capacity);

// ---- (g) place index: candidate places within reach ----------------------------------
/// A static index of n place centres (degrees) for "which places can this fix be within reach
/// of": a k-d tree on the centres' unit vectors (x = cos φ cos λ, y = cos φ sin λ, z = sin φ),
/// built by recursive median splits (quickselect along the axis of largest extent), leaves of
/// at most 8 places in structure-of-arrays form, and per node its box and the largest reach
/// chord below it. A place is a candidate for a point q when |u − q|² ≤ c², c the place's
/// reach as a chord of the unit sphere, widened as `GeoPolicy.PlaceIndex` does:
/// c = 2 sin(reach_m / (2 R)) · (1 + 1e-9) + 1e-12 (2 when reach_m / (2 R) ≥ π/2).
/// Returns NULL when out of memory.
typedef struct fl_ref_places fl_ref_places;
fl_ref_places *fl_ref_places_new(const double *lat_deg, const double *lon_deg, const double *reach_m,
                                 long n, double sphereRadius_m);
void fl_ref_places_free(fl_ref_places *index);
/// For each of the n points (degrees): the number of candidate places (written to
/// perPoint[i] when perPoint is not NULL). Returns the total. Iterative descent with an
/// explicit stack; allocates nothing.
long fl_ref_places_count(const fl_ref_places *index, const double *lat_deg, const double *lon_deg,
                         long n, long *perPoint);

// ---- Callgrind client requests (callgrind_requests.c) ---------------------------
// For `fencelab-bench --metric instructions`, which runs the binary under
// `valgrind --tool=callgrind --collect-atstart=no`: collection is switched on around
// the body calls only. No-ops when not under valgrind.

/// 1 when this binary was compiled with <valgrind/callgrind.h> (Debian package valgrind), else 0.
int fl_callgrind_requests_compiled(void);
/// 1 when running under valgrind (RUNNING_ON_VALGRIND), else 0.
int fl_running_on_valgrind(void);
/// CALLGRIND_START_INSTRUMENTATION: instruments from here on (the run starts with
/// --instr-atstart=no, so set-up runs at valgrind's uninstrumented speed).
void fl_callgrind_start_instrumentation(void);
/// CALLGRIND_ZERO_STATS: resets the counters.
void fl_callgrind_zero_stats(void);
/// CALLGRIND_TOGGLE_COLLECT: switches counting on or off for the calling thread.
void fl_callgrind_toggle_collect(void);
/// CALLGRIND_DUMP_STATS_AT(reason): writes the counters to the next numbered dump file now.
void fl_callgrind_dump_stats_at(const char *reason);

#endif
