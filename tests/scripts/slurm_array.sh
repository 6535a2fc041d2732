#!/usr/bin/env bash
# A real scheduler: this test starts a one-node Slurm cluster (Debian's slurm-wlm and munge; slurmctld and
# slurmd on localhost, its own munge key, socket and ports), submits docs/examples/cuzk-array.sbatch, the
# documented script itself, as an array of 4 tasks over 8 2KiB C1 files (CPU engine), and checks that the 8
# proofs exist and verify, that each sector was proven by exactly one task, and that each task proved the
# sectors `cuzk prove --dry-run --shard K/4` lists. A second submission of the same array proves nothing
# again (--skip-existing). It stops the cluster it started, by PID.
#
# Needs root and the packages slurm-wlm and munge (scripts/install-deps.sh installs them). Without them the
# test fails; CUZK_SKIP_SLURM=1 skips it on purpose (exit 77: ctest reports it as skipped).
set -euo pipefail
: "${CUZK_BIN:?CUZK_BIN must name the cuzk binary}"
src="$(cd "${CUZK_SOURCE_DIR:-$(dirname "${BASH_SOURCE[0]}")/../..}" && pwd)"  # absolute: sbatch runs elsewhere
params="${CUZK_BINARY_DIR:-/tmp}/test-params"  # shared with porep_2kib_e2e.sh and `make demo`
sbatch_script="$src/docs/examples/cuzk-array.sbatch"
fail() { echo "FAIL: $*" >&2; exit 1; }

if [ "${CUZK_SKIP_SLURM:-0}" = 1 ]; then
  echo "SKIP: CUZK_SKIP_SLURM=1: the Slurm array test was not run" >&2
  exit 77
fi
export PATH="$PATH:/usr/sbin:/sbin"
missing=()
for tool in slurmctld slurmd sbatch sinfo squeue scancel munged munge unmunge setpriv jq timeout; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
((${#missing[@]} == 0)) || fail "missing ${missing[*]}: install slurm-wlm, munge and jq (scripts/install-deps.sh), or set CUZK_SKIP_SLURM=1 to skip this test"
[ "$(id -u)" -eq 0 ] || fail "the Slurm test starts munged and slurmd and must run as root (or set CUZK_SKIP_SLURM=1 to skip it)"
id munge >/dev/null 2>&1 || fail "no munge user (the munge package creates it)"
[ -f "$sbatch_script" ] || fail "$sbatch_script is missing"
prove_help="$("$CUZK_BIN" prove --help)" || fail "cuzk prove --help exited $?"
for flag in --shard --skip-existing; do
  grep -Eq -- "^ *$flag( |$)" <<<"$prove_help" || fail "cuzk prove has no $flag flag, which cuzk-array.sbatch passes"
done

tmp="$(mktemp -d)"
chmod 0755 "$tmp"  # the munge user walks through it to its folders
pids=()            # the daemons, in the order to stop them: slurmd, slurmctld, munged (last: they need it)
watchdog=""
sbatch_pid=""      # a `timeout sbatch --wait` in progress
alive() {  # a zombie (exited, not yet waited for) is dead
  local state
  state="$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" && [ -n "$state" ] && [ "$state" != Z ]
}
stop_cluster() {
  if ((${#pids[@]})) && [ -n "${SLURM_CONF:-}" ]; then
    # The tasks get SIGTERM (cuzk stops at a safe point, the script waits for it), SIGKILL after KillWait.
    timeout 10 scancel --quiet --full --user=root >/dev/null 2>&1 || true
    for _ in $(seq 100); do
      [ -z "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] && break
      sleep 0.2
    done
  fi
  local pid
  for pid in "${pids[@]}"; do
    kill -TERM "$pid" 2>/dev/null || continue
    for _ in $(seq 25); do alive "$pid" || break; sleep 0.2; done
  done
  for pid in "${pids[@]}"; do  # slurmd ignores TERM while munge is broken
    if alive "$pid"; then
      echo "$(cat "/proc/$pid/comm" 2>/dev/null) ($pid) did not stop on TERM: KILL" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
  done
  pids=()
}
cleanup() {
  local code=$?
  [ -n "$sbatch_pid" ] && { kill -TERM "$sbatch_pid" 2>/dev/null || true; }  # timeout passes it on to sbatch
  stop_cluster
  [ -n "$watchdog" ] && { kill -TERM "$watchdog" 2>/dev/null || true; wait "$watchdog" 2>/dev/null || true; }
  if ((code != 0)) && ((code != 77)); then
    for log in "$tmp"/slurm/*.log "$tmp"/munge/log/munged.log "$tmp"/submit/*.log; do
      [ -s "$log" ] && { echo "--- $log (last lines)" >&2; tail -n 15 "$log" >&2; }
    done
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

# Inputs: 8 2KiB C1 files, the shared test parameters, and the constraint cache built once (the tasks read it).
# shellcheck source=tests/scripts/lib/shared_params.bash
source "$(dirname "${BASH_SOURCE[0]}")/lib/shared_params.bash"
shared_test_params "$params" || fail "params setup exited $?"
mkdir -p "$tmp/c1"
for i in $(seq 1 8); do
  "$CUZK_BIN" gen-c1 --sector-size 2KiB --seed "$i" --sector-id "$i" -o "$tmp/c1/s$i.json" >/dev/null 2>&1 ||
    fail "gen-c1 --seed $i exited $?"
done
"$CUZK_BIN" pce build --sector-size 2KiB --params-dir "$params" --cache-dir "$tmp/pce" >/dev/null 2>&1 ||
  fail "pce build exited $?"

# The cluster. A private munge key and socket folder (0711, so that slurmd and the clients reach the
# socket); munged in the foreground as the munge user through setpriv, which execs: $! is munged.
started=$(date +%s)
m="$tmp/munge"
mkdir -p "$m/etc" "$m/run" "$m/log" "$m/lib"
head -c 1024 /dev/urandom >"$m/etc/munge.key"
chmod 0400 "$m/etc/munge.key"
chmod 0700 "$m/etc" "$m/log" "$m/lib"
chmod 0711 "$m/run"
chown -R munge:munge "$m"
socket="$m/run/munge.socket"
setpriv --reuid=munge --regid=munge --clear-groups munged --foreground --key-file="$m/etc/munge.key" \
  --socket="$socket" --pid-file="$m/run/munged.pid" --seed-file="$m/lib/munged.seed" \
  --log-file="$m/log/munged.log" >/dev/null 2>&1 &
pids=("$!")
echo "${pids[@]}" >"$tmp/pids"
for _ in $(seq 50); do [ -S "$socket" ] && break; sleep 0.1; done
timeout 10 munge -n -S "$socket" | timeout 10 unmunge -S "$socket" >/dev/null 2>&1 ||
  fail "munged does not answer on $socket"

# Everything the cluster does has a deadline: past it, the daemons are killed whatever this shell is doing.
( trap 'kill "$sleeper" 2>/dev/null; exit 0' TERM
  sleep 1200 & sleeper=$!
  wait "$sleeper"
  echo "slurm_array.sh: the cluster ran past 1200 s: stopping its jobs, killing it" >&2
  timeout 10 scancel --quiet --full --user=root >/dev/null 2>&1
  sleep 10
  read -r -a daemons <"$tmp/pids"
  kill -KILL "${daemons[@]}" 2>/dev/null ) &
watchdog=$!

# Ports of its own: two free ones next to each other, picked at random.
port_free() { ! timeout 1 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }
port=""
for _ in $(seq 20); do
  p=$((20000 + RANDOM % 30000))
  port_free "$p" && port_free "$((p + 1))" && { port=$p; break; }
done
[ -n "$port" ] || fail "no two free ports next to each other"

# Fake GPUs for the script's --gres=gpu:1: character devices with the numbers of /dev/null (Slurm checks
# only that they are devices, and sets CUDA_VISIBLE_DEVICES per task; TaskPlugin=task/none fences nothing).
s="$tmp/slurm"
mkdir -p "$s/state" "$s/spool" "$s/dev" "$tmp/submit"
gres_types="" node_gres="" gres_override=()
if for i in 0 1 2 3; do mknod "$s/dev/gpu$i" c 1 3 || exit 1; done 2>/dev/null; then
  gres_types="GresTypes=gpu" node_gres="Gres=gpu:4"
  echo "NodeName=localhost Name=gpu File=$s/dev/gpu[0-3]" >"$s/gres.conf"
else
  echo "note: mknod is not permitted here: no fake GPUs, the array is submitted with --gres=none" >&2
  gres_override=(--gres=none)
fi
# No cgroups (proctrack/linuxproc, task/none), no accounting, root as the Slurm user. CPUs=2 on any
# machine (config_overrides: slurmd takes the node as configured): two tasks at a time, 1 thread each
# (each holds ~2.7 GB while it proves).
cat >"$s/slurm.conf" <<EOF
ClusterName=cuzktest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$s/state
SlurmdSpoolDir=$s/spool
SlurmctldPidFile=$s/slurmctld.pid
SlurmdPidFile=$s/slurmd.pid
SlurmctldLogFile=$s/slurmctld.log
SlurmdLogFile=$s/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
KillWait=5
SlurmdParameters=config_overrides
$gres_types
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 RealMemory=4096 $node_gres State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$s/slurm.conf"
slurmctld -D -i -f "$SLURM_CONF" >"$s/slurmctld.out" 2>&1 &
pids=("$!" "${pids[@]}")
slurmd -D -N localhost -f "$SLURM_CONF" >"$s/slurmd.out" 2>&1 &
pids=("$!" "${pids[@]}")
echo "${pids[@]}" >"$tmp/pids"
state=""
for _ in $(seq 100); do
  state="$(timeout 5 sinfo -h -n localhost -o %T 2>/dev/null || true)"
  case "$state" in
    idle) break ;;
    *inval* | *drain*) fail "the node is '$state' (slurmctld.log says why)" ;;
  esac
  for pid in "${pids[@]}"; do alive "$pid" || fail "$(cat "$s"/*.out) a Slurm or munge daemon exited"; done
  sleep 0.2
done
[ "$state" = idle ] || fail "the node is '$state', not idle, 20 s after the daemons started"
echo "cluster up in $(($(date +%s) - started)) s"

# The array, as docs/integration.md submits it, with the resources of this machine instead of a GPU node's.
# The script gets its settings from the environment of sbatch.
proofs="$tmp/proofs"
submit() {  # submit NAME SECONDS: runs the array, waits for it at most SECONDS; sets job
  local got=0
  # In the background: a TERM to this test is handled at once, not when sbatch returns.
  (cd "$tmp/submit" && CUZK="$CUZK_BIN" CUZK_ENGINE=cpu CUZK_FLAGS="--threads 1" MAX_ATTEMPTS=1 \
    FIL_PROOFS_PARAMETER_CACHE="$params" CUZK_PCE_CACHE="$tmp/pce" \
    exec timeout "$2" sbatch --array=0-3 --wait --parsable --cpus-per-task=1 --mem=512M "${gres_override[@]}" \
    "$sbatch_script" "$proofs" "$tmp"/c1/s*.json) >"$tmp/sbatch-$1.out" 2>"$tmp/sbatch-$1.err" &
  sbatch_pid=$!
  wait "$sbatch_pid" || got=$?
  sbatch_pid=""
  job="$(head -n 1 "$tmp/sbatch-$1.out")"
  job="${job%%;*}"
  if ((got != 0)); then
    cat "$tmp/sbatch-$1.err" "$tmp"/submit/*.log >&2 2>/dev/null || true
    ((got == 124)) && fail "the $1 array was still running after $2 s"
    fail "the $1 array exited $got"
  fi
  [[ "$job" =~ ^[0-9]+$ ]] || fail "sbatch printed '$job', not a job id"
}
t0=$(date +%s)
submit first 900  # 234 s on two cores otherwise idle: 8 proofs of ~37 CPU-seconds each, 4 parameter loads
echo "first array (job $job): $(($(date +%s) - t0)) s"

# 4 tasks, one record file each (no retry), each with its own shard and its own fake GPU.
for k in 0 1 2 3; do
  [ -s "$proofs/results/${job}_$k.1.jsonl" ] || fail "task $k wrote no records"
  log="$tmp/submit/cuzk-c2-${job}_$k.log"
  [ -s "$log" ] || fail "task $k has no log $log"
  grep -q "shard $k of 4" "$log" || { cat "$log" >&2; fail "task $k's log does not name shard $k of 4"; }
  if [ -n "$node_gres" ]; then  # Slurm gave the task one of the fake GPUs
    grep -Eq "CUDA_VISIBLE_DEVICES=[0-3]\b" "$log" || { cat "$log" >&2; fail "task $k was given no GPU"; }
  fi
done
[ "$(find "$proofs/results" -name "${job}_*" | wc -l)" -eq 4 ] || fail "not 4 record files: $(ls "$proofs/results")"

# Every sector proven exactly once over the 4 tasks, 2 per task; nothing failed.
jq -s -e 'all(.[]; .status == "proven")' "$proofs"/results/"${job}"_*.jsonl >/dev/null ||
  fail "records other than proven: $(jq -c 'select(.status != "proven")' "$proofs"/results/"${job}"_*.jsonl)"
got="$(jq -r '.sector' "$proofs"/results/"${job}"_*.jsonl | sort | uniq -c | awk '{print $2 "x" $1}' | tr '\n' ' ')"
[ "$got" = "s1x1 s2x1 s3x1 s4x1 s5x1 s6x1 s7x1 s8x1 " ] || fail "sectors proven (sector x times): $got"
for k in 0 1 2 3; do
  n="$(jq -s 'length' "$proofs/results/${job}_$k.1.jsonl")"
  [ "$n" -eq 2 ] || fail "task $k proved $n sectors, not 2 of the 8"
done
# The split is the one the dry run shows: `cuzk prove --dry-run --shard K/4` lists task K's sectors.
for k in 0 1 2 3; do
  want="$("$CUZK_BIN" prove --dry-run --shard "$k/4" --json -o "$tmp/dry-run" --params-dir "$params" \
    --pce-cache-dir "$tmp/pce" "$tmp"/c1/s*.json 2>"$tmp/dry-run.err" | jq -r '.sectors[].sector' | sort | tr '\n' ' ')" ||
    { cat "$tmp/dry-run.err" >&2; fail "cuzk prove --dry-run --shard $k/4 failed"; }
  got="$(jq -r '.sector' "$proofs/results/${job}_$k.1.jsonl" | sort | tr '\n' ' ')"
  [ -n "$want" ] && [ "$got" = "$want" ] || fail "task $k proved $got; cuzk prove --dry-run --shard $k/4 lists '$want'"
done

# The 8 proofs, and nothing else, each verified against its C1 file.
[ "$(cd "$proofs" && ls -- *.proof | tr '\n' ' ')" = "s1.proof s2.proof s3.proof s4.proof s5.proof s6.proof s7.proof s8.proof " ] ||
  fail "proof files: $(ls -A "$proofs")"
for i in $(seq 1 8); do
  "$CUZK_BIN" verify "$proofs/s$i.proof" --c1 "$tmp/c1/s$i.json" --params-dir "$params" >/dev/null 2>&1 ||
    fail "s$i.proof does not verify"
done
# ... and not against another sector's C1 file (verify can fail).
if "$CUZK_BIN" verify "$proofs/s1.proof" --c1 "$tmp/c1/s2.json" --params-dir "$params" >/dev/null 2>&1; then
  fail "cuzk verify accepted s1.proof for sector s2"
fi

# The same submission again: every proof exists and verifies, so nothing is proven and no file changes.
sums="$(cd "$proofs" && sha256sum -- *.proof)"
first_job=$job
t0=$(date +%s)
submit again 180
echo "second array (job $job): $(($(date +%s) - t0)) s"
[ "$job" != "$first_job" ] || fail "the second submission got the first one's job id"
[ "$(cat "$proofs"/results/"${job}"_*.1.jsonl | wc -l)" -eq 8 ] || fail "the second array did not write 8 records"
got="$(jq -r '"\(.status)/\(.reason)/\(.sector)"' "$proofs"/results/"${job}"_*.1.jsonl | sort | tr '\n' ' ')"
want="$(for i in $(seq 1 8); do printf 'skipped/already_proven/s%s ' "$i"; done)"
[ "$got" = "$want" ] || fail "the second array's records (status/reason/sector): $got"
[ "$(cd "$proofs" && sha256sum -- *.proof)" = "$sums" ] || fail "the second array changed proof files"
[ "$(find "$proofs" -mindepth 1 -maxdepth 1 ! -name results | wc -l)" -eq 8 ] || fail "the second array left other files: $(ls -A "$proofs")"

stop_cluster
echo "ok: a 4-task Slurm array proved 8 sectors, each once, all verified; a rerun skipped them all ($(($(date +%s) - started)) s with the cluster)"
