#!/usr/bin/env bash
# Proves a batch of C1 files with cuzk on one GPU, the way a sealing script calls a C2 prover: logs to a
# file, one result line per sector, retries by exit code, Prometheus metrics for node_exporter.
# docs/integration.md explains each step.
#
#   c2-batch.sh OUT_DIR C1_FILE...
#
# Environment: GPU (ordinal to pin, default 0; "cpu" for the CPU engine), CUZK (the binary, default cuzk),
# LOG_DIR (default /var/log/cuzk), METRICS_DIR (node_exporter's textfile directory; default: none),
# MAX_ATTEMPTS (default 3), CUZK_FLAGS (more `cuzk prove` flags, e.g. "--gpu-memory 24GiB"),
# FIL_PROOFS_PARAMETER_CACHE (the parameters, as for lotus).
# Exit status: 0 when every sector was proven, 1 when some were given up (listed in OUT_DIR/failed.txt with
# the reason: the error kind of cuzk's record, or "exit N" when cuzk stopped before writing records), 2 for a
# usage or set-up error of this script.
set -uo pipefail

out="${1:?usage: c2-batch.sh OUT_DIR C1_FILE...}"
shift
(($#)) || { echo "usage: c2-batch.sh OUT_DIR C1_FILE..." >&2; exit 2; }
cuzk="${CUZK:-cuzk}"
gpu="${GPU:-0}"
log_dir="${LOG_DIR:-/var/log/cuzk}"
max_attempts="${MAX_ATTEMPTS:-3}"
command -v jq >/dev/null || { echo "c2-batch.sh: jq is needed to read cuzk --json" >&2; exit 2; }
mkdir -p "$out" "$log_dir" ${METRICS_DIR:+"$METRICS_DIR"} || { echo "c2-batch.sh: cannot create the output, log or metrics folder" >&2; exit 2; }
read -r -a extra_flags <<<"${CUZK_FLAGS:-}"

engine=()
if [ "$gpu" != cpu ]; then
  export CUDA_VISIBLE_DEVICES="$gpu"  # this process sees one GPU, as ordinal 0
  engine=(--gpu)
fi
tag="c2-${gpu}"
log="$log_dir/$tag.log"
metrics=()
[ -n "${METRICS_DIR:-}" ] && metrics=(--metrics-file "$METRICS_DIR/cuzk-$tag.prom")

pending=("$@")
declare -A last_error  # per input: why its last attempt failed
: >"$out/failed.txt"
give_up() {  # c1 reason
  echo "$1 $2" >>"$out/failed.txt"
  echo "giving up on $1: $2 (see $log)" >&2
}
for ((attempt = 1; attempt <= max_attempts && ${#pending[@]} > 0; attempt++)); do
  results="$out/results-$attempt.jsonl"
  echo "$(date -Is) attempt $attempt: ${#pending[@]} sector(s)" >>"$log"
  # One process for the whole batch: the parameters are loaded once; --keep-going: a bad sector does
  # not stop the others. Logs and progress lines go to the log file (not a terminal: one plain line per
  # minute at most); stdout carries the JSON records.
  "$cuzk" prove "${engine[@]}" --json --keep-going --progress-interval 60 "${metrics[@]}" "${extra_flags[@]}" -o "$out" \
    --report "$log_dir/$tag-report-$attempt.json" "${pending[@]}" >"$results" 2>>"$log"
  code=$?
  echo "$(date -Is) attempt $attempt: cuzk exited $code" >>"$log"

  retry=()
  while IFS=$'\t' read -r status c1 kind proof; do
    case "$status" in
      proven) echo "proven $c1 -> $proof" ;;
      skipped) retry+=("$c1"); last_error[$c1]="skipped" ;;  # not attempted (without --keep-going: an earlier input failed)
      failed)
        case "$kind" in
          # Transient: the GPU (busy, reset, out of memory), an unexpected error, a proof that did not
          # verify (nothing was written; a second failure points at the parameters or the hardware).
          gpu | internal | verification) retry+=("$c1"); last_error[$c1]="$kind" ;;
          # Permanent for this input: the C1 data is bad (redo commit phase 1), or the setup is
          # (parameters, cache, arguments, no usable GPU: kind "no-device"). Retrying the same call gives
          # the same answer.
          *) give_up "$c1" "$kind" ;;
        esac ;;
    esac
  done < <(jq -r '[.status, .c1, (.error.kind // "-"), (.proof // "-")] | @tsv' "$results")  # no empty field: read would merge tabs

  # No record for an input: cuzk stopped before its records. Exit 2 (usage) and 3 (an output or input
  # path) come before any work and are final; a crash (signal, OOM kill) is retried.
  for c1 in "${pending[@]}"; do
    jq -s -e --arg c1 "$c1" 'any(.[]; .c1 == $c1)' "$results" >/dev/null && continue
    case "$code" in
      2 | 3) give_up "$c1" "exit $code" ;;
      *) retry+=("$c1"); last_error[$c1]="exit $code, no record" ;;
    esac
  done
  pending=("${retry[@]}")
  # Let a busy or resetting GPU settle before the next attempt (none after the last).
  ((${#pending[@]})) && ((attempt < max_attempts)) && sleep "$((attempt * 10))"
done

for c1 in "${pending[@]}"; do give_up "$c1" "${last_error[$c1]} ($max_attempts attempts)"; done
[ -s "$out/failed.txt" ] && exit 1
exit 0
