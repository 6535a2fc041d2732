#!/usr/bin/env bash
# An A/B of two cuzk binaries on production-size sectors, in one GPU-machine run (every step is
# measured against the commit before it). The same parameters and C1 files, both binaries with
# --test-randomness, so that their proofs must be the same bytes; `cuzk compare` of the two run reports, and
# each run's timeline as a picture.
#
#   CUZK_BIN_BASE=pack/cuzk-base CUZK_BIN=pack/cuzk scripts/scale-ab.sh SIZE [SECTORS]   # e.g. 32GiB 3
#   # one binary, a flag against its default (the contender's flags after the common ones):
#   CUZK_BIN_BASE=pack/cuzk CUZK_BIN=pack/cuzk CUZK_AB_NEW_FLAGS="--gpu-gather device" scripts/scale-ab.sh 32GiB 3
#
# Environment: CUZK_BIN_BASE (the baseline, run first), CUZK_BIN (the contender), OUT (default ./scale-ab-out),
# CUZK_SCALE_DIR and CUZK_SCALE_SEED as for scripts/scale-run.sh (which this runs once per binary, without the
# separate parameter loads), CUZK_AB_PROVE_FLAGS (more `cuzk prove` flags for both runs), CUZK_AB_BASE_FLAGS and
# CUZK_AB_NEW_FLAGS (flags for the baseline's or the contender's run only).
# Writes to $OUT (at most 8 files, what the GPU machine brings back): ab-SIZE.txt (both runs' summaries, the
# comparison, the proof check), base-SIZE.json, new-SIZE.json (the run reports), compare-SIZE.txt,
# timeline-base-SIZE.svg, timeline-new-SIZE.svg, setup-SIZE.log.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
size="${1:?usage: scale-ab.sh SIZE [SECTORS]}"
sectors="${2:-3}"
base="${CUZK_BIN_BASE:?CUZK_BIN_BASE must name the baseline cuzk binary}"
new="${CUZK_BIN:?CUZK_BIN must name the contender cuzk binary}"
out="${OUT:-$root/scale-ab-out}"
work="${CUZK_SCALE_DIR:-$root/build-scale}"
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
mkdir -p "$out"
summary="$out/ab-$size.txt"
: >"$summary"

status=0
run_one() {  # label, binary, flags of this run only
  local label="$1" bin="$2" flags="${3:-}"
  CUZK_BIN="$bin" OUT="$logs/$label" CUZK_SCALE_LOAD=0 \
    CUZK_SCALE_PROVE_FLAGS="--test-randomness 5 ${CUZK_AB_PROVE_FLAGS:-} $flags" \
    "$root/scripts/scale-run.sh" "$size" "$sectors" || status=1
  sed "s/^/[$label] /" "$logs/$label/scale-$size.txt" >>"$summary"
  cp "$logs/$label/prove-$size.json" "$out/$label-$size.json"
  rm -rf "$work/proofs-$label"
  cp -r "$work/proofs" "$work/proofs-$label"
  "$bin" report timeline "$out/$label-$size.json" -o "$out/timeline-$label-$size.svg" || status=1
}
run_one base "$base" "${CUZK_AB_BASE_FLAGS:-}"
[ -f "$logs/base/setup-$size.log" ] && cp "$logs/base/setup-$size.log" "$out/setup-$size.log"
run_one new "$new" "${CUZK_AB_NEW_FLAGS:-}"

"$new" compare "$out/base-$size.json" "$out/new-$size.json" >"$out/compare-$size.txt" 2>&1 || true
cat "$out/compare-$size.txt" >>"$summary"
for i in $(seq 1 "$sectors"); do
  if cmp -s "$work/proofs-base/s$i.proof" "$work/proofs-new/s$i.proof"; then
    echo "sector $i: the same proof from both binaries" | tee -a "$summary"
  else
    echo "sector $i: the proofs DIFFER (or one is missing)" | tee -a "$summary"
    status=1
  fi
done
echo "== scale A/B $size x $sectors: $([ $status = 0 ] && echo PASS || echo FAIL)" | tee -a "$summary"
exit $status
