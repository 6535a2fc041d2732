#!/usr/bin/env bash
# A/B runs of the device-memory tiers in one call: each argument is `LIMIT` or `ENV=VALUE:LIMIT` (the
# environment set for that run alone, e.g. CUZK_GPU_WITNESS_BATCH=1:24GiB for the A run of a change that
# the variable turns off), run by scripts/tiers-run.sh in order after the whole-device baseline (skipped when
# its proofs are there from an earlier call on the same machine). Every run's proofs are compared with the
# baseline's. Collects what comes back in $OUT, in few files (the device tool returns at most 8):
# summary.txt (tiers-run.sh's lines for every run), msm-debug.txt (the per-MSM debug lines of every run,
# CUZK_LOG=debug) and reports.tar.gz (the run reports).
#
#   scripts/device/tiers-ab.sh SIZE SECTORS RUN...      # e.g. 32GiB 3 CUZK_GPU_WITNESS_BATCH=1:24GiB 24GiB
#
# Environment: CUZK_BIN (default build/cuzk), OUT (default ./tiers-ab-out), CUZK_SCALE_DIR (as tiers-run.sh).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
size="${1:?usage: tiers-ab.sh SIZE SECTORS RUN...}"
sectors="${2:?usage: tiers-ab.sh SIZE SECTORS RUN...}"
shift 2
out="${OUT:-$root/tiers-ab-out}"
runs_dir="$(mktemp -d)"
mkdir -p "$out"
summary="$out/summary.txt"
export CUZK_TIERS_SUMMARY="$summary" CUZK_LOG="${CUZK_LOG:-debug}"
status=0
baseline=1
[ -d "${CUZK_SCALE_DIR:-$root/build-scale}/proofs-$size-whole" ] && baseline=0
if [ "$baseline" = 1 ]; then
  OUT="$runs_dir/whole" "$root/scripts/tiers-run.sh" "$size" "$sectors" "" || status=1
fi
i=0
for run in "$@"; do
  i=$((i + 1))
  limit="${run##*:}"
  envs=()
  [ "$run" != "$limit" ] && envs=("${run%:*}")
  echo "== run $i: ${envs[*]:-(defaults)} --gpu-memory $limit" | tee -a "$summary"
  env "${envs[@]}" CUZK_TIERS_BASELINE=0 OUT="$runs_dir/run$i" "$root/scripts/tiers-run.sh" "$size" "$sectors" \
    "$limit" || status=1
done
for log in "$runs_dir"/*/prove-*.log; do
  [ -f "$log" ] || continue
  echo "== $log"
  grep -E "msm [a-z_0-9]+:|memory plan" "$log" | sed 's/^\[[^]]*\] //' | head -400
done >"$out/msm-debug.txt"
tar czf "$out/reports.tar.gz" -C "$runs_dir" $(cd "$runs_dir" && ls -d */*.json 2>/dev/null) 2>/dev/null || true
exit $status
