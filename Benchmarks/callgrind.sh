#!/usr/bin/env bash
# Instruction count per item of one benchmark under callgrind (repeatable, unlike time).
# Usage: Benchmarks/callgrind.sh NAME [RUNS]      e.g. Benchmarks/callgrind.sh reference/c-fence-scalar 10
# Needs valgrind. Valgrind 3.19 cannot read the DWARF 5 that Swift emits, so the
# release binary is copied without debug info first (symbols stay, so the
# measured function can still be named).
set -euo pipefail
cd "$(dirname "$0")/.."
name="${1:?usage: Benchmarks/callgrind.sh NAME [RUNS]}"
runs="${2:-10}"
swift build -c release --product fencelab-bench >&2
bin="$(swift build -c release --show-bin-path)/fencelab-bench"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
objcopy --strip-debug "$bin" "$tmp/fencelab-bench"
out="$(valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*measuredRegion*' \
        --callgrind-out-file="$tmp/callgrind.out" \
        "$tmp/fencelab-bench" --callgrind "$name" --runs "$runs" 2>&1)"
items="$(sed -n 's/^.*: \([0-9]*\) items (.*$/\1/p' <<<"$out")"
ir="$(sed -n 's/^==[0-9]*== Collected : \([0-9]*\).*$/\1/p' <<<"$out")"
if [[ -z "$items" || -z "$ir" ]]; then
    echo "callgrind.sh: could not read the count; valgrind said:" >&2
    echo "$out" >&2
    exit 1
fi
echo "$name: $ir instructions for $items items = $(awk -v a="$ir" -v b="$items" 'BEGIN { printf "%.1f", a / b }') instructions/item"
