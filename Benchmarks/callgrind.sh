#!/usr/bin/env bash
# Instructions per item of the benchmarks whose name contains NAME, keeping each measured
# profile for callgrind_annotate. The counting is `fencelab-bench --metric instructions`
# (DWARF stripping, client requests, fixed environment: docs/benchmarks.md); this script
# only builds it and names the profile folder.
# Usage: Benchmarks/callgrind.sh NAME [RUNS]      e.g. Benchmarks/callgrind.sh kalman/cv-update
set -euo pipefail
cd "$(dirname "$0")/.."
name="${1:?usage: Benchmarks/callgrind.sh NAME [RUNS]}"
out=".build/callgrind"
args=(--metric instructions --filter "$name" --callgrind-out "$out")
if [[ -n "${2:-}" ]]; then args+=(--runs "$2"); fi
swift build -c release --product fencelab-bench >&2
"$(swift build -c release --show-bin-path)/fencelab-bench" "${args[@]}"
echo "profiles in $out/: callgrind_annotate $out/<benchmark>.callgrind" >&2
