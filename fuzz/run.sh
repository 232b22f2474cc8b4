#!/usr/bin/env bash
# Builds and runs every libFuzzer target in fuzz/targets/ for SECONDS each (default 60).
#
#   fuzz/run.sh [SECONDS] [TARGET...]        FUZZ_JOBS=N runs N targets at a time (default 1)
#
# A target is fuzz/targets/<name>.swift defining @_cdecl("LLVMFuzzerTestOneInput"). Its
# "// fuzz-sources:" comment lists the package sources (globs relative to the package root)
# compiled into it; GeoPolicy, GSLKit (linked against the system GSL), DriveSim and DeviceLogKit
# (testable) are always available as modules, FenceLab when the target has a "// fuzz-links: FenceLab" line. Seed corpus: fuzz/corpus/<name>/
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

# True when $build/lib$1.a exists, is newer than every source of module $1 and run.sh, and no
# library it depends on was rebuilt in this run: unchanged sources reuse the instrumented libraries.
rebuilt=0
up_to_date() {
    local lib="$build/lib$1.a"
    [ "$rebuilt" -eq 0 ] && [ -f "$lib" ] || { rebuilt=1; return 1; }
    [ -z "$(find "Sources/$1" fuzz/run.sh -newer "$lib" \( -name '*.swift' -o -name 'run.sh' \) | head -1)" ] || { rebuilt=1; return 1; }
}

if up_to_date GeoPolicy; then echo "GeoPolicy: up to date" >&2; else
echo "building GeoPolicy (instrumented)..." >&2
swiftc "${flags[@]}" -module-name GeoPolicy -emit-module -emit-module-path "$build/GeoPolicy.swiftmodule" \
    -emit-library -static -o "$build/libGeoPolicy.a" $(find Sources/GeoPolicy -name '*.swift' | sort) \
    >"$build/GeoPolicy.build.log" 2>&1 || { cat "$build/GeoPolicy.build.log" >&2; exit 2; }
fi
if up_to_date GSLKit; then echo "GSLKit: up to date" >&2; else
echo "building GSLKit (instrumented, against the system GSL)..." >&2
swiftc "${flags[@]}" -module-name GSLKit -I Sources/CGSL -emit-module -emit-module-path "$build/GSLKit.swiftmodule" \
    -emit-library -static -o "$build/libGSLKit.a" $(find Sources/GSLKit -name '*.swift' | sort) \
    >"$build/GSLKit.build.log" 2>&1 || { cat "$build/GSLKit.build.log" >&2; exit 2; }
fi

if up_to_date DriveSim; then echo "DriveSim: up to date" >&2; else
echo "building DriveSim (instrumented)..." >&2
swiftc "${flags[@]}" -module-name DriveSim -I "$build" -I Sources/CGSL -emit-module -emit-module-path "$build/DriveSim.swiftmodule" \
    -emit-library -static -o "$build/libDriveSim.a" $(find Sources/DriveSim -name '*.swift' | sort) \
    >"$build/DriveSim.build.log" 2>&1 || { cat "$build/DriveSim.build.log" >&2; exit 2; }
fi

# Testable: the device-log targets also read through the internal chunked source.
if up_to_date DeviceLogKit; then echo "DeviceLogKit: up to date" >&2; else
echo "building DeviceLogKit (instrumented, testable)..." >&2
swiftc "${flags[@]}" -enable-testing -module-name DeviceLogKit -I "$build" -I Sources/CGSL -emit-module \
    -emit-module-path "$build/DeviceLogKit.swiftmodule" -emit-library -static -o "$build/libDeviceLogKit.a" \
    $(find Sources/DeviceLogKit -name '*.swift' | sort) \
    >"$build/DeviceLogKit.build.log" 2>&1 || { cat "$build/DeviceLogKit.build.log" >&2; exit 2; }
fi

if [ "$#" -gt 0 ]; then targets=("$@"); else
    targets=(); for f in fuzz/targets/*.swift; do targets+=("$(basename "$f" .swift)"); done
fi
# Targets with a "// fuzz-links: FenceLab" line import the whole FenceLab library (built once,
# with -enable-testing so a target may `@testable import` it and reach internal decoders).
links_fencelab=0
for name in "${targets[@]}"; do grep -q '^// fuzz-links: FenceLab' "fuzz/targets/$name.swift" && links_fencelab=1; done
fencelab_lib=()
if [ "$links_fencelab" -eq 1 ] && up_to_date FenceLab; then
    echo "FenceLab: up to date" >&2
elif [ "$links_fencelab" -eq 1 ]; then
    echo "building FenceLab (instrumented, testable)..." >&2
    swiftc "${flags[@]}" -enable-testing -module-name FenceLab -I "$build" -I Sources/CGSL -I Sources/CMalloc -emit-module \
        -emit-module-path "$build/FenceLab.swiftmodule" -emit-library -static -o "$build/libFenceLab.a" \
        $(find Sources/FenceLab -name '*.swift' | sort) \
        >"$build/FenceLab.build.log" 2>&1 || { cat "$build/FenceLab.build.log" >&2; exit 2; }
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
    fencelab_lib=(); grep -q '^// fuzz-links: FenceLab' "$src" && fencelab_lib=(-lFenceLab)
    if ! swiftc "${flags[@]}" -I "$build" -I Sources/CGSL -I Sources/CMalloc -L "$build" "${fencelab_lib[@]}" -lDeviceLogKit -lDriveSim -lGeoPolicy -lGSLKit -lgsl -lgslcblas -module-name "Fuzz_$name" \
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
done
printf '%s\n' "${summary[@]}"
exit "$status"
