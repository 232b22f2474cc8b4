#!/bin/bash
# Scale figures of docs/sweeps.md ("Scale: items, shards, merge"): one sweep of the catalog
# scenarios unsharded, or as N shards run one after another and merged, each process timed
# with /usr/bin/time (wall s, user s, sys s, peak RSS kB). Not part of CI.
#
#   scripts/sweep-scale.sh R N [FENCELAB]     e.g. scripts/sweep-scale.sh 50 16
#
# R replicates per scenario; grid P = 250 points, so items = 250 × 8 × R. Uses the release
# build unless FENCELAB is given; work folder /tmp/fencelab-scale (kept for cmp).
set -euo pipefail
cd "$(dirname "$0")/.."
r=${1:?usage: sweep-scale.sh R N [FENCELAB]} n=${2:?usage: sweep-scale.sh R N [FENCELAB]}
bin=${3:-$(pwd)/.build/release/fencelab}
grid=(--enter 50:90:10 --exit 100:190:10 --max-accuracy 20,30,50,80,100)
out=/tmp/fencelab-scale/r$r-n$n
rm -rf "$out"; mkdir -p "$out"
timed() { /usr/bin/time -f "%e %U %S %M" -o "$out/time.$1" "${@:2}" >/dev/null; }
if [ "$n" = 1 ]; then
    timed sweep "$bin" sweep scenarios "${grid[@]}" --replicates "$r" --jobs 1 --out "$out/sweep"
    echo "R=$r N=1 sweep: wall user sys maxrss_kB = $(cat "$out/time.sweep")"
else
    for ((k = 0; k < n; k++)); do
        timed shard$k "$bin" sweep scenarios "${grid[@]}" --replicates "$r" --jobs 1 --shard "$k/$n" --out "$out/shards/$k"
    done
    awk -v r="$r" -v n="$n" '{w += $1; u += $2; s += $3; if ($4 > m) m = $4}
        END {print "R=" r " N=" n " shards: wall user sys (sums) max-rss_kB = " w, u, s, m}' "$out"/time.shard*
    timed merge "$bin" merge "$out/shards" --out "$out/merged"
    echo "R=$r N=$n merge: wall user sys maxrss_kB = $(cat "$out/time.merge"); shard data $(du -sk "$out/shards" | cut -f1) kB"
fi
