// C reference kernels (see CReference.h): plain scalar C, -O2, no fast-math.
#include "CReference.h"
#include <math.h>
#include <stdlib.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_interp.h>
#include <gsl/gsl_sort_double.h>
#include <gsl/gsl_statistics_double.h>
#include <string.h>

static const double kEarthRadius_m = 6371000.0;   // seeds 000/001
static const double kRadPerDeg = 3.14159265358979323846 / 180.0;

// ---- (a) -------------------------------------------------------------------------
static double haversine_m(double lat1, double lon1, double lat2, double lon2) {
    double p1 = lat1 * kRadPerDeg, p2 = lat2 * kRadPerDeg;
    double sdp = sin((p2 - p1) * 0.5);
    double sdl = sin((lon2 - lon1) * kRadPerDeg * 0.5);
    double h = sdp * sdp + cos(p1) * cos(p2) * sdl * sdl;
    if (h > 1) h = 1;
    if (h < 0) h = 0;
    return 2 * kEarthRadius_m * asin(sqrt(h));
}

static int valid_coordinate(double lat, double lon) {
    return isfinite(lat) && isfinite(lon) && lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180;
}

long fl_ref_fence_scalar(const double *lat_deg, const double *lon_deg, const double *hAcc_m,
                         long n, double centerLat_deg, double centerLon_deg,
                         double enter_m, double exit_m, double maxAccuracy_m, int *state) {
    long changes = 0;
    int s = *state;
    for (long i = 0; i < n; i++) {
        double a = hAcc_m[i];
        if (!valid_coordinate(lat_deg[i], lon_deg[i])) continue;
        if (!(isfinite(a) && a >= 0 && a <= maxAccuracy_m)) continue;
        double d = haversine_m(centerLat_deg, centerLon_deg, lat_deg[i], lon_deg[i]);
        int next = s;
        if (d <= enter_m) next = 1;
        else if (d >= exit_m) next = 2;
        if (next != s) { changes++; s = next; }
    }
    *state = s;
    return changes;
}

// ---- (b) -------------------------------------------------------------------------
static inline double kalman_cv_run(const double *t_s, const double *east_m, const double *north_m,
                                   const double *hAcc_m, long n, double q, double *out8) {
    if (n <= 0) return 0;
    double x[4] = {east_m[0], north_m[0], 0, 0};
    double P[4][4] = {{0}};
    double r0 = hAcc_m[0] * hAcc_m[0] * 0.5;
    P[0][0] = r0; P[1][1] = r0; P[2][2] = 100; P[3][3] = 100;
    for (long i = 1; i < n; i++) {
        double dt = t_s[i] - t_s[i - 1];
        // Predict: x = F x, P = F P F^T + Q, F = [[I, dt I], [0, I]].
        x[0] += dt * x[2];
        x[1] += dt * x[3];
        double FP[4][4];
        for (int c = 0; c < 4; c++) {
            FP[0][c] = P[0][c] + dt * P[2][c];
            FP[1][c] = P[1][c] + dt * P[3][c];
            FP[2][c] = P[2][c];
            FP[3][c] = P[3][c];
        }
        for (int r = 0; r < 4; r++) {
            P[r][0] = FP[r][0] + dt * FP[r][2];
            P[r][1] = FP[r][1] + dt * FP[r][3];
            P[r][2] = FP[r][2];
            P[r][3] = FP[r][3];
        }
        double q11 = q * dt * dt * dt / 3, q12 = q * dt * dt / 2, q22 = q * dt;
        P[0][0] += q11; P[1][1] += q11;
        P[0][2] += q12; P[2][0] += q12; P[1][3] += q12; P[3][1] += q12;
        P[2][2] += q22; P[3][3] += q22;
        // Update with z = (east, north), H = [I 0], R = sigma^2 I, sigma = hAcc / sqrt(2).
        double rv = hAcc_m[i] * hAcc_m[i] * 0.5;
        double s00 = P[0][0] + rv, s01 = P[0][1], s10 = P[1][0], s11 = P[1][1] + rv;
        double det = s00 * s11 - s01 * s10;
        double i00 = s11 / det, i01 = -s01 / det, i10 = -s10 / det, i11 = s00 / det;
        double K[4][2];
        for (int r = 0; r < 4; r++) {
            K[r][0] = P[r][0] * i00 + P[r][1] * i10;
            K[r][1] = P[r][0] * i01 + P[r][1] * i11;
        }
        double y0 = east_m[i] - x[0], y1 = north_m[i] - x[1];
        for (int r = 0; r < 4; r++) x[r] += K[r][0] * y0 + K[r][1] * y1;
        double HP[2][4];
        for (int c = 0; c < 4; c++) { HP[0][c] = P[0][c]; HP[1][c] = P[1][c]; }
        for (int r = 0; r < 4; r++)
            for (int c = 0; c < 4; c++)
                P[r][c] -= K[r][0] * HP[0][c] + K[r][1] * HP[1][c];
    }
    if (out8) {
        for (int r = 0; r < 4; r++) { out8[r] = x[r]; out8[4 + r] = P[r][r]; }
    }
    return x[0] + x[1] + x[2] + x[3] + P[0][0] + P[1][1] + P[2][2] + P[3][3];
}

double fl_ref_kalman_cv(const double *t_s, const double *east_m, const double *north_m,
                        const double *hAcc_m, long n, double q) {
    return kalman_cv_run(t_s, east_m, north_m, hAcc_m, n, q, 0);
}

void fl_ref_kalman_cv_final(const double *t_s, const double *east_m, const double *north_m,
                            const double *hAcc_m, long n, double q, double out[8]) {
    kalman_cv_run(t_s, east_m, north_m, hAcc_m, n, q, out);
}

// ---- (b') the engine's filter with its validation, projection and re-anchoring ------
// A transcription of GeoPolicy's KalmanFilter.process, LocalFrame, AnchorProjection,
// LocalFrame.jacobian and Covariance4.transformed (same operations in the same order).
static const double kDegPerRad = 180.0 / 3.14159265358979323846;

typedef struct { double x, y, z; } vec3;
static inline vec3 v3(double x, double y, double z) { vec3 v = {x, y, z}; return v; }
static inline vec3 v3add(vec3 a, vec3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline vec3 v3sub(vec3 a, vec3 b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline vec3 v3mul(vec3 a, double s) { return v3(a.x * s, a.y * s, a.z * s); }
static inline double v3dot(vec3 a, vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

typedef struct {
    double lat_deg, lon_deg;           // anchor
    vec3 up, east, north;
    double lat0_rad, sinLat0, cosLat0;  // projection
} geo_frame;

static void frame_init(geo_frame *f, double lat, double lon) {
    f->lat_deg = lat; f->lon_deg = lon;
    double phi = lat * kRadPerDeg, lambda = lon * kRadPerDeg;
    double sp = sin(phi), cp = cos(phi), sl = sin(lambda), cl = cos(lambda);
    f->up = v3(cp * cl, cp * sl, sp);
    f->east = v3(-sl, cl, 0);
    f->north = v3(-sp * cl, -sp * sl, cp);
    f->lat0_rad = lat * kRadPerDeg;
    f->sinLat0 = f->up.z;
    f->cosLat0 = f->north.z;
}

// Exact offset (atan2 form) of a latitude/longitude from the anchor, metres.
static void frame_offset_exact(const geo_frame *f, double lat, double lon, double out[2]) {
    double phi = lat * kRadPerDeg, lambda = lon * kRadPerDeg, c = cos(phi);
    vec3 p = v3(c * cos(lambda), c * sin(lambda), sin(phi));
    double x = v3dot(p, f->east), y = v3dot(p, f->north), z = v3dot(p, f->up);
    double s = sqrt(x * x + y * y);
    if (s == 0) { out[0] = 0; out[1] = z >= 0 ? 0 : 3.14159265358979323846 * kEarthRadius_m; return; }
    double k = kEarthRadius_m * atan2(s, z) / s;
    out[0] = x * k; out[1] = y * k;
}

// Offset by the Taylor series within 0.01 rad of the anchor (AnchorProjection.offset_m).
static inline void frame_offset(const geo_frame *f, double lat, double lon, double out[2]) {
    double dphi = lat * kRadPerDeg - f->lat0_rad;
    double dlonDeg = lon - f->lon_deg;
    if (dlonDeg > 180) dlonDeg -= 360; else if (dlonDeg < -180) dlonDeg += 360;
    double dlam = dlonDeg * kRadPerDeg;
    if (!(fabs(dphi) < 0.01 && fabs(dlam) < 0.01)) { frame_offset_exact(f, lat, lon, out); return; }
    const double c6 = 1.0 / 6, c20 = 1.0 / 20, c42 = 1.0 / 42, c12 = 1.0 / 12, c30 = 1.0 / 30, c56 = 1.0 / 56;
    const double a3 = 1.0 / 3, a5 = 1.0 / 5, a7 = 1.0 / 7, a9 = 1.0 / 9, a11 = 1.0 / 11;
    double p2 = dphi * dphi, l2 = dlam * dlam;
    double sdp = dphi * (1 - p2 * c6 * (1 - p2 * c20 * (1 - p2 * c42)));
    double vdp = p2 * 0.5 * (1 - p2 * c12 * (1 - p2 * c30 * (1 - p2 * c56)));
    double sdl = dlam * (1 - l2 * c6 * (1 - l2 * c20 * (1 - l2 * c42)));
    double vdl = l2 * 0.5 * (1 - l2 * c12 * (1 - l2 * c30 * (1 - l2 * c56)));
    double cphi = f->cosLat0 * (1 - vdp) - f->sinLat0 * sdp;
    double x = cphi * sdl;
    double y = sdp + cphi * f->sinLat0 * vdl;
    double z = (1 - vdp) - cphi * f->cosLat0 * vdl;
    double invZ = 1 / z;
    double r2 = (x * x + y * y) * invZ * invZ;
    double scale = kEarthRadius_m * invZ * (1 - r2 * (a3 - r2 * (a5 - r2 * (a7 - r2 * (a9 - r2 * a11)))));
    out[0] = x * scale; out[1] = y * scale;
}

// Upper triangle p00 p01 p02 p03 p11 p12 p13 p22 p23 p33.
typedef struct { double p00, p01, p02, p03, p11, p12, p13, p22, p23, p33; } cov4;

// Moves the anchor to plane offset (px, py); carries state and covariance over.
static void reanchor(geo_frame *f, double x[4], cov4 *P, double px, double py) {
    // New anchor: LocalFrame.unitVector, then Coordinate(unitVector:).
    double d = sqrt(px * px + py * py);
    vec3 u = f->up;
    if (d != 0) {
        double theta = d / kEarthRadius_m;
        vec3 sum = v3add(v3mul(f->east, px), v3mul(f->north, py));
        vec3 dir = v3(sum.x / d, sum.y / d, sum.z / d);
        u = v3add(v3mul(f->up, cos(theta)), v3mul(dir, sin(theta)));
    }
    double h = sqrt(u.x * u.x + u.y * u.y);
    double lat = atan2(u.z, h) * kDegPerRad, lon = h == 0 ? 0 : atan2(u.y, u.x) * kDegPerRad;
    geo_frame g;
    frame_init(&g, lat, lon);
    // LocalFrame.jacobian(at: p, into: g).
    vec3 colX = f->east, colY = f->north;
    if (d != 0) {
        double rx = px / d, ry = py / d, theta = d / kEarthRadius_m;
        double ct = cos(theta), st = sin(theta);
        vec3 dir = v3add(v3mul(f->east, rx), v3mul(f->north, ry));
        vec3 uu = v3add(v3mul(f->up, ct), v3mul(dir, st));
        vec3 tr = v3sub(v3mul(dir, ct), v3mul(f->up, st));
        vec3 tt = v3(uu.y * tr.z - uu.z * tr.y, uu.z * tr.x - uu.x * tr.z, uu.x * tr.y - uu.y * tr.x);
        double scale = st / theta;
        colX = v3sub(v3mul(tr, rx), v3mul(tt, ry * scale));
        colY = v3add(v3mul(tr, ry), v3mul(tt, rx * scale));
    }
    double j00 = v3dot(colX, g.east), j10 = v3dot(colX, g.north);   // column 0
    double j01 = v3dot(colY, g.east), j11 = v3dot(colY, g.north);   // column 1
    double vx = j00 * x[2] + j01 * x[3], vy = j10 * x[2] + j11 * x[3];
    x[0] = 0; x[1] = 0; x[2] = vx; x[3] = vy;
    // T P T^T with T = diag(J, J), all 4x4 products written out (Covariance4.transformed).
    double T[4][4] = {{j00, j01, 0, 0}, {j10, j11, 0, 0}, {0, 0, j00, j01}, {0, 0, j10, j11}};
    double S[4][4] = {{P->p00, P->p01, P->p02, P->p03}, {P->p01, P->p11, P->p12, P->p13},
                      {P->p02, P->p12, P->p22, P->p23}, {P->p03, P->p13, P->p23, P->p33}};
    double M[4][4], N[4][4];
    for (int k = 0; k < 4; k++)
        for (int r = 0; r < 4; r++)
            M[r][k] = T[r][0] * S[0][k] + T[r][1] * S[1][k] + T[r][2] * S[2][k] + T[r][3] * S[3][k];
    for (int k = 0; k < 4; k++)
        for (int r = 0; r < 4; r++)
            N[r][k] = M[r][0] * T[k][0] + M[r][1] * T[k][1] + M[r][2] * T[k][2] + M[r][3] * T[k][3];
    P->p00 = N[0][0]; P->p11 = N[1][1]; P->p22 = N[2][2]; P->p33 = N[3][3];
    P->p01 = 0.5 * (N[0][1] + N[1][0]); P->p02 = 0.5 * (N[0][2] + N[2][0]); P->p03 = 0.5 * (N[0][3] + N[3][0]);
    P->p12 = 0.5 * (N[1][2] + N[2][1]); P->p13 = 0.5 * (N[1][3] + N[3][1]); P->p23 = 0.5 * (N[2][3] + N[3][2]);
    *f = g;
}

static inline double kalman_geo_run(const double *t_s, const double *lat_deg, const double *lon_deg,
                                    const double *hAcc_m, long n, double q, double speedSigma,
                                    double reanchor_m, double *out18) {
    geo_frame f;
    frame_init(&f, 0, 0);
    double x[4] = {0, 0, 0, 0};
    cov4 P = {0};
    int started = 0;
    double last = 0;
    long refused = 0, reanchors = 0;
    const double invSqrt2 = 1 / sqrt(2.0);
    for (long i = 0; i < n; i++) {
        double t = t_s[i], lat = lat_deg[i], lon = lon_deg[i], acc = hAcc_m[i];
        if (!isfinite(t) || !valid_coordinate(lat, lon) || !(isfinite(acc) && acc > 0)) { refused++; continue; }
        double sigma = acc * invSqrt2, r = sigma * sigma;
        if (!started) {
            frame_init(&f, lat, lon);
            x[0] = x[1] = x[2] = x[3] = 0;
            double v2 = speedSigma * speedSigma;
            cov4 d = {r, 0, 0, 0, r, 0, 0, v2, 0, v2};
            P = d;
            last = t;
            started = 1;
            continue;
        }
        if (!(t > last)) { refused++; continue; }
        if (x[0] * x[0] + x[1] * x[1] > reanchor_m * reanchor_m) { reanchor(&f, x, &P, x[0], x[1]); reanchors++; }
        // Predict (KalmanFilter.predict).
        double dt = t - last;
        x[0] = x[0] + dt * x[2]; x[1] = x[1] + dt * x[3];
        double dt2 = dt * dt, qpp = q * dt2 * dt / 3, qpv = q * dt2 / 2, qvv = q * dt;
        cov4 o = P;
        P.p00 = o.p00 + 2 * dt * o.p02 + dt2 * o.p22 + qpp;
        P.p01 = o.p01 + dt * (o.p03 + o.p12) + dt2 * o.p23;
        P.p02 = o.p02 + dt * o.p22 + qpv;
        P.p03 = o.p03 + dt * o.p23;
        P.p11 = o.p11 + 2 * dt * o.p13 + dt2 * o.p33 + qpp;
        P.p12 = o.p12 + dt * o.p23;
        P.p13 = o.p13 + dt * o.p33 + qpv;
        P.p22 = o.p22 + qvv;
        P.p33 = o.p33 + qvv;
        // Correct (KalmanFilter.correct).
        double z[2];
        frame_offset(&f, lat, lon, z);
        double s00 = P.p00 + r, s01 = P.p01, s11 = P.p11 + r;
        double invDet = 1 / (s00 * s11 - s01 * s01);
        double i00 = s11 * invDet, i01 = -s01 * invDet, i11 = s00 * invDet;
        double c[4] = {P.p00, P.p01, P.p02, P.p03}, e[4] = {P.p01, P.p11, P.p12, P.p13};
        double k0[4], k1[4];
        for (int j = 0; j < 4; j++) { k0[j] = c[j] * i00 + e[j] * i01; k1[j] = c[j] * i01 + e[j] * i11; }
        double nu0 = z[0] - x[0], nu1 = z[1] - x[1];
        for (int j = 0; j < 4; j++) x[j] = x[j] + k0[j] * nu0 + k1[j] * nu1;
        P.p00 -= k0[0] * c[0] + k1[0] * e[0];
        P.p01 -= k0[0] * c[1] + k1[0] * e[1];
        P.p02 -= k0[0] * c[2] + k1[0] * e[2];
        P.p03 -= k0[0] * c[3] + k1[0] * e[3];
        P.p11 -= k0[1] * c[1] + k1[1] * e[1];
        P.p12 -= k0[1] * c[2] + k1[1] * e[2];
        P.p13 -= k0[1] * c[3] + k1[1] * e[3];
        P.p22 -= k0[2] * c[2] + k1[2] * e[2];
        P.p23 -= k0[2] * c[3] + k1[2] * e[3];
        P.p33 -= k0[3] * c[3] + k1[3] * e[3];
        last = t;
    }
    if (out18) {
        double v[18] = {x[0], x[1], x[2], x[3], P.p00, P.p01, P.p02, P.p03, P.p11, P.p12, P.p13, P.p22, P.p23, P.p33,
                        f.lat_deg, f.lon_deg, (double)reanchors, (double)refused};
        for (int j = 0; j < 18; j++) out18[j] = v[j];
    }
    return x[0] + x[1] + x[2] + x[3] + P.p00 + P.p11 + P.p22 + P.p33 + (double)refused;
}

double fl_ref_kalman_geo(const double *t_s, const double *lat_deg, const double *lon_deg,
                         const double *hAcc_m, long n, double q, double speedSigma, double reanchor_m) {
    return kalman_geo_run(t_s, lat_deg, lon_deg, hAcc_m, n, q, speedSigma, reanchor_m, 0);
}

void fl_ref_kalman_geo_final(const double *t_s, const double *lat_deg, const double *lon_deg,
                             const double *hAcc_m, long n, double q, double speedSigma, double reanchor_m,
                             double out[18]) {
    kalman_geo_run(t_s, lat_deg, lon_deg, hAcc_m, n, q, speedSigma, reanchor_m, out);
}

// ---- (b') IMM: near-constant position + constant velocity ----------------------------
typedef struct { double x[4]; double P[4][4]; } imm_model;

// Moment matching of two Gaussians with weights w0 + w1 = 1: x = w0 x0 + w1 x1,
// P = w0 P0 + w1 P1 + w0 w1 d d^T with d = x0 - x1.
static inline void imm_combine(double w0, const imm_model *a, double w1, const imm_model *b, imm_model *out) {
    double d[4];
    for (int r = 0; r < 4; r++) { d[r] = a->x[r] - b->x[r]; out->x[r] = w0 * a->x[r] + w1 * b->x[r]; }
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++)
            out->P[r][c] = w0 * a->P[r][c] + w1 * b->P[r][c] + w0 * w1 * d[r] * d[c];
}

static inline void imm_predict_cv(imm_model *m, double dt, double q) {
    m->x[0] += dt * m->x[2];
    m->x[1] += dt * m->x[3];
    double FP[4][4];
    for (int c = 0; c < 4; c++) {
        FP[0][c] = m->P[0][c] + dt * m->P[2][c];
        FP[1][c] = m->P[1][c] + dt * m->P[3][c];
        FP[2][c] = m->P[2][c];
        FP[3][c] = m->P[3][c];
    }
    for (int r = 0; r < 4; r++) {
        m->P[r][0] = FP[r][0] + dt * FP[r][2];
        m->P[r][1] = FP[r][1] + dt * FP[r][3];
        m->P[r][2] = FP[r][2];
        m->P[r][3] = FP[r][3];
    }
    double q11 = q * dt * dt * dt / 3, q12 = q * dt * dt / 2, q22 = q * dt;
    m->P[0][0] += q11; m->P[1][1] += q11;
    m->P[0][2] += q12; m->P[2][0] += q12; m->P[1][3] += q12; m->P[3][1] += q12;
    m->P[2][2] += q22; m->P[3][3] += q22;
}

static inline void imm_predict_ncp(imm_model *m, double dt, double qp) {
    m->x[2] = 0; m->x[3] = 0;
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++)
            if (r >= 2 || c >= 2) m->P[r][c] = 0;
    m->P[0][0] += qp * dt; m->P[1][1] += qp * dt;
}

// Update with z; returns nu^T S^-1 nu and writes det S.
static inline double imm_update(imm_model *m, double z0, double z1, double rv, double *detS) {
    double s00 = m->P[0][0] + rv, s01 = m->P[0][1], s10 = m->P[1][0], s11 = m->P[1][1] + rv;
    double det = s00 * s11 - s01 * s10;
    double i00 = s11 / det, i01 = -s01 / det, i10 = -s10 / det, i11 = s00 / det;
    double K[4][2];
    for (int r = 0; r < 4; r++) {
        K[r][0] = m->P[r][0] * i00 + m->P[r][1] * i10;
        K[r][1] = m->P[r][0] * i01 + m->P[r][1] * i11;
    }
    double y0 = z0 - m->x[0], y1 = z1 - m->x[1];
    for (int r = 0; r < 4; r++) m->x[r] += K[r][0] * y0 + K[r][1] * y1;
    double HP[2][4];
    for (int c = 0; c < 4; c++) { HP[0][c] = m->P[0][c]; HP[1][c] = m->P[1][c]; }
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++)
            m->P[r][c] -= K[r][0] * HP[0][c] + K[r][1] * HP[1][c];
    *detS = det;
    return y0 * (i00 * y0 + i01 * y1) + y1 * (i10 * y0 + i11 * y1);
}

double fl_ref_imm(const double *t_s, const double *east_m, const double *north_m, const double *hAcc_m,
                  long n, double q, double qp, double tau0, double tau1, double v0, double *out10) {
    if (n <= 0) return 0;
    imm_model m0 = {{east_m[0], north_m[0], 0, 0}, {{0}}}, m1 = m0;
    double r0 = hAcc_m[0] * hAcc_m[0] * 0.5;
    m0.P[0][0] = r0; m0.P[1][1] = r0;
    m1.P[0][0] = r0; m1.P[1][1] = r0; m1.P[2][2] = v0; m1.P[3][3] = v0;
    double mu0 = tau0 / (tau0 + tau1), mu1 = tau1 / (tau0 + tau1);
    double a = 1 / tau0, b = 1 / tau1, s = a + b;
    for (long i = 1; i < n; i++) {
        double dt = t_s[i] - t_s[i - 1];
        double leave = (1 - exp(-s * dt)) / s;
        double p01 = a * leave, p10 = b * leave, p00 = 1 - p01, p11 = 1 - p10;
        double c0 = p00 * mu0 + p10 * mu1, c1 = p01 * mu0 + p11 * mu1;
        imm_model into0, into1;
        imm_combine(p00 * mu0 / c0, &m0, p10 * mu1 / c0, &m1, &into0);
        imm_combine(p01 * mu0 / c1, &m0, p11 * mu1 / c1, &m1, &into1);
        imm_predict_ncp(&into0, dt, qp);
        imm_predict_cv(&into1, dt, q);
        double rv = hAcc_m[i] * hAcc_m[i] * 0.5, det0, det1;
        double d0 = imm_update(&into0, east_m[i], north_m[i], rv, &det0);
        double d1 = imm_update(&into1, east_m[i], north_m[i], rv, &det1);
        double e = -0.5 * (d1 - d0);
        if (e > 600) e = 600;
        if (e < -600) e = -600;
        double rho = c1 / c0 * sqrt(det0 / det1) * exp(e);
        mu0 = 1 / (1 + rho);
        mu1 = 1 - mu0;
        m0 = into0;
        m1 = into1;
    }
    imm_model out;
    imm_combine(mu0, &m0, mu1, &m1, &out);
    double sum = 0, v[10] = {out.x[0], out.x[1], out.x[2], out.x[3],
                             out.P[0][0], out.P[1][1], out.P[2][2], out.P[3][3], mu0, mu1};
    for (int k = 0; k < 10; k++) { sum += v[k]; if (out10) out10[k] = v[k]; }
    return sum;
}

double fl_ref_seed_kalman(const double *t_s, const double *lat_deg, const double *lon_deg,
                          const double *hAcc_m, long n, double speedVariance) {
    if (n <= 0) return 0;
    double lat = lat_deg[0], lon = lon_deg[0], t = t_s[0];
    double var = 0;  /* the seed's unshown initial predictedVariance, as GeoPolicy.SeedKalman */
    for (long i = 1; i < n; i++) {
        double dt = t_s[i] - t;
        var += dt * speedVariance;
        double mv = hAcc_m[i] * hAcc_m[i];
        double gain = var / (var + mv);
        lat += gain * (lat_deg[i] - lat);
        lon += gain * (lon_deg[i] - lon);
        var = (1 - gain) * var;
        t = t_s[i];
    }
    return lat + lon + var;
}

// ---- (c) -------------------------------------------------------------------------
struct fl_ref_rng { gsl_rng *rng; };

fl_ref_rng *fl_ref_rng_new(unsigned long seed) {
    gsl_set_error_handler_off();
    fl_ref_rng *r = (fl_ref_rng *)malloc(sizeof *r);
    if (!r) return NULL;
    r->rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!r->rng) { free(r); return NULL; }
    gsl_rng_set(r->rng, seed);
    return r;
}

void fl_ref_rng_free(fl_ref_rng *r) {
    if (!r) return;
    gsl_rng_free(r->rng);
    free(r);
}

double fl_ref_ziggurat_sum_rng(fl_ref_rng *r, long n, double sigma) {
    double s = 0;
    for (long i = 0; i < n; i++) s += gsl_ran_gaussian_ziggurat(r->rng, sigma);
    return s;
}

void fl_ref_ziggurat_fill(fl_ref_rng *r, double *out, long n, double sigma) {
    for (long i = 0; i < n; i++) out[i] = gsl_ran_gaussian_ziggurat(r->rng, sigma);
}

double fl_ref_ziggurat_sum(unsigned long seed, long n) {
    fl_ref_rng *r = fl_ref_rng_new(seed);
    if (!r) return NAN;
    double s = fl_ref_ziggurat_sum_rng(r, n, 1.0);
    fl_ref_rng_free(r);
    return s;
}

double fl_ref_gsl_sort_quantiles(const double *x, long n, const double *p, long np, double *work, double *out) {
    memcpy(work, x, (size_t)n * sizeof *work);
    gsl_sort(work, 1, (size_t)n);
    double s = 0;
    for (long i = 0; i < np; i++) { out[i] = gsl_stats_quantile_from_sorted_data(work, 1, (size_t)n, p[i]); s += out[i]; }
    return s;
}

// ---- (d) -------------------------------------------------------------------------
double fl_ref_cspline(const double *x, const double *y, long nKnots,
                      const double *xEval, long nEval) {
    gsl_set_error_handler_off();
    gsl_interp *interp = gsl_interp_alloc(gsl_interp_cspline, (size_t)nKnots);
    if (!interp) return NAN;
    gsl_interp_accel *acc = gsl_interp_accel_alloc();
    if (!acc) { gsl_interp_free(interp); return NAN; }
    double sum = NAN;
    if (gsl_interp_init(interp, x, y, (size_t)nKnots) == GSL_SUCCESS) {
        sum = 0;
        for (long i = 0; i < nEval; i++) {
            double v;
            if (gsl_interp_eval_e(interp, x, y, xEval[i], acc, &v) != GSL_SUCCESS) { sum = NAN; break; }
            sum += v;
        }
    }
    gsl_interp_accel_free(acc);
    gsl_interp_free(interp);
    return sum;
}

// ---- (e) sweep scan ----------------------------------------------------------------
long fl_ref_sweep_scan(const double *now_s, const double *timestamp_s, const double *distance_m,
                       const double *gateAccuracy_m, long n, double enter_m, double exit_m,
                       double maxAccuracy_m, double maxAge_s, int confirm,
                       double *change_time_s, unsigned char *change_inside) {
    long k = 0;
    int cur = 0, pending = 0, count = 0;
    double last_t = -INFINITY;
    for (long i = 0; i < n; i++) {
        double a = gateAccuracy_m[i], t = timestamp_s[i];
        if (!(a <= maxAccuracy_m) || now_s[i] - t > maxAge_s || !(t > last_t)) continue;
        last_t = t;
        double d = distance_m[i];
        if (!(isfinite(d) && d >= 0)) continue;
        int p = d <= enter_m ? 1 : (d >= exit_m ? 2 : cur);
        if (p == cur) { count = 0; continue; }
        if (confirm > 1) {
            if (count == 0 || p != pending) { pending = p; count = 1; } else { count++; }
            if (count < confirm) continue;
            count = 0;
        }
        cur = p;
        change_time_s[k] = now_s[i];
        change_inside[k] = cur == 1;
        k++;
    }
    return k;
}

// ---- (f) sweep scan across grid points (AVX2) ----------------------------------------
#if defined(__x86_64__)
#include <immintrin.h>

int fl_ref_sweep_lanes_available(void) { return __builtin_cpu_supports("avx2"); }

__attribute__((target("avx2")))
long fl_ref_sweep_lanes(const double *time_s, const double *distance_m, long n,
                        const double *enter_m, const double *exit_m, const int *confirm, long points,
                        double *change_time_s, int *change_point, unsigned char *change_inside,
                        long capacity) {
    long k = 0;
    const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi64x(1), two = _mm256_set1_epi64x(2);
    for (long p0 = 0; p0 < points; p0 += 8) {
        double en[8], ex[8];
        long long rq[8];
        for (int l = 0; l < 8; l++) {
            long p = p0 + l < points ? p0 + l : p0;  // unused lanes repeat the pass's first point
            en[l] = enter_m[p];
            ex[l] = exit_m[p];
            rq[l] = confirm[p] > 1 ? confirm[p] : 1;
        }
        __m256d enter[2] = {_mm256_loadu_pd(en), _mm256_loadu_pd(en + 4)};
        __m256d exit_[2] = {_mm256_loadu_pd(ex), _mm256_loadu_pd(ex + 4)};
        __m256i req[2] = {_mm256_loadu_si256((const __m256i *)rq), _mm256_loadu_si256((const __m256i *)(rq + 4))};
        __m256i cur[2] = {zero, zero}, pending[2] = {zero, zero}, count[2] = {zero, zero};
        for (long i = 0; i < n; i++) {
            __m256d d = _mm256_set1_pd(distance_m[i]);
            __m256i prop[2], differ[2];
            int any = 0;
            for (int h = 0; h < 2; h++) {
                __m256i in = _mm256_castpd_si256(_mm256_cmp_pd(d, enter[h], _CMP_LE_OQ));
                __m256i out = _mm256_castpd_si256(_mm256_cmp_pd(d, exit_[h], _CMP_GE_OQ));
                __m256i p = _mm256_blendv_epi8(cur[h], two, out);
                p = _mm256_blendv_epi8(p, one, in);
                __m256i same = _mm256_cmpeq_epi64(p, cur[h]);
                prop[h] = p;
                differ[h] = _mm256_xor_si256(same, _mm256_set1_epi64x(-1));
                count[h] = _mm256_andnot_si256(same, count[h]);
                any |= _mm256_movemask_pd(_mm256_castsi256_pd(differ[h]));
            }
            if (!any) continue;
            for (int h = 0; h < 2; h++) {
                __m256i restart = _mm256_and_si256(
                    differ[h], _mm256_or_si256(_mm256_cmpeq_epi64(count[h], zero),
                                               _mm256_xor_si256(_mm256_cmpeq_epi64(prop[h], pending[h]),
                                                                _mm256_set1_epi64x(-1))));
                pending[h] = _mm256_blendv_epi8(pending[h], prop[h], restart);
                __m256i c = _mm256_blendv_epi8(_mm256_add_epi64(count[h], one), one, restart);
                c = _mm256_and_si256(c, differ[h]);
                __m256i fire = _mm256_and_si256(differ[h], _mm256_cmpgt_epi64(_mm256_add_epi64(c, one), req[h]));
                int m = _mm256_movemask_pd(_mm256_castsi256_pd(fire));
                if (m) {
                    long long cs[4], cc[4], ps[4];
                    _mm256_storeu_si256((__m256i *)cs, cur[h]);
                    _mm256_storeu_si256((__m256i *)cc, c);
                    _mm256_storeu_si256((__m256i *)ps, prop[h]);
                    for (int l = 0; l < 4; l++) {
                        if (!(m >> l & 1)) continue;
                        cs[l] = ps[l];
                        cc[l] = 0;
                        long p = p0 + 4 * h + l;
                        if (p < points) {
                            long slot = k & (capacity - 1);
                            change_time_s[slot] = time_s[i];
                            change_point[slot] = (int)p;
                            change_inside[slot] = ps[l] == 1;
                            k++;
                        }
                    }
                    cur[h] = _mm256_loadu_si256((const __m256i *)cs);
                    c = _mm256_loadu_si256((const __m256i *)cc);
                }
                count[h] = c;
            }
        }
    }
    return k;
}
#else
int fl_ref_sweep_lanes_available(void) { return 0; }
long fl_ref_sweep_lanes(const double *time_s, const double *distance_m, long n,
                        const double *enter_m, const double *exit_m, const int *confirm, long points,
                        double *change_time_s, int *change_point, unsigned char *change_inside,
                        long capacity) {
    (void)time_s; (void)distance_m; (void)n; (void)enter_m; (void)exit_m; (void)confirm; (void)points;
    (void)change_time_s; (void)change_point; (void)change_inside; (void)capacity;
    return 0;
}
#endif

// ---- (g) place index ---------------------------------------------------------------
enum { kPlacesLeaf = 8, kPlacesStack = 128 };

typedef struct {
    double lo[3], hi[3];
    double reach2;       // largest squared reach chord below
    long begin, end;     // places in leaf order
    long child;          // first child (the second is child + 1); -1 for a leaf
} places_node;

struct fl_ref_places {
    places_node *nodes;
    long nodeCount;
    double *x, *y, *z, *reach2;  // in leaf order
    long n;
};

typedef struct { double v[3]; double reach2; } places_item;

// Quickselect (Hoare partition): afterwards no item before k has a larger coordinate than
// a[k] and none after it a smaller one.
static void places_select(places_item *a, long lo, long hi, long k, int axis) {
    while (hi - lo > 1) {
        double pivot = a[lo + (hi - lo) / 2].v[axis];
        long i = lo, j = hi - 1;
        while (i <= j) {
            while (a[i].v[axis] < pivot) i++;
            while (a[j].v[axis] > pivot) j--;
            if (i <= j) { places_item t = a[i]; a[i] = a[j]; a[j] = t; i++; j--; }
        }
        if (k <= j) hi = j + 1;
        else if (k >= i) lo = i;
        else return;
    }
}

// Fills node `me` (already reserved) for a[begin..<end].
static void places_build(fl_ref_places *t, places_item *a, long me, long begin, long end) {
    places_node *node = &t->nodes[me];
    for (int d = 0; d < 3; d++) { node->lo[d] = INFINITY; node->hi[d] = -INFINITY; }
    node->reach2 = 0;
    for (long i = begin; i < end; i++) {
        for (int d = 0; d < 3; d++) {
            if (a[i].v[d] < node->lo[d]) node->lo[d] = a[i].v[d];
            if (a[i].v[d] > node->hi[d]) node->hi[d] = a[i].v[d];
        }
        if (a[i].reach2 > node->reach2) node->reach2 = a[i].reach2;
    }
    node->begin = begin;
    node->end = end;
    node->child = -1;
    if (end - begin <= kPlacesLeaf) return;
    int axis = 0;
    for (int d = 1; d < 3; d++)
        if (node->hi[d] - node->lo[d] > node->hi[axis] - node->lo[axis]) axis = d;
    long mid = begin + (end - begin) / 2;
    places_select(a, begin, end, mid, axis);
    long left = t->nodeCount;
    t->nodeCount += 2;
    node->child = left;
    places_build(t, a, left, begin, mid);
    places_build(t, a, left + 1, mid, end);
}

static void places_unit(double lat_deg, double lon_deg, double v[3]) {
    double phi = lat_deg * kRadPerDeg, lambda = lon_deg * kRadPerDeg;
    double c = cos(phi);
    v[0] = c * cos(lambda);
    v[1] = c * sin(lambda);
    v[2] = sin(phi);
}

fl_ref_places *fl_ref_places_new(const double *lat_deg, const double *lon_deg, const double *reach_m,
                                 long n, double sphereRadius_m) {
    fl_ref_places *t = calloc(1, sizeof *t);
    places_item *a = malloc((size_t)(n > 0 ? n : 1) * sizeof *a);
    // Leaves hold at least 4 places once n > 8, so a tree has fewer than n / 2 + 2 nodes.
    long capacity = n / 2 + 8;
    if (t) {
        t->n = n;
        t->nodes = malloc((size_t)capacity * sizeof *t->nodes);
        t->x = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
        t->y = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
        t->z = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
        t->reach2 = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    }
    if (!t || !a || !t->nodes || !t->x || !t->y || !t->z || !t->reach2) {
        free(a);
        fl_ref_places_free(t);
        return NULL;
    }
    for (long i = 0; i < n; i++) {
        places_unit(lat_deg[i], lon_deg[i], a[i].v);
        double half = reach_m[i] / (2 * sphereRadius_m);
        double c = half >= 3.14159265358979323846 / 2 ? 2 : 2 * sin(half);
        c = c * (1 + 1e-9) + 1e-12;
        a[i].reach2 = c * c;
    }
    if (n > 0) {
        t->nodeCount = 1;
        places_build(t, a, 0, 0, n);
    }
    for (long i = 0; i < n; i++) {
        t->x[i] = a[i].v[0];
        t->y[i] = a[i].v[1];
        t->z[i] = a[i].v[2];
        t->reach2[i] = a[i].reach2;
    }
    free(a);
    return t;
}

void fl_ref_places_free(fl_ref_places *t) {
    if (!t) return;
    free(t->nodes);
    free(t->x);
    free(t->y);
    free(t->z);
    free(t->reach2);
    free(t);
}

static inline double places_box2(const places_node *node, const double q[3]) {
    double s = 0;
    for (int d = 0; d < 3; d++) {
        double e = q[d] < node->lo[d] ? node->lo[d] - q[d] : (q[d] > node->hi[d] ? q[d] - node->hi[d] : 0);
        s += e * e;
    }
    return s;
}

long fl_ref_places_count(const fl_ref_places *t, const double *lat_deg, const double *lon_deg,
                         long n, long *perPoint) {
    long total = 0;
    long stack[kPlacesStack];
    for (long p = 0; p < n; p++) {
        long hits = 0;
        if (t->n > 0) {
            double q[3];
            places_unit(lat_deg[p], lon_deg[p], q);
            long top = 0;
            stack[top++] = 0;
            while (top > 0) {
                const places_node *node = &t->nodes[stack[--top]];
                if (places_box2(node, q) > node->reach2) continue;
                if (node->child >= 0) {
                    stack[top++] = node->child + 1;
                    stack[top++] = node->child;
                    continue;
                }
                for (long i = node->begin; i < node->end; i++) {
                    double dx = t->x[i] - q[0], dy = t->y[i] - q[1], dz = t->z[i] - q[2];
                    if (dx * dx + dy * dy + dz * dz <= t->reach2[i]) hits++;
                }
            }
        }
        if (perPoint) perPoint[p] = hits;
        total += hits;
    }
    return total;
}
