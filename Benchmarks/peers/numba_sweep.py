#!/usr/bin/env python3
"""A hand-written numpy + numba peer of `fencelab sweep`, run by hand, never in CI.

It does the same sweep work on the same shape of input as `fencelab sweep` on
scenarios/edge-loiter-100m.json: per replicate a 1 h, 1 Hz loiter drive about 100 m from the
centre (radial Ornstein-Uhlenbeck around 100 m, 8 m Gaussian noise, DRMS accuracy), the
Haversine distance of every fix and every truth slot ONCE per drive, then for each grid point
(enter x exit x max-accuracy x confirm, exit > enter) the hysteresis rule with the accuracy gate,
confirmation and staleness/order checks over the fixes and over the truth, transition matching
(window 30 s), visit matching against the place (radius 100 m, slack 60 s), p95 latencies per
replicate, and per point the mean and 95 % Student-t interval over replicates.

It prints the peer's rate in grid-point x fixes per second and, with --fencelab BIN, runs
`BIN sweep scenarios/edge-loiter-100m.json` with the same grid and replicates in the same run
and prints its rate and the ratio (fencelab / peer), so the machine's load cancels out.

With --csv the peer also writes, inside its timed region, a CSV of the whole grid: one row per
grid point with its settings and the mean and interval half-width of every figure (the
"generate, evaluate, write a CSV" peer). With --whole-process the peer is also run as a process
of its own (interpreter start, numpy and numba imports, the compiled kernels loaded from
numba's cache, the run, the CSV) and its CPU is set against the whole fencelab process.

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install numpy numba
    /tmp/venv/bin/python Benchmarks/peers/numba_sweep.py --fencelab .build/release/fencelab --points 1420
    /tmp/venv/bin/python Benchmarks/peers/numba_sweep.py --fencelab .build/release/fencelab --points 1420 \
        --csv /tmp/peer.csv --whole-process

Python is never a runtime dependency of FenceLab; this file is a measuring stick only.
"""
import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
from numba import njit

EARTH_RADIUS_M = 6_371_000.0  # the seeds' sphere (GeoPolicy `Haversine`)
WINDOW_S = 30.0               # Flutter.defaultWindow_s
SLACK_S = 60.0                # Visits.defaultMatchSlack_s
MAX_AGE_S = 30.0              # EvaluationSettings.maxFixAge_s
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 9: 2.262, 19: 2.093}


def haversine_m(lat0, lon0, lat, lon):
    p0, p = math.radians(lat0), np.radians(lat)
    dp, dl = p - p0, np.radians(lon - lon0)
    h = np.sin(dp / 2) ** 2 + math.cos(p0) * np.cos(p) * np.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS_M * np.arcsin(np.sqrt(np.minimum(h, 1.0)))


def loiter_drive(rng, n, center=(52.52, 13.405), distance_m=100.0, sigma_m=8.0):
    """Truth: OU radial offset (sigma 6 m, tau 120 s) at 45 deg; fixes: truth + isotropic Gaussian noise."""
    a = math.exp(-1.0 / 120.0)
    r = np.empty(n)
    x = 0.0
    e = rng.standard_normal(n) * 6.0 * math.sqrt(1 - a * a)
    for i in range(n):
        x = a * x + e[i]
        r[i] = distance_m + max(-15.0, min(15.0, x))
    m_per_deg = 111_195.0
    north, east = r * math.cos(math.radians(45)), r * math.sin(math.radians(45))
    tlat = center[0] + north / m_per_deg
    tlon = center[1] + east / (m_per_deg * math.cos(math.radians(center[0])))
    dn, de = rng.standard_normal(n) * sigma_m, rng.standard_normal(n) * sigma_m
    flat, flon = tlat + dn / m_per_deg, tlon + de / (m_per_deg * math.cos(math.radians(center[0])))
    acc = np.full(n, sigma_m * math.sqrt(2.0))
    t = np.arange(n, dtype=np.float64)
    return t, haversine_m(*center, tlat, tlon), haversine_m(*center, flat, flon), acc


@njit(cache=True)
def scan(now, ts, d, a, enter, exit_, max_acc, confirm, max_age, out_t, out_in):
    """Hysteresis + gate + confirmation + stale/order checks; writes the determined-state changes."""
    cur, pending, count, last_t, k = 0, 0, 0, -np.inf, 0
    for i in range(now.shape[0]):
        if not (a[i] <= max_acc) or now[i] - ts[i] > max_age or not (ts[i] > last_t):
            continue
        last_t = ts[i]
        p = 1 if d[i] <= enter else (2 if d[i] >= exit_ else cur)
        if p == cur:
            count = 0
            continue
        if confirm > 1:
            if count == 0 or p != pending:
                pending, count = p, 1
            else:
                count += 1
            if count < confirm:
                continue
            count = 0
        cur = p
        out_t[k], out_in[k] = now[i], cur == 1
        k += 1
    return k


@njit(cache=True)
def transitions_match(tt, ti, nt, ot, oi, no, window):
    """Greedy matching of observed to true transitions (the first change is a determination)."""
    used = np.zeros(max(nt, 1), dtype=np.bool_)
    spurious, lat = 0, np.empty(max(no, 1))
    nl = 0
    for j in range(1, no):
        hit = -1
        for q in range(1, nt):
            if not used[q] and ti[q] == oi[j] and abs(ot[j] - tt[q]) <= window:
                hit = q
                break
        if hit < 0:
            spurious += 1
        else:
            used[hit] = True
            lat[nl] = ot[j] - tt[hit]
            nl += 1
    missed = 0
    for q in range(1, nt):
        if not used[q]:
            missed += 1
    med = np.median(lat[:nl]) if nl > 0 else np.nan
    return spurious, missed, med


@njit(cache=True)
def visits_match(vs, ve, nv, ct, ci, nc, end_s, slack):
    """Observed visits from the changes, matched to the true visits; false visits, recall, p95 entry latency."""
    os_ = np.empty(nc + 1)
    oe = np.empty(nc + 1)
    n, start = 0, -1.0
    for j in range(nc):
        if ci[j]:
            start = ct[j]
        elif start >= 0:
            os_[n], oe[n] = start, ct[j]
            n += 1
            start = -1.0
    if start >= 0:
        os_[n], oe[n] = start, max(end_s, start)
        n += 1
    used = np.zeros(max(nv, 1), dtype=np.bool_)
    false_, matched = 0, 0
    lat = np.empty(max(n, 1))
    for j in range(n):
        hit = -1
        for q in range(nv):
            if not used[q] and os_[j] <= ve[q] + slack and oe[j] >= vs[q] - slack:
                hit = q
                break
        if hit < 0:
            false_ += 1
        else:
            used[hit] = True
            lat[matched] = os_[j] - vs[hit]
            matched += 1
    p95 = np.quantile(lat[:matched], 0.95) if matched > 0 else np.nan
    return false_, matched, p95


def true_visits(t, truth_d, radius=100.0):
    inside = truth_d <= radius
    edges = np.flatnonzero(np.diff(inside.astype(np.int8))) + 1
    bounds = np.concatenate(([0], edges, [len(t)]))
    vs, ve = [], []
    for b0, b1 in zip(bounds[:-1], bounds[1:]):
        if inside[b0]:
            vs.append(t[b0])
            ve.append(t[b1 - 1])
    return np.array(vs), np.array(ve)


def grid(points):
    """A grid of about `points` hysteresis points: the fencelab grid of the same size."""
    spec = {142: ("40:110:1", "120:120:1", [30], [1, 3]),
            1420: ("40:110:1", "120:140:5", [20, 30], [1, 3]),
            14200: ("40:110:1", "120:240:5", [20, 30, 40, 50], [1, 3])}
    return spec.get(points)


def expand(enter, exit_, accs, confirms):
    def rng(s):
        a, b, step = (float(x) for x in s.split(":"))
        return np.arange(a, b + step / 2, step)
    return [(e, x, acc, c) for e in rng(enter) for x in rng(exit_) if x > e for acc in accs for c in confirms]


FIGURES = ("spurious", "missed", "median_latency_s", "false_visits", "p95_entry_latency_s")


def write_csv(path, points, mean, half):
    """One row per grid point: the settings, then mean and half-width of every figure."""
    with open(path, "w") as f:
        f.write("enter_m,exit_m,max_accuracy_m,confirm," +
                ",".join(f"{n}_mean,{n}_half" for n in FIGURES) + "\n")
        for (e, x, a, c), m, h in zip(points, mean, half):
            cells = ",".join(f"{m[i]:.6g},{h[i]:.6g}" for i in range(len(FIGURES)))
            f.write(f"{e:g},{x:g},{a:g},{c},{cells}\n")


def peer(points, replicates, seed, csv=None):
    rng = np.random.default_rng(seed)
    n = 3600
    t0, c0 = time.perf_counter(), time.process_time()
    drives = []
    for _ in range(replicates):
        t, td, fd, acc = loiter_drive(rng, n)
        vs, ve = true_visits(t, td)
        drives.append((t, td, fd, acc, vs, ve))
    out_t, out_i = np.empty(n), np.empty(n, dtype=np.bool_)
    tr_t, tr_i = np.empty(n), np.empty(n, dtype=np.bool_)
    zeros = np.zeros(n)
    results = np.empty((len(points), replicates, 5))
    for r, (t, td, fd, acc, vs, ve) in enumerate(drives):
        for k, (e, x, a, c) in enumerate(points):
            no = scan(t, t, fd, acc, e, x, a, c, MAX_AGE_S, out_t, out_i)
            nt = scan(t, t, td, zeros, e, x, np.inf, c, MAX_AGE_S, tr_t, tr_i)
            sp, mi, med = transitions_match(tr_t, tr_i, nt, out_t, out_i, no, WINDOW_S)
            fa, ma, p95 = visits_match(vs, ve, len(vs), out_t, out_i, no, float(n), SLACK_S)
            results[k, r] = (sp, mi, med, fa, p95)
    with warnings.catch_warnings():  # a figure with no value in any replicate (no latency) is nan
        warnings.simplefilter("ignore", RuntimeWarning)
        mean = np.nanmean(results, axis=1)
        half = T975.get(replicates - 1, 2.0) * np.nanstd(results, axis=1, ddof=1) / math.sqrt(replicates)
    if csv:
        write_csv(csv, points, mean, half)
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    return elapsed, cpu, n * replicates * len(points), mean, half


def fencelab(binary, g, replicates, jobs):
    enter, exit_, accs, confirms = g
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    scenario = os.path.join(root, "scenarios", "edge-loiter-100m.json")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "sweep")
        cmd = [binary, "sweep", scenario, "--enter", enter, "--exit", exit_,
               "--max-accuracy", ",".join(map(str, accs)), "--confirm", ",".join(map(str, confirms)),
               "--replicates", str(replicates), "--jobs", str(jobs), "--force", "--out", out]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        elapsed = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        with open(os.path.join(out, "sweep.json")) as f:
            summary = json.load(f)
            # the bounded form (above 3 000 points) lists some points; `form.points` counts them all
            points = summary["form"]["points"] if "form" in summary else len(summary["points"])
    with open(scenario) as f:
        s = json.load(f)["sampling"]
    fixes = int(s["duration_s"] * s["rate_hz"])
    return elapsed, cpu, fixes * replicates * points, points


def whole_process(points, replicates, seed, csv):
    """The peer as a process of its own (start-up, imports, cached kernels, run, CSV): wall, CPU."""
    cmd = [sys.executable, os.path.abspath(__file__), "--points", str(points), "--replicates",
           str(replicates), "--seed", str(seed), "--no-warm-up"] + (["--csv", csv] if csv else [])
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    elapsed = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return elapsed, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=1420, choices=[142, 1420, 14200])
    ap.add_argument("--replicates", type=int, default=20)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--fencelab", help="fencelab binary to run beside the peer")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--csv", help="the peer also writes a CSV of the whole grid here (in its timed region)")
    ap.add_argument("--whole-process", action="store_true",
                    help="also time the peer as a whole process against the whole fencelab process")
    ap.add_argument("--no-warm-up", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    g = grid(args.points)
    points = expand(*g)
    if not args.no_warm_up:
        peer([points[0]], 2, args.seed)  # compile (numba cache) outside the timed run
    elapsed, cpu, work, _, _ = peer(points, args.replicates, args.seed, args.csv)
    what = "evaluate + CSV" if args.csv else "evaluate"
    print(f"numba peer ({what}): {len(points)} points x {args.replicates} replicates x 3600 fixes: "
          f"wall {elapsed:.3f} s, CPU {cpu:.3f} s = {work / elapsed:.3e} (wall) / {work / cpu:.3e} (CPU) "
          "grid-point x fixes/s")
    if args.fencelab:
        f_elapsed, f_cpu, f_work, f_points = fencelab(args.fencelab, g, args.replicates, args.jobs)
        print(f"fencelab sweep --jobs {args.jobs}: {f_points} points: wall {f_elapsed:.3f} s, CPU {f_cpu:.3f} s = "
              f"{f_work / f_elapsed:.3e} (wall) / {f_work / f_cpu:.3e} (CPU) grid-point x fixes/s")
        print(f"ratio fencelab process / peer's timed region: {(f_work / f_elapsed) / (work / elapsed):.2f} (wall), "
              f"{(f_work / f_cpu) / (work / cpu):.2f} (CPU)")
        if args.whole_process:
            p_elapsed, p_cpu = whole_process(args.points, args.replicates, args.seed, args.csv)
            print(f"numba peer process ({what}): wall {p_elapsed:.3f} s, CPU {p_cpu:.3f} s")
            print(f"ratio fencelab process / peer process: {(f_work / f_elapsed) / (work / p_elapsed):.2f} (wall), "
                  f"{(f_work / f_cpu) / (work / p_cpu):.2f} (CPU)")


if __name__ == "__main__":
    sys.exit(main())
