#!/usr/bin/env bash
# A production-size run on a GPU machine, end to end: test parameters made (or reused), C1 files
# from gen-c1, every sector proven with --gpu in one invocation, every proof checked with `cuzk verify`,
# and the report kept. Meant for one device session of at most 10 minutes on an H200 machine (16 cores,
# 125 GiB RAM, ~64 GiB free disk: the 32GiB and 64GiB parameters are ~44 GiB each, so one size per run).
#
#   scripts/scale-run.sh SIZE [SECTORS]        # e.g. 32GiB 2; or through scripts/gpu-check.sh scale 32GiB
#
# Environment: CUZK_BIN (default build/cuzk), OUT (logs and reports, default ./scale-out), CUZK_SCALE_DIR (the
# work folder: parameters, PCE cache, C1 files, proofs; default build-scale/ in the repository, which git
# ignores), CUZK_SCALE_SEED (toxic-waste seed, default 1), CUZK_SCALE_PROVE_FLAGS (more `cuzk prove` flags),
# CUZK_SCALE_LIMITS (e.g. "22GiB 40GiB": sector 1 proven again under each --gpu-memory limit; with
# --test-randomness in CUZK_SCALE_PROVE_FLAGS its proof must equal the first run's byte for byte),
# CUZK_SCALE_LOAD=0 (skip the separate cold and warm parameter loads), CUZK_SCALE_EQUALITY=K (partition K of
# sector 1 proven by both engines, tests/gpu/partition_equality.cpp; CUZK_SCALE_EQUALITY_SEED, default 5).
# Writes to $OUT: scale-SIZE.txt (the summary: each step's wall time and peak memory), setup-SIZE.log,
# prove-SIZE.log, prove-SIZE.json (the run report), verify-SIZE.log.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
size="${1:?usage: scale-run.sh SIZE [SECTORS]}"
sectors="${2:-2}"
cuzk="${CUZK_BIN:-$root/build/cuzk}"
out="${OUT:-$root/scale-out}"
work="${CUZK_SCALE_DIR:-$root/build-scale}"
seed="${CUZK_SCALE_SEED:-1}"
params="$work/params"
mkdir -p "$out" "$params" "$work/c1" "$work/proofs"
summary="$out/scale-$size.txt"
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }
timed() {  # label, log file, command...: runs it under /usr/bin/time -v, notes wall time and peak RSS
  local label="$1" log="$2"
  shift 2
  local start end status=0
  start=$(date +%s.%N)
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -v -o "$log.time" "$@" >"$log" 2>&1 || status=$?
  else
    "$@" >"$log" 2>&1 || status=$?
    : >"$log.time"
  fi
  end=$(date +%s.%N)
  local rss
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.2f GiB", $2 / 1048576}' "$log.time" 2>/dev/null || echo "?")
  note "$(printf '%-28s %8.1f s  peak RSS %s  exit %d' "$label" "$(awk -v a="$start" -v b="$end" 'BEGIN {print b - a}')" "$rss" "$status")"
  cat "$log.time" >>"$log"
  rm -f "$log.time"
  return $status
}

note "== scale run: $sectors x $size on $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null || echo 'no GPU')"
note "host: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB RAM; disk free in $work: $(df -h --output=avail "$work" | tail -1)"
note "commit: $("$cuzk" --version 2>&1 | head -1)"

params_file="$params/$("$cuzk" params names --sector-size "$size" | awk '/\.params$/ {print $2}')"
if "$cuzk" params info "$params_file" >/dev/null 2>&1; then
  note "parameters: reusing $params_file"
else
  timed "params setup --gpu" "$out/setup-$size.log" \
    "$cuzk" params setup --sector-size "$size" --params-dir "$params" --gpu --seed "$seed" --force
fi
note "parameters: $(du -h "$params_file" | cut -f1) $params_file"

# The C1 files, made in parallel (each is single-threaded work).
pids=()
for i in $(seq 1 "$sectors"); do
  "$cuzk" gen-c1 --sector-size "$size" --seed "$i" --sector-id "$i" -o "$work/c1/s$i.json" >"$work/c1/s$i.log" 2>&1 &
  pids+=($!)
done
start=$(date +%s.%N)
for p in "${pids[@]}"; do wait "$p"; done
note "$(printf '%-28s %8.1f s' "gen-c1 x $sectors" "$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')")"

status=0
c1s=()
for i in $(seq 1 "$sectors"); do c1s+=("$work/c1/s$i.json"); done
# shellcheck disable=SC2086
timed "prove --gpu ($sectors sectors)" "$out/prove-$size.log" \
  "$cuzk" prove "${c1s[@]}" -o "$work/proofs" --params-dir "$params" --gpu --report "$out/prove-$size.json" \
  ${CUZK_SCALE_PROVE_FLAGS:-} || status=1
grep -E "memory plan|parameters on the GPU|shared |  [a-z.]+ +wall|peak RSS|proven in" "$out/prove-$size.log" | sed 's/^\[[^]]*\] \[[a-z]*\] //' | tee -a "$summary"

# The parameter load on its own, cold (the file's pages dropped from the page cache first) and warm.
[ "${CUZK_SCALE_LOAD:-1}" = 0 ] || {
python3 -c "import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)" \
  "$params_file" 2>/dev/null || true
"$cuzk" params load --gpu --sector-size "$size" --params-dir "$params" 2>&1 | grep -v "^\[" | sed 's/^/cold: /' | tee -a "$summary"
"$cuzk" params load --gpu --sector-size "$size" --params-dir "$params" 2>&1 | grep -v "^\[" | sed 's/^/warm: /' | tee -a "$summary"
}

: >"$out/verify-$size.log"
for i in $(seq 1 "$sectors"); do
  if "$cuzk" verify "$work/proofs/s$i.proof" --c1 "$work/c1/s$i.json" --params-dir "$params" >>"$out/verify-$size.log" 2>&1; then
    note "verify s$i: valid"
  else
    note "verify s$i: INVALID or error"
    status=1
  fi
done
for limit in ${CUZK_SCALE_LIMITS:-}; do
  # shellcheck disable=SC2086
  timed "prove s1 --gpu-memory $limit" "$out/prove-$size-$limit.log" \
    "$cuzk" prove "$work/c1/s1.json" -o "$work/proofs-$limit" --params-dir "$params" --gpu --gpu-memory "$limit" \
    --report "$out/prove-$size-$limit.json" --synthesis-workers 1 ${CUZK_SCALE_PROVE_FLAGS:-} || status=1
  grep -E "memory plan|shared |  [a-z.]+ +wall|peak RSS" "$out/prove-$size-$limit.log" | sed 's/^\[[^]]*\] \[[a-z]*\] //' |
    sed "s/^/[$limit] /" | tee -a "$summary"
  if cmp -s "$work/proofs-$limit/s1.proof" "$work/proofs/s1.proof"; then
    note "sector 1 under --gpu-memory $limit: the same proof as with every base resident"
  else
    note "sector 1 under --gpu-memory $limit: proof DIFFERS from the resident run's (or is missing)"
    status=1
  fi
done
if [ -n "${CUZK_SCALE_EQUALITY:-}" ]; then
  # Proof equality at production size: one partition of sector 1 proven by the GPU engine and by the CPU engine with the same
  # r, s (those of --test-randomness CUZK_SCALE_EQUALITY_SEED, default 5): the proofs must be equal, and
  # equal to that partition's 192 bytes in the sector proof above when it was made with the same seed.
  k="$CUZK_SCALE_EQUALITY"
  eq_seed="${CUZK_SCALE_EQUALITY_SEED:-5}"
  eq_bin="${CUZK_EQUALITY_BIN:-$(dirname "$cuzk")/gpu_partition_equality}"
  timed "GPU = CPU, s1 partition $k" "$out/equality-$size.log" \
    "$eq_bin" "$work/c1/s1.json" "$params" "$params/pce" "$k" "$eq_seed" || status=1
  grep -E "^(GPU|CPU|C1|partition|/)" "$out/equality-$size.log" | tee -a "$summary" || true
  if [[ " ${CUZK_SCALE_PROVE_FLAGS:-} " == *" --test-randomness $eq_seed "* ]]; then
    in_sector=$(od -An -tx1 -v -j $((192 * k)) -N 192 "$work/proofs/s1.proof" | tr -d ' \n')
    if grep -q "^GPU proof $in_sector " "$out/equality-$size.log"; then
      note "partition $k of the sector proof (cuzk prove --gpu) is the same 192 bytes"
    else
      note "partition $k of the sector proof DIFFERS from the GPU engine's proof of that partition alone"
      status=1
    fi
  fi
fi
note "== scale run $size: $([ $status = 0 ] && echo PASS || echo FAIL)"
exit $status
