#!/usr/bin/env bash
# Two engines on one GPU: SECTORS sectors of SIZE proven once with one engine and once with two
# on the same device (`--devices 0,0`), each engine under --gpu-memory LIMIT, both with --test-randomness, so
# the proof files must be byte-identical. Prints each engine's partitions and busy share and fails when a
# proof differs or an engine proved nothing. About a minute at 2KiB on an H200 (most of it the build).
#
#   scripts/device/two-engines.sh [SIZE] [SECTORS] [LIMIT]      # defaults: 2KiB 8 60GiB
#
# Environment: CUZK_BIN (default: build-gpu-device/cuzk, built by scripts/gpu-check.sh build when missing),
# OUT (default ./two-engines-out: the reports, the metrics, the logs and summary.txt), CUZK_SCALE_DIR
# (parameters and C1 files, default build-scale/: a later call on the same machine reuses them).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
size="${1:-2KiB}"
sectors="${2:-8}"
limit="${3:-60GiB}"
out="${OUT:-$root/two-engines-out}"
work="${CUZK_SCALE_DIR:-$root/build-scale}"
cuzk="${CUZK_BIN:-$root/build-gpu-device/cuzk}"
mkdir -p "$out" "$work/params" "$work/c1"
# The GPU machine's image has python3 but no jq: the reports are read with python3.
command -v python3 >/dev/null 2>&1 || { echo "python3 is not installed" >&2; exit 1; }
field() {  # report, python expression over r (the report)
  python3 -c "import json, sys; r = json.load(open(sys.argv[1])); print($2)" "$1"
}
if [ ! -x "$cuzk" ]; then
  CUZK_GPU_TARGETS=cuzk OUT="$out" "$root/scripts/gpu-check.sh" build
  cuzk="$root/build-gpu-device/cuzk"
fi
summary="$out/summary.txt"
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }
note "== two engines on one GPU: $sectors x $size, --gpu-memory $limit each, on" \
  "$(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null | head -1 || echo 'no GPU')," \
  "$("$cuzk" --version 2>&1 | head -1)"

params="$work/params"
params_file="$params/$("$cuzk" params names --sector-size "$size" | awk '/\.params$/ {print $2}')"
if ! "$cuzk" params info "$params_file" >/dev/null 2>&1; then
  gpu_setup=()
  [ "$size" = 2KiB ] || gpu_setup=(--gpu)  # the larger setups on the GPU, as scripts/tiers-run.sh makes them
  "$cuzk" params setup --sector-size "$size" --params-dir "$params" "${gpu_setup[@]}" --seed 1 --force \
    >"$out/setup.log" 2>&1
fi
c1s=()
for i in $(seq 1 "$sectors"); do
  c1="$work/c1/$size-s$i.json"
  [ -s "$c1" ] || "$cuzk" gen-c1 --sector-size "$size" --seed "$i" --sector-id "$i" -o "$c1" >/dev/null 2>&1
  c1s+=("$c1")
done
export CUZK_PCE_CACHE="$work/pce"

run() {  # name, more flags...
  local name="$1" start
  shift
  rm -rf "${work:?}/proofs-$name"
  start=$(date +%s%N)
  "$cuzk" prove --gpu --gpu-memory "$limit" --test-randomness 29 --params-dir "$params" -o "$work/proofs-$name" \
    --report "$out/$name.json" --metrics-file "$out/$name.prom" "$@" "${c1s[@]}" >"$out/$name.log" 2>&1 ||
    { tail -20 "$out/$name.log"; note "FAIL: the $name run exited non-zero"; exit 1; }
  note "$name: $((($(date +%s%N) - start) / 1000000)) ms, peak device memory" \
    "$(field "$out/$name.json" "f'{r[\"peak_device_bytes\"] / 2**30:.1f}'") GiB"
}
run one-engine
run two-engines --devices 0,0

status=0
for c1 in "${c1s[@]}"; do
  proof="$(basename "$c1" .json).proof"
  if ! cmp -s "$work/proofs-one-engine/$proof" "$work/proofs-two-engines/$proof"; then
    note "FAIL: $proof differs between one engine and two"
    status=1
  fi
done
[ "$status" -eq 0 ] && note "proofs: all $sectors identical to the one-engine run's"
note "per engine (two-engines run):"
field "$out/two-engines.json" "'\\n'.join(f'  engine {e[\"lane\"]} on GPU {e[\"device\"]}: {e[\"partitions\"]} partitions, busy {e[\"busy_s\"]:.2f} s, {100 * e[\"busy_share\"]:.0f}% of the proving span' for e in r['engines'])" |
  tee -a "$summary"
if [ "$(field "$out/two-engines.json" "len(r['engines']) == 2 and all(e['partitions'] >= 1 for e in r['engines'])")" != True ]; then
  note "FAIL: an engine proved nothing"
  status=1
fi
exit "$status"
