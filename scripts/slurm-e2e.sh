#!/bin/bash
# End-to-end test of deploy/slurm on a real single-node Slurm (called by .ci/run).
#
# Installs slurm-wlm and munge from Debian when missing, starts munged, slurmctld and slurmd
# on 127.0.0.1 from a private folder (no cgroups: proctrack/pgid, task/none), then:
#   1. deploy/slurm/submit.sh 4 shards of a small grid; the merged files must be byte-identical
#      to an unsharded `fencelab sweep` of the same arguments;
#   2. one shard's output removed and its folder blocked: the task fails and Slurm cancels the
#      dependent merge job (it must not sit PENDING forever);
#   3. the block removed and half of that shard's work items left in its resume file: the same
#      submit.sh command resubmits only that shard, the task says it resumed them, and the merge
#      is byte-identical again.
# Stops exactly the daemons it started (by PID) and cancels its jobs, also on failure.
# Needs root (apt-get, slurmd). FENCELAB=/path/to/fencelab (default: the debug build).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export PATH="/opt/swift/usr/bin:$PATH"
t0=$SECONDS
say() { echo "slurm-e2e [$((SECONDS - t0)) s]: $*"; }
die() { echo "slurm-e2e: FAIL: $*" >&2; exit 1; }

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v sbatch >/dev/null ||
   ! command -v munged >/dev/null; then
    say "installing slurm-wlm and munge from Debian"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
fi
command -v python3 >/dev/null || die "python3 is needed (compacts a shard manifest into a resume-file header)"
say "$(slurmctld -V), $(munged -V 2>&1 | awk '{print $1}')"

bin=${FENCELAB:-}
if [ -z "$bin" ]; then
    bin=$(swift build --show-bin-path)/fencelab
    [ -x "$bin" ] || swift build --product fencelab
fi
[ -x "$bin" ] || die "no fencelab binary at $bin"
export FENCELAB=$bin

work=$(mktemp -d /tmp/fencelab-slurm-e2e.XXXXXX)
pids=() jobs=() ok=0
cleanup() {
    set +e
    [ ${#jobs[@]} -gt 0 ] && scancel "${jobs[@]}" 2>/dev/null
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[i]}" 2>/dev/null; done
    for pid in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
        wait "$pid" 2>/dev/null
    done
    if [ "$ok" = 1 ]; then
        rm -rf "$work"
    else
        for f in "$work"/*.log "$work"/run/*.shards/logs/*.out; do
            [ -f "$f" ] && { echo "---- $f (last 20 lines)"; tail -n 20 "$f"; }
        done
        echo "slurm-e2e: files kept in $work" >&2
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Free TCP ports on 127.0.0.1 (a listening port accepts a connection).
free_port() {
    local p
    for p in $(seq "$1" $(($1 + 50))); do
        (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
    done
    die "no free port from $1"
}
ctl_port=$(free_port 16817)
d_port=$(free_port $((ctl_port + 1)))

# munge: own key, socket and files; munged runs in the foreground so $! is its PID.
mkdir -p "$work/munge" "$work/state" "$work/spool" "$work/run"
chmod 700 "$work/munge"
head -c 1024 /dev/urandom > "$work/munge/munge.key"
chmod 400 "$work/munge/munge.key"
munged -F --force --key-file="$work/munge/munge.key" --socket="$work/munge/munge.socket" \
    --pid-file="$work/munge/munged.pid" --log-file="$work/munged.log" --seed-file="$work/munge/seed" \
    >"$work/munged.out.log" 2>&1 &
pids+=($!)

host=$(hostname -s)
cpus=$(nproc)
export SLURM_CONF=$work/slurm.conf
cat > "$SLURM_CONF" <<CONF
ClusterName=fencelabe2e
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctl_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/munge.socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
MinJobAge=600
NodeName=fencelab-e2e NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=e2e Nodes=fencelab-e2e Default=YES MaxTime=INFINITE State=UP
CONF
for _ in $(seq 50); do [ -S "$work/munge/munge.socket" ] && break; sleep 0.1; done
[ -S "$work/munge/munge.socket" ] || die "munged did not start"
slurmctld -D -i -f "$SLURM_CONF" >"$work/slurmctld.out.log" 2>&1 & pids+=($!)
slurmd -D -f "$SLURM_CONF" -N fencelab-e2e >"$work/slurmd.out.log" 2>&1 & pids+=($!)
for _ in $(seq 120); do
    [ "$(sinfo -h -N -o %t 2>/dev/null)" = idle ] && break
    sleep 0.5
done
[ "$(sinfo -h -N -o %t 2>/dev/null)" = idle ] || die "the node did not become idle: $(sinfo -N 2>&1)"
say "slurmctld (port $ctl_port), slurmd (port $d_port) and munged up; node idle with $cpus CPUs"

# State of a job (an array: one state per task), from the controller.
states() { scontrol -o show job "$1" | grep -o 'JobState=[A-Z_]*' | cut -d= -f2 | sort -u | tr '\n' ' '; }
wait_done() {
    local s
    for _ in $(seq 600); do
        s=$(states "$1")
        case $s in *PENDING*|*RUNNING*|*CONFIGURING*|*COMPLETING*|*REQUEUE*|*SUSPENDED*) sleep 0.5;; *) echo "$s"; return;; esac
    done
    die "job $1 still not finished after 300 s: $(scontrol -o show job "$1")"
}
# Submits with deploy/slurm/submit.sh; sets $array and $merge from what it prints.
submit() {
    local text
    text=$("$root/deploy/slurm/submit.sh" "$@") || die "submit.sh failed: $text"
    echo "$text" | sed 's/^/  | /'
    submitted=$text
    array=$(echo "$text" | sed -n 's/^sweep: job array \([0-9]*\),.*/\1/p')
    merge=$(echo "$text" | sed -n 's/^merge: job \([0-9]*\) .*/\1/p')
    [ -n "$merge" ] || die "submit.sh did not print the merge job id"
    jobs+=(${array:+"$array"} "$merge")
}

cd "$work/run"
grid=("$root/scenarios/urban-canyon.json" "$root/scenarios/edge-loiter-100m.json"
      --enter 60:90:10 --exit 100:140:20 --confirm 1,2 --replicates 4 --seed 7)
"$bin" sweep "${grid[@]}" --jobs 1 --out reference >/dev/null || die "the unsharded reference sweep failed"
same() {
    local f
    for f in sweep.json sweep.csv sweep.md index.html; do
        cmp -s "reference/$f" "sweep/$f" || die "$1: sweep/$f differs from the unsharded run"
    done
}

say "1. four shards and a dependent merge"
submit 4 sweep -- "${grid[@]}"
[ -n "$array" ] || die "no array job submitted"
s=$(wait_done "$array"); [ "$s" = "COMPLETED " ] || die "array job $array: $s"
s=$(wait_done "$merge"); [ "$s" = "COMPLETED " ] || die "merge job $merge: $s"
same "4 shards"
say "1. ok: sweep/ byte-identical to the unsharded run (sweep.json, sweep.csv, sweep.md, index.html)"

say "2. shard 1 removed and blocked by a file: the task fails, the merge is cancelled"
cp -r sweep.shards/1 saved-shard-1
rm -rf sweep.shards/1 sweep
echo "not a folder" > sweep.shards/1
submit 4 sweep -- "${grid[@]}"
s=$(wait_done "$array"); [ "$s" = "FAILED " ] || die "array job $array (only shard 1): expected FAILED, got $s"
s=$(wait_done "$merge"); [ "$s" = "CANCELLED " ] || die "merge job $merge: expected CANCELLED (kill-on-invalid-dep), got $s"
say "2. ok: task FAILED, merge job CANCELLED instead of pending"

say "3. resume: half of shard 1's work items in its resume file, same submit.sh command"
rm sweep.shards/1
total=$(wc -l < saved-shard-1/items.jsonl)
half=$((total / 2))
{
    python3 -c '
import sys
text, out, inside, escaped = open(sys.argv[1]).read(), [], False, False
for c in text:  # the pretty manifest without whitespace outside strings = its one-line form
    if inside:
        out.append(c)
        if escaped: escaped = False
        elif c == "\\": escaped = True
        elif c == "\"": inside = False
    elif c == "\"": inside = True; out.append(c)
    elif c not in " \t\r\n": out.append(c)
print("".join(out))' saved-shard-1/shard.json
    head -n "$half" saved-shard-1/items.jsonl
} > sweep.shards/.1.sweep-partial.jsonl
submit 4 sweep -- "${grid[@]}"
grep -q "shards 1 of 4" <<<"$submitted" || die "submit.sh should resubmit only shard 1"
s=$(wait_done "$array"); [ "$s" = "COMPLETED " ] || die "array job $array: $s"
s=$(wait_done "$merge"); [ "$s" = "COMPLETED " ] || die "merge job $merge: $s"
log=sweep.shards/logs/sweep-${array}_1.out
[ -f "$log" ] || die "only shard 1 should have run, no $log"
[ "$(ls sweep.shards/logs/sweep-"${array}"_*.out | wc -l)" = 1 ] || die "more than shard 1 resubmitted"
grep -q "resumed $half finished work items" "$log" || die "$log does not say it resumed $half work items: $(cat "$log")"
[ ! -e sweep.shards/.1.sweep-partial.jsonl ] || die "the resume file is still there after success"
same "after resume"
say "3. ok: only shard 1 resubmitted, resumed $half of $total work items, merge byte-identical"
ok=1
say "passed"
