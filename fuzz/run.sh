#!/usr/bin/env bash
# Builds and runs every libFuzzer target in fuzz/targets/ for SECONDS each (default 60).
#
#   fuzz/run.sh [SECONDS] [TARGET...]        FUZZ_JOBS=N runs N targets at a time (default 1)
#
# A target is fuzz/targets/<name>.swift defining @_cdecl("LLVMFuzzerTestOneInput"). Its
# "// fuzz-sources:" comment lists the package sources (globs relative to the package root)
# compiled into it; GeoPolicy, GSLKit (linked against the system GSL), _FenceLabSupport, DriveSim and
# DeviceLogKit (testable) are always available as modules; ReportKit, FenceLab (testable),
# FenceLabSweep and _CommandLineKit when the target has a "// fuzz-links: FenceLab" line. Seed corpus: fuzz/corpus/<name>/
# (committed, never written); optional dictionary: fuzz/dict/<name>.dict. Work files, new
# corpus entries, crash artifacts and logs go to fuzz/.build/ (git-ignored).
# Prints per target: executions, crashes (artifact files) and the libFuzzer exit status; then, per
# crashing target, its first three artifacts run alone: what failed where, and the input in base64.
# Exit status: 0 when no target crashed, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
build=fuzz/.build
mkdir -p "$build"
flags=(-sanitize=fuzzer,address -parse-as-library -O -g -package-name FenceLab)

# True when $build/lib$1.a exists, is newer than every source of module $1 and run.sh, and no
# library it depends on was rebuilt in this run: unchanged sources reuse the instrumented libraries.
rebuilt=0
up_to_date() {
    local lib="$build/lib$1.a"
    [ "$rebuilt" -eq 0 ] && [ -f "$lib" ] || { rebuilt=1; return 1; }
    [ -z "$(find "Sources/$1" fuzz/run.sh -newer "$lib" \( -name '*.swift' -o -name 'run.sh' \) | head -1)" ] || { rebuilt=1; return 1; }
}

# build_module NAME [testable]: the instrumented static library and module of Sources/NAME. Every
# module and target shares one -package-name, so `package` declarations are visible across them.
build_module() {
    local name=$1 testable=()
    [ "${2:-}" = testable ] && testable=(-enable-testing)
    if up_to_date "$name"; then echo "$name: up to date" >&2; return; fi
    echo "building $name (instrumented${2:+, $2})..." >&2
    swiftc "${flags[@]}" "${testable[@]}" -module-name "$name" -I "$build" -I Sources/CGSL -I Sources/CLibm -I Sources/CMalloc -I Sources/CZlib -I Sources/CProcessControl \
        -emit-module -emit-module-path "$build/$name.swiftmodule" -emit-library -static -o "$build/lib$name.a" \
        $(find "Sources/$name" -name '*.swift' | sort) >"$build/$name.build.log" 2>&1 \
        || { cat "$build/$name.build.log" >&2; exit 2; }
}
build_module GeoPolicy
build_module GSLKit
build_module _FenceLabSupport
build_module DriveSim
# Testable: the device-log targets also read through the internal chunked source.
build_module DeviceLogKit testable

if [ "$#" -gt 0 ]; then targets=("$@"); else
    targets=(); for f in fuzz/targets/*.swift; do targets+=("$(basename "$f" .swift)"); done
fi
# Targets with a "// fuzz-links: FenceLab" line import the whole FenceLab library (built once,
# with -enable-testing so a target may `@testable import` it and reach internal decoders).
links_fencelab=0
for name in "${targets[@]}"; do grep -q '^// fuzz-links: FenceLab' "fuzz/targets/$name.swift" && links_fencelab=1; done
if [ "$links_fencelab" -eq 1 ]; then
    build_module ReportKit
    build_module FenceLab testable
    build_module FenceLabSweep
    build_module _CommandLineKit
fi
status=0
summary=()
# Build every target first, then run them FUZZ_JOBS at a time (default 1; CI uses 2 on 2 cores).
for name in "${targets[@]}"; do
    src="fuzz/targets/$name.swift"
    globs=$(sed -n 's|^// fuzz-sources:||p' "$src" | head -1)
    # Compile a snapshot so that editing the package during a long build cannot break it.
    snapshot="$build/src/$name"; rm -rf "$snapshot"; mkdir -p "$snapshot"
    sources=""
    # shellcheck disable=SC2086
    for f in $( [ -n "$globs" ] && ls $globs ); do
        mkdir -p "$snapshot/$(dirname "$f")"; cp "$f" "$snapshot/$f"; sources="$sources $snapshot/$f"
    done
    echo "building $name..." >&2
    fencelab_lib=(); grep -q '^// fuzz-links: FenceLab' "$src" && fencelab_lib=(-l_CommandLineKit -lFenceLabSweep -lFenceLab -lReportKit)
    if ! swiftc "${flags[@]}" -I "$build" -I Sources/CGSL -I Sources/CLibm -I Sources/CMalloc -I Sources/CZlib -I Sources/CProcessControl -L "$build" "${fencelab_lib[@]}" -lDeviceLogKit -lDriveSim -l_FenceLabSupport -lGeoPolicy -lGSLKit -lgsl -lgslcblas -lz -module-name "Fuzz_$name" \
        "$src" $sources -o "$build/$name" >"$build/$name.build.log" 2>&1; then
        grep -E "error" "$build/$name.build.log" >&2 || cat "$build/$name.build.log" >&2
        exit 2
    fi
done

run_target() {
    local name=$1
    local work="$build/corpus/$name" artifacts="$build/artifacts/$name/"
    rm -rf "$artifacts"; mkdir -p "$work" "$artifacts"
    local dict=(); [ -f "fuzz/dict/$name.dict" ] && dict=(-dict="fuzz/dict/$name.dict")
    echo "running $name for ${seconds}s..." >&2
    # -fork=1 with -ignore_*: a crash, timeout or OOM is saved under $artifacts and fuzzing goes
    # on, so one run finds every crash it can. -max_len 262144: room for 30 000 nested or
    # repeated elements (the sizes that overflowed stacks and grew memory before).
    local rc=0
    "$build/$name" "$work" "fuzz/corpus/$name" "${dict[@]}" -max_total_time="$seconds" \
        -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
        -max_len=262144 -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$artifacts" \
        -print_final_stats=1 >"$build/$name.log" 2>&1 || rc=$?
    echo "$rc" >"$build/$name.rc"
}

jobs_max="${FUZZ_JOBS:-1}"
for name in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do sleep 1; done
    run_target "$name" &
done
wait

for name in "${targets[@]}"; do
    rc=$(cat "$build/$name.rc")
    artifacts="$build/artifacts/$name/"
    # Fork mode reports "#EXECS: cov: ..." lines; the last one holds the total.
    execs=$(sed -n 's/^#\([0-9]*\): cov:.*/\1/p' "$build/$name.log" | tail -1)
    crashes=$(find "$artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
    line="$name: executions ${execs:-?}, crash artifacts $crashes, libFuzzer exit $rc"
    [ "$rc" -ne 0 ] && { status=1; line="$line (see $build/$name.log)"; }
    [ "$crashes" -ne 0 ] && { status=1; line="$line: $(ls "$artifacts" | head -3 | tr '\n' ' ')"; }
    summary+=("$line")
    # Each of the first three artifacts again, alone: what failed where, and the input itself
    # (base64, up to 3 000 bytes), so a CI log is enough to reproduce it.
    while IFS= read -r artifact; do
        [ -n "$artifact" ] || continue
        why=$(timeout 60 "$build/$name" "$artifact" 2>&1 | grep -m3 -E 'Fatal error|runtime failure|ERROR: AddressSanitizer|ERROR: libFuzzer| at (fuzz|Sources)/' | sed 's/^ *//' | tr '\n' ';')
        summary+=("  $(basename "$artifact"): ${why:-no failure when run alone}")
        if [ "$(wc -c <"$artifact")" -le 3000 ]; then summary+=("  base64: $(base64 -w0 "$artifact")"); fi
    done < <(find "$artifacts" -type f | sort | head -3)
done
printf '%s\n' "${summary[@]}"
exit "$status"
