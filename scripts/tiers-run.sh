#!/usr/bin/env bash
# The device-memory tiers (docs/large-sectors.md) on one GPU machine, in one run: SECTORS sectors of SIZE proven in one
# `cuzk prove --gpu` invocation per tier, first with the whole device (the baseline, measured in the same
# sitting), then under each --gpu-memory limit standing in for a smaller card. Every run uses
# --test-randomness, so each tier's proofs must be byte-identical to the baseline's; every baseline proof is
# checked with `cuzk verify`.
#
#   scripts/tiers-run.sh SIZE SECTORS "LIMITS"      # e.g. 32GiB 3 "80GiB 40GiB"; "" runs the baseline only
#
# Environment: CUZK_BIN (default build/cuzk), OUT (default ./tiers-out), CUZK_SCALE_DIR (parameters, C1 files
# and proofs; default build-scale/, git-ignored: a later call on the same warm machine reuses them),
# CUZK_TIERS_BASELINE=0 (skip the baseline run when its proofs are there from an earlier call),
# CUZK_TIERS_FLAGS (more `cuzk prove` flags for every run), CUZK_TIERS_SUMMARY (the summary file, default
# $OUT/tiers-SIZE.txt).
# Writes $OUT/tiers-SIZE.txt: per run the sustained seconds per sector (the mean gap between sector writes
# after the first), the first sector's write time, the whole run, peak anonymous host memory, the peak device
# memory in use, the prove phases per partition, the memory plan, and whether the proofs equal the baseline's;
# and $OUT/SIZE-LIMIT.json, each run's report.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
size="${1:?usage: tiers-run.sh SIZE SECTORS LIMITS}"
sectors="${2:-3}"
limits="${3:-}"
cuzk="${CUZK_BIN:-$root/build/cuzk}"
out="${OUT:-$root/tiers-out}"
work="${CUZK_SCALE_DIR:-$root/build-scale}"
params="$work/params"
mkdir -p "$out" "$params" "$work/c1"
summary="${CUZK_TIERS_SUMMARY:-$out/tiers-$size.txt}"
touch "$summary"
note() { echo "$*" | tee -a "$summary"; }

note "== tiers: $sectors x $size on $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null || echo 'no GPU'), $(date -u +%F), $("$cuzk" --version 2>&1 | head -1)"
params_file="$params/$("$cuzk" params names --sector-size "$size" | awk '/\.params$/ {print $2}')"
if ! "$cuzk" params info "$params_file" >/dev/null 2>&1; then
  start=$(date +%s)
  "$cuzk" params setup --sector-size "$size" --params-dir "$params" --gpu --seed 1 --force >"$out/setup-$size.log" 2>&1
  note "params setup --gpu: $(($(date +%s) - start)) s"
fi
c1s=()
pids=()
for i in $(seq 1 "$sectors"); do
  c1s+=("$work/c1/$size-s$i.json")
  [ -s "$work/c1/$size-s$i.json" ] && continue
  "$cuzk" gen-c1 --sector-size "$size" --seed "$i" --sector-id "$i" -o "$work/c1/$size-s$i.json" >/dev/null 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done

status=0
run_tier() {  # limit ("" for the whole device)
  local limit="$1" label="${1:-whole}"
  local dir="$work/proofs-$size-$label" report="$out/$size-$label.json" log="$out/prove-$size-$label.log"
  rm -rf "$dir"
  local start end rc=0
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  "$cuzk" prove "${c1s[@]}" -o "$dir" --params-dir "$params" --gpu ${limit:+--gpu-memory "$limit"} \
    --test-randomness 5 --report "$report" ${CUZK_TIERS_FLAGS:-} >"$log" 2>&1 || rc=$?
  end=$(date +%s.%N)
  note "-- $size, limit ${limit:-none}: exit $rc, $(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.1f", b - a}') s in all"
  grep -E "memory plan" "$log" | sed 's/^\[[^]]*\] \[[a-z]*\] /   /' | tee -a "$summary" || true
  [ $rc = 0 ] || { tail -5 "$log" | tee -a "$summary"; status=1; return; }
  python3 - "$report" <<'PY' | tee -a "$summary"
import json, statistics, sys
r = json.load(open(sys.argv[1]))
writes = sorted(e["end_s"] for e in r["timeline"] if e["step"] == "write")
gaps = [b - a for a, b in zip(writes, writes[1:])]
# Per partition and step, summed (a partition paired with another for its witness MSMs has two msm_g1
# entries: its h MSM, and its share of the pair's witness MSMs).
per = {}
for e in r["timeline"]:
    if e["lane"] == "prover":
        key = (e["step"], e.get("sector"), e.get("partition"))
        per[key] = per.get(key, 0.0) + e["end_s"] - e["start_s"]
prove = {}
for (step, _, _), t in per.items():
    prove.setdefault(step, []).append(t)
parts = " ".join(f"{k} {statistics.median(v):.2f}" for k, v in sorted(prove.items()))
print(f"   sectors written at {', '.join(f'{w:.1f}' for w in writes)} s; sustained "
      f"{(statistics.mean(gaps) if gaps else float('nan')):.1f} s/sector; first sector {writes[0]:.1f} s")
print(f"   peak anon {r['peak_anon_bytes'] / 2**30:.1f} GiB, peak RSS {r['peak_rss_bytes'] / 2**30:.1f} GiB, "
      f"peak device {r['peak_device_bytes'] / 2**30:.1f} GiB, prover busy {100 * r['prover_busy']:.1f}%")
print(f"   prover lane medians per partition (s): {parts}")
PY
  if [ -z "$limit" ]; then
    for i in $(seq 1 "$sectors"); do
      "$cuzk" verify "$dir/$size-s$i.proof" --c1 "$work/c1/$size-s$i.json" --params-dir "$params" >/dev/null 2>&1 ||
        { note "   verify $size-s$i: INVALID"; status=1; }
    done
    note "   every proof verified with cuzk verify"
  else
    local same=1
    for i in $(seq 1 "$sectors"); do
      cmp -s "$dir/$size-s$i.proof" "$work/proofs-$size-whole/$size-s$i.proof" || same=0
    done
    if [ $same = 1 ]; then note "   proofs byte-identical to the whole-device run"; else note "   proofs DIFFER"; status=1; fi
  fi
}
[ "${CUZK_TIERS_BASELINE:-1}" = 0 ] || run_tier ""
for limit in $limits; do run_tier "$limit"; done
note "== tiers $size: $([ $status = 0 ] && echo PASS || echo FAIL)"
exit $status
