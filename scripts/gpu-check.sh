#!/usr/bin/env bash
# GPU check: configure + build the CUDA backend for sm_90 (H100/H200) in build-gpu-device, run the
# ctest label `gpu`, `cuzk info`, and the benchmark sweep (cuzk_bench_gpu); logs and JSON go to $OUT
# (default ./gpu-check-out; at most 8 files, what the device tool brings back: system.txt, build.log,
# tests.log, prove-2kib.log, prove-cpu.json, prove-gpu.json, bench.log, bench.json); a table is printed last.
#
#   scripts/gpu-check.sh [full|quick|tests|bench] [extra cuzk_bench_gpu arguments...]
#     full   tests (ctest label gpu, and a 2KiB sector proven on the CPU and with --gpu) + the whole sweep (G1 MSM 2^20..2^27 random and witness-like, G2 MSM 2^20..2^25,
#            NTT 2^20..2^27, H 2^27)
#     quick  tests + a small sweep (2^20..2^21)
#     tests  tests only;  bench  the sweep only;  build  configure and build only
#     scale SIZE [SECTORS]  a production-size run: parameters, gen-c1, prove --gpu, verify (scripts/scale-run.sh)
#     profile  Nsight Compute (ncu) reports of the field benchmark kernel, an NTT pass (2^24) and the MSM
#            accumulation (G1 2^23), plus SASS instruction histograms, into $OUT/ncu-*.txt
# Environment: CUZK_GPU_ARCH (default 90), CUZK_GPU_BUILD_DIR (default build-gpu-device),
#   CUZK_GPU_PREBUILT=1 to skip configure/build and run an existing build dir's binaries directly,
#   CUZK_GPU_TARGETS="t1 t2" to build only those targets.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mode="${1:-full}"
shift || true
out="${OUT:-$root/gpu-check-out}"
build="${CUZK_GPU_BUILD_DIR:-$root/build-gpu-device}"
arch="${CUZK_GPU_ARCH:-90}"
mkdir -p "$out"
jobs="$(nproc 2>/dev/null || echo 4)"

nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,driver_version --format=csv 2>&1 | tee "$out/system.txt" || true

if [ "${CUZK_GPU_PREBUILT:-0}" != 1 ]; then
  echo "== configure + build ($build, sm_$arch)"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUZK_CUDA=ON -DCUZK_BUILD_BENCH=OFF \
    -DCMAKE_CUDA_ARCHITECTURES="$arch" >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
  if [ -n "${CUZK_GPU_TARGETS:-}" ]; then
    read -r -a targets <<<"$CUZK_GPU_TARGETS"
  else
    targets=(cuzk cuzk_bench_gpu)
    for t in "$root"/tests/gpu/test_*.cu; do targets+=("gpu_$(basename "$t" .cu)"); done
  fi
  cmake --build "$build" -j "$jobs" --target "${targets[@]}" >>"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
fi

[ "$mode" = build ] && { echo "== built in $build"; exit 0; }

if [ "$mode" = scale ]; then  # scripts/gpu-check.sh scale SIZE [SECTORS]: see scripts/scale-run.sh
  CUZK_BIN="$build/cuzk" OUT="$out" exec "$root/scripts/scale-run.sh" "$@"
fi

if [ "$mode" = profile ]; then
  bench="$build/cuzk_bench_gpu"
  sections=(--section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats
    --section InstructionStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis)
  profile() {  # name, kernel regex, bench arguments...
    local name="$1" kernel="$2"
    shift 2
    ncu --kernel-name "regex:$kernel" --launch-count 1 "${sections[@]}" "$bench" "$@" >"$out/ncu-$name.txt" 2>&1 ||
      echo "ncu $name failed (see $out/ncu-$name.txt)"
    grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|Registers Per|Achieved Occupancy|Issue Slots Busy|No Eligible|Warp Cycles Per Issued|Stall|Executed Ipc A" \
      "$out/ncu-$name.txt" | head -40 | sed "s/^/[$name] /"
  }
  profile field mul_chain --only field --reps 1
  profile ntt ntt_pass --only ntt --min 24 --ntt-max 24 --reps 1
  profile msm accumulate --only g1 --min 23 --g1-max 23 --reps 1
  if command -v cuobjdump >/dev/null; then
    for lib in "$build"/libcuzk_gpu.a; do
      cuobjdump -sass "$lib" >"$out/sass.txt" 2>/dev/null || true
    done
    python3 - "$out/sass.txt" <<'PY' | tee "$out/sass-histogram.txt"
import re, sys, collections
fn, counts = None, collections.defaultdict(collections.Counter)
for line in open(sys.argv[1], errors="replace"):
    m = re.search(r"Function : (\S+)", line)
    if m: fn = m.group(1); continue
    m = re.match(r"\s+/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
    if m and fn: counts[fn][m.group(1).split(".")[0]] += 1
for fn, c in counts.items():
    if any(k in fn for k in ("accumulate", "ntt_pass")):
        total = sum(c.values())
        print(fn[:90], "total", total, " ".join(f"{k}:{v}" for k, v in c.most_common(12)))
PY
  fi
  exit 0
fi

status=0
if [ "$mode" != bench ]; then
  echo "== cuzk info"
  "$build/cuzk" info 2>&1 | tee -a "$out/system.txt" || status=1
  echo "== gpu tests"
  if [ "${CUZK_GPU_PREBUILT:-0}" = 1 ]; then
    for t in "$build"/tests/gpu_test_* "$build"/gpu_test_*; do  # a build dir, or a gpu-pack folder
      [ -x "$t" ] || continue
      "$t" --gtest_brief=1 2>&1 | tee -a "$out/tests.log" || status=1
    done
  else
    (cd "$build" && ctest -L gpu --output-on-failure 2>&1) | tee "$out/tests.log" || status=1
  fi
  # A whole 2KiB sector (2^22 domain) through the CLI on the CPU and with --gpu: both proofs must verify;
  # `cuzk compare` prints the phase changes (its exit 10 only means the GPU run was slower somewhere).
  echo "== 2KiB sector: prove (CPU) vs prove --gpu"
  work="$build/gpu-check-2kib"
  mkdir -p "$work"
  {
    "$build/cuzk" params info "$work/params/$("$build/cuzk" params names --sector-size 2KiB | awk '/\.vk$/ {print $2}')" \
      >/dev/null 2>&1 || "$build/cuzk" params setup --sector-size 2KiB --params-dir "$work/params" --force >/dev/null
    "$build/cuzk" gen-c1 --sector-size 2KiB --seed 11 --sector-id 5 -o "$work/c1.json" >/dev/null
    "$build/cuzk" prove "$work/c1.json" -o "$work/cpu" --params-dir "$work/params" --report "$out/prove-cpu.json" >/dev/null
    "$build/cuzk" prove "$work/c1.json" -o "$work/gpu" --params-dir "$work/params" --report "$out/prove-gpu.json" --gpu \
      >/dev/null
    "$build/cuzk" verify "$work/gpu/c1.proof" --c1 "$work/c1.json" --params-dir "$work/params"
    "$build/cuzk" compare "$out/prove-cpu.json" "$out/prove-gpu.json" || [ $? = 10 ]
    # Two sectors with --gpu, synthesis overlapping proving or not (the second report against the first).
    "$build/cuzk" gen-c1 --sector-size 2KiB --seed 12 --sector-id 6 -o "$work/c1b.json" >/dev/null
    for overlap in off on; do
      "$build/cuzk" prove "$work/c1.json" "$work/c1b.json" -o "$work/two-$overlap" --params-dir "$work/params" \
        --gpu --overlap "$overlap" --report "$work/two-$overlap.json" >/dev/null
    done
    echo "two sectors with --gpu: --overlap off -> on"
    "$build/cuzk" compare "$work/two-off.json" "$work/two-on.json" || [ $? = 10 ]
  } 2>&1 | grep -v " info " | tee "$out/prove-2kib.log" || status=1
fi

if [ "$mode" != tests ]; then
  echo "== benchmark sweep"
  args=()
  [ "$mode" = quick ] && args+=(--quick)
  "$build/cuzk_bench_gpu" "${args[@]}" --json "$out/bench.json" "$@" 2>&1 | tee "$out/bench.log" || status=1
fi
echo "== gpu-check: $([ $status = 0 ] && echo PASS || echo FAIL) (logs in $out)"
exit $status
