#!/bin/sh
# The example's performance gate, as a team's CI runs it: team-bench (rows declared with
# FenceLab's FenceLabBench kit) against the committed instruction baseline 'main', then the
# proof that the gate works: a build doing 10 % more work (FENCELAB_BENCH_SLOWDOWN=1.1) must
# regress every gated row (exit 2), a baseline saved now must compare unchanged, and a missing
# one must exit 5. Needs valgrind (Debian package valgrind) before the first build.
# Usage: Examples/GeofenceTeam/bench.sh   (from anywhere)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"  # the baselines are this package's Benchmarks/baselines
swift build -c release --product team-bench
bench="$(swift build -c release --show-bin-path)/team-bench"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$bench" --metric instructions --compare main

set +e
FENCELAB_BENCH_SLOWDOWN=1.1 "$bench" --metric instructions --compare main > "$tmp/slow.txt"
status=$?
set -e
summary=$(tail -n 1 "$tmp/slow.txt")
case "$status:$summary" in
    "2:0 improved, 0 unchanged, 1 regressed, 0 new"*) ;;
    *)
        cat "$tmp/slow.txt" >&2
        echo "bench.sh: FENCELAB_BENCH_SLOWDOWN=1.1 did not regress the gated row (exit $status): $summary" >&2
        exit 1
        ;;
esac
echo "bench.sh: the instruction gate caught FENCELAB_BENCH_SLOWDOWN=1.1: $summary"

FENCELAB_BENCH_BASELINES="$tmp" "$bench" --metric instructions --filter dwell/ --save-baseline now
FENCELAB_BENCH_BASELINES="$tmp" "$bench" --metric instructions --filter dwell/ --compare now > "$tmp/same.txt"
tail -n 1 "$tmp/same.txt" | grep -q '^0 improved, 1 unchanged, 0 regressed, 0 new' || {
    cat "$tmp/same.txt" >&2
    echo "bench.sh: a baseline saved now did not compare unchanged" >&2
    exit 1
}
set +e
FENCELAB_BENCH_BASELINES="$tmp" "$bench" --metric instructions --compare missing 2> "$tmp/missing.txt"
status=$?
set -e
if [ "$status" -ne 5 ] || [ "$(wc -l < "$tmp/missing.txt")" -ne 1 ]; then
    cat "$tmp/missing.txt" >&2
    echo "bench.sh: --compare without a baseline exited $status, not 5 with one line" >&2
    exit 1
fi
echo "bench.sh: saved and compared unchanged; a missing baseline exits 5"
