#!/usr/bin/env bash
# Correctness on a GPU machine from a prebuilt pack (scripts/gpu-pack.sh), before any production-size run:
#   1. every GPU test (gpu-pack/run.sh);
#   2. test parameters made on the GPU equal, byte for byte, those made on the CPU for the same seed (2KiB and
#      8MiB);
#   3. a 512MiB sector pair proven with --gpu, all bases resident, and again with --gpu-memory small enough
#      that the streamed tier is used: with the same --test-randomness the proofs must be identical; every
#      proof verified with `cuzk verify`; the timeline drawn.
#
#   OUT=<dir> scripts/gpu-validate.sh [PACK_DIR]       # PACK_DIR default: gpu-pack
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pack="${1:-$root/gpu-pack}"
out="${OUT:-$root/gpu-validate-out}"
work="${CUZK_VALIDATE_DIR:-$root/build-validate}"
export LD_LIBRARY_PATH="$pack/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cuzk="$pack/cuzk"
mkdir -p "$out" "$work"
status=0
step() { echo "== $*"; }
check() {  # description, command...
  local what="$1"
  shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; status=1; fi
}

step "GPU tests"
"$pack/run.sh" >"$out/gpu-tests.log" 2>&1 || status=1
grep -E "^== |PASSED|FAILED|SKIPPED" "$out/gpu-tests.log" | tail -40

step "test parameters: CPU and GPU, same seed, same bytes"
for size in 2KiB 8MiB; do
  for engine in cpu gpu; do
    flags=()
    [ "$engine" = gpu ] && flags=(--gpu)
    start=$(date +%s.%N)
    "$cuzk" params setup --sector-size "$size" --params-dir "$work/params-$engine-$size" --seed 7 --force \
      "${flags[@]}" >"$out/setup-$engine-$size.log" 2>&1 || { echo "setup $engine $size failed"; tail -5 "$out/setup-$engine-$size.log"; status=1; }
    echo "setup $size on the $engine: $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}') s"
  done
  for kind in params vk; do
    a=$(ls "$work/params-cpu-$size"/*."$kind" 2>/dev/null | head -1)
    b=$(ls "$work/params-gpu-$size"/*."$kind" 2>/dev/null | head -1)
    check "$size .$kind identical on CPU and GPU ($(stat -c %s "$a" 2>/dev/null) bytes)" cmp -s "$a" "$b"
  done
done

step "512MiB: resident and streamed tiers, same proofs"
p512="$work/params-512"
start=$(date +%s.%N)
"$cuzk" params setup --sector-size 512MiB --params-dir "$p512" --seed 3 --gpu --force >"$out/setup-512.log" 2>&1 ||
  { echo "512MiB setup failed"; tail -5 "$out/setup-512.log"; status=1; }
echo "setup 512MiB --gpu: $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}') s"
for i in 1 2; do "$cuzk" gen-c1 --sector-size 512MiB --seed "$i" --sector-id "$i" -o "$work/c512-$i.json" >/dev/null 2>&1; done
"$cuzk" prove "$work/c512-1.json" "$work/c512-2.json" -o "$work/resident" --params-dir "$p512" --gpu \
  --test-randomness 9 --report "$out/prove-512-resident.json" >"$out/prove-512-resident.log" 2>&1 || status=1
"$cuzk" prove "$work/c512-1.json" "$work/c512-2.json" -o "$work/streamed" --params-dir "$p512" --gpu \
  --gpu-memory 1GiB --test-randomness 9 --report "$out/prove-512-streamed.json" >"$out/prove-512-streamed.log" 2>&1 || status=1
grep -h "memory plan" "$out/prove-512-resident.log" "$out/prove-512-streamed.log"
for i in 1 2; do
  check "512MiB sector $i: resident and streamed proofs identical" cmp -s "$work/resident/c512-$i.proof" "$work/streamed/c512-$i.proof"
  check "512MiB sector $i verifies" "$cuzk" verify "$work/streamed/c512-$i.proof" --c1 "$work/c512-$i.json" --params-dir "$p512"
done
grep -hE "shared |peak RSS|proven in" "$out/prove-512-resident.log" "$out/prove-512-streamed.log" | sed 's/^\[[^]]*\] \[[a-z]*\] //'
"$cuzk" report timeline "$out/prove-512-resident.json" -o "$out/timeline-512.svg" || status=1

echo "== gpu-validate: $([ $status = 0 ] && echo PASS || echo FAIL)"
exit $status
