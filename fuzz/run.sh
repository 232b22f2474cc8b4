#!/usr/bin/env bash
# Builds and runs every libFuzzer target in fuzz/targets/ for SECONDS each (default 60).
#
#   fuzz/run.sh [SECONDS] [TARGET...]
#
# A target is fuzz/targets/<name>.swift defining @_cdecl("LLVMFuzzerTestOneInput"). Its
# "// fuzz-sources:" comment lists the package sources (globs relative to the package root)
# compiled into it; GeoPolicy is always available as a module. Seed corpus: fuzz/corpus/<name>/
# (committed, never written); optional dictionary: fuzz/dict/<name>.dict. Work files, new
# corpus entries, crash artifacts and logs go to fuzz/.build/ (git-ignored).
# Prints per target: executions, crashes (artifact files) and the libFuzzer exit status.
# Exit status: 0 when no target crashed, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
build=fuzz/.build
mkdir -p "$build"
flags=(-sanitize=fuzzer,address -parse-as-library -O -g)

echo "building GeoPolicy (instrumented)..." >&2
swiftc "${flags[@]}" -module-name GeoPolicy -emit-module -emit-module-path "$build/GeoPolicy.swiftmodule" \
    -emit-library -static -o "$build/libGeoPolicy.a" $(find Sources/GeoPolicy -name '*.swift' | sort) \
    >"$build/GeoPolicy.build.log" 2>&1 || { cat "$build/GeoPolicy.build.log" >&2; exit 2; }

if [ "$#" -gt 0 ]; then targets=("$@"); else
    targets=(); for f in fuzz/targets/*.swift; do targets+=("$(basename "$f" .swift)"); done
fi
status=0
summary=()
for name in "${targets[@]}"; do
    src="fuzz/targets/$name.swift"
    globs=$(sed -n 's|^// fuzz-sources:||p' "$src" | head -1)
    # Compile a snapshot so that editing the package during a long build cannot break it.
    snapshot="$build/src/$name"; rm -rf "$snapshot"; mkdir -p "$snapshot"
    sources=""
    # shellcheck disable=SC2086
    for f in $(ls $globs); do
        mkdir -p "$snapshot/$(dirname "$f")"; cp "$f" "$snapshot/$f"; sources="$sources $snapshot/$f"
    done
    echo "building $name..." >&2
    if ! swiftc "${flags[@]}" -I "$build" -L "$build" -lGeoPolicy -module-name "Fuzz_$name" \
        "$src" $sources -o "$build/$name" >"$build/$name.build.log" 2>&1; then
        grep -E "error" "$build/$name.build.log" >&2 || cat "$build/$name.build.log" >&2
        exit 2
    fi
    work="$build/corpus/$name"; artifacts="$build/artifacts/$name/"
    rm -rf "$artifacts"; mkdir -p "$work" "$artifacts"
    dict=(); [ -f "fuzz/dict/$name.dict" ] && dict=(-dict="fuzz/dict/$name.dict")
    echo "running $name for ${seconds}s..." >&2
    set +e
    "$build/$name" "$work" "fuzz/corpus/$name" "${dict[@]}" -max_total_time="$seconds" \
        -max_len=16384 -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$artifacts" \
        -print_final_stats=1 >"$build/$name.log" 2>&1
    rc=$?
    set -e
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$build/$name.log" | tail -1)
    crashes=$(find "$artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
    line="$name: executions ${execs:-?}, crash artifacts $crashes, libFuzzer exit $rc"
    [ "$rc" -ne 0 ] && { status=1; line="$line (see $build/$name.log)"; }
    [ "$crashes" -ne 0 ] && status=1
    summary+=("$line")
done
printf '%s\n' "${summary[@]}"
exit "$status"
