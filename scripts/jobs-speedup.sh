#!/bin/bash
# The --jobs figures of docs/benchmarks.md ("Large sweeps: outputs and --jobs"): how much less
# wall time `sweep --jobs 2` takes than `--jobs 1`, set against what the same machine gives two
# independent `--jobs 1` processes run side by side (its own two-core speed-up, which a busy
# host lowers for every program alike). Not part of CI.
#
#   scripts/jobs-speedup.sh [--idle SECONDS [--warm]] ROUNDS [FENCELAB] [-- SWEEP ARGS...]
#
# Each round runs, one after another: `--jobs 1` alone, two `--jobs 1` side by side, `--jobs 2`,
# and the ceiling: scripts/parallel-ceiling.c (built here with the system's C compiler), a C
# program with no serial part, no shared data and no memory traffic, its work in chunks on one
# thread and then twice that work on two threads that take chunks as they finish, as the sweep's
# workers take pieces; its speed-up is what the host gives two threads of a program that
# balances its work in that minute, and how the chunks split shows how far the two vCPUs' speeds
# differed (100:100 when they ran alike).
# With --idle each of the four waits SECONDS first, so it starts on an otherwise idle machine
# (on a VM that hands freed memory back to its host, also with that memory to be backed again).
# With --warm, after the wait and before the clock starts, the binary and its shared libraries
# are read into the page cache, so a machine that pages out file pages while idle does not
# make the process start read them back from disk (the same for every setting, on one thread).
# Prints each round and the speed-ups of --jobs 2 (alone ÷ --jobs 2), of two processes
# (2 × alone ÷ the pair's wall time) and of the ceiling (2 × one thread ÷ two threads), each as
# the median of the rounds' own ratios, with how many rounds reached 1.8×, and as the ratio of
# the median times (less swayed by a host that changes speed within a round).
# Default sweep: the 97 600-point, 1-replicate grid; default binary: the release build.
# Work folder /tmp/fencelab-jobs.
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: jobs-speedup.sh [--idle SECONDS [--warm]] ROUNDS [FENCELAB] [-- SWEEP ARGS...]"
source scripts/sweep-rounds-args.sh
[ $# -ge 1 ] && [ "$1" = "--warm" ] && { echo "jobs-speedup.sh: --warm goes after --idle SECONDS" >&2; exit 2; }
sweep_rounds_idle jobs-speedup.sh "$@"
set -- "${remaining[@]}"
warm=""
if [ -n "$idle" ] && [ $# -ge 1 ] && [ "$1" = "--warm" ]; then warm=1; shift; fi
sweep_rounds_run jobs-speedup.sh "$usage" "$@"
out=/tmp/fencelab-jobs
mkdir -p "$out"
cc=${CC:-$(command -v cc || command -v clang || true)}
[ -n "$cc" ] && command -v "$cc" >/dev/null ||
    { echo "jobs-speedup.sh: no C compiler for scripts/parallel-ceiling.c (set CC): ${cc:-none found}" >&2; exit 2; }
"$cc" -O2 -pthread -o "$out/parallel-ceiling" scripts/parallel-ceiling.c ||
    { echo "jobs-speedup.sh: $cc could not build scripts/parallel-ceiling.c" >&2; exit 2; }
ceiling_iterations=100000000
libs=()
if [ -n "$warm" ]; then mapfile -t libs < <(ldd "$bin" | awk '$3 ~ /^\// { print $3 }'); fi
rest() {
    [ -z "$idle" ] || sleep "$idle"
    [ -z "$warm" ] || cat "$bin" "${libs[@]}" >/dev/null
}
echo "round alone_ms pair_ms jobs2_ms ceiling1_ms ceiling2_ms ceiling_chunks (load $(cut -d' ' -f1 /proc/loadavg)${idle:+, $idle s idle before each}${warm:+, binary read first})"
for ((i = 1; i <= rounds; i++)); do
    rest
    stamp_us t0
    "$bin" sweep "${grid[@]}" --jobs 1 --out "$out/alone" >/dev/null
    stamp_us t1
    alone=$(((t1 - t0) / 1000))
    rest
    stamp_us t0
    "$bin" sweep "${grid[@]}" --jobs 1 --out "$out/a" >/dev/null &
    a=$!
    "$bin" sweep "${grid[@]}" --jobs 1 --out "$out/b" >/dev/null
    wait "$a"
    stamp_us t1
    pair=$(((t1 - t0) / 1000))
    rest
    stamp_us t0
    "$bin" sweep "${grid[@]}" --jobs 2 --out "$out/jobs2" >/dev/null
    stamp_us t1
    jobs2=$(((t1 - t0) / 1000))
    rest
    ceiling=$("$out/parallel-ceiling" "$ceiling_iterations")
    echo "$i $alone $pair $jobs2 $ceiling"
done | tee "$out/rounds.txt"
for f in sweep.json sweep.csv index.html; do cmp -s "$out/alone/$f" "$out/jobs2/$f" || echo "jobs-speedup.sh: $f differs between --jobs 1 and --jobs 2" >&2; done
awk "$awk_median"'
    $1 ~ /^[0-9]+$/ { n++; j[n] = $2 / $4; p[n] = 2 * $2 / $3; q[n] = 2 * $5 / $6; f[n] = j[n] / q[n]
        a[n] = $2; b[n] = $3; c[n] = $4; d[n] = $5; e[n] = $6
        jn += j[n] >= 1.8; pn += p[n] >= 1.8; qn += q[n] >= 1.8 }
    END { printf "median speed-up: --jobs 2 %.2fx, two processes side by side %.2fx, ceiling %.2fx (%d rounds, load %s)\n",
            median(j, n), median(p, n), median(q, n), n, load
        printf "rounds at 1.8x or more: --jobs 2 %d, two processes %d, ceiling %d of %d; --jobs 2 / ceiling: median %.2f\n",
            jn, pn, qn, n, median(f, n)
        ma = median(a, n); mb = median(b, n); mc = median(c, n); md = median(d, n); me = median(e, n)
        printf "median times: alone %.1f ms, side by side %.1f ms, --jobs 2 %.1f ms, ceiling %.1f and %.1f ms: --jobs 2 %.2fx, two processes %.2fx, ceiling %.2fx\n",
            ma, mb, mc, md, me, ma / mc, 2 * ma / mb, 2 * md / me }' load="$(cut -d' ' -f1 /proc/loadavg)" "$out/rounds.txt"
