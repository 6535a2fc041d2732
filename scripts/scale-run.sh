#!/usr/bin/env bash
# A production-size run on a GPU machine, end to end (issue 16): test parameters made (or reused), C1 files
# from gen-c1, every sector proven with --gpu in one invocation, every proof checked with `cuzk verify`,
# and the report kept. Meant for one device session of at most 10 minutes on an H200 machine (16 cores,
# 125 GiB RAM, ~64 GiB free disk: the 32GiB and 64GiB parameters are ~44 GiB each, so one size per run).
#
#   scripts/scale-run.sh SIZE [SECTORS]        # e.g. 32GiB 2; or through scripts/gpu-check.sh scale 32GiB
#
# Environment: CUZK_BIN (default build/cuzk), OUT (logs and reports, default ./scale-out), CUZK_SCALE_DIR (the
# work folder: parameters, PCE cache, C1 files, proofs; default build-scale/ in the repository, which git
# ignores), CUZK_SCALE_SEED (toxic-waste seed, default 1), CUZK_SCALE_PROVE_FLAGS (more `cuzk prove` flags).
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

c1s=()
for i in $(seq 1 "$sectors"); do c1s+=("$work/c1/s$i.json"); done
# shellcheck disable=SC2086
timed "prove --gpu ($sectors sectors)" "$out/prove-$size.log" \
  "$cuzk" prove "${c1s[@]}" -o "$work/proofs" --params-dir "$params" --gpu --report "$out/prove-$size.json" \
  ${CUZK_SCALE_PROVE_FLAGS:-}
grep -E "shared |  [a-z.]+ +wall|peak RSS|proven in" "$out/prove-$size.log" | sed 's/^\[[^]]*\] \[[a-z]*\] //' | tee -a "$summary"

# The parameter load on its own, cold (the file's pages dropped from the page cache first) and warm.
python3 -c "import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)" \
  "$params_file" 2>/dev/null || true
"$cuzk" params load --gpu --sector-size "$size" --params-dir "$params" 2>&1 | grep -v "^\[" | sed 's/^/cold: /' | tee -a "$summary"
"$cuzk" params load --gpu --sector-size "$size" --params-dir "$params" 2>&1 | grep -v "^\[" | sed 's/^/warm: /' | tee -a "$summary"

status=0
: >"$out/verify-$size.log"
for i in $(seq 1 "$sectors"); do
  if "$cuzk" verify "$work/proofs/s$i.proof" --c1 "$work/c1/s$i.json" --params-dir "$params" >>"$out/verify-$size.log" 2>&1; then
    note "verify s$i: valid"
  else
    note "verify s$i: INVALID or error"
    status=1
  fi
done
note "== scale run $size: $([ $status = 0 ] && echo PASS || echo FAIL)"
exit $status
