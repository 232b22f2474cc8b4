# Sourced by scripts/jobs-speedup.sh and scripts/phase-clocks.sh: the arguments they share,
#   [--idle SECONDS] ... ROUNDS [FENCELAB] [-- SWEEP ARGS...]
# Each function prints one line on stderr and exits 2 on a bad argument.

# An awk function both scripts' summaries use: median(v, n) of v[1..n] (sorts v in place).
awk_median='function median(v, n,   i, j, t) {
    for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }'

# stamp_us VAR: sets VAR to the microseconds since the epoch, from bash's $EPOCHREALTIME, so no
# subshell or process runs inside a timed span.
stamp_us() { printf -v "$1" '%s' "${EPOCHREALTIME/[.,]/}"; }

# sweep_rounds_idle NAME ARGS...: reads a leading `--idle SECONDS` into `idle` ("" without it)
# and leaves the other arguments in the array `remaining`.
sweep_rounds_idle() {
    local name=$1
    shift
    idle=""
    if [ $# -ge 1 ] && [ "$1" = "--idle" ]; then
        [ $# -ge 2 ] || { echo "$name: --idle needs a number of seconds" >&2; exit 2; }
        [[ "$2" =~ ^[0-9]+(\.[0-9]+)?$ ]] && [[ ! "$2" =~ ^0+(\.0+)?$ ]] ||
            { echo "$name: --idle must be a number of seconds > 0: $2" >&2; exit 2; }
        idle=$2
        shift 2
    fi
    remaining=("$@")
}

# sweep_rounds_run NAME USAGE ARGS...: reads ROUNDS [FENCELAB] [-- SWEEP ARGS...] into `rounds`,
# `bin` (default: the release build) and the array `grid` (default: the 97 600-point,
# 1-replicate sweep; `--force` is added to given arguments).
sweep_rounds_run() {
    local name=$1 usage=$2
    shift 2
    [ $# -ge 1 ] || { echo "$usage" >&2; exit 2; }
    rounds=$1
    [[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "$name: ROUNDS must be a whole number ≥ 1: $rounds" >&2; exit 2; }
    shift
    bin=$(pwd)/.build/release/fencelab
    if [ $# -gt 0 ] && [ "$1" != "--" ]; then bin=$1; shift; fi
    [ -x "$bin" ] || { echo "$name: $bin: no such executable (swift build -c release)" >&2; exit 2; }
    grid=(scenarios/edge-loiter-100m.json --enter 40:100:1 --exit 101:300:1 --max-accuracy 20,30
        --confirm 1,2,3,4 --force --replicates 1)
    if [ $# -gt 0 ] && [ "$1" = "--" ]; then shift; grid=("$@" --force); fi
}
