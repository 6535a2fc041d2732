#!/usr/bin/env bash
# SnapDeals update proofs on the GPU against the CPU: for each SIZE, test parameters for the update circuit
# (`params setup --circuit update`, --gpu above 8MiB), SECTORS update inputs from `gen-update`, proven once
# with `--gpu` and (where CPU_SIZES names the size) once on the CPU, both with --test-randomness, so the
# proof files must be byte-identical; every GPU proof is also checked with `cuzk verify --update`. Prints
# per sector the seconds it took and its phases per partition (synthesis, H step, MSMs).
# GPU_VARIANTS adds GPU runs with other flags, each A/B'd against the plain `--gpu` run of the same sitting
# (its proofs byte-identical too): e.g. GPU_VARIANTS="host:--gpu-constraints=host serial:--overlap=off",
# or the device-memory tiers: GPU_VARIANTS="g24:--gpu-memory=24GiB g16:--gpu-memory=16GiB". Each run's
# memory plans (the job's and the engine's) go into the summary.
#
#   scripts/device/update-gpu-run.sh "SIZES" [SECTORS] ["CPU_SIZES"]   # e.g. "2KiB 8MiB 512MiB" 2 "2KiB 8MiB 512MiB"
#
# Environment: CUZK_BIN (default out/small/cuzk), OUT (default ./update-gpu-out: reports, logs, summary.txt),
# CUZK_SCALE_DIR (parameters, inputs and proofs; default build-scale/, git-ignored), GPU_VARIANTS (above),
# SKIP_GPU=1 (run only the variants: the plain GPU run's proofs are already in CUZK_SCALE_DIR).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
sizes="${1:?usage: update-gpu-run.sh \"SIZES\" [SECTORS] [\"CPU_SIZES\"]}"
sectors="${2:-2}"
cpu_sizes="${3:-2KiB 8MiB}"
cuzk="${CUZK_BIN:-$root/out/small/cuzk}"
out="${OUT:-$root/update-gpu-out}"
work="${CUZK_SCALE_DIR:-$root/build-scale}"
params="$work/params"
mkdir -p "$out" "$params" "$work/update"
summary="$out/summary.txt"
touch "$summary"
note() { echo "$*" | tee -a "$summary"; }
# The GPU machine's image has python3 but no jq: the reports are read with python3.
phases() {  # report
  python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for s in r["sectors"]:
    p, n = s["phases"], max(1, s["partitions"])
    per = lambda k: p.get(k, {}).get("wall_s", 0) / n
    print(f"   sector {s['sector']}: {s['span_s']:.2f} s, {s['partitions']} partitions; per partition "
          f"synthesize {per('synthesize'):.3f} / satisfied {per('satisfied'):.3f} / prove {per('prove'):.3f} "
          f"(H {per('prove.h'):.3f}, G1 {per('prove.msm_g1'):.3f}, G2 {per('prove.msm_g2'):.3f}) s")
shared = ", ".join(f"{k} {v['wall_s']:.2f} s" for k, v in r.get("shared_phases", {}).items())
print(f"   shared: {shared}; run {r['total']['wall_s']:.2f} s, peak anon {r['peak_anon_bytes'] / 2**30:.1f} GiB, "
      f"peak device {r.get('peak_device_bytes', 0) / 2**30:.1f} GiB")
PY
}

note "== update proofs, GPU against CPU: $sectors x ($sizes) on" \
  "$(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null | head -1 || echo 'no GPU')," \
  "$(date -u +%F), $("$cuzk" --version 2>&1 | head -1)"
status=0
for size in $sizes; do
  gpu_setup=()
  case "$size" in 2KiB | 8MiB) ;; *) gpu_setup=(--gpu) ;; esac
  start=$(date +%s)
  if "$cuzk" params names --circuit update --sector-size "$size" 2>/dev/null | awk '{print $2}' |
    while read -r name; do [ -s "$params/$name" ] || exit 1; done; then
    note "$size: update parameters already in $params"
  elif ! "$cuzk" params setup --circuit update --sector-size "$size" --params-dir "$params" --seed 1 \
    "${gpu_setup[@]}" >"$out/setup-$size.log" 2>&1; then
    note "$size: params setup failed"; tail -5 "$out/setup-$size.log"; status=1; continue
  else
    note "$size: params setup --circuit update ${gpu_setup[*]}: $(($(date +%s) - start)) s"
  fi
  inputs=()
  for i in $(seq 1 "$sectors"); do
    inputs+=("$work/update/$size-u$i.json")
    [ -s "$work/update/$size-u$i.json" ] ||
      "$cuzk" gen-update --sector-size "$size" --seed "$i" --sector-id "$i" -o "$work/update/$size-u$i.json" \
        >/dev/null 2>&1 || { note "$size: gen-update failed"; status=1; continue 2; }
  done
  for engine in gpu ${GPU_VARIANTS:-} cpu; do
    [ "$engine" = cpu ] && [[ " $cpu_sizes " != *" $size "* ]] && continue
    [ "$engine" = gpu ] && [ "${SKIP_GPU:-0}" = 1 ] && continue
    flags=()
    case "$engine" in
      gpu) flags=(--gpu) ;;
      cpu) ;;
      *:*) IFS=' ' read -r -a flags <<<"--gpu ${engine#*:}"; engine="gpu-${engine%%:*}" ;;
    esac
    dir="$work/proofs-update-$size-$engine"
    rm -rf "$dir"
    start=$(date +%s.%N)
    rc=0
    "$cuzk" prove "${inputs[@]}" -o "$dir" --params-dir "$params" --test-randomness 5 "${flags[@]}" \
      --report "$out/update-$size-$engine.json" >"$out/prove-$size-$engine.log" 2>&1 || rc=$?
    wall=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$start" "$(date +%s.%N)")
    note "$size $engine: exit $rc, $wall s for $sectors sector(s)"
    if [ "$rc" != 0 ]; then tail -5 "$out/prove-$size-$engine.log" | tee -a "$summary"; status=1; continue; fi
    phases "$out/update-$size-$engine.json" | tee -a "$summary"
    # The job's memory plan and the GPU engine's own (they must agree: job/update_prove.cpp).
    grep -hE "memory plan" "$out/prove-$size-$engine.log" | sed 's/^[^ ]* [a-z]* //' | cut -c1-600 |
      sed 's/^/   /' | tee -a "$summary" || true
  done
  for i in $(seq 1 "$sectors"); do
    gpu_proof="$work/proofs-update-$size-gpu/$i.proof"
    [ -s "$gpu_proof" ] || continue
    if "$cuzk" verify "$gpu_proof" --update "$work/update/$size-u$i.json" --params-dir "$params" >/dev/null 2>&1; then
      note "$size sector $i: the GPU proof verifies"
    else
      note "$size sector $i: the GPU proof does NOT verify"; status=1
    fi
    for other in "$work/proofs-update-$size"-gpu-*/ "$work/proofs-update-$size-cpu/"; do
      [ -s "$other$i.proof" ] || continue
      name="$(basename "$other")"
      if cmp -s "$gpu_proof" "$other$i.proof"; then
        note "$size sector $i: the GPU proof and ${name#proofs-update-"$size"-}'s byte-identical ($(stat -c %s "$gpu_proof") bytes)"
      else
        note "$size sector $i: the GPU proof and ${name#proofs-update-"$size"-}'s DIFFER"; status=1
      fi
    done
  done
done
note "== update-gpu-run: $([ $status = 0 ] && echo PASS || echo FAIL)"
exit $status
