#!/bin/bash
# Submits a sharded FenceLab threshold sweep to Slurm: a job array of SHARDS shard tasks
# (sweep.sbatch) and a merge job (merge.sbatch) that starts only if every task succeeded.
#
#   deploy/slurm/submit.sh SHARDS OUT -- SWEEP_ARGS...
#   deploy/slurm/submit.sh 16 reports/sweep -- scenarios --enter 50:100:5 --exit 100:160:5
#
# OUT is the merged sweep folder (sweep.json, sweep.csv, sweep.md, index.html); shard K goes to
# OUT.shards/K, the Slurm logs to OUT.shards/logs. SWEEP_ARGS are `fencelab sweep` arguments
# except --shard, --out, --resume and --jobs, which this script sets. Paths are relative to the
# current directory, which the jobs run in (a shared file system).
#
# Resume: run the same command again. It submits only the shards without a finished folder
# (OUT.shards/K/shard.json); a shard that was interrupted continues from the work items it had
# finished (--resume). Then a new merge job.
#
# Environment: FENCELAB     the fencelab binary (default: `fencelab` on PATH), made absolute;
#              CPUS_PER_TASK CPUs per shard task (default 1); each task runs that many workers.
#              sbatch's own input variables apply (SBATCH_PARTITION, SBATCH_TIMELIMIT, ...).
# Exit: 0 submitted, 2 bad input or sbatch failed, 64 usage error.
set -euo pipefail

usage() { echo "submit.sh: $1 (usage: submit.sh SHARDS OUT -- SWEEP_ARGS...)" >&2; exit 64; }
[ $# -ge 3 ] || usage "need SHARDS, OUT, -- and the sweep arguments"
n=$1 out=${2%/}
[ "$3" = "--" ] || usage "the third argument must be --, got '$3'"
shift 3
[[ $n =~ ^[1-9][0-9]*$ ]] || usage "SHARDS must be a whole number >= 1, got '$n'"
[ -n "$out" ] || usage "OUT must not be empty"
for a in "$@"; do
    case $a in --shard|--shard=*|--out|--out=*|--resume|--jobs|--jobs=*)
        usage "do not pass $a: submit.sh sets --shard, --out, --resume and --jobs";;
    esac
done
cpus=${CPUS_PER_TASK:-1}
[[ $cpus =~ ^[1-9][0-9]*$ ]] || usage "CPUS_PER_TASK must be a whole number >= 1, got '$cpus'"

fail() { echo "submit.sh: $1" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin=${FENCELAB:-$(command -v fencelab || true)}
[ -n "$bin" ] || fail "fencelab not found: put it on PATH or set FENCELAB=/path/to/fencelab"
[ -x "$bin" ] || fail "FENCELAB=$bin is not an executable file"
export FENCELAB=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
command -v sbatch >/dev/null || fail "sbatch not found: run this on a Slurm submit host"

parent=$out.shards
mkdir -p "$parent/logs" || fail "cannot create $parent/logs"
# The shards of one OUT must come from one sweep: remember the arguments, refuse others.
record=$(printf '%q ' "$n" "$@")
if [ -f "$parent/submit.args" ]; then
    [ "$(cat "$parent/submit.args")" = "$record" ] ||
        fail "$parent holds shards of a different sweep ($(cat "$parent/submit.args")); remove it or choose another OUT"
fi

# Shards without a finished folder, as a Slurm array spec with ranges (0-3,7,9-15).
spec= start=-1 prev=-1 todo=0
flush() { [ "$start" -ge 0 ] || return 0; spec+=${spec:+,}$start; [ "$prev" -gt "$start" ] && spec+=-$prev; return 0; }
for ((k = 0; k < n; k++)); do
    [ -f "$parent/$k/shard.json" ] && continue
    todo=$((todo + 1))
    if [ "$k" -ne $((prev + 1)) ] || [ "$start" -lt 0 ]; then flush; start=$k; fi
    prev=$k
done
flush

dependency=()
if [ "$todo" -gt 0 ]; then
    array=$(sbatch --parsable --array="$spec" --cpus-per-task="$cpus" --output="$parent/logs/sweep-%A_%a.out" \
        "$here/sweep.sbatch" "$n" "$parent" "$@") || fail "sbatch of the shard array failed"
    array=${array%%;*}
    [ -f "$parent/submit.args" ] || printf '%s' "$record" > "$parent/submit.args"
    dependency=(--dependency="afterok:$array" --kill-on-invalid-dep=yes)
    echo "sweep: job array $array, shards $spec of $n ($todo task(s), $cpus CPU(s) each) -> $parent/K, logs in $parent/logs"
else
    echo "sweep: all $n shards are finished in $parent; submitting the merge only"
fi
merge=$(sbatch --parsable "${dependency[@]}" --output="$parent/logs/merge-%j.out" "$here/merge.sbatch" "$parent" "$out") ||
    fail "sbatch of the merge job failed"
merge=${merge%%;*}
echo "merge: job $merge -> $out${dependency[0]:+ (starts when every shard task succeeded)}"
echo "watch: squeue -j ${array:+$array,}$merge"
if [ "$todo" -gt 0 ]; then
    echo "if a shard task fails, Slurm cancels merge job $merge; read $parent/logs/sweep-${array}_K.out, fix the cause, then"
    echo "resume with the same command (it resubmits only unfinished shards, which keep their finished work items):"
    echo "  $0 $(printf '%q ' "$n" "$out" -- "$@")"
fi
