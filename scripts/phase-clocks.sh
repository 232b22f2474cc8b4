#!/bin/bash
# The "Where the time goes" figures of docs/benchmarks.md ("Large sweeps: outputs and --jobs"):
# the wall and CPU time of each phase of `sweep` at `--jobs 1` and at `--jobs 2`, paired round
# by round, from the phase clocks the sweep writes with FENCELAB_PHASE_CLOCKS set
# (docs/sweeps.md, "Cost"). Not part of CI.
#
#   scripts/phase-clocks.sh [--idle SECONDS] ROUNDS [FENCELAB] [-- SWEEP ARGS...]
#
# Each round runs `--jobs 1`, then `--jobs 2` (with --idle, each after SECONDS of idle). A
# process's wall time is taken around it with bash's microsecond clock; what lies outside its
# first and last mark is its start and exit. Per phase, the medians over the rounds of the wall
# time at each setting and of the CPU time all threads spent in it, the CPU a `--jobs 2` run
# left idle in it (2 × wall − CPU: both vCPUs could have worked), and the median of the rounds'
# own speed-ups (wall at `--jobs 1` ÷ wall at `--jobs 2`). Phases that take longer at `--jobs 2`
# or that only one thread can do show up as speed-ups near or under 1 and as idle CPU.
# Default sweep: the 97 600-point, 1-replicate grid; default binary: the release build.
# Work folder /tmp/fencelab-phases.
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: phase-clocks.sh [--idle SECONDS] ROUNDS [FENCELAB] [-- SWEEP ARGS...]"
source scripts/sweep-rounds-args.sh
sweep_rounds_idle phase-clocks.sh "$@"
sweep_rounds_run phase-clocks.sh "$usage" "${remaining[@]}"
out=/tmp/fencelab-phases
mkdir -p "$out"
: >"$out/runs.txt"
echo "round jobs1_ms jobs2_ms speed_up (load $(cut -d' ' -f1 /proc/loadavg)${idle:+, $idle s idle before each})"
for ((i = 1; i <= rounds; i++)); do
    line="$i"
    for jobs in 1 2; do
        [ -z "$idle" ] || sleep "$idle"
        stamp_us t0
        if ! FENCELAB_PHASE_CLOCKS=1 "$bin" sweep "${grid[@]}" --jobs "$jobs" --out "$out/jobs$jobs" \
            >/dev/null 2>"$out/stderr.txt"; then
            echo "phase-clocks.sh: the sweep failed at --jobs $jobs: $(grep -v '^fencelab-phase ' "$out/stderr.txt" | head -n 1)" >&2
            exit 2
        fi
        stamp_us t1
        marks=$(awk '$1 == "fencelab-phase" { printf " %s %s %s", $2, $3, $4 }' "$out/stderr.txt")
        [[ "$marks" == *sweep-start*sweep-end* ]] ||
            { echo "phase-clocks.sh: $bin wrote no phase marks (a build without FENCELAB_PHASE_CLOCKS?)" >&2; exit 2; }
        echo "$i $jobs $((t1 - t0)) $marks" >>"$out/runs.txt"
        line="$line $(((t1 - t0) / 1000))"
    done
    echo "$line" | awk '{ printf "%s %s %s %.2fx\n", $1, $2, $3, $2 / $3 }'
done
for f in sweep.json sweep.csv index.html; do
    cmp -s "$out/jobs1/$f" "$out/jobs2/$f" || echo "phase-clocks.sh: $f differs between --jobs 1 and --jobs 2" >&2
done
awk "$awk_median"'
    # Phase k runs from mark from[k] to mark to[k]; "outside" and "process" are the whole run.
    BEGIN {
        np = split("lock evaluation summary files in-place removal end", name, " ")
        split("sweep-start locked evaluated summarised files-written in-place in-place", from, " ")
        split("locked evaluated summarised files-written in-place replaced-removed sweep-end", to, " ")
        label["lock"] = "the output folder: checks and lock"
        label["evaluation"] = "evaluation, with the plan"
        label["summary"] = "cells pass, mix, frontiers (at --jobs 2 beside the ranking)"
        label["files"] = "the files (at --jobs 1 with the ranking)"
        label["in-place"] = "renames into place"
        label["removal"] = "removal of the replaced folder"
        label["end"] = "terminal summary"
    }
    {
        r = $1; j = $2; n[j]++
        delete w; delete c
        for (f = 4; f + 2 <= NF; f += 3) { w[$f] = $(f + 1); c[$f] = $(f + 2) }
        # With a replaced folder the terminal summary starts after its removal.
        if ("replaced-removed" in w) { w["in-place-end"] = w["replaced-removed"]; c["in-place-end"] = c["replaced-removed"] }
        else { w["in-place-end"] = w["in-place"]; c["in-place-end"] = c["in-place"] }
        total = $3 / 1000
        W[j, "process", r] = total; C[j, "process", r] = c["sweep-end"]
        W[j, "outside", r] = total - (w["sweep-end"] - w["sweep-start"]); C[j, "outside", r] = c["sweep-start"]
        for (k = 1; k <= np; k++) {
            a = from[k]; b = to[k]
            if (name[k] == "end") a = "in-place-end"
            if (!(a in w) || !(b in w)) continue
            W[j, name[k], r] = w[b] - w[a]; C[j, name[k], r] = c[b] - c[a]; seen[name[k]] = 1
        }
        rounds[r] = 1
    }
    function row(key, text,   r, m, a1, a2, c1, c2, s, idle, x) {
        m = 0
        for (r in rounds) if ((1, key, r) in W && (2, key, r) in W) {
            m++; a1[m] = W[1, key, r]; a2[m] = W[2, key, r]; c1[m] = C[1, key, r]; c2[m] = C[2, key, r]
            s[m] = a2[m] > 0 ? a1[m] / a2[m] : 0; idle[m] = 2 * a2[m] - c2[m]
        }
        if (m == 0) return
        x = median(s, m)
        printf "%-62s %9.1f (%6.1f) %9.1f (%6.1f) %9s %8s\n", text, median(a1, m), median(c1, m),
            median(a2, m), median(c2, m), key == "outside" ? "-" : sprintf("%.1f", median(idle, m)),
            key == "outside" ? "-" : sprintf("%.2fx", x)
    }
    END {
        printf "\n%-62s %18s %18s %9s %8s\n", "phase (medians in ms, CPU in brackets)", "--jobs 1", "--jobs 2", "idle CPU", "speed-up"
        row("outside", "process start and exit, outside the marks (CPU: before the first)")
        for (k = 1; k <= np; k++) if (name[k] in seen) row(name[k], label[name[k]])
        row("process", "whole process (CPU: at the last mark)")
    }' "$out/runs.txt"
